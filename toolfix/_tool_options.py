"""Which request options attach tools (``tools``, ``tool_choice``, ``parallel_tool_calls``,
``functions``, ``function_call``, ``toolConfig``, ``allowed_tools``...).

A request sent without tools (the LLM fixer's intent question) carries none of them,
whether they come from the prompt's ``params`` or from the executor's own options: a
server that ignores a missing ``tools`` list must have nothing to call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["is_tool_option", "without_tool_options"]

_MARKERS = ("tool", "function")


def is_tool_option(key: str) -> bool:
    """Whether a request option is about tools: its name mentions a tool or a function
    (any case, any separator)."""
    low = key.lower()
    return any(m in low for m in _MARKERS)


def without_tool_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` without the tool-related ones."""
    return {k: v for k, v in options.items() if not is_tool_option(str(k))}
