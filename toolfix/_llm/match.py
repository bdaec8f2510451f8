"""Pair the calls of a fix reply with the broken calls they answer.

Never by position: a reply may list the calls in any order. A reply call answers
a broken call when it has the broken call's id; otherwise when it names the same
tool (several broken calls of one tool take that tool's reply calls in order).
A broken call whose name is no tool (or that has no name, or is missing) takes a
reply call of a tool that no other broken call names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .._messages import InvalidToolCallPart, ToolCallPart
from .._tools import ToolRegistry
from .feedback import Broken

__all__ = ["match_calls"]

C = TypeVar("C", ToolCallPart, ToolCallPart | InvalidToolCallPart)


def match_calls(
    broken: Sequence[Broken],
    calls: Sequence[C],
    registry: ToolRegistry,
    *,
    lone: bool = False,
) -> tuple[list[tuple[Broken, C]], list[C]]:
    """``(pairs, unmatched calls)``.

    ``lone=True`` also pairs a single unmatched broken call with a single unmatched
    reply call, whatever their names (used for feedback: the model answered the one
    call it was asked about).
    """
    free = list(calls)
    pairs: dict[int, C] = {}

    def take(i: int, c: C) -> None:
        pairs[i] = c
        free.remove(c)

    for i, b in enumerate(broken):  # 1. same id
        c = next((c for c in free if b.id and c.id == b.id), None)
        if c is not None:
            take(i, c)
    for i, b in enumerate(broken):  # 2. same tool name, in order
        if i not in pairs and b.name:
            c = next((c for c in free if c.name == b.name), None)
            if c is not None:
                take(i, c)
    claimed = {b.name for i, b in enumerate(broken) if i not in pairs and _is_tool(b, registry)}
    for i, b in enumerate(broken):  # 3. a call that names no tool takes an unclaimed one
        if i not in pairs and not _is_tool(b, registry):
            c = next((c for c in free if c.name not in claimed), None)
            if c is not None:
                take(i, c)
    open_ = [i for i in range(len(broken)) if i not in pairs]
    if lone and len(open_) == 1 and len(free) == 1:
        take(open_[0], free[0])
    return [(b, pairs[i]) for i, b in enumerate(broken) if i in pairs], free


def _is_tool(b: Broken, registry: ToolRegistry) -> bool:
    return b.name is not None and b.name in registry
