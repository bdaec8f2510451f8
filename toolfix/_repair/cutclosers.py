"""A family's closer cut off at the end of the text, read as that closer.

An output that stops a token short (the stream or ``max_tokens`` ended it) can end
inside the closer of the wrapper it had already closed every call of: Kimi-K2 through
OpenRouter in opencode (anomalyco/opencode issue 8851) ended its reasoning with four
calls, each closed by ``<|tool_call_end|>``, then ``<|tool_calls_section_end|`` without
its ``>``. The calls are whole; only the wrapper's last character is missing. Rule G1
(docs/design.md) reads a call in reasoning when it is its last element, with only
closers after it: a closer cut at the end of the text counts as that closer.

The closers are every family's, as the family registry declares them (each family's
``closers`` in :func:`toolfix._repair.families.families`, the same that
:func:`~toolfix._repair.families.release_closers` releases calls at): no list of its own
here.
"""

from __future__ import annotations

import functools

from .families import families

__all__ = ["cut_closer_start"]

#: Shorter cut-off closers (``<``, ``</``) say too little to be read as one.
_MIN_CUT = 3


@functools.cache
def _cut_closers() -> tuple[frozenset[str], str, int]:
    """Every proper prefix, :data:`_MIN_CUT` characters or more, of the families' call
    and wrapper closers; the characters they start with; the longest one's length."""
    closers = {c for f in families() for c in f.closers if len(c) > _MIN_CUT}
    cuts = frozenset(c[:size] for c in closers for size in range(_MIN_CUT, len(c)))
    return cuts, "".join(sorted({c[0] for c in closers})), max(map(len, cuts), default=0)


def cut_closer_start(text: str, end: int) -> int:
    """Where a closer cut off at ``end`` (the end of ``text``) starts: the longest proper
    prefix, :data:`_MIN_CUT` characters or more, of a family's closer that ``text[:end]``
    ends with; ``end`` when there is none. Looks at one longest closer's length of text
    (set lookups at the positions of a closer's first characters in it)."""
    cuts, firsts, longest = _cut_closers()
    lo = max(0, end - longest)
    start = end
    for first in firsts:
        i = text.find(first, lo, end - _MIN_CUT + 1)
        while i != -1:
            if i < start and text[i:end] in cuts:
                start = i
                break  # (the first such position is the longest cut of this opener)
            i = text.find(first, i + 1, end - _MIN_CUT + 1)
    return start
