"""A call written as an object keyed by the tool's name: ``{"web_search": {"query": ...}}``.

Apertus writes its calls so (``[{"get_weather": {"location": "London"}}]`` between
``<|tools_prefix|>`` and ``<|tools_suffix|>``: ml-explore/mlx-lm pull 1663), and a
server that drops the special tokens leaves the bare object (ollama/ollama pull 12738
reads it there); small models write it unprompted, sometimes with the arguments under
an arguments key (``{"web_search": {"parameters": {"query": ...}}}``: llama3.2:1b in
nanobot, HKUDS/nanobot issue 603).

Read by what the tool declares, never by the shape alone: the object has one key,
which is an offered tool's name (written as declared, or differently only in how it is
written: promise 4); its value is an object (or holds one under its only key, an
arguments key); and every key of the arguments is a parameter the tool declares (a
key the tool does not know makes it some other object keyed by a word that happens to
be a tool's name: ``{"search": {"enabled": true}}`` in a config stays text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._messages import FailureKind, repair_record
from .._tools import ToolRegistry
from .finish import CallShape
from .names import NameMatch

__all__ = ["name_keyed"]

_READ = repair_record(FailureKind.KEY_ALIAS, "read the tool name from the object's only key")


def name_keyed(
    obj: Mapping[str, Any],
    registry: ToolRegistry,
    resolve: Callable[[str], NameMatch],
    argument_keys: tuple[str, ...],
) -> CallShape | None:
    """The call shape of ``obj`` read as ``{tool_name: arguments}`` (see the module), or
    ``None`` when it is not one."""
    if len(obj) != 1:
        return None
    ((key, args),) = obj.items()
    if not isinstance(key, str) or not isinstance(args, Mapping):
        return None
    match = resolve(key)
    tool = registry.lookup(match.name) if match.name is not None else None
    if tool is None:
        return None  # (resolve_name repairs a name only in how it is written: promise 4)
    if len(args) == 1:
        ((inner_key, inner),) = args.items()
        if inner_key in argument_keys and inner_key not in tool.properties:
            if not isinstance(inner, Mapping):
                return None
            args = inner
    if not args or any(k not in tool.properties for k in args):
        return None
    return CallShape(key, dict(args), None, [_READ], has_args_key=False)
