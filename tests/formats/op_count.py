"""Linear time checked by counting operations, never by timing.

:func:`operations` counts the Python and C function calls a run makes (``sys.setprofile``
events); :func:`assert_linear` runs a reader on ``n`` and on ``4n`` repetitions of a unit
and fails when the count grows faster than the input (a scan that starts again from
every marker makes quadratically many calls). What it cannot see is work inside one C
call: a ``str.find`` or a regex search that rescans to the end of the text from every
marker makes linearly many calls of quadratic total cost; the readers' own rule (a
search is bounded by the next marker or a window, docs/design.md#speed) covers that."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def operations(run: Callable[[], object]) -> int:
    """How many Python and C function calls ``run()`` makes."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def assert_linear(run: Callable[[int], object], small: int = 1500, factor: int = 4) -> None:
    """``run(n)`` (a text of ``n`` units) does at most linear work in ``n``: the
    operations of ``factor * small`` units stay within ``factor`` times those of
    ``small`` units, plus a quarter."""
    run(small)  # caches (compiled patterns, interned names) warm
    base = operations(lambda: run(small))
    big = operations(lambda: run(small * factor))
    assert base > small  # the count sees the reader's work
    assert big <= factor * base * 1.25, (base, big)
