"""The reader of :class:`~toolfix._repair.spec.TaggedCalls` grammars.

A call is one tag that names the tool in an attribute and holds one tag per argument::

    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    </invoke>

written in a family's own syntax (XML tags, or special tokens such as Kimi K3's
``<|open|>call tool="f"<|sep|>`` ... ``<|close|>call<|sep|>``) and namespace prefix
(``｜DSML｜``, ``steptml:``). Everything is read by structure: a value ends at the
argument closer that is followed by the next argument, the call's closer or the end
of the text, so closers and other calls' markup written inside a value are text of
that value. A call whose closer never comes is cut off (``truncated``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from .formats._base import Candidate, ScanContext, make_candidate
from .gate import ReadArguments
from .names import edit_distance
from .quotes import QUOTE_PAIRS
from .spec import TaggedCalls, TagSyntax
from .text import NOT_JSON, find_bracket_end, skip_ws, whole_json

__all__ = ["call_opener", "read_elements", "read_tagged_call", "tag_lookups"]

_MAX_ATTRS = 1024
#: How many argument closers written as text one value may hold before the first wins.
_MAX_CLOSERS = 64
_MAX_KEY = 128
#: An attribute's name: ``str.isalnum`` characters (what ``\w`` matches, besides ``_``),
#: ``_``, ``-`` and ``:``; an element's word: the same with ``.`` for ``:``. Both match
#: the empty string.
_KEY_RUN = re.compile(r"[\w:-]*")
_WORD_RUN = re.compile(r"[\w.-]*")
_ESCAPES = (("&quot;", '"'), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


class _Tags:
    """Tag lookups for one grammar (its syntax and prefixes).

    The tags of the grammar's own words (its call and argument tags) and the usual
    attribute lists are matched by patterns compiled once per grammar: one C-speed
    ``match`` where the loops below build and test each prefix's spelling in turn
    (nine in DSML) and step through attributes a character at a time. The loops define
    the behaviour and read everything the patterns leave (other words, MiniMax M3's
    elements; three or more attributes); the patterns try the same spellings in the
    same order (``tests/test_tag_paths.py`` checks that both agree).
    """

    __slots__ = (
        "_attrs_rx",
        "_close_rx",
        "_end",
        "_head",
        "_heads",
        "_heads_span",
        "_open_rx",
        "follow",
        "g",
        "head",
        "s",
        "step",
    )

    def __init__(self, grammar: TaggedCalls) -> None:
        self.g = grammar
        self.s = s = grammar.syntax
        words = [w for w in (grammar.call, grammar.param) if w]
        prefixes = "(?:" + "|".join(map(re.escape, s.prefixes)) + ")"
        self._open_rx = {w: _open_pattern(s, prefixes, w) for w in words}
        self._close_rx = {
            w: re.compile(re.escape(s.close) + prefixes + re.escape(w + s.end)) for w in words
        }
        self._attrs_rx = _attrs_pattern(s)
        # what a closer of any word starts with, reversed: the first prefix (in order)
        # written before a word is the first branch the reversed text before it takes
        heads = [s.close + p for p in s.prefixes]
        self._end = s.end
        self._head = heads[0]  # with one prefix, what every closer starts with
        self._heads_span = max(len(h) for h in heads)
        self._heads = (
            re.compile("|".join(re.escape(h[::-1]) for h in heads)) if len(heads) > 1 else None
        )
        #: Outside the glued syntax (whose openers the loop decides), an opening tag and
        #: the attribute list after it are read by one match: ``head`` is the call's
        #: opener then, optionally, :data:`_attrs_rx` (group 1, its groups 2 to 8).
        #: In a body of argument tags (``param`` set), ``step`` reads the blanks and
        #: then the call's closer (group 2) or an argument's opener (group 3) and,
        #: optionally, its attributes (group 4, its groups 5 to 11): what
        #: :func:`_body` tests in that order; ``follow`` is what may come after a
        #: value's closer (blanks, then the end of the text, an argument's opener or
        #: the call's closer; ``(?=(\s*))\1`` takes every blank and gives none back, as
        #: :func:`skip_ws` does, whatever the syntax's tags start with). Where the
        #: attributes' part does not match, the opener still does and :meth:`attrs` reads
        #: them (its loop takes what the pattern leaves).
        self.head: re.Pattern[str] | None = None
        self.step: re.Pattern[str] | None = None
        self.follow: re.Pattern[str] | None = None
        attrs = "" if self._attrs_rx is None else f"({self._attrs_rx.pattern})?"
        if not s.glued and grammar.call:
            self.head = re.compile(self._open_rx[grammar.call].pattern + attrs)
        if grammar.param and not s.glued:
            close_call = self._close_rx[grammar.call].pattern
            open_param = self._open_rx[grammar.param].pattern
            self.step = re.compile(rf"(\s*)(?:({close_call})|({open_param}){attrs})?")
            open_call = self._open_rx[grammar.call].pattern
            self.follow = re.compile(rf"(?=(\s*))\1(?:\Z|{open_param}|{close_call}|{open_call})")

    def open_at(self, text: str, k: int, word: str) -> int:
        """Index just past ``<prefix word`` when such an opening tag starts at ``k``
        (followed by white space, the tag's end or a self-closing mark), else -1."""
        rx = self._open_rx.get(word)
        if rx is None:
            return self._open_loop(text, k, word)
        m = rx.match(text, k)
        if m is None:
            return -1
        e = m.end()
        if self.s.glued and e < len(text) and text[e].isalnum() and not text[e].isalpha():
            # the pattern's glued test also takes numerals that are no decimal digits
            # (``²``): the loop decides
            return self._open_loop(text, k, word)
        return e

    def _open_loop(self, text: str, k: int, word: str) -> int:
        s = self.s
        if not text.startswith(s.open, k):
            return -1
        j = k + len(s.open)
        for prefix in s.prefixes:
            if text.startswith(prefix, j) and text.startswith(word, j + len(prefix)):
                e = j + len(prefix) + len(word)
                if (
                    e >= len(text)
                    or text[e].isspace()
                    or text[e] in s.spaces
                    or text.startswith((s.end, "/"), e)
                    or (s.glued and text[e].isalpha() and _GLUED_ATTR.match(text, e))
                ):
                    return e
        return -1

    def close_at(self, text: str, k: int, word: str) -> int:
        """Index just past ``</prefix word>`` when it starts at ``k``, else -1."""
        rx = self._close_rx.get(word)
        if rx is not None:
            m = rx.match(text, k)
            return -1 if m is None else m.end()
        s = self.s
        if not text.startswith(s.close, k):
            return -1
        j = k + len(s.close)
        for prefix in s.prefixes:
            tail = prefix + word + s.end
            if text.startswith(tail, j):
                return j + len(tail)
        return -1

    def find_close(self, text: str, word: str, pos: int, stop: int) -> tuple[int, int]:
        """The first ``</prefix word>`` at or after ``pos``: (start, end), or (-1, -1).

        ``word>`` is found by ``str.find``; what is written before it must be a closer's
        head (``</`` and a prefix): with one prefix one ``str.endswith`` tests it, with
        several the reversed alternation takes the first in order."""
        target = word + self._end
        heads = self._heads
        while True:
            k = text.find(target, pos, stop)
            if k == -1:
                return -1, -1
            if heads is None:
                head = self._head
                if text.endswith(head, 0, k):
                    return k - len(head), k + len(target)
            else:
                m = heads.match(text[max(0, k - self._heads_span) : k][::-1])
                if m is not None:
                    return k - m.end(), k + len(target)
            pos = k + 1

    def attrs(self, text: str, i: int) -> tuple[dict[str, str], int, bool] | None:
        """The attributes from ``i`` to the tag's end: (attributes, index past the end,
        self-closing). Quoted values may hold the end token. ``None``: no end nearby."""
        rx = self._attrs_rx
        m = None if rx is None else rx.match(text, i, i + _MAX_ATTRS)
        if m is None:
            return self._attrs_loop(text, i)
        k1, d1, s1, k2, d2, s2, closing = m.groups()
        out = _attr_dict(k1, d1, s1, k2, d2, s2, self.g.unescape_attrs)
        return out, m.end(), closing is not None

    def _attrs_loop(self, text: str, i: int) -> tuple[dict[str, str], int, bool] | None:
        end = self.s.end
        n = min(len(text), i + _MAX_ATTRS)
        out: dict[str, str] = {}
        j = i
        while j < n:
            ch = text[j]
            if text.startswith(end, j):
                closing = text[i:j].rstrip().endswith(self.s.self_closing)
                return out, j + len(end), closing
            if ch in self.s.spaces:
                j += 1
                continue
            if ch.isalpha() or ch == "_":
                k = _KEY_RUN.match(text, j, n).end()  # type: ignore[union-attr]
                key = text[j:k]
                if k < n and text[k] == "=" and k + 1 < n and text[k + 1] in QUOTE_PAIRS:
                    close = text.find(QUOTE_PAIRS[text[k + 1]], k + 2, n)
                    if close == -1:
                        return None
                    value = text[k + 2 : close]
                    if self.g.unescape_attrs:
                        value = _unescape(value)
                    out[key] = value
                    j = close + 1
                    continue
                j = k
                continue
            j += 1
        return None


#: The lookups of each grammar read so far, by identity (the entry keeps its grammar
#: alive, so an id is never reused while it is here); cleared past a bound.
_BY_GRAMMAR: dict[int, tuple[TaggedCalls, _Tags]] = {}
_MAX_GRAMMARS = 256


def _tags_for(grammar: TaggedCalls) -> _Tags:
    """The grammar's lookups, compiled once (a dataclass hash would cost more than
    the identity lookup)."""
    hit = _BY_GRAMMAR.get(id(grammar))
    if hit is not None and hit[0] is grammar:
        return hit[1]
    if len(_BY_GRAMMAR) >= _MAX_GRAMMARS:
        _BY_GRAMMAR.clear()
    tags = _Tags(grammar)
    _BY_GRAMMAR[id(grammar)] = (grammar, tags)
    return tags


def tag_lookups(grammar: TaggedCalls) -> _Tags:
    """The grammar's compiled tag lookups, for a reader bound once to its grammar (it
    passes them to :func:`read_tagged_call`)."""
    return _tags_for(grammar)


def call_opener(grammar: TaggedCalls) -> re.Pattern[str]:
    """What :func:`read_tagged_call` needs at its start: the grammar's call tag opening
    (a superset of what it reads, as in a glued syntax)."""
    return _tags_for(grammar)._open_rx[grammar.call]


def _attr_dict(
    k1: str | None,
    d1: str | None,
    s1: str | None,
    k2: str | None,
    d2: str | None,
    s2: str | None,
    unescape: bool,
) -> dict[str, str]:
    """The attributes read by :func:`_attrs_pattern`'s groups (a key, its double- or
    single-quoted value, twice), unescaped when the grammar says so."""
    out: dict[str, str] = {}
    if k1 is not None:
        out[k1] = d1 if d1 is not None else s1  # type: ignore[assignment]
        if k2 is not None:
            out[k2] = d2 if d2 is not None else s2  # type: ignore[assignment]
        if unescape:
            _unescape_values(out)
    return out


def _unescape_values(attrs: dict[str, str]) -> None:
    """The values of ``attrs`` unescaped in place (most hold no ``&``: left as they are)."""
    for key, value in attrs.items():
        if "&" in value:
            attrs[key] = _unescape(value)


def _unescape(value: str) -> str:
    for esc, plain in _ESCAPES:
        value = value.replace(esc, plain)
    return value


#: A glued tag's first attribute (``<functionname="f">``, the space dropped by the
#: tokenizer): a letter, the key, ``=`` and a quote. ``<parameter=to>`` is no glued
#: ``<param`` (a Qwen3-Coder tag quoted in a MiniCPM value, issue 26).
_GLUED_ATTR = re.compile(r"[^\W\d_][\w:.-]*=[\"']")


def _open_pattern(s: TagSyntax, prefixes: str, word: str) -> re.Pattern[str]:
    """``<prefix word`` followed by what :meth:`_Tags._open_loop` accepts after the word:
    the end of the text, white space (``\\s`` is ``str.isspace``), a space character of
    the syntax, the tag's end or ``/``; in a glued syntax also a letter (``[^\\W\\d_]``:
    the letters and a few numerals, which :meth:`_Tags.open_at` hands to the loop)."""
    stops = [r"\Z", r"\s", re.escape(s.end), "/"]
    if s.spaces:
        stops.append("[" + re.escape(s.spaces) + "]")
    if s.glued:
        stops.append(_GLUED_ATTR.pattern)
    follow = "(?=" + "|".join(stops) + ")"
    return re.compile(re.escape(s.open) + prefixes + re.escape(word) + follow)


def _attrs_pattern(s: TagSyntax) -> re.Pattern[str] | None:
    """Up to two ``key="value"`` attributes, then the tag's end: what
    :meth:`_Tags._attrs_loop` reads the same way (white space and the syntax's space
    characters between them, a self-closing mark before the end and only white space
    after it, which ``str.rstrip`` takes as the loop does). Keys start with an
    ASCII letter or ``_``; anything else takes the loop. ``None`` when the syntax's
    tokens could be read differently by the loop (an end that starts like a key or a
    blank, an empty self-closing mark)."""
    first = s.end[:1]
    if not first or not s.self_closing or first.isalnum() or first in "_\"'=" or first.isspace():
        return None
    sc = s.self_closing[0]
    if first in s.spaces or first == sc or sc in s.spaces or sc.isalpha() or sc.isspace():
        return None
    blank = "[" + r"\s" + re.escape(s.spaces) + "]*"
    attr = blank + r"([A-Za-z_][\w:-]*)=(?:\"([^\"]*)\"|'([^']*)')"
    return re.compile(
        "(?:"
        + attr
        + "(?:"
        + attr
        + ")?)?"
        + blank
        + "("
        + re.escape(s.self_closing)
        + ")?"
        + r"\s*"
        + re.escape(s.end)
    )


def read_tagged_call(
    text: str,
    at: int,
    grammar: TaggedCalls,
    ctx: ScanContext,
    fmt: str,
    ends: tuple[str, ...] = (),
    tags: _Tags | None = None,
) -> Candidate | None:
    """The call whose opening tag starts at ``at``, or ``None`` when it is not one
    (no name attribute, no tag end). ``ends``: the closers of the section around the
    call, which also end a call whose own closer was left out. ``tags``: the grammar's
    :func:`tag_lookups`, when the caller holds them."""
    if tags is None:
        tags = _tags_for(grammar)
    rx = tags.head
    if rx is None:
        word_end = tags.open_at(text, at, grammar.call)
        if word_end == -1:
            return None
        head = tags.attrs(text, word_end)
    else:
        m = rx.match(text, at)
        if m is None:
            return None
        if m.lastindex == 1 and m.end() - m.start(1) <= _MAX_ATTRS:
            # (what :meth:`_Tags.attrs` reads there: :func:`_attr_dict`, inline)
            k1, d1, s1, k2, d2, s2, closing = m.group(2, 3, 4, 5, 6, 7, 8)
            attrs = {} if k1 is None else {k1: d1 if d1 is not None else s1}
            if k2 is not None:
                attrs[k2] = d2 if d2 is not None else s2
            if grammar.unescape_attrs:  # (:func:`_unescape_values`, inline)
                for key, value in attrs.items():
                    if "&" in value:
                        attrs[key] = _unescape(value)
            head = attrs, m.end(), closing is not None
        else:
            head = tags.attrs(text, m.end() if m.lastindex is None else m.start(1))
    if head is None:
        return None
    attrs, body_start, empty = head
    name = attrs.get(grammar.name_attr, "").strip()
    if not name:
        return None
    if empty:
        return make_candidate(text, at, body_start, fmt, name=name, arguments={})
    arguments, untyped, close_end, notes = _body(text, body_start, tags, ctx, ends)
    if arguments == {}:
        k = skip_ws(text, body_start)
        if k < len(text) and text[k] == "<" and tags.close_at(text, k, grammar.call) == -1:
            # the body is tags of another family sharing this opener (MiniCPM's <param>
            # where Seed writes <parameter>): not this grammar's call
            return None
    cut = close_end == -1
    end = len(text) if cut else close_end
    return make_candidate(
        text,
        at,
        end,
        fmt,
        truncated=cut,
        name=name,
        arguments=arguments,
        string_values=untyped,
        notes=tuple(notes),
    )


def _body(
    text: str, lo: int, tags: _Tags, ctx: ScanContext, ends: tuple[str, ...] = ()
) -> tuple[str | dict[str, Any], bool, int, list[tuple[str, str]]]:
    """Read a call's body by structure: ``(arguments, untyped, end, notes)``; ``end``
    is past the call's closer, -1 when the output ended first (a cut-off call);
    ``notes``: what was read as the grammar's though written otherwise (a misspelt
    element, :func:`_misspelt`; an element's opener left out, :func:`_elided`)."""
    g = tags.g
    n = len(text)
    p = skip_ws(text, lo) if g.json_body else n  # (a body of tags does not need it)
    if p < n and text[p] == "{":
        return (*_json_body(text, p, tags, ctx), [])
    params: dict[str, Any] = ReadArguments()  # (a key written twice: noted, gate G3)
    untyped = False
    notes: list[tuple[str, str]] = []
    absent = None if ctx.reads is None else ctx.reads.absent(text)
    pos = lo
    step = tags.step
    param = g.param or ""
    which: int | None = None
    while True:
        if step is not None:
            m = step.match(text, pos)  # (never None: every part is optional)
            which = m.lastindex  # type: ignore[union-attr]
            if which == 2:
                return params, untyped, m.end(), notes  # type: ignore[union-attr]
            k = m.end(1)  # type: ignore[union-attr]
            word, key_end = (param, m.end(3)) if which in (3, 4) else ("", -1)  # type: ignore[union-attr]
        else:
            k = skip_ws(text, pos)
            ce = tags.close_at(text, k, g.call)
            if ce != -1:
                return params, untyped, ce, notes
            word, key_end = "", -1
        if key_end == -1 and ((ends and text.startswith(ends, k)) or _sibling(text, k, tags)):
            # the section closed, the next call opened or an element around the call
            # closed: the call's closer was left out
            return params, untyped, k, notes
        if step is None:
            word, key_end = _param_at(text, k, tags)
        if key_end == -1 and g.param:
            word, key_end = _misspelt(text, k, tags, notes)
        elif key_end == -1 and (elided := _elided(text, k, tags)) is not None:
            key, vs, cs, pos = elided  # (an element whose opener was left out)
            params[key] = _typed(text[vs:cs], {}, g)[0]
            notes.append(("native_markup", f"read the value of {key!r}, its opener left out"))
            untyped = True
            continue
        if key_end == -1:
            # not where the template writes the next tag: the first closer ends the call
            cs, ce = tags.find_close(text, g.call, pos, n)
            if cs == -1:
                return params, untyped, -1, notes
            more = _loose_params(text, pos, cs, tags, params)
            return params, untyped or more, ce, notes
        if which == 4 and m.end() - key_end <= _MAX_ATTRS:  # type: ignore[union-attr]
            attrs, value_start, empty = _step_attrs(m, g)  # type: ignore[arg-type]
        else:
            head = tags.attrs(text, key_end)
            if head is None:
                return params, untyped, -1, notes
            attrs, value_start, empty = head
        key = attrs.get(g.key_attr, "") if g.param else word
        if empty:
            params[key] = ""
            untyped = True
            pos = value_start
            continue
        vs, ve = _value_end(text, value_start, tags, word, absent)
        raw = text[value_start : n if vs == -1 else vs]
        value, flagged = _typed(raw, attrs, g)
        if g.param is None and vs != -1:
            value = _elements(raw, tags, 0) or value
        params[key] = value
        untyped = untyped or not flagged
        if vs == -1:
            return params, untyped, -1, notes
        pos = ve


def _json_body(
    text: str, p: int, tags: _Tags, ctx: ScanContext
) -> tuple[str | dict[str, Any], bool, int]:
    """:func:`_body` for a JSON object at ``p``."""
    n = len(text)
    call = tags.g.call
    span = find_bracket_end(text, p, ctx.limits, reads=ctx.reads)
    if span.truncated:
        # unbalanced JSON: up to the first closer (a missing brace), or cut off
        cs, ce = tags.find_close(text, call, p, n)
        return text[p : n if cs == -1 else cs], False, ce
    cs, ce = tags.find_close(text, call, span.end, n)
    if cs != -1 and text[span.end : cs].strip():
        cs, ce = tags.find_close(text, call, p, n)  # text after the JSON
    return text[p : span.end], False, ce


def _step_attrs(m: re.Match[str], g: TaggedCalls) -> tuple[dict[str, str], int, bool]:
    """The attributes the step read (what :meth:`_Tags.attrs` returns there), where the
    value starts, whether the tag was empty."""
    k1, d1, s1, k2, d2, s2, closing = m.group(5, 6, 7, 8, 9, 10, 11)
    return _attr_dict(k1, d1, s1, k2, d2, s2, g.unescape_attrs), m.end(), closing is not None


def _loose_params(text: str, lo: int, hi: int, tags: _Tags, params: dict[str, Any]) -> bool:
    """Argument tags anywhere in ``text[lo:hi]`` (stray text between them): added to
    ``params``; returns whether any value is untyped."""
    g = tags.g
    untyped = False
    pos = lo
    while pos < hi:
        k = text.find(tags.s.open, pos, hi)
        if k == -1:
            break
        word, key_end = _param_at(text, k, tags)
        if key_end == -1:
            pos = k + 1
            continue
        head = tags.attrs(text, key_end)
        if head is None:
            break
        attrs, value_start, _ = head
        vs, ve = tags.find_close(text, word, value_start, hi)
        value, flagged = _typed(text[value_start : hi if vs == -1 else vs], attrs, g)
        params[attrs.get(g.key_attr, "") if g.param else word] = value
        untyped = untyped or not flagged
        if vs == -1:
            break
        pos = ve
    return untyped


def _prefixed(text: str, j: int, s: TagSyntax, run: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """For each of the syntax's prefixes written at ``j``: where the word after it starts
    and where ``run`` (the word's characters, at most :data:`_MAX_KEY`) ends it."""
    for prefix in s.prefixes:
        if text.startswith(prefix, j):
            w = j + len(prefix)
            yield w, run.match(text, w, w + _MAX_KEY).end()  # type: ignore[union-attr]


def _param_at(text: str, k: int, tags: _Tags) -> tuple[str, int]:
    """The argument tag opening at ``k``: (its word, index past the word), or ("", -1).
    With ``param=None`` any element is an argument and its word is the key."""
    g = tags.g
    if g.param:
        return g.param, tags.open_at(text, k, g.param)
    s = tags.s
    if not text.startswith(s.open, k):
        return "", -1
    for w, e in _prefixed(text, k + len(s.open), s, _WORD_RUN):
        if e > w and (text[w].isalpha() or text[w] == "_"):
            word = text[w:e]
            if word != g.call and text.startswith(s.end, e):
                return word, e
    return "", -1


#: An argument element's word may be misspelt by one edit (``<paramete name="urls">``,
#: MiniMax M2.5 in hermes-agent issue 28647) when the grammar's word has at least this
#: many letters: a shorter word is one edit from too many others.
_MISSPELT_MIN = 6


def _misspelt(text: str, k: int, tags: _Tags, notes: list[tuple[str, str]]) -> tuple[str, int]:
    """An argument tag opening at ``k`` whose word is one edit from the grammar's
    argument word (same first letter, not the call's word) and which names its key in
    the key attribute, where the template writes the next argument: (the word as
    written, index past it), or ("", -1); a record of it goes to ``notes``. Its value
    then ends at a closer of that word or of the grammar's (:func:`_value_end`)."""
    g = tags.g
    s = tags.s
    param = g.param or ""
    n = len(text)
    if len(param) < _MISSPELT_MIN or not text.startswith(s.open, k):
        return "", -1
    for w, e in _prefixed(text, k + len(s.open), s, _WORD_RUN):
        word = text[w:e]
        if (
            e < n
            and (text[e].isspace() or text[e] in s.spaces)
            and word[:1] == param[:1]
            and word not in (param, g.call)
            and edit_distance(word, param, 1) == 1
        ):
            head = tags.attrs(text, e)
            if head is not None and head[0].get(g.key_attr, "").strip():
                notes.append(("native_markup", f"read the element <{word}> as <{param}>"))
                return word, e
    return "", -1


def _closer_word(text: str, k: int, tags: _Tags) -> tuple[str, int]:
    """The word of the end tag at ``k`` (``</prefix word>``) and the index past it, or
    ("", -1)."""
    s = tags.s
    if not text.startswith(s.close, k):
        return "", -1
    for w, e in _prefixed(text, k + len(s.close), s, _CLOSER_RUN):
        if e > w and text.startswith(s.end, e):
            return text[w:e], e + len(s.end)
    return "", -1


#: An end tag's word: an element's word, or a namespaced one (``minimax:tool_call``).
_CLOSER_RUN = re.compile(r"[\w.:-]*")


def _sibling(text: str, k: int, tags: _Tags) -> bool:
    """Where the next argument would go, the next call's opener or the end tag of an
    element the call did not open (a wrapper around it, ``</minimax:tool_call>``): the
    call ended there, its own closer left out (two MiniMax invokes in a row, the first
    unclosed). With ``param=None`` every element's end tag may be an argument's."""
    g = tags.g
    if not g.param:
        return False
    if tags.open_at(text, k, g.call) != -1:
        return True
    word, end = _closer_word(text, k, tags)
    if not word or word in (g.param, g.call) or _near(word, g.param):
        return False
    # a stray end tag the call's own closer follows (nearby) is text inside the call
    return tags.find_close(text, g.call, end, min(len(text), end + _NEARBY))[0] == -1


#: How far past a stray end tag the call's own closer is looked for (:func:`_sibling`).
_NEARBY = 4096


def _near(word: str, param: str) -> bool:
    """``word`` is the argument word misspelt by one edit (:func:`_misspelt`)."""
    return (
        len(param) >= _MISSPELT_MIN and word[:1] == param[:1] and edit_distance(word, param, 1) == 1
    )


def _elided(text: str, k: int, tags: _Tags) -> tuple[str, int, int, int] | None:
    """An argument element whose opener was left out in a syntax that writes a
    namespace token before every tag: the token at ``k`` is followed by text, not by a
    tag, and that text runs to a closer whose word names the argument
    (``]<]minimax[>[offerta.docx]<]minimax[>[</filename>``: MiniMax-M3, vllm pull
    request 51075). Returns (the key, where the value starts, where its closer starts
    and ends), or ``None``. Only with ``param=None`` (one element per argument, named by its
    word), where the closer alone names the argument."""
    s = tags.s
    g = tags.g
    token = s.open[:-1] if s.open.endswith("<") else ""
    if g.param or not token or not text.startswith(token, k) or text.startswith(s.open, k):
        return None
    vs = k + len(token)
    # the closer must come before any opener (a closer that starts like an opener, as
    # ``]<]minimax[>[</`` does, is found by the same search): one bounded pass
    o = text.find(s.open, vs)
    cs = text.find(s.close, vs, len(text) if o == -1 else o + len(s.close))
    if cs == -1 or (o != -1 and o < cs):
        return None
    word, end = _closer_word(text, cs, tags)
    if not word or word == g.call:
        return None
    return word, vs, cs, end


def _value_end(
    text: str, pos: int, tags: _Tags, word: str, absent: dict[str, int] | None = None
) -> tuple[int, int]:
    """The argument closer that ends a value starting at ``pos``: the first one followed
    by the next argument, the call's closer or the end of the text; else the first one
    at all (a value that runs into other text); ``(-1, -1)`` when there is none."""
    g = tags.g
    n = len(text)
    opener = tags.s.open
    vs, ve = first = _find_close(text, word, pos, tags, absent)
    if vs == -1 and g.param and word != g.param:
        # a misspelt opener (:func:`_misspelt`) closed by the grammar's own word
        word = g.param
        vs, ve = first = _find_close(text, word, pos, tags, absent)
    tried = 0
    while vs != -1:
        end = ve
        if not _ends_value(text, ve, tags):
            # the closer written again on the next line (issue 28), or no end here
            end = _doubled(text, ve, tags, word)
            if end == ve or not _ends_value(text, end, tags):
                end = -1
        # (a value that opens no tag is balanced: :func:`_balanced`'s first test, inline)
        if end != -1 and (text.find(opener, pos, vs) == -1 or _balanced(text, pos, vs, tags, word)):
            return vs, end
        tried += 1
        if tried == _MAX_CLOSERS:
            break
        vs, ve = tags.find_close(text, word, ve, n)
    # no closer where the template writes one: a closer the model left out ends the
    # value at the next argument tag, if one comes before the first closer
    stop = n if first[0] == -1 else first[0]
    k = text.find(tags.s.open, pos, stop)
    while k != -1:
        if _param_at(text, k, tags)[1] != -1 or tags.open_at(text, k, g.call) != -1:
            return k, k  # (the next argument, or the next call: its closers left out)
        k = text.find(tags.s.open, k + 1, stop)
    return first if first[0] != -1 else _closer_left_out(text, pos, tags)


def _ends_value(text: str, ve: int, tags: _Tags) -> bool:
    """Does what follows an argument closer ending at ``ve`` say the value ended there:
    the next argument, the call's closer or the end of the text?"""
    if tags.follow is not None:
        return tags.follow.match(text, ve) is not None
    k = skip_ws(text, ve)
    return (
        k >= len(text)
        or _param_at(text, k, tags)[1] != -1
        or tags.close_at(text, k, tags.g.call) != -1
    )


def _doubled(text: str, ve: int, tags: _Tags, word: str) -> int:
    """Past the same argument closer written again on the lines right after the one
    ending at ``ve`` (``</parameter>\\n</parameter>``: a stutter of the value's own closer,
    llama-swap #856), or ``ve`` when the next line holds something else. A value never
    keeps its own closer written on a line of its own as text, so the stutter does not
    turn into the value's text (issue 28); a closer written right after a value's text
    with no line break between stays the value's text (docs/design.md#promise-9)."""
    for _ in range(_MAX_CLOSERS):
        k = skip_ws(text, ve)
        if "\n" not in text[ve:k]:
            return ve
        past = tags.close_at(text, k, word)
        if past == -1:
            return ve
        ve = past
    return ve


def _find_close(
    text: str, word: str, pos: int, tags: _Tags, absent: dict[str, int] | None
) -> tuple[int, int]:
    """:meth:`_Tags.find_close` to the end of the text, remembering in ``absent`` (the
    scan's :meth:`ScanReads.absent`) where none was found: every value of calls whose
    closers never come would search to the end again (quadratic work)."""
    if absent is not None and pos >= absent.get(word, len(text) + 1):
        return -1, -1
    found = tags.find_close(text, word, pos, len(text))
    if found[0] == -1 and absent is not None:
        absent[word] = min(pos, absent.get(word, pos))
    return found


def _closer_left_out(text: str, pos: int, tags: _Tags) -> tuple[int, int]:
    """Where a value with no argument closer after it ends: at the call's closer (the
    value's own left out), or at an argument closer misspelt by one edit (the value
    then ends past it); ``(-1, -1)`` when neither comes (cut off). Other end tags are
    the value's text."""
    g = tags.g
    k = text.find(tags.s.close, pos)
    for _ in range(_MAX_CLOSERS):
        if k == -1:
            break
        word, end = _closer_word(text, k, tags)
        if word == g.call:
            return k, k
        if g.param and word and _near(word, g.param):
            return k, end
        k = text.find(tags.s.close, k + 1)
    return -1, -1


def _balanced(text: str, lo: int, hi: int, tags: _Tags, word: str) -> bool:
    """Does ``text[lo:hi]`` close every ``word`` tag it opens? A value that holds a
    whole call written as text (``<invoke ...><parameter ...>x</parameter></invoke>``)
    does; a candidate closer that would leave one open belongs to that inner text."""
    opens = closes = 0
    k = text.find(tags.s.open, lo, hi)
    # the element opened in this family's syntax, or Qwen3-Coder's ``<word=name>`` (a
    # quoted Qwen3-Coder or Seed-OSS call closes its ``</parameter>`` too: issue 26)
    named = tags.s.open + word + "="
    while k != -1:
        if tags.open_at(text, k, word) != -1 or text.startswith(named, k):
            opens += 1
        k = text.find(tags.s.open, k + 1, hi)
    if opens == 0:
        return True
    k = text.find(tags.s.close, lo, hi)
    while k != -1:
        if tags.close_at(text, k, word) != -1:
            closes += 1
        k = text.find(tags.s.close, k + 1, hi)
    return opens == closes


_MAX_ELEMENT_DEPTH = 32


def _elements(raw: str, tags: _Tags, depth: int) -> dict[str, Any] | list[Any] | None:
    """A value written as child elements (``<city>Paris</city><zip>1</zip>``) as an
    object; ``<item>`` children, or one key repeated, as a list. ``None`` when the value
    is not made of elements only (it is then text)."""
    s = tags.s
    body = raw.strip()
    if depth > _MAX_ELEMENT_DEPTH or not body.startswith(s.open):
        return None
    pairs: list[tuple[str, Any]] = []
    p = 0
    n = len(body)
    while p < n:
        word, e = _param_at(body, p, tags)
        if e == -1 or not body.startswith(s.end, e):
            return None
        inner = e + len(s.end)
        vs, ve = tags.find_close(body, word, inner, n)
        if vs == -1:
            return None
        text = body[inner:vs]
        child = _elements(text, tags, depth + 1)
        pairs.append((word, child if child is not None else text.strip()))
        p = skip_ws(body, ve)
    counts = Counter(k for k, _ in pairs)
    if set(counts) == {"item"}:
        return [v for _, v in pairs]
    out: dict[str, Any] = {}
    for k, v in pairs:
        if counts[k] > 1:
            out.setdefault(k, []).append(v)
        else:
            out[k] = v
    return out


def read_elements(raw: str) -> dict[str, Any] | list[Any] | None:
    """Plain XML child elements (``<path>a</path><mode>r</mode>``) as an object, one
    element repeated as a list; ``None`` when ``raw`` is not made of elements only."""
    return _elements(raw, _PLAIN, 0)


_PLAIN = _Tags(TaggedCalls(call="", param=None))
_CDATA_OPEN, _CDATA_CLOSE = "<![CDATA[", "]]>"


def _typed(raw: str, attrs: dict[str, str], g: TaggedCalls) -> tuple[Any, bool]:
    """A value and whether its type is known (else the schema types it). A value in a
    CDATA section is its literal text (MiniCPM5: vLLM's ``test_cdata_multiline``); one
    whose ``]]>`` was left out ends at the element's closer, and its opener is markup,
    never the value's text (a live DeepSeek leak through ds2api: its test
    ``TestUnclosedCDATADoesNotSwallowNextParameter``)."""
    body = raw.strip()
    if body.startswith(_CDATA_OPEN):
        if body.endswith(_CDATA_CLOSE):
            return body[len(_CDATA_OPEN) : -len(_CDATA_CLOSE)], False
        if _CDATA_CLOSE not in body:
            return body[len(_CDATA_OPEN) :], False
    if g.typing == "string_flag":
        flag = attrs.get("string")
        if flag == "false":
            value = whole_json(body)
            if value is NOT_JSON:
                return body, False
            # null: the schema decides (a string parameter keeps the text "null")
            return (value, True) if value is not None else (body, False)
        if flag == "true":
            return (body if g.strip_values else raw), True
        return body, False  # no flag (Claude-style tags): text on its own lines
    if g.typing == "json_type":
        kind = attrs.get("type")
        if kind == "string":
            return raw, True
        if kind is not None:
            value = whole_json(body)
            if value is NOT_JSON:
                return body, False
            return value, True
    return (body if g.strip_values else raw), False
