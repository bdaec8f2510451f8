"""The message model: what goes into a model call and what comes out of one.

A :class:`Response` is a tuple of parts (text, reasoning, tool calls, invalid tool
calls); a :class:`Prompt` is a tuple of :class:`Message` turns. Every repair leaves a
:class:`RepairRecord`; an invalid call says why with a :class:`FailureKind`.

    >>> from toolfix.messages import Response, ToolCallPart
    >>> r = Response(parts=(ToolCallPart(id="c1", name="f", arguments_raw="{}", arguments={}),))
    >>> [c.name for c in r.tool_calls]
    ['f']
"""

from __future__ import annotations

from ._messages import (
    FailureKind,
    InvalidToolCallPart,
    Message,
    Part,
    Prompt,
    ReasoningPart,
    RepairRecord,
    Response,
    TextPart,
    ToolCallPart,
    ToolChoice,
    ToolResultPart,
    Usage,
)

__all__ = [
    "FailureKind",
    "InvalidToolCallPart",
    "Message",
    "Part",
    "Prompt",
    "ReasoningPart",
    "RepairRecord",
    "Response",
    "TextPart",
    "ToolCallPart",
    "ToolChoice",
    "ToolResultPart",
    "Usage",
]
