"""A least-recently-used cache bounded by an estimate of memory, not by a count.

Schemas arrive from third parties (MCP servers): one tool may carry an enum of
100,000 values. A cache bounded by entry count can then hold hundreds of
megabytes; this one evicts by the summed ``weight`` of its entries (callers pass
an estimate in bytes, usually the length of the schema's canonical JSON).
An entry heavier than the whole budget is not kept at all.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["WeightedLRU", "estimate_weight", "text_weight"]

#: Whether this interpreter runs with the GIL (a free-threaded build reports False).
_GIL: bool = getattr(sys, "_is_gil_enabled", lambda: True)()

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class WeightedLRU(Generic[K, V]):
    """A thread-safe LRU mapping whose entries' weights sum to at most ``budget``."""

    __slots__ = ("_budget", "_entries", "_lock", "_total")

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    @property
    def budget(self) -> int:
        return self._budget

    @property
    def total_weight(self) -> int:
        """The summed weight of the entries held now (never above ``budget``)."""
        return self._total

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        if _GIL:
            # Each OrderedDict call is one atomic step under the GIL (keys here are ints,
            # strings and tuples of them: hashed and compared in C), so a hit needs no lock:
            # the lock orders writers, and an entry a writer evicts meanwhile is a miss.
            # This is on every call's path (``repair(msg, tools)``): the lock would double it.
            hit = self._entries.get(key)
            if hit is None:
                return None
            try:  # noqa: SIM105 (contextlib.suppress costs a context manager here)
                self._entries.move_to_end(key)
            except KeyError:
                pass  # evicted by another thread since the lookup above: still a hit
            return hit[0]
        with self._lock:
            hit = self._entries.get(key)
            if hit is None:
                return None
            self._entries.move_to_end(key)
            return hit[0]

    def put(self, key: K, value: V, weight: int) -> V:
        """Store ``value`` (unless it alone is over budget) and return it."""
        weight = max(1, weight)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._total -= old[1]
            if weight > self._budget:
                return value
            self._entries[key] = (value, weight)
            self._total += weight
            while self._total > self._budget:
                _, (_, w) = self._entries.popitem(last=False)
                self._total -= w
        return value

    def get_or_make(self, key: K, make: Callable[[], tuple[V, int]]) -> V:
        """The cached value, or ``make()``'s ``(value, weight)`` stored and returned."""
        hit = self.get(key)
        if hit is not None:
            return hit
        value, weight = make()
        return self.put(key, value, weight)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._total = 0


#: Bytes a Python object costs beyond its characters (header, list slot, dict entry).
_PER_ITEM = 80


def estimate_weight(obj: object) -> int:
    """Bytes a JSON-like value holds in memory, estimated from its text (C speed, no
    recursion limit): the characters plus a per-item overhead, counted by separators."""
    try:
        text = json.dumps(obj, default=repr, check_circular=False)
    except (ValueError, RecursionError, TypeError):
        text = repr(obj)
    return text_weight(text)


def text_weight(text: str) -> int:
    """:func:`estimate_weight` of a value from its JSON text, already written."""
    return len(text) + _PER_ITEM * (text.count(",") + text.count(":") + 1)
