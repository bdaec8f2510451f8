"""Arguments written as a one-element list: ``"parameters": [{"city": "Tokyo"}]``.

A call's arguments are one object; a model sometimes wraps it in a list of one
(llama3.2:3b in llama-stack's recordings: ``{"name":"get_weather",
"parameters":[{"city":"Tokyo"}]}``). Read by what the tool declares, never by the shape
alone: the list holds exactly one object, and every key of it is a parameter the tool
declares (a list of parameter descriptions, ``[{"name": "city", "type": "string"}]``,
echoed documentation, is no call's arguments). Anything else stays the invalid call
it was (``type_mismatch``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._messages import FailureKind, repair_record
from .._tools import ToolDescriptor

__all__ = ["LISTED", "listed_arguments"]

LISTED = repair_record(FailureKind.WRAPPER, "read the arguments from a one-element list")
"""The record of arguments read out of a one-element list."""


def listed_arguments(args: Any, tool: ToolDescriptor) -> Mapping[str, Any] | None:
    """The one object of ``args`` when it is a one-element list of an object whose every
    key ``tool`` declares (see the module), else ``None``."""
    if not isinstance(args, list) or len(args) != 1:
        return None
    (inner,) = args
    props = tool.properties
    if not isinstance(inner, Mapping) or not inner or not inner.keys() <= props.keys():
        return None
    return inner
