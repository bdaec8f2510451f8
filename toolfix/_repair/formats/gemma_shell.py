"""Gemma 4 calls whose shell is damaged: a bare ``:`` for ``call:``, round brackets.

Gemma 4's template writes ``<|tool_call>call:NAME{key:<|"|>v<|"|>}<tool_call|>``
(:mod:`toolfix._repair.formats.gemma`). Two damages of that shell are read here, each
keeping the family's own value grammar:

* **The opener's ``call`` left out**, a lone ``:`` or ``-`` after the wrapper's opener
  (``<|tool_call>:search_files{...}``: vllm #53431; "a bare ``:``, a ``-``, or nothing
  at all", vllm PR 54778): :class:`CallHeads` finds these heads with the ``call:`` ones,
  in one forward pass per marker. The opener token proves the call, as it does for
  ``call:``.
* **Round brackets for the braces** around Gemma's ``key:value`` body
  (``call:terminal(command:<|"|>ls -a<|"|>)``: vllm #53642;
  ``call:search(query: "blockchain news")``: hermes-agent #7457).
  :func:`keyed_paren_span` says where such a body ends; a body whose first item is no
  ``key:`` stays the pythonic reading's (``call:f(a="x")``: Python keywords).

The span scan is linear: strings (``<|"|>``, ``<escape>``, JSON quotes) are skipped
whole, brackets are matched, and a bracket closed by another kind, or a ``]`` or ``}``
at the body's own level, means the body is no such object (nothing of it is read).
"""

from __future__ import annotations

import re

from ..text import MarkerFinder, read_identifier, skip_ws

__all__ = ["BARE_MARKS", "CallHeads", "keyed_paren_span"]

_CALL = "call:"
_OPENERS = ("<|tool_call>", "<start_function_call>")
_CLOSERS = ("<tool_call|>", "<end_function_call>")
#: An opener followed by the lone mark a model wrote for ``call:`` (the format's markers).
BARE_MARKS = tuple(o + m for o in _OPENERS for m in ":-")
_DELIMS = ('<|"|>', "<escape>")
#: What the body scan stops at: a bracket, a string's start, an end token, the next call.
_STOPS = re.compile(
    r'[()\[\]{}"]|' + "|".join(re.escape(t) for t in (*_DELIMS, *_CLOSERS, *_OPENERS))
)

_SHUT = {"(": ")", "[": "]", "{": "}"}


class CallHeads:
    """The call heads of one text in order: ``(c, ns)`` where ``c`` is the ``call:`` (or
    the bare mark right after a wrapper's opener) and ``ns`` where the name starts.
    The positions asked for must not decrease (a :class:`MarkerFinder`)."""

    __slots__ = ("_finder", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._finder = MarkerFinder(text)

    def next(self, pos: int) -> tuple[int, int]:
        """The first head at or after ``pos``; ``(-1, -1)`` when there is none."""
        c = self._finder.find(_CALL, pos)
        best, ns = (c, c + len(_CALL)) if c != -1 else (-1, -1)
        for marked in BARE_MARKS:
            at = self._finder.find(marked, pos)
            if at != -1 and (best == -1 or at < best):
                mark = at + len(marked) - 1
                best, ns = mark, skip_ws(self._text, mark + 1)
        return best, ns


def keyed_paren_span(text: str, open_at: int) -> tuple[int, bool] | None:
    """For ``text[open_at] == "("`` opening a Gemma ``key:value`` body: ``(close, cut)``,
    where ``close`` is the index of its ``)`` (or of the end token or next call that
    ends it, a bracket left out; ``len(text)`` when the text ends first, then ``cut``).
    ``None`` when the body is no such object."""
    n = len(text)
    if not _starts_keyed(text, skip_ws(text, open_at + 1)):
        return None
    shut: list[str] = []  # the closers the open brackets expect, innermost last
    i = open_at + 1
    while True:
        m = _STOPS.search(text, i)
        if m is None:
            return n, True
        tok, j = m.group(), m.start()
        if tok in _DELIMS:
            close = text.find(tok, m.end())
            if close == -1:
                return n, True
            i = close + len(tok)
        elif tok == '"':
            i = _json_string_end(text, j)
            if i == -1:
                return n, True
        elif tok in "([{":
            shut.append(_SHUT[tok])
            i = m.end()
        elif tok in ")]}":
            if not shut:
                return (j, False) if tok == ")" else None
            if tok != shut[-1]:
                return None  # a bracket closed by another kind: no such object
            shut.pop()
            i = m.end()
        else:
            return j, False  # an end token or the next call's opener: the ")" left out


def _starts_keyed(text: str, i: int) -> bool:
    """Does a ``key:`` (a name, or a delimited or quoted key) start at ``i``?"""
    for d in (*_DELIMS, '"'):
        if text.startswith(d, i):
            close = text.find(d, i + len(d), i + len(d) + 256)
            return close != -1 and text.startswith(":", skip_ws(text, close + len(d)))
    k = read_identifier(text, i, extra="_-")
    return k != i and text.startswith(":", skip_ws(text, k))


def _json_string_end(text: str, q: int) -> int:
    """The index after the JSON string that opens at ``text[q] == '"'``; -1 if unclosed."""
    n = len(text)
    k = q + 1
    while k < n:
        ch = text[k]
        if ch == '"':
            return k + 1
        k += 2 if ch == "\\" else 1
    return -1
