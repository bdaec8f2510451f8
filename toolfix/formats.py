"""Tool-call formats: the families toolfix reads, and how to declare your own.

    >>> from toolfix.formats import available_formats
    >>> "hermes" in available_formats()
    True

A family of your own is a :class:`FormatSpec` passed in ``FixConfig(custom_formats=...)``
(docs/formats.md#adding-a-family).
"""

from __future__ import annotations

from ._repair.formats import available_formats
from ._repair.spec import FormatSpec, JsonSection, KeyValueCalls, TaggedCalls, TagSyntax

__all__ = [
    "FormatSpec",
    "JsonSection",
    "KeyValueCalls",
    "TagSyntax",
    "TaggedCalls",
    "available_formats",
]
