"""Configured argument-key aliases (``FixConfig.argument_aliases``).

A model trained on one agent's tools writes that agent's parameter names for another's:
qwen3-coder ``<parameter=target_file>`` and DeepSeek V4 ``<｜DSML｜parameter name="file">``
for a ``read_file`` whose parameter is ``path`` (hermes-agent PRs 7628 and 81237). The
letters differ, so toolfix never renames such a key on its own (promise 4: a key is
repaired only in how it is written); a user who knows the pairs configures them.

Not even a near match driven by the schema (``path`` for a missing required
``filePath``: qwen2.5-coder in opencode, anomalyco/opencode issue 7083) is taken by
default: the part of a key a model keeps is not always the part that tells the
parameter apart. For ``copy(dest_path, src_path?)`` a call ``{"path": "a.txt"}`` names
the file to copy, and a rename to the one missing required key would write onto it.
The call stays invalid (``missing_required``, its raw text kept) for the LLM-based
fixer, whose feedback lists the tool's parameters.

A configured ``(alias, parameter)`` pair renames an argument key ``alias`` to
``parameter`` only when the called tool declares ``parameter`` and not ``alias``, the
call does not already carry ``parameter``, and no other key of the call would take it
(two keys for one parameter, or one alias naming two missing parameters of the tool:
left as they are). Each rename is recorded as ``key_alias``.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .._messages import FailureKind, RepairRecord, repair_record
from .._tools import ToolDescriptor

__all__ = ["apply_argument_aliases", "renamed"]


@functools.lru_cache(maxsize=32)
def _table(pairs: tuple[tuple[str, str], ...]) -> Mapping[str, tuple[str, ...]]:
    """alias -> the parameters it may stand for (in the order configured)."""
    table: dict[str, list[str]] = {}
    for alias, target in pairs:
        if alias != target and target not in table.setdefault(alias, []):
            table[alias].append(target)
    return {alias: tuple(targets) for alias, targets in table.items()}


def apply_argument_aliases(
    args: dict[str, Any],
    tool: ToolDescriptor,
    pairs: tuple[tuple[str, str], ...],
    repairs: list[RepairRecord],
) -> dict[str, Any]:
    """``args`` with each configured alias key renamed to the one missing parameter it
    stands for (see the module's rules); ``args`` itself when nothing is renamed."""
    if not pairs:
        return args
    props = tool.properties
    table = _table(pairs)
    renames: dict[str, str] = {}
    for key in args:
        if key in props:
            continue
        targets = [t for t in table.get(key, ()) if t in props and t not in args]
        if len(targets) == 1:
            renames[key] = targets[0]
    return renamed(args, renames, repairs, "configured alias")


def renamed(
    args: dict[str, Any], renames: dict[str, str], repairs: list[RepairRecord], why: str
) -> dict[str, Any]:
    """``args`` with its keys renamed as ``renames`` says (old key -> parameter), each
    rename recorded as ``key_alias`` with ``why``; a parameter two keys would write is
    left alone (neither is renamed). ``args`` itself when nothing is renamed."""
    taken = Counter(renames.values())
    renames = {k: v for k, v in renames.items() if taken[v] == 1}
    if not renames:
        return args
    for old, new in renames.items():
        repairs.append(
            repair_record(FailureKind.KEY_ALIAS, f"read the argument {old!r} as {new!r} ({why})")
        )
    return {renames.get(k, k): v for k, v in args.items()}
