"""Linear-time scanning helpers shared by the formats.

No regex with nested quantifiers runs on model text: brackets are matched by
one left-to-right pass that knows about JSON and Python string literals, and
depth is checked as it goes (docs/design.md#promise-2).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._config import Limits
from .._errors import NestingTooDeepError
from .jsonparse import MEMO_MIN_CHARS, ScanReads, raw_decode

__all__ = [
    "ANCHOR_MIN_CHARS",
    "NOT_JSON",
    "BracketSpan",
    "ExtendBudget",
    "Fence",
    "MarkerFinder",
    "escaped",
    "escaped_json_end",
    "find_bracket_end",
    "find_fences",
    "find_marker",
    "json_past_markers",
    "line_start_before",
    "marker_search",
    "next_fence",
    "occurrences",
    "read_identifier",
    "remove_spans",
    "skip_ws",
    "whole_json",
]

_DICT_OR_LIST = (dict, list)  # ``isinstance(x, A | B)`` would build the union on every call

_OPEN = {"{": "}", "[": "]", "(": ")"}
_CLOSE = {"}", "]", ")"}


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class BracketSpan:
    """``text[start:end]`` is the bracketed value; ``truncated`` when it never closed."""

    start: int
    end: int
    truncated: bool


def find_bracket_end(
    text: str,
    start: int,
    limits: Limits | None = None,
    *,
    stop: int | None = None,
    quotes: str = "\"'",
    reads: ScanReads | None = None,
) -> BracketSpan:
    """Match the bracket at ``text[start]`` with its closer, skipping string literals.

    Mismatched closers are tolerated (``{"a": [1, 2}`` closes at the ``}``) so broken
    JSON still yields one span. When the text (or ``stop``) ends first, the span
    runs to the end and is marked truncated. Quotes listed in ``quotes`` open
    string literals; a single quote only opens one where it cannot be an
    apostrophe (after ``{[(,:=`` or whitespace following them).

    One pass: a compiled character class jumps from one bracket or quote to the
    next, and string bodies are skipped with ``str.find``-like searches, so the
    cost is linear with a small constant.

    ``reads``: what the scan worked out so far (:class:`ScanReads`). With it, a
    well-formed JSON value is first read by one C-speed decode (its failures are capped
    per text, its large values kept for :func:`parse_lenient`), and the last span found
    is remembered. ``None``: nothing is remembered, and only the bracket scan runs (an
    uncapped decode could fail at every opener of a long text). The span is the same.

    Raises:
        NestingTooDeepError: nesting deeper than ``limits.max_depth``.
    """
    n = len(text)
    end_at = n if stop is None or stop > n else stop
    max_depth = _MAX_DEPTH if limits is None else limits.max_depth
    opener = text[start]
    if opener not in _OPEN:
        raise ValueError(f"no bracket at {start}")
    if reads is None:
        return _scan_brackets(text, start, end_at, max_depth, quotes)
    # the formats often ask twice in a row (up to a closer, then to read the body)
    key = (start, end_at, max_depth, quotes)
    if reads.last_source is text and reads.last_key == key:
        last: BracketSpan = reads.last_span
        return last
    span = None
    if opener != "(" and '"' in quotes:
        span = _json_value_span(text, start, end_at, max_depth, reads)
    if span is None:
        span = _scan_brackets(text, start, end_at, max_depth, quotes)
    reads.last_source, reads.last_key, reads.last_span = text, key, span
    return span


_MAX_DEPTH = Limits().max_depth


def _scan_brackets(text: str, start: int, end_at: int, max_depth: int, quotes: str) -> BracketSpan:
    """:func:`find_bracket_end` by one Python pass (any text, broken JSON included).

    A character-class search (C speed, the engine skips ahead by its first-character
    test) jumps to the next bracket or quote; one anchored match skips a whole
    double-quoted string there (its body and escapes read inside the regex engine)."""
    special = _SPECIAL_BOTH if "'" in quotes else _SPECIAL_DQ if '"' in quotes else _SPECIAL_NONE
    stack: list[str] = []  # the open brackets, innermost last (its length: the depth)
    i = start
    search = special.search
    string = _DQ_STRING_RE.match
    while True:
        m = search(text, i, end_at)
        if m is None:
            return BracketSpan(start, end_at, True)
        k = m.start()
        i = k + 1
        ch = text[k]
        if ch in _OPEN:
            stack.append(ch)
            if len(stack) > max_depth:
                raise NestingTooDeepError(
                    f"brackets nest deeper than {max_depth}",
                    limit=max_depth,
                    actual=len(stack),
                    raw=text[start : start + 200],
                )
        elif ch in _CLOSE:
            opener = _MATCH[ch]
            # a closer of a bracket opened further out closes the ones inside it too
            # (``[{"a": 1]``: the ``}`` is missing, the list did close); any other closer
            # closes the innermost bracket
            if stack[-1] == opener or opener not in stack:
                stack.pop()
            else:
                del stack[_last_index(stack, opener) :]
            if not stack:
                return BracketSpan(start, i, False)
        elif ch == '"':
            whole = string(text, k, end_at)
            if whole is None:  # a lone quote: the string never ends
                return BracketSpan(start, end_at, True)
            i = whole.end()
        else:  # a single quote: a string only where an apostrophe cannot be
            j = k - 1
            while j >= start and text[j].isspace():
                j -= 1
            if text[j] in "{[(,:=" if j >= start else True:
                i = _skip_string(text, k + 1, end_at, _SQ_BODY)
                if i < 0:
                    return BracketSpan(start, end_at, True)


_MATCH = {"}": "{", "]": "[", ")": "("}


def _json_value_span(
    text: str, start: int, end_at: int, max_depth: int, reads: ScanReads
) -> BracketSpan | None:
    """The span of a well-formed JSON value at ``text[start]``, found by one C-speed
    ``raw_decode``; ``None`` when it is not one (the scan below then decides).

    For valid JSON the bracket scan ends at the same closer: a JSON string holds no raw
    newline, no stray escape and no unescaped quote, and no ``'`` or ``(`` occurs outside
    strings. The decoder never reads past that closer (on broken JSON it stops earlier).
    A failed decode costs more than its reading, though (the error message counts the
    lines of the whole text before it), so ``reads`` caps them per text
    (:meth:`ScanReads.may_decode`).
    """
    if not reads.may_decode(text):
        return None
    broken = False
    try:
        value, end = raw_decode(text, start)
    except ValueError:
        value, end, broken = None, -1, True
    except RecursionError:
        value, end = None, -1
    if 0 < end <= end_at and (
        # no more characters than the limit: no more openers either
        end - start <= max_depth
        # on a short span the openers (strings' included) are counted at C speed: no
        # more of them than the limit, and the value is not walked for its depth; a long
        # span (a long string argument) is walked: few containers, many characters
        or (
            end - start < _COUNT_MAX_CHARS
            and text.count("{", start, end) + text.count("[", start, end) <= max_depth
        )
        or _depth(value, max_depth) <= max_depth
    ):
        if end - start >= MEMO_MIN_CHARS:
            reads.keep_decoded(text[start:end], value)
        return BracketSpan(start, end, False)
    # broken, ends past ``end_at``, or too deep: the scan decides
    reads.missed(text, start, broken=broken)
    return None


#: Longest span whose openers :func:`_json_value_span` counts instead of walking it.
_COUNT_MAX_CHARS = 4096


def _depth(value: object, cap: int) -> int:
    """Container nesting depth of a decoded JSON value (stops counting past ``cap``)."""
    deepest = 0
    level: list[object] = [value]
    while level and deepest <= cap:
        deepest += 1
        nxt: list[object] = []
        push = nxt.append  # (a plain loop: a generator per container costs more)
        for v in level:
            for c in v.values() if isinstance(v, dict) else v if isinstance(v, list) else ():
                if isinstance(c, _DICT_OR_LIST):
                    push(c)
        level = nxt
    return deepest


def _last_index(stack: list[str], opener: str) -> int:
    k = len(stack) - 1
    while stack[k] != opener:
        k -= 1
    return k


#: What the bracket scan stops at: brackets, and the quotes it reads strings by.
_SPECIAL_BOTH = re.compile(r"[\[\]{}()\"']")
_SPECIAL_DQ = re.compile(r"[\[\]{}()\"]")
#: A double-quoted string that ends (escapes skipped). The unrolled loop reads each
#: character one way only (a run of plain characters, or a backslash and the character
#: after it), so an unterminated string costs one pass and one pass back.
_DQ_STRING_RE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SPECIAL_NONE = re.compile(r"[\[\]{}()]")
_SQ_BODY = re.compile(r"['\\\n]")


def _skip_string(text: str, i: int, end_at: int, body: re.Pattern[str]) -> int:
    """Index just past the string literal whose body starts at ``i``; -1 if it never ends.

    A single-quoted literal also ends at a newline (it was an apostrophe after all);
    scanning then resumes at the newline.
    """
    search = body.search
    while True:
        m = search(text, i, end_at)
        if m is None:
            return -1
        c = text[m.start()]
        if c == "\\":
            i = m.start() + 2
            continue
        if c == "\n":
            return m.start()
        return m.start() + 1


class ExtendBudget:
    """How many unbounded scans :func:`json_past_markers` may still run on one text
    (each may read to the end of the text: capped so a scan stays linear)."""

    __slots__ = ("left",)

    def __init__(self, left: int = 64) -> None:
        self.left = left


def json_past_markers(
    text: str,
    first: int,
    stop: int,
    closers: tuple[str, ...],
    limits: Limits | None = None,
    budget: ExtendBudget | None = None,
    reads: ScanReads | None = None,
) -> int | None:
    """Where the JSON value at ``text[first]`` really ends when markup was found inside it.

    A family's extent finder found its closer (or the next call's opener) at ``stop``,
    but the value opened at ``first`` has not closed by then: the marker may be text
    inside one of its strings (``{"a": "</tool_call>"}``). Scanning on, string- and
    bracket-aware, when the value closes and what follows it (after whitespace) is one
    of ``closers`` or the end of the text, the marker was text: returns the index just
    past the value. Otherwise ``None`` (the marker ends the call; a brace is missing).
    A value whose first key starts with a backslash (``{\\"name\\": ...``) is no JSON
    value: it is escaped JSON quoted inside another call's string, and the marker after
    it ends it (issue 26: a ``<|python_tag|>`` call quoted in a ReAct ``Action Input``).
    ``reads``: the scan's :class:`ScanReads`, handed to :func:`find_bracket_end`.
    """
    if text.startswith("\\", skip_ws(text, first + 1)):
        return None
    if budget is not None:
        if budget.left <= 0:
            return None
        budget.left -= 1
    short = find_bracket_end(text, first, limits, stop=stop, reads=reads)
    if not short.truncated:
        return None
    span = find_bracket_end(text, first, limits, reads=reads)
    if span.truncated or span.end <= stop:
        return None
    k = skip_ws(text, span.end)
    if k >= len(text) or any(text.startswith(c, k) for c in closers):
        if _left_open_before(text, first, stop, span.end, closers):
            return None
        return span.end
    return None


def _left_open_before(text: str, first: int, stop: int, end: int, closers: tuple[str, ...]) -> bool:
    """Whether the value read on past the marker at ``stop`` is a string left open before
    it rather than markup quoted inside a string: the run past the marker holds another
    of ``closers`` (a next call's opener after this call's closer) and the whole value is
    no JSON. ``<tool_call>{"a": "['A']}}</tool_call><tool_call>{"a": ...}}</tool_call>``
    (Llama-3.1-8B, joerosh/BFCL-hardware-efficiency-study) would otherwise take the next
    call as the rest of the first one's string, and the second call's quotes would pair
    the wrong way. A value that quotes a whole call (``{"a": "<tool_call>{...}</tool_call>"}``)
    is JSON and keeps its markup as text."""
    after = stop + 1
    if not any(text.find(c, after, end) != -1 for c in closers):
        return False
    return whole_json(text[first:end]) is NOT_JSON


def escaped_json_end(text: str, first: int) -> BracketSpan | None:
    """The span of a JSON value written escaped (``{\\"name\\": ...}``, ``[{\\"...``): JSON
    quoted inside another value's string, its quotes written ``\\"``. Its brackets are
    counted with its escaped strings skipped, and it ends, at the latest, where the
    string that holds it ends (an unescaped ``"``): never past the value quoting it
    (issue 26). ``None`` when the value at ``first`` is not written escaped."""
    j = skip_ws(text, first + 1)
    if text.startswith("{", j) and text[first] == "[":
        j = skip_ws(text, j + 1)
    if not text.startswith('\\"', j):
        return None
    depth = 0
    in_str = False
    n = len(text)
    i = first
    while i < n:
        ch = text[i]
        if ch == "\\":
            if text.startswith('\\"', i):
                in_str = not in_str
                i += 2
                continue
            i += 2  # an escape of the outer string (\\n, \\\\): no structure
            continue
        if ch == '"':
            break  # the string that quotes the value ends: so does the value
        if not in_str:
            if ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
                if depth == 0:
                    return BracketSpan(first, i + 1, False)
        i += 1
    return BracketSpan(first, i, True)


#: What :func:`whole_json` gives for text that is not one whole JSON value.
NOT_JSON: Any = object()


def whole_json(body: str) -> Any:
    """``json.loads(body)`` for a ``body`` with no blank at either end (stripped, or
    written between its own brackets or quotes), :data:`NOT_JSON` where it raises
    ``ValueError``: ``raw_decode`` without ``json.loads``' blank skipping (half its cost
    on a small value). With no blank around it, the whole value is the whole text
    (``json.loads`` skips ``[ \\t\\n\\r]`` around it; a BOM makes both fail)."""
    try:
        value, end = raw_decode(body)
    except ValueError:
        return NOT_JSON
    return value if end == len(body) else NOT_JSON


#: A run of white space (``\s`` is the ``str.isspace`` test, at C speed).
_BLANK_RUN = re.compile(r"\s+")


def skip_ws(text: str, i: int) -> int:
    """Index of the first non-whitespace character at or after ``i`` (``i >= 0``)."""
    if i < len(text) and not text[i].isspace():
        return i  # (most often no blank is there: one test, not a regex match)
    m = _BLANK_RUN.match(text, i)
    return i if m is None else m.end()


def escaped(text: str, at: int, lo: int = 0) -> bool:
    """Is the character at ``at`` escaped: an odd run of backslashes before it, read down
    to ``lo``?"""
    k = at
    while k > lo and text[k - 1] == "\\":
        k -= 1
    return (at - k) % 2 == 1


def occurrences(text: str, sub: str, most: int) -> list[int]:
    """The first ``most`` indices of ``sub`` in ``text`` (non-overlapping), in order."""
    out: list[int] = []
    i = text.find(sub)
    while i != -1 and len(out) < most:
        out.append(i)
        i = text.find(sub, i + len(sub))
    return out


def find_marker(text: str, marker: str, pos: int = 0) -> int:
    """``text.find(marker, pos)``, faster on long texts: a marker that opens with
    punctuation (``<tool_call>``) is looked for at the occurrences of that character,
    found by ``memchr``; a search for the whole marker steps a few characters at a time
    (about 0.3 ms per MB on non-ASCII text). After :data:`_ANCHOR_TRIES` false hits (text
    dense in that character) the plain search takes over."""
    if len(text) - pos < ANCHOR_MIN_CHARS or marker[0].isalnum():
        return text.find(marker, pos)
    anchor = marker[0]
    for _ in range(_ANCHOR_TRIES):
        k = text.find(anchor, pos)
        if k == -1 or text.startswith(marker, k):
            return k
        pos = k + 1
    return text.find(marker, pos)


def marker_search(text: str) -> Callable[[str, int], int]:
    """``text.find`` for short texts, :func:`find_marker` on ``text`` for long ones."""
    if len(text) < ANCHOR_MIN_CHARS:
        return text.find
    return functools.partial(find_marker, text)


#: Below this many characters :func:`find_marker` is a plain ``str.find``.
ANCHOR_MIN_CHARS = 4096
#: False hits of the first character before :func:`find_marker` searches plainly.
_ANCHOR_TRIES = 16


class MarkerFinder:
    """``text.find(marker, pos)`` with a cache, for scans whose position only moves forward.

    Looking for the earliest of several closers with plain ``str.find`` from every
    opener rescans the same tail again and again (quadratic on adversarial input).
    The cached position of each marker is only searched again once the scan has
    passed it, so the total work stays linear in ``len(text)`` per marker. For a
    given marker, the positions asked for must not decrease.
    """

    __slots__ = ("_cache", "_find", "_short", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._cache: dict[str, int] = {}
        self._find = marker_search(text)
        self._short = len(text) < ANCHOR_MIN_CHARS

    def find(self, marker: str, pos: int) -> int:
        """Index of the first ``marker`` at or after ``pos``, or ``-1``."""
        hit = self._cache.get(marker)
        if hit is None or (hit != -1 and hit < pos):
            hit = self._find(marker, pos)
            self._cache[marker] = hit
        return hit

    def first(self, markers: tuple[str, ...], pos: int, default: int) -> tuple[int, str]:
        """The earliest of ``markers`` at or after ``pos``: ``(index, marker)``; at one
        index, the first of them in ``markers`` that occurs there.

        Returns ``(default, "")`` when none occurs before ``default``.
        """
        if self._short:
            # a short text: one search for all of them (a compiled alternation, in the
            # order given), cheaper than a cache lookup per marker
            hit = _alternation(markers).search(self._text, pos)
            if hit is None or hit.start() >= default:
                return default, ""
            return hit.start(), hit.group()
        best, which = default, ""
        cache = self._cache
        for marker in markers:  # :meth:`find`, inlined: a call per marker costs more than it
            at = cache.get(marker)
            if at is None or (at != -1 and at < pos):
                at = cache[marker] = self._find(marker, pos)
            if at != -1 and at < best:
                best, which = at, marker
        return best, which


@functools.lru_cache(maxsize=64)
def _alternation(markers: tuple[str, ...]) -> re.Pattern[str]:
    """The literal ``markers`` as one regex, tried in their order at each index."""
    return re.compile("|".join(map(re.escape, markers)))


def read_identifier(text: str, i: int, *, extra: str = "_", max_len: int = 256) -> int:
    """End of the identifier starting at ``i`` (``i`` itself when there is none).

    An identifier starts with a letter or ``_`` and goes on with letters, digits
    and the characters in ``extra``; it is capped at ``max_len`` characters so a
    scan from every position stays linear.
    """
    n = len(text)
    if i >= n or not (text[i].isalpha() or text[i] == "_"):
        return i
    tail = _WORD_TAIL if extra == "_" else _identifier_tail(extra)
    return tail.match(text, i + 1, min(n, i + max_len)).end()  # type: ignore[union-attr]


@functools.lru_cache(maxsize=16)
def _identifier_tail(extra: str) -> re.Pattern[str]:
    """The rest of an identifier: characters that are ``str.isalnum`` (what ``\\w``
    matches, besides ``_``) or in ``extra``. Matches the empty string too."""
    chars = re.escape(extra.replace("_", ""))
    if "_" in extra:
        return re.compile(rf"[\w{chars}]*")
    return re.compile(rf"(?:[^\W_]|[{chars}])*" if chars else r"[^\W_]*")


_WORD_TAIL = _identifier_tail("_")


def line_start_before(text: str, i: int, lo: int = 0) -> bool:
    """True when only spaces/tabs lie between the line start (or ``lo``) and ``i``."""
    j = i - 1
    while j >= lo and text[j] in " \t":
        j -= 1
    return j < lo or text[j] == "\n"


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class Fence:
    """A Markdown code fence: ``text[start:end]`` including the backticks."""

    start: int
    body_start: int
    body_end: int
    end: int
    lang: str
    closed: bool


def find_fences(text: str, *, max_lang_chars: int = 40) -> list[Fence]:
    """Every code fence (three or more backticks or tildes), in order, in one linear
    pass.

    The info string (``json``, ``python``...) is lower-cased. An unclosed fence
    runs to the end of the text. A fence may be written on one line
    (`````json {"a": 1}`````).
    """
    fences: list[Fence] = []
    pos = 0
    while True:
        fence = next_fence(text, pos, max_lang_chars=max_lang_chars)
        if fence is None:
            return fences
        fences.append(fence)
        if not fence.closed:
            return fences
        pos = fence.end


#: A fence's info string (:func:`next_fence`), maybe empty.
_LANG_RUN = re.compile(r"[\w+.#-]*")
#: Spaces or tabs, then a newline: the line of a fence's info string ends there.
_LINE_END = re.compile(r"[ \t]*\n")


def next_fence(text: str, pos: int, *, max_lang_chars: int = 40) -> Fence | None:
    """The first code fence that opens at or after ``pos`` (see :func:`find_fences`)."""
    n = len(text)
    start = text.find("```", pos)
    tilde = text.find("~~~", pos, n if start == -1 else start)  # CommonMark's other fence
    if tilde != -1:
        start = tilde
    if start == -1:
        return None
    i = start + 3
    while i < n and text[i] == text[start]:
        i += 1
    ticks = text[start:i]
    # the info string: str.isalnum characters (what \w matches, besides _) and _-+.#
    j = _LANG_RUN.match(text, i, min(n, i + max_lang_chars)).end()  # type: ignore[union-attr]
    lang = text[i:j].lower()
    # the info string ends the line; a one-line fence carries its body after it
    eol = _LINE_END.match(text, j)
    body_start = j if eol is None else eol.end()
    close = text.find(ticks, body_start)
    if close == -1:
        return Fence(start, body_start, n, n, lang, False)
    return Fence(start, body_start, close, close + len(ticks), lang, True)


def remove_spans(text: str, spans: list[int]) -> str:
    """``text`` without the spans (flat start, end pairs in order), the pieces left
    stripped and joined by newlines; the leading whitespace of the text before the
    first span is kept (it is what a stream has already sent, and what ``repair()`` of a
    message with no call keeps)."""
    if len(spans) == 2:  # one call (the common case): the same, without the lists
        head, tail = text[: spans[0]].rstrip(), text[spans[1] :].strip()
        return f"{head}\n{tail}" if head and tail else head or tail
    pieces: list[str] = []
    pos = 0
    for s, e in zip(spans[::2], spans[1::2], strict=True):
        pieces.append(text[pos:s])
        pos = max(pos, e)
    pieces.append(text[pos:])
    kept = [p.strip() for p in pieces]
    if kept[0]:
        kept[0] = pieces[0].rstrip()
    return "\n".join(p for p in kept if p)
