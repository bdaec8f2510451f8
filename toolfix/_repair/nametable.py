"""The offered tools' names as the schema-anchored reader and the stream find them in text.

One table per set of names (:func:`name_table`; the reader keeps one per tool set, a
stream one for its tools): each tool by its name's comparison form (case, separators and
a ``functions.`` prefix aside, :func:`~toolfix._repair.names.normalise_name`), and a
piece of every name to find it by. :func:`names_in` finds where the names stand in a
text; :func:`name_line_start` finds the first line a name begins (the stream holds
content back from there).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .delimiters import lead_glyphs_end
from .names import lower_keeping_offsets, normalise_name

__all__ = [
    "MAX_NAME",
    "NAME_LINE_REACH",
    "NAME_RUN",
    "NameTable",
    "name_line_start",
    "name_table",
    "names_in",
    "word_at",
]

_WORDS_OF_NAME = re.compile(r"[\W_]+|(?<=[a-z0-9])(?=[A-Z])")
_UNSEEN = object()
_MAX_WORDS = 4096


@dataclass(slots=True)
class NameTable:
    """The offered names as the reader anchors on them (one table per set of names,
    shared by every registry that offers those names): each tool by its name's
    comparison form, and a piece of every name."""

    by_norm: dict[str, str]
    chunks: tuple[str, ...]
    """A piece of each name every spelling of it holds (a cheap test before the scan)."""
    words: dict[str, str | None] = field(default_factory=dict)
    """The words already looked up (bounded: cleared past :data:`_MAX_WORDS`)."""

    def lookup(self, word: str) -> str | None:
        """The tool ``word`` names: itself, or its last ``.``/``:`` segment (a namespace)."""
        known = self.words.get(word, _UNSEEN)
        if known is not _UNSEEN:
            return known  # type: ignore[return-value]
        if len(self.words) > _MAX_WORDS:
            self.words.clear()
        name = _lookup(word, self.by_norm)
        self.words[word] = name
        return name


def name_table(names: tuple[str, ...]) -> NameTable:
    """The table of ``names`` (two tools with one comparison form: neither is anchored
    on)."""
    by_norm: dict[str, str] = {}
    twice: set[str] = set()
    for name in names:
        norm = normalise_name(name)
        if len(norm) < 3:
            continue
        if norm in by_norm:
            twice.add(norm)
        by_norm[norm] = name
    for norm in twice:
        del by_norm[norm]
    # each name's longest run of letters: in the text whenever the name is
    chunks = {max(_WORDS_OF_NAME.split(n), key=len).lower() for n in by_norm.values()}
    return NameTable(by_norm, tuple(sorted(chunks)))


def names_in(
    text: str, tools: NameTable, ranges: list[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """Where the offered names stand in the ``ranges`` of ``text`` (start, end, tool
    name), in order: each hit of a piece of a name, widened to the word it is in
    (letters, digits, ``_-.:``), is a name when that word, or its last ``.``/``:``
    segment, has a tool's comparison form (case, separators and a ``functions.`` prefix
    aside). One ``str.find`` pass per piece and range; each word is widened once."""
    seen: dict[int, tuple[int, int, str]] = {}
    for a, b in ranges:
        low = lower_keeping_offsets(text[a:b])  # (names.py: ``İ`` kept as itself)
        if low is None:
            continue  # (a case mapping that changes lengths: no name is anchored on)
        for chunk in tools.chunks:
            i = low.find(chunk)
            while i != -1:
                s, e, word_end = word_at(text, a + i, a + i + len(chunk))
                if e > s and s not in seen:
                    name = tools.lookup(text[s:e])
                    if name is not None:
                        seen[s] = (s, e, name)
                i = low.find(chunk, max(word_end - a, i + 1))
    return [seen[s] for s in sorted(seen)]


MAX_NAME = 128


def word_at(text: str, start: int, end: int) -> tuple[int, int, int]:
    """The word around ``text[start:end]`` (its trailing ``.:-`` left out) and where it
    ends; an empty span when it is longer than :data:`MAX_NAME` (not a tool's name)."""
    e = word_end = NAME_RUN.match(text, end).end()  # type: ignore[union-attr]
    lo = max(0, e - MAX_NAME - 1)
    s = start - NAME_RUN.match(text[lo:start][::-1]).end()  # type: ignore[union-attr]
    if e - s > MAX_NAME:
        return start, start, word_end
    while e > end and text[e - 1] in ".:-":
        e -= 1
    return s, e, word_end


#: The characters of a name's word (``str.isalnum`` ones, ``_``, ``-``, ``.``, ``:``).
NAME_RUN = re.compile(r"[\w.:-]*")


def _lookup(word: str, by_norm: Mapping[str, str]) -> str | None:
    """The tool ``word`` names: itself, or its last ``.``/``:`` segment (a namespace)."""
    name = by_norm.get(normalise_name(word))
    if name is not None:
        return name
    cut = max(word.rfind("."), word.rfind(":"))
    return by_norm.get(normalise_name(word[cut + 1 :])) if cut != -1 else None


#: How far back of new text :func:`name_line_start` must look again: a name's word
#: that the last search saw unfinished (the stream holds back a text's last word).
NAME_LINE_REACH = MAX_NAME + 2


def name_line_start(text: str, names: NameTable, start: int, at_start: bool) -> int:
    """Where the first line at or after ``start`` that begins with an offered name (its
    whole word, followed by something: a word at the end of ``text`` may still grow)
    starts, or -1. ``at_start``: ``text[0]`` starts a line (nothing was sent before it).

    The stream holds content back from there, as from the first markup start: the
    anchored reader reads a call whose name starts a line (``execute_code code="..."``,
    ``bash`` then its command), and a stream never sends text that repair() takes as a
    call. One ``find`` per line; each line's first word is looked up once."""
    i = start if (start == 0 and at_start) or text[start - 1 : start] == "\n" else -1
    if i == -1:
        nl = text.find("\n", start)
        i = -1 if nl == -1 else nl + 1
    for _ in range(len(text) + 1):  # (each turn moves ``i`` to a later line)
        if i == -1 or i >= len(text):
            return -1
        w = lead_glyphs_end(text, i, len(text))  # (``⇬name``: an invented delimiter)
        m = NAME_RUN.match(text, w, min(len(text), w + MAX_NAME + 1))
        e = m.end() if m is not None else w
        if w < e < len(text) and e - w <= MAX_NAME:
            word = text[w:e].rstrip(".:-")
            if word and names.lookup(word) is not None:
                return i
        nl = text.find("\n", e)
        i = -1 if nl == -1 else nl + 1
    return -1
