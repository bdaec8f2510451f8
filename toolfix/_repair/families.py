"""The family registry: one entry per tool-call family, and what the stream reads from it.

Every family toolfix reads, declared (:mod:`toolfix._repair.specs`) or read by a
hand-written module (:mod:`toolfix._repair.formats`), is one :class:`Family`: its
openers and closers, how its argument values are written, what can overturn a call of
it after its closer has passed, its reasoning delimiters, the parser names engines give
it (vLLM/SGLang ``--tool-call-parser``) and the template or parser that defines it. The
docs' format table (:mod:`toolfix._repair.table`), the stream's release rule
(:mod:`toolfix._stream.core`) and the CLI's format list read it; :func:`families` is
the public listing.
"""

from __future__ import annotations

from .reasoning import THINK_TOKENS, first_markup, prompt_block

__all__ = ["THINK_HINTS", "THINK_TOKEN_MAX", "reasoning_gate"]

#: Every reasoning token holds one of these: the stream looks again only when one arrives.
THINK_HINTS = ("think>", "THINK]", "THINKING|>")
#: The longest reasoning token (a token may straddle two chunks).
THINK_TOKEN_MAX = max(len(t) for pair in THINK_TOKENS for t in pair) + 1


def reasoning_gate(text: str, prefilled: bool) -> tuple[int, int, int] | None:
    """Whether ``text`` settles what of it is reasoning, for every continuation.

    ``None`` while a later token could still turn text already seen into reasoning (no
    reasoning markup yet, or a closer whose next character is unknown). Otherwise
    ``(start, end, content)``: the token that settled it, and where content begins that
    no continuation can move into the prompt's reasoning block (after that block's
    closer; ``0`` when the text's first reasoning token is an opener: the prompt opened
    none)."""
    if prefilled:
        start, end = prompt_block(text, True)
        return None if start == len(text) else (start, end, end)
    first = first_markup(text)
    if first is None:
        return None
    start, end, closer = first
    if not closer:
        return start, start, 0
    if end >= len(text):
        return None  # a lone closer only when white space follows: not known yet
    return start, end, end
