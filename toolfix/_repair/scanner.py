"""The one-pass scanner over every declared family.

One compiled search finds the earliest opener of any family (an alternation of
literal tokens: no nested quantifier, linear in the text); the family's grammar reads
the call there by structure and says where it ends; the search goes on from that end.
Text inside a call is never searched again, so markup written in an argument value is
never a call, whatever family it belongs to. Several families may share an opener
(``<function_calls>`` holds DSML invoke tags or Olmo's pythonic calls): they are tried
in priority order and the first grammar that reads a call there wins; when none does,
the opener is text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .formats._base import Candidate, ScanContext, ToolCallFormat, respan
from .keyvalue import NO_NAME, read_key_value_call
from .sections import read_section
from .spec import FormatSpec, Grammar, KeyValueCalls, TaggedCalls
from .stripped import Restorer
from .tags import call_opener, read_tagged_call, tag_lookups
from .text import ANCHOR_MIN_CHARS, ExtendBudget, line_start_before, marker_search

__all__ = ["SpecScanner", "openers"]

#: How many wrapper tokens one call may take in front of it or behind it.
_MAX_WRAPPERS = 4


def _grammar_openers(g: Grammar) -> tuple[str, ...]:
    if isinstance(g, TaggedCalls):
        return tuple(g.syntax.open + prefix + g.call for prefix in g.syntax.prefixes)
    if isinstance(g, KeyValueCalls):
        return (g.call[0],)
    return g.open


def openers(spec: FormatSpec) -> tuple[str, ...]:
    """The literal tokens at which a call of ``spec`` may begin."""
    grammars = (spec.grammar, *spec.alternatives)
    return tuple(dict.fromkeys(t for g in grammars for t in _grammar_openers(g)))


#: One family's reader at an opener: the calls it reads there, ``None`` when the text
#: there is not its markup.
_Reader = Callable[[str, int, ScanContext, ExtendBudget], "list[Candidate] | None"]
#: At one opener: what must follow it for any reader to take it (see :func:`_precheck`),
#: its readers in priority order, the wrapper tokens that may be written around, and
#: whether a reader there spends the text's :class:`ExtendBudget` (a JSON section's).
_Opener = tuple["re.Pattern[str] | None", tuple[_Reader, ...], "_Wrappers | None", bool]

#: The budget handed to readers that never spend one (tagged and key-value calls): the
#: text's own is made when a section's opener first comes. Empty, so never mutated.
_UNSPENT = ExtendBudget(0)


class SpecScanner(ToolCallFormat):
    """Every declared family in one left-to-right pass (docs/formats.md)."""

    name = "specs"
    priority = 5
    source = "toolfix/_repair/specs/ (one declaration per family)"

    def __init__(self, specs: Iterable[FormatSpec]) -> None:
        self.specs = tuple(sorted(specs, key=lambda s: s.priority))
        # per opener: the families (and the grammar of theirs) that may begin there, in
        # priority order, each with the closers of its sections
        table: dict[str, list[tuple[FormatSpec, Grammar, tuple[str, ...]]]] = {}
        for spec in self.specs:
            ends = tuple(c for _o, c in spec.wrappers if c)
            for g in (spec.grammar, *spec.alternatives):
                for token in _grammar_openers(g):
                    table.setdefault(token, []).append((spec, g, ends))
        wrap_cache: dict[tuple[tuple[str, str], ...], _Wrappers] = {}
        self._table: dict[str, _Opener] = {}
        for token, readers in table.items():
            # wrappers of every family that shares an opener: whichever family reads the
            # call, the tokens written around it go with it
            wrappers = tuple(dict.fromkeys(w for s, _g, _e in readers for w in s.wrappers))
            wrap = None
            if wrappers:
                wrap = wrap_cache.get(wrappers) or wrap_cache.setdefault(
                    wrappers, _Wrappers(wrappers)
                )
            grammars = [g for _s, g, _e in readers]
            self._table[token] = (
                # a lone tagged reader tests its call tag first thing (the same pattern
                # and more): a precheck would match the opener twice
                None
                if len(grammars) == 1 and isinstance(grammars[0], TaggedCalls)
                else _precheck(token, grammars),
                tuple(_reader(s, g, token, e) for s, g, e in readers),
                wrap,
                any(not isinstance(g, TaggedCalls | KeyValueCalls) for g in grammars),
            )
        self._groups = _groups(table)
        self._opener_re = re.compile(_trie_pattern(table))
        self._drop = tuple(dict.fromkeys(t for s in self.specs for t in s.drop))
        self.restorer = Restorer(self.specs)
        """Writes back the families' markup whose tokens were stripped (stripped.py)."""

    @property
    def spec_names(self) -> list[str]:
        return [s.name for s in self.specs]

    def detect(self, has: Callable[[str], bool]) -> bool:
        return bool(self._groups)

    def may_open_before(self, text: str, pos: int) -> bool:
        """A call begins at an opener (its wrapper tokens just before it are markup), or
        at markup whose tokens were stripped (:meth:`Restorer.may_open_before`)."""
        if not self._groups:
            return False
        at, _token = self._finder(text)(0)
        return (at != -1 and at < pos) or self.restorer.may_open_before(text, pos)

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out = self._extract(text, ctx)
        first = out[0].start if out else len(text)
        # no call in the families' markup: their tags may have lost their angle
        # brackets (toolfix/_repair/stripped.py), then read as written back; before the
        # first call read, a key/value call whose opener alone is gone (stripped.py)
        if not out:
            restored = self.restorer.restore(text, ctx.is_tool)
        elif self.restorer.pairs_before(text, first):
            restored = self.restorer.restore_pairs(text, ctx.is_tool)
        else:
            return out
        if restored is None:
            return out
        ahead: list[Candidate] = []
        for c in self._extract(restored.text, ctx):
            s, e = restored.original(c.start, False), restored.original(c.end, True)
            if out and e > first:
                break  # (from there on, the calls read as written stand)
            if restored.hold >= e:
                continue  # (a stream sent its text as prose: stripped.py's Restored.hold)
            s = max(s, restored.hold)
            if s < e:
                found = respan(c, s, e, text[s:e])
                found.notes = (*found.notes, ("native_markup", restored.note))
                ahead.append(found)
        return [*ahead, *out]

    def _extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        if not self._groups:
            return out
        # a short text is searched by one compiled alternation (C speed, a few times
        # faster than the groups' ``str.find`` loop there); a long one by
        # :class:`_OpenerFinder` (``memchr``-fast on prose, where the alternation costs
        # several ms per MB)
        search = finder = None
        if len(text) < ANCHOR_MIN_CHARS:
            search = self._opener_re.search
            m = search(text)
            if m is None:
                return out  # (the common case: no opener of any family, nothing built)
            at, token = m.start(), m.group()
        else:
            finder = _OpenerFinder(text, self._groups)
            at, token = finder.find(0)
            if at == -1:
                return out
        budget = _UNSPENT
        table = self._table
        floor = 0
        while True:
            pre, readers, wrap, spends = table[token]
            if spends and budget is _UNSPENT:
                budget = ExtendBudget()
            found = None
            if pre is None or pre.match(text, at) is not None:
                for read in readers:
                    found = read(text, at, ctx, budget)
                    if found:
                        break
            if found:
                if len(out) >= ctx.limits.max_calls:
                    self.check_call_count(len(out), ctx, text, at)
                if wrap is not None:
                    wrap.around(text, found, floor)
                out.extend(found)
                pos = floor = found[-1].end
            else:
                pos = at + 1
            # the next opener (the one at ``at`` is read or passed over)
            if search is not None:
                m = search(text, pos)
                if m is None:
                    return out
                at, token = m.start(), m.group()
            else:
                at, token = finder.find(pos)  # type: ignore[union-attr]
                if at == -1:
                    return out

    def _finder(self, text: str) -> Callable[[int], tuple[int, str]]:
        """The earliest opener at or after a position: ``(index, token)``, ``(-1, "")``
        for none. A short text is searched by one compiled alternation (C speed, a few
        times faster than the groups' ``str.find`` loop there); a long one by
        :class:`_OpenerFinder` (``memchr``-fast on prose, where the alternation costs
        several ms per MB)."""
        if len(text) >= ANCHOR_MIN_CHARS:
            return _OpenerFinder(text, self._groups).find
        search = self._opener_re.search

        def find(pos: int) -> tuple[int, str]:
            m = search(text, pos)
            return (-1, "") if m is None else (m.start(), m.group())

        return find

    def tidy(self, remaining: str) -> str:
        """The text left once calls are taken, without the families' channel tokens."""
        if not self._drop:
            return remaining
        if not remaining or remaining.isspace():
            return ""  # (what the steps below make of it: no token is white space)
        original = remaining
        for token in self._drop:
            if token in remaining:
                remaining = remaining.replace(token, "")
        out = remaining.strip()
        # the leading white space of prose is kept (a stream has sent it already)
        lead = original[: len(original) - len(original.lstrip())]
        if lead and out and original.startswith(out[:32], len(lead)):
            return lead + out
        return out


def _reader(spec: FormatSpec, g: Grammar, token: str, ends: tuple[str, ...]) -> _Reader:
    """The reader of grammar ``g`` of ``spec`` at ``token``, bound once per scanner."""
    fmt = spec.name
    if isinstance(g, TaggedCalls):
        tagged = g
        lookups = tag_lookups(g)  # (held here: looked up once per scanner, not per call)

        def read_tagged(
            text: str, at: int, ctx: ScanContext, budget: ExtendBudget
        ) -> list[Candidate] | None:
            cand = read_tagged_call(text, at, tagged, ctx, fmt, ends, lookups)
            return None if cand is None else [cand]

        return read_tagged
    if isinstance(g, KeyValueCalls):
        kv = g

        def read_pairs(
            text: str, at: int, ctx: ScanContext, budget: ExtendBudget
        ) -> list[Candidate] | None:
            cand = read_key_value_call(text, at, kv, ctx, fmt)
            return None if cand is None else [cand]

        return read_pairs
    section = g

    def read(text: str, at: int, ctx: ScanContext, budget: ExtendBudget) -> list[Candidate] | None:
        if section.line_start and not line_start_before(text, at):
            return None
        return read_section(text, at, token, section, ctx, fmt, budget)

    return read


def _precheck(token: str, grammars: list[Grammar]) -> re.Pattern[str] | None:
    """What must follow at an opener for any of ``grammars`` to read a call there (one
    C-speed ``match`` that passes over the opener when none can, as at Qwen XML's
    ``<function=``, which shares MiniCPM's opener); ``None`` when some grammar has no
    such test (a JSON section reads its body)."""
    parts: list[str] = []
    for g in grammars:
        if isinstance(g, TaggedCalls):
            # read_tagged_call reads nothing unless its call tag opens here
            parts.append(call_opener(g).pattern)
        elif isinstance(g, KeyValueCalls):
            # nor read_key_value_call when JSON or a tag is where the name goes
            parts.append(re.escape(token) + "(?!" + NO_NAME.pattern + ")")
        else:
            return None
    return re.compile("|".join(f"(?:{p})" for p in parts))


class _Wrappers:
    """The wrapper tokens that may be written around the calls read at one opener,
    with patterns that find which one is there in one C-speed ``match``."""

    __slots__ = ("_closes", "_opens", "_reversed_opens", "_span")

    def __init__(self, wrappers: tuple[tuple[str, str], ...]) -> None:
        opens = tuple(o for o, _c in wrappers if o)
        closes = tuple(c for _o, c in wrappers if c)
        self._opens = opens
        self._span = max((len(o) for o in opens), default=0)
        # an alternation tries its branches in order: the first of the openers that a
        # text ends with is the first whose reversal the reversed text starts with
        self._reversed_opens = re.compile("|".join(re.escape(o[::-1]) for o in opens))
        # white space, then a closer, up to _MAX_WRAPPERS times: skip_ws and then the
        # first closer in order (``(?=(\s*))\1`` takes all the white space and gives none
        # back, as a possessive ``\s*+`` would: a lookahead is never re-entered), and
        # nothing follows the repetition, so the engine never backtracks into it: the
        # loop that takes one closer after another while one is there, in one match
        self._closes = (
            re.compile(
                r"(?:(?=(\s*))\1(?:"
                + "|".join(re.escape(c) for c in closes)
                + f")){{0,{_MAX_WRAPPERS}}}"
            )
            if closes
            else None
        )

    def _first_end(self, head: str) -> int:
        """The length of the first opener that ``head`` ends with, 0 for none (one
        C-speed test when none does)."""
        if not head.endswith(self._opens):
            return 0
        m = self._reversed_opens.match(head[-self._span :][::-1])
        return 0 if m is None else m.end()

    def around(self, text: str, found: list[Candidate], floor: int) -> None:
        """Take the wrapper tokens written right around the calls into their spans:
        openers before the first call (back to ``floor``), closers after the last.

        The calls are the ones a reader has just made: they are widened in place."""
        first, last = found[0], found[-1]
        start = first.start
        opens = self._opens
        if opens and start > floor:
            for _ in range(_MAX_WRAPPERS):
                head = text[floor:start].rstrip()
                # (:meth:`_first_end`'s first test, inline: usually no wrapper is there)
                hit = self._first_end(head) if head.endswith(opens) else 0
                if not hit and first.name and head.endswith(first.name):
                    # the wrapper may repeat the tool's name (Step3:
                    # ``...<｜tool_sep｜>f\n<invoke``)
                    named = head[: -len(first.name)].rstrip()
                    hit = self._first_end(named)
                    if hit:
                        head = named
                if not hit:
                    break
                start = floor + len(head) - hit
        closes = self._closes
        if closes is not None and not last.truncated:
            end = closes.match(text, last.end).end()  # type: ignore[union-attr]
            if end != last.end:
                last.end = end
                last.raw = text[last.start : end]
        if start != first.start:
            first.start = start
            first.raw = text[start : first.end]


def _trie_pattern(tokens: Iterable[str]) -> str:
    """A regex of the literal ``tokens``, factored by their shared prefixes
    (``<(?:tool_call(?:s>|>)|invoke)``): the engine picks a branch by one character
    instead of trying every token in turn. A token that is a prefix of another is an
    optional tail, tried first: at a position the longest token there matches, as in
    :func:`_groups`' buckets."""
    tails: dict[str, list[str]] = {}
    ends_here = False
    for token in tokens:
        if token:
            tails.setdefault(token[0], []).append(token[1:])
        else:
            ends_here = True
    branches = [re.escape(ch) + _trie_pattern(rest) for ch, rest in tails.items()]
    if not branches:
        return ""
    if len(branches) == 1 and not ends_here:
        return branches[0]
    return "(?:" + "|".join(branches) + (")?" if ends_here else ")")


#: A group of openers: the prefix they share, the length of their bucket keys, and the
#: buckets (tokens by their first ``key_len`` characters, longest first).
_Group = tuple[str, int, dict[str, tuple[str, ...]]]


def _groups(tokens: Iterable[str]) -> tuple[_Group, ...]:
    """The openers grouped by first character: each group has the prefix its tokens
    share (searched with ``str.find``) and its tokens indexed by their first
    ``key_len`` characters (longest first in each bucket), so that an occurrence of the
    prefix costs one dictionary lookup, not one ``startswith`` per token."""
    by_first: dict[str, list[str]] = {}
    for token in tokens:
        by_first.setdefault(token[0], []).append(token)
    out: list[_Group] = []
    for group in by_first.values():
        key_len = min(len(t) for t in group)
        buckets: dict[str, list[str]] = {}
        for token in sorted(group, key=len, reverse=True):
            buckets.setdefault(token[:key_len], []).append(token)
        out.append((_shared_prefix(group), key_len, {k: tuple(v) for k, v in buckets.items()}))
    return tuple(out)


def _shared_prefix(tokens: list[str]) -> str:
    first, last = min(tokens), max(tokens)
    n = 0
    while n < len(first) and first[n] == last[n]:
        n += 1
    return first[:n]


class _OpenerFinder:
    """The earliest opener at or after a position, for positions that only grow.

    Each group's shared prefix is searched with ``str.find`` (C speed, no regex: an
    alternation of a hundred literals costs several ms per MB); where it occurs, the
    group's tokens are tried. The next occurrence of each prefix is kept, so every
    character is searched once per group: linear in the text."""

    __slots__ = ("_find", "_groups", "_next", "_text")

    def __init__(self, text: str, groups: tuple[_Group, ...]) -> None:
        self._text = text
        # long texts: look for a prefix at the occurrences of its first character
        self._find = marker_search(text)
        self._groups = groups
        self._next = [(-2, "")] * len(groups)  # per group: (position, token) found, -2: none yet

    def find(self, pos: int) -> tuple[int, str]:
        text, find = self._text, self._find
        best, which = -1, ""
        for g, (prefix, key_len, buckets) in enumerate(self._groups):
            at, token = self._next[g]
            if at != -1 and at < pos:
                at = -2
            if at == -2:
                k = find(prefix, pos)
                while k != -1:
                    tokens = buckets.get(text[k : k + key_len])
                    if tokens is not None:
                        token = next((t for t in tokens if text.startswith(t, k)), "")
                        if token:
                            break
                    k = find(prefix, k + 1)
                at = k
                self._next[g] = (at, token)
            if at != -1 and (best == -1 or at < best):
                best, which = at, token
        return best, which
