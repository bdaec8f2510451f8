"""Tools: the registry a response is repaired against, and one tool's description.

>>> from toolfix.tools import ToolRegistry
>>> def get_weather(city: str) -> str:
...     return "sunny"
>>> ToolRegistry.of([get_weather]).names
['get_weather']
"""

from __future__ import annotations

from ._tools import ArgumentIssue, ToolDescriptor, ToolRegistry

__all__ = ["ArgumentIssue", "ToolDescriptor", "ToolRegistry"]
