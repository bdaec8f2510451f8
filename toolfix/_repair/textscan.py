"""The text path of the manual fixer: reasoning split, markup masked, calls scanned.

``TextScanner.read_text`` takes one text part: markup written inside a call's value is
masked while ``<think>`` reasoning and harmony channels are split off, then every
format finds its candidates (the declared families in one pass, then the hand-written
readers, then the generic JSON and pythonic scanners on what is left), candidates
inside another call's span are dropped, and the interpreter reads the rest. The spans
that turn out to be calls leave the text; everything else stays as it was.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
from collections.abc import Callable

from .._config import FixConfig
from .._errors import LimitExceededError
from .._messages import (
    CallPart,
    FailureKind,
    InvalidToolCallPart,
    Part,
    ReasoningPart,
    RepairRecord,
    TextPart,
    text_part,
)
from .anchored import AnchoredReader, merge_anchored
from .cutclosers import cut_closer_start
from .ending import closed_by_end
from .families import noise_markers, release_closers
from .formats import Candidate, ScanContext, ToolCallFormat, get_formats
from .interpret import Interpreter, derive_id
from .jsonparse import ScanReads
from .narration import answered_spans, narrated, told_spans
from .reasoning import (
    OTHER_THINK_TOKENS,
    THINK_CLOSE,
    THINK_OPEN,
    closes_its_wrapper,
    split_reasoning,
)
from .replacenote import replaced
from .scanner import SpecScanner
from .text import Fence, find_fences, occurrences, remove_spans

__all__ = ["TextScanner"]

K = FailureKind


class TextScanner:
    """Finds and reads the calls written in text, for one configuration."""

    def __init__(self, config: FixConfig) -> None:
        self.config = config
        self._formats = get_formats(config.formats, config.custom_formats)
        self._detectors = _detectors(self._formats)
        # the formats (by candidate format name) that tidy the text left of their calls
        self._tidies = {
            name: fmt
            for name, fmt in _owners(self._formats).items()
            if type(fmt).tidy is not ToolCallFormat.tidy
        }
        self._channels = tuple(f for f in self._formats if f.channel_markup)
        self._anchored = (  # the last stage (docs/finding-calls.md)
            AnchoredReader(
                config, (*(m for f in self._formats for m in f.markers), *noise_markers())
            )
            if config.schema_anchored
            else None
        )

    def read_text(
        self,
        part: TextPart,
        interp: Interpreter,
        seed: str,
        prefilled: bool | None,
        ended: str | None = None,
    ) -> tuple[list[Part], list[RepairRecord]]:
        """The parts ``part`` becomes and the records of the reading; ``prefilled`` is
        ``FixConfig.reasoning_prefilled`` as it holds for this response; ``ended``: the
        finish reason when the model ended the output itself and this text is its end
        (a call only its closers are missing from is closed there, ending.py)."""
        text = part.text
        limits = self.config.limits
        if len(text) > limits.max_input_chars:
            return [part], [
                RepairRecord(
                    kind=K.LIMIT_EXCEEDED,
                    detail=f"text of {len(text)} chars not scanned "
                    f"(max_input_chars={limits.max_input_chars})",
                )
            ]
        # markup written inside a call's argument value is text of that call: it is
        # masked while reasoning and harmony channels are split off (issue 11)
        found: dict[ToolCallFormat, list[Candidate]] = {}  # what the masking pass read
        markers = _Markers(text)  # every substring test on a long text goes through it
        ctx = _scan_context(interp, ended)  # (one per text: the masking pass and the scan share it)
        masked, restore = self._mask_markup_in_calls(text, ctx, found, markers)
        reasoning, content = (
            split_reasoning(masked, prefilled)
            if prefilled or _may_hold_reasoning(markers if masked is text else _Markers(masked))
            else (None, masked)
        )
        answer: list[tuple[int, int]] = []
        if content is not text:
            markers = _Markers(content)
        split = None
        for f in self._channels:
            if markers.has_any(f.channel_markers):
                split = f.split_channels(content)
                if split is not None:
                    break
        if split is not None:
            analysis, segments = split
            if analysis is not None:
                reasoning = analysis if reasoning is None else f"{reasoning}\n{analysis}"
            # final-channel bodies and preambles are the answer: never read for calls
            segments = [(restore(seg), addressed) for seg, addressed in segments]
            pos = 0
            for seg, addressed in segments:
                if not addressed:
                    answer.append((pos, pos + len(seg)))
                pos += len(seg)
            content = "".join(seg for seg, _ in segments)
        else:
            content = restore(content)
        if reasoning is not None:
            reasoning = restore(reasoning)
        out: list[Part] = []
        recs: list[RepairRecord] = []
        if reasoning is not None:
            out.append(ReasoningPart(text=reasoning))
            recs.append(
                RepairRecord(
                    kind=K.IN_REASONING, detail="moved <think> reasoning out of the content"
                )
            )
        # the masking pass read ``text``: when nothing was split off, its reads hold
        calls, remaining = self.scan(
            content, interp, seed, answer, found if content is text else None, markers, ctx=ctx
        )
        if reasoning is None and not calls:
            return [part], []
        if remaining:
            out.append(text_part(remaining))
        out.extend(calls)
        return out, recs

    def _mask_markup_in_calls(
        self,
        text: str,
        ctx: ScanContext,
        found_by: dict[ToolCallFormat, list[Candidate]],
        markers: _Markers,
    ) -> tuple[str, Callable[[str], str]]:
        """``text`` with the reasoning and harmony markup that sits inside a call's span
        (in one of its argument values) replaced by placeholders, and the function that
        puts it back. Harmony's own calls keep their markup (their headers are read).
        What each format read in ``text`` is left in ``found_by`` (the scan reuses it)."""
        if "\x00" in text or (
            len(text) < _Markers.MIN_CHARS
            and "think>" not in text
            and "THINK]" not in text
            and "<|" not in text
        ):
            return text, _same  # (the common case, answered before any object is built)
        if not _may_hold_split_markup(markers):
            return text, _same
        outer = _Spans()
        plain = _Spans()  # calls of families whose markup is not channels
        # the regex's alternatives are literals, none overlapping another: the last match
        # starts at the last occurrence of one of them
        last = max(map(text.rfind, _SPLIT_TOKENS))
        # channel families' spans matter only for think markup (their tokens are headers)
        think = any(map(text.__contains__, _THINK_TOKENS))
        for fmt in self._formats:
            if fmt.channel_markup and not think:
                continue
            if not markers.detect(fmt) or not fmt.may_open_before(text, last):
                continue
            try:
                found = found_by[fmt] = fmt.extract(text, ctx)
            except LimitExceededError:
                continue
            for c in found:
                if not c.truncated:
                    outer.add(c.start, c.end)
                    if not fmt.channel_markup:
                        plain.add(c.start, c.end)
        if not outer.starts:
            return text, _same  # no call: no markup inside one
        # think markup inside any call's span, channel tokens inside a plain call's span
        # (only the spans are searched: usually no markup lies in one)
        inside: list[re.Match[str]] = []
        for spans, think_markup in ((outer, True), (plain, False)):
            for s, e in zip(spans.starts, spans.ends, strict=True):
                for m in _SPLIT_MARKUP_RE.finditer(text, s + 1, e):
                    if (m.group()[-6:].lower() in ("think>", "think]")) is think_markup:
                        inside.append(m)
        if not inside:
            return text, _same
        inside.sort(key=_match_start)
        originals: list[str] = []
        pieces: list[str] = []
        pos = 0
        for m in inside:
            pieces.append(text[pos : m.start()])
            pieces.append(f"\x00{len(originals)}\x00")
            originals.append(m.group())
            pos = m.end()
        pieces.append(text[pos:])

        def restore(s: str) -> str:
            return _SENTINEL_RE.sub(lambda m: originals[int(m.group(1))], s)

        return "".join(pieces), restore

    def scan(
        self,
        content: str,
        interp: Interpreter,
        seed: str,
        protected: list[tuple[int, int]] | None = None,
        found_by: dict[ToolCallFormat, list[Candidate]] | None = None,
        markers: _Markers | None = None,
        *,
        last_only: bool = False,
        ctx: ScanContext | None = None,
    ) -> tuple[list[CallPart], str]:
        """Calls found in ``content`` and the text left once their spans are removed: the
        family readers', then the schema-anchored reader's in the text their calls left
        (docs/finding-calls.md). ``ctx``: the context the formats read with, its
        :class:`ScanReads` shared with an earlier pass over the same text; ``None``: the
        interpreter's, with fresh reads (what a scan works out holds for it alone)."""
        if ctx is None:
            ctx = _scan_context(interp)
        quoted: list[tuple[int, int]] = list(protected or ())
        if markers is None or markers.text is not content:
            markers = _Markers(content)
        quotes = _Quotes(markers)  # (found when a candidate or the anchored reader asks)
        calls, remaining, used = self._scan(
            content, interp, ctx, seed, quoted, found_by, markers, quotes, last_only
        )
        if self._anchored is None:
            return calls, remaining
        if last_only:  # (reasoning: only its last element counts)
            return calls or self._last_anchored(content, interp, ctx, seed, quoted, quotes), content
        valid = any(p.type == "tool_call" for p in calls)
        if valid and _blank_outside(content, used):
            # the anchored reader reads only outside valid family calls: nothing is there
            return calls, remaining
        # what the scan holds quoted (its quoted markup, blockquotes, HTML comments) is
        # off limits to the anchored reader too (its blockquotes and comments found only
        # when an offered name stands outside the rest)
        found = self._anchored.read(
            content, interp, seed, quoted, used, valid, quotes.spans, reads=ctx.reads
        )
        found = [f for f in found if not narrated(content, f[0], f[1])]  # (told, not made)
        found = [(s, e, replaced([c], content, s, e)[0]) for s, e, c in found]
        return merge_anchored(content, calls, remaining, used, found)

    def _last_anchored(
        self,
        content: str,
        interp: Interpreter,
        ctx: ScanContext,
        seed: str,
        quoted: list[tuple[int, int]],
        quotes: _Quotes,
    ) -> list[CallPart]:
        """Reasoning that no family call ends: the anchored reader's calls that end it
        (its last element, as for the families' calls: :func:`_tail_start`), never one
        that text follows (a plan, an example, a refused quote)."""
        if self._anchored is None:
            return []
        found = self._anchored.read(
            content, interp, seed, quoted, [], False, quotes.spans, reads=ctx.reads
        )
        found = [f for f in found if not narrated(content, f[0], f[1])]  # (told, not made)
        if not found:
            return []
        tail = _tail_start(content, [x for s, e, _ in found for x in (s, e)])
        return [c for s, e, c in found if e > tail and closes_its_wrapper(content[s:e])]

    def _scan(
        self,
        content: str,
        interp: Interpreter,
        ctx: ScanContext,
        seed: str,
        protected: list[tuple[int, int]] | None,
        found_by: dict[ToolCallFormat, list[Candidate]] | None,
        markers: _Markers,
        quotes: _Quotes,
        last_only: bool = False,
    ) -> tuple[list[CallPart], str, list[int]]:
        """The family readers' calls found in ``content``, the text left once their spans
        are removed, and those spans (flat start, end pairs).

        No call starts inside a ``protected`` span (text that is an answer, not markup);
        the quoted markup found is added to that list.
        ``found_by`` holds what some formats already read in ``content``, ``markers``
        what substrings it holds, ``quotes`` its quoted regions. ``last_only`` (reasoning,
        issue 26): only the calls that end the text, with nothing after them but
        whitespace and closers, are kept.
        """
        quoted: list[tuple[int, int]] = protected if protected is not None else []
        cands = self._candidates(content, ctx, quoted, found_by or {}, markers, quotes)
        if not isinstance(cands, list):  # (a list test: cheap, unlike a model's ABC test)
            return (
                [cands.model_copy(update={"id": derive_id(seed, cands.id or "")})],
                content,
                [],
            )
        if not cands:
            return [], content, []
        calls, used, ends = self._read_candidates(cands, quoted, content, interp, ctx, seed)
        if not used:
            return [], content, []
        if last_only:
            tail = _tail_start(content, used)
            kept = [c for c, end in zip(calls, ends, strict=True) if end > tail]
            return kept, content, used
        remaining = remove_spans(content, used)
        # the formats' own channel tokens, by each format that read a call (once each)
        tidies = self._tidies
        done: list[ToolCallFormat] = []
        taken: set[tuple[int, int]] | None = None
        for c in cands:
            fmt = tidies.get(c.format)
            if fmt is None or fmt in done:
                continue  # (usually: most formats have nothing to tidy)
            if len(used) == 2:  # one call taken (the common case): no set to build
                took = used[0] == c.start and used[1] == c.end
            else:
                if taken is None:
                    taken = set(zip(used[::2], used[1::2], strict=True))
                took = (c.start, c.end) in taken
            if took:
                done.append(fmt)
                remaining = fmt.tidy(remaining)
        return calls, remaining, used

    def _candidates(
        self,
        content: str,
        ctx: ScanContext,
        quoted: list[tuple[int, int]],
        found_by: dict[ToolCallFormat, list[Candidate]],
        markers: _Markers,
        quotes: _Quotes,
    ) -> list[Candidate] | InvalidToolCallPart:
        """Every format's candidates in ``content`` (a span straddling one found first is
        dropped; quoted markup goes to ``quoted``), or the invalid call reporting markup
        that could not be read within the limits."""
        taken = _Spans()
        # explicit calls and quoted markup (nothing inside them is taken); None while it
        # equals ``taken`` (every span so far is one), which spares a copy per call
        hard: _Spans | None = None
        cands: list[Candidate] = []
        short = len(content) < _Markers.MIN_CHARS
        has_fence = (
            ("```" in content or "~~~" in content)
            if short
            else (markers.has("```") or markers.has("~~~"))
        )
        fences = find_fences(content) if has_fence else None  # once per text
        fence_starts = [f.start for f in fences] if fences else []
        outside: _Outside | None = None  # the text outside the spans, once they change
        for fmt, own_markers, generic in self._detectors:
            if generic and taken.starts:
                if outside is None:
                    outside = _Outside(content, taken, taken if hard is None else hard)
                if outside.covered:
                    break  # only whitespace left: the generic scanners have nothing to read
                if not outside.may_start(fmt.span_openers):
                    continue  # whatever it finds lies inside a call's span: text of that call
            if own_markers:
                if short:  # the base class's substring test, inlined
                    for marker in own_markers:
                        if marker in content:
                            break
                    else:
                        continue
                elif not markers.detect(fmt):
                    continue
            elif own_markers is not None and not markers.detect(fmt):
                continue  # (None: the format reads every text)
            known = found_by.get(fmt)
            try:
                found = fmt.extract(content, ctx) if known is None else known
            except LimitExceededError as exc:
                # Unscannable markup: report it as an invalid call, keep nothing as a guess
                # (a second pass recognises it by its text and error; scan salts the id).
                return InvalidToolCallPart(
                    id=derive_id("limit", fmt.name, content),
                    raw=content[:2000],
                    error=f"{fmt.name} markup not parsed: {exc}",
                    kind=K.LIMIT_EXCEEDED,
                )
            for c in found:
                if taken.crosses(c.start, c.end):
                    continue  # straddles a span found first: the earlier format wins
                outside = None
                if _shown(content, c, fences, fence_starts, quotes):
                    taken.add(c.start, c.end)  # quoted markup: neither a call nor scanned again
                    if hard is not None:
                        hard.add(c.start, c.end)
                    quoted.append((c.start, c.end))
                    continue
                if hard is None and not c.explicit:
                    hard = taken.copy()
                cands.append(c)
                taken.add(c.start, c.end)
                if c.explicit and hard is not None:
                    hard.add(c.start, c.end)
        return cands

    def _read_candidates(
        self,
        cands: list[Candidate],
        quoted: list[tuple[int, int]],
        content: str,
        interp: Interpreter,
        ctx: ScanContext,
        seed: str,
    ) -> tuple[list[CallPart], list[int], list[int]]:
        """The call parts of the candidates, outer spans first, the spans they took
        (flat start, end pairs) and where each call's span ends. A candidate inside a
        call's span (markup written in one of its argument values) is never a call
        (docs/design.md#promise-9); an outer span that turns out not to be a call (JSON
        in prose) leaves the spans inside it free."""
        if len(cands) > 1 and not _in_span_order(cands):
            cands.sort(key=lambda c: (c.start, -c.end))
        quoted.sort()
        alone = _only_spans(content, cands)
        calls: list[CallPart] = []
        used: list[int] = []
        ends: list[int] = []
        owned_end = 0  # end of the spans taken so far (they all start before ``c``)
        q = 0
        # A call's id derives from the content before the call and from the call itself
        # (interp.finish), never from what follows it: a streamed call can be released at
        # its closer (docs/guides/streaming.md)
        prefix = _PrefixDigest(content)
        # Interpret no more candidates than can be kept: _cap_calls reports the rest.
        budget = self.config.limits.max_calls + 1
        over_limit: dict[str | None, InvalidToolCallPart] = {}
        for c in cands:
            while q < len(quoted) and quoted[q][0] <= c.start:
                owned_end = max(owned_end, quoted[q][1])
                q += 1
            if c.start < owned_end:
                continue  # inside a call's span (or quoted markup): text of that call
            if c.truncated and ctx.ended is not None:
                c = closed_by_end(c, ctx.ended, content)
            if len(calls) >= budget:
                calls.append(_over_limit(c, seed, over_limit))
                used += (c.start, c.end)
                ends.append(c.end)
                continue
            parts = interp.from_candidate(
                c, f"{seed}:{prefix.upto(c.start)}", alone=alone, reads=ctx.reads
            )
            if parts is None:
                continue
            parts = replaced(parts, content, c.start, c.end)  # (a stand-in: replacenote.py)
            calls.extend(parts)
            ends.extend([c.end] * len(parts))
            used += (c.start, c.end)
            owned_end = max(owned_end, c.end)
        return calls, used, ends


#: What may follow the last call of a reasoning text and leave it the last element:
#: whitespace, closing tags (``</tool_call>``), special tokens (``<|im_end|>``,
#: ``<｜end▁of▁sentence｜>``, Gemma 4's ``<|tool_response>`` that ends the model's turn
#: after a call) and bracketed closers (``[/THINK]``).
_CLOSERS_RE = re.compile(
    r"(?:\s|</[A-Za-z_][\w:.\-]{0,63}>|<\|[\w.\-]{1,63}\|?>|<[\w.\-]{1,63}\|>"
    r"|<｜[^｜<>]{1,63}｜>|\[/[A-Z_]{1,31}\])*"
)


def _tail_start(text: str, used: list[int]) -> int:
    """Where the run of call spans that ends ``text`` starts: the spans from the last one
    back, while only whitespace and closers lie between them and after the last (issue
    26: a call in reasoning counts only as its last element; a quoted-then-refused call
    is followed by the refusal). ``len(text)`` when text follows the last span."""
    tail = len(text)
    end = tail
    for i in range(len(used) - 2, -1, -2):
        start, stop = used[i], used[i + 1]
        if stop > end:
            continue  # (a span inside the one after it: no gap)
        if _CLOSERS_RE.fullmatch(text, stop, end) is None and (
            end < len(text)  # (a closer cut off at the end: cutclosers.py, rule G1)
            or _CLOSERS_RE.fullmatch(text, stop, cut_closer_start(text, end)) is None
        ):
            break
        tail = end = start
    return tail


@functools.lru_cache(maxsize=64)
def _detectors(
    formats: tuple[ToolCallFormat, ...],
) -> tuple[tuple[ToolCallFormat, tuple[str, ...] | None, bool], ...]:
    """Each format with its markers (:func:`_own_markers`) and whether it is a generic
    format (it reads free text, not markup)."""
    return tuple((f, _own_markers(f), f.priority >= _GENERIC_PRIORITY) for f in formats)


def _own_markers(fmt: ToolCallFormat) -> tuple[str, ...] | None:
    """The markers the base class's ``detect`` looks for; ``()`` when the format has its
    own ``detect`` (it is asked), ``None`` when it has no marker (it reads every text)."""
    if type(fmt).detect is not ToolCallFormat.detect:
        return ()
    return fmt.markers or None


def _over_limit(
    c: Candidate, seed: str, made: dict[str | None, InvalidToolCallPart]
) -> InvalidToolCallPart:
    """The record of a call past ``max_calls``. _cap_calls folds them all into one record
    (by name): one shared record per name keeps memory flat with thousands of calls."""
    over = made.get(c.name)
    if over is None:
        over = made[c.name] = InvalidToolCallPart(
            id=derive_id(seed, "over-limit", str(c.start)),
            name=c.name,
            raw=c.raw[:2000],
            error="not read: the message holds more calls than max_calls",
            kind=K.LIMIT_EXCEEDED,
        )
    return over


#: Code-fence languages in which markup is shown, not sent: an example of the format.
_NON_SPACE = re.compile(r"\S")
#: What opens a code fence (a call read from a fenced block starts at its opener).
_FENCES = ("```", "~~~")
_EXAMPLE_LANGS = frozenset({"xml", "html", "text", "txt", "plaintext", "markdown", "md"})


def _in_example_fence(text: str, c: Candidate, fences: list[Fence], starts: list[int]) -> bool:
    """Native markup inside a fenced block tagged as markup or text (```` ```xml ````),
    with prose outside the block, is an example of the format in an explanation, not a
    call (vLLM's Qwen3 engine tests, fenced-example cases). A message that is only the
    fenced markup is still a call wrapped in a fence."""
    i = max(bisect.bisect_right(starts, c.start) - 1, 0)  # the fence that opens before c
    for fence in fences[i : i + 2]:
        if fence.body_start <= c.start and c.end <= fence.body_end:
            if fence.lang not in _EXAMPLE_LANGS:
                return False
            # prose outside the block (the first non-space character is enough)
            return bool(
                _NON_SPACE.search(text, 0, fence.start) or _NON_SPACE.search(text, fence.end)
            )
        if fence.start > c.start:
            return False
    return False


def _in_inline_code(text: str, c: Candidate) -> bool:
    """Markup quoted in inline code (`` `<tool_call>...</tool_call>` ``) is an example in
    prose, not a call. Fenced blocks (```) are not inline code."""
    s, e = c.start, c.end
    if s == 0 or e >= len(text) or text[s - 1] != "`" or text[e] != "`":
        return False
    return not (text.startswith("``", max(0, s - 3)) or text.startswith("``", e))


_Found = tuple[
    list[tuple[int, int]],
    list[tuple[int, int]],
    list[tuple[int, int]],
    list[tuple[int, int]],
]
_NO_QUOTES: _Found = ([], [], [], [])
#: Greater than any index: ``(at, _NO_END)`` sorts after every span starting at ``at``.
_NO_END = 1 << 62
#: A line after the first that starts with a blockquote marker (one search: the engine
#: skips ahead to each line break).
_LATER_QUOTE_RE = re.compile(r"\n {0,3}>")


def _may_quote_lines(markers: _Markers) -> bool:
    """Does a line of the text start with a blockquote marker? On a long text, asked at
    each ``>`` (rare in prose and in long values); on a short one, by one search."""
    text = markers.text
    at = markers.positions(">")
    if at is None:
        return ">" in text and (
            text[:4].lstrip(" ").startswith(">") or _LATER_QUOTE_RE.search(text) is not None
        )
    for p in at:
        i = p
        while i > 0 and p - i < 3 and text[i - 1] == " ":
            i -= 1
        if i == 0 or text[i - 1] == "\n":
            return True
    return False


#: A Markdown blockquote marker: up to three spaces, then ``>``, at a line's start.
_QUOTE_LINE_RE = re.compile(r"^ {0,3}>", re.MULTILINE)
#: A placeholder that documentation of the tool-call format writes where a call names
#: its tool or its arguments: Cline's and Roo Code's tool-use prompts (``<tool_name>``,
#: ``<actual_tool_name>``, ``<parameter1_name>``; echoed back in cline/cline#13008 and
#: RooCodeInc/Roo-Code#4900), Qwen's chat template (``<function-name>``,
#: ``<args-json-object>``). From the first one on, the text shows the format: the
#: elements it writes are examples, not calls.
_FORMAT_PLACEHOLDER_RE = re.compile(
    r"<(?:actual_)?(?:tool|function)[-_]name>|<parameter\d*_name>|<args-json-object>"
)


class _Quotes:
    """The quoted regions of a text, found once, when a candidate first asks: Markdown
    blockquote lines (from just past the line's first ``>`` to its end) and HTML
    comments (``<!-- ... -->``). A call that starts in one is a tool result or a note
    shown to the reader, never a call (issue 26). Functionary's ``>>>name`` starts its
    own line: the call starts at the ``>``, not past it. An HTML comment never closed
    runs to the end of the text, as HTML reads it (and as a stream sees it before its
    ``-->`` arrives: what a later closer would quote is never released)."""

    __slots__ = ("_answered", "_markers", "_spans")

    def __init__(self, markers: _Markers) -> None:
        self._markers = markers
        self._spans: _Found | None = None
        self._answered: list[tuple[int, int]] | None = None

    def _find(self) -> _Found:
        markers = self._markers
        text = markers.text
        has = markers.tester()
        lines: list[tuple[int, int]] = []
        # (substring tests first: most texts have no line starting with ``>``)
        if _may_quote_lines(markers):
            for m in _QUOTE_LINE_RE.finditer(text):
                eol = text.find("\n", m.end())
                lines.append((m.end(), len(text) if eol == -1 else eol))
        comments: list[tuple[int, int]] = []
        k = text.find("<!--") if has("<!--") else -1
        while k != -1:
            close = text.find("-->", k + 4)
            if close == -1:
                comments.append((k + 4, len(text)))  # never closed: to the end, as in HTML
                break
            comments.append((k + 4, close))
            k = text.find("<!--", close + 3)
        docs: list[tuple[int, int]] = []
        if has("name>") or has("json-object>"):
            doc = _FORMAT_PLACEHOLDER_RE.search(text)
            if doc is not None:
                docs.append((doc.start(), len(text)))  # documentation from here on
        # calls shown in a diagram, a table row or a message record, or assigned in code
        # (toolfix/_repair/narration.py)
        return lines, comments, docs, _merged(told_spans(text, has, markers.positions))

    def spans(self) -> list[tuple[int, int]]:
        """Every quoted region (blockquote lines, comments, documentation of the call
        format, calls shown in diagrams or code, answered ReAct actions)."""
        if self._spans is None:
            self._spans = self._find()
        if self._answered is None:
            self._answered = answered_spans(self._markers.text, self._markers.tester())
        return [span for spans in (*self._spans, self._answered) for span in spans]

    def shows(self, start: int, end: int) -> bool:
        """Does the span reach into documentation of the call format (from its first
        placeholder on, or holding one itself)?"""
        if self._spans is None:
            self._spans = self._find()
        docs = self._spans[2]
        return bool(docs) and end > docs[0][0]

    def answers(self, at: int) -> bool:
        """Is ``at`` in a ReAct action whose observation follows it (decided by what
        follows: asked only for a call that waits for the end of a stream)?"""
        if self._answered is None:
            self._answered = answered_spans(self._markers.text, self._markers.tester())
        return _in_span(self._answered, at)

    def holds(self, at: int) -> bool:
        if self._spans is None:
            self._spans = self._find()
        if self._spans == _NO_QUOTES:
            return False  # (most texts)
        lines, comments, _, told = self._spans  # (documentation: :meth:`shows`)
        if _in_span(lines, at) or _in_span(comments, at):
            return True
        if not told:
            return False
        first = _NON_SPACE.search(self._markers.text, at)  # a call told about: from its
        if _in_span(told, at if first is None else first.start()):  # first character
            return True
        if first is None or not self._markers.text.startswith(_FENCES, first.start()):
            return False
        eol = self._markers.text.find("\n", first.start())  # (a fenced call: or its body's)
        body = None if eol == -1 else _NON_SPACE.search(self._markers.text, eol)
        return body is not None and _in_span(told, body.start())


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sorted ``spans`` with each one inside an earlier one dropped (a rendered
    conversation runs to the end: a span in it must not hide it from :func:`_in_span`)."""
    out: list[tuple[int, int]] = []
    for span in spans:
        if out and span[1] <= out[-1][1]:
            continue
        out.append(span)
    return out


def _in_span(spans: list[tuple[int, int]], at: int) -> bool:
    """Is ``at`` inside one of the sorted ``spans`` (the last that starts at or before)?"""
    i = bisect.bisect_right(spans, (at, _NO_END)) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]


def _shown(
    text: str, c: Candidate, fences: list[Fence] | None, starts: list[int], quotes: _Quotes
) -> bool:
    """Markup shown to the reader, not sent: in inline code, in an example fence, in a
    blockquote or an HTML comment, or after a placeholder of documentation of the call
    format (:data:`_FORMAT_PLACEHOLDER_RE`); or a call told about, not made
    (``narration.py``: narrated, in a diagram or a table, assigned in code, recorded,
    answered, or an example under an item of a list of tools)."""
    return (
        _in_inline_code(text, c)
        or (c.explicit and bool(fences) and _in_example_fence(text, c, fences or [], starts))
        or quotes.holds(c.start)
        or quotes.shows(c.start, c.end)
        or narrated(text, c.start, c.end)
        or (quotes.answers(c.start) and _CLOSER.search(text, c.start, c.end) is None)
    )


#: Every family's call closers: a call holding one may leave a stream at it, before what
#: follows it is known (docs/guides/streaming.md), so what follows never unmakes it.
_CLOSER = release_closers()


#: Markup split off before calls are read: reasoning and harmony channel tokens.
_SPLIT_MARKUP_RE = re.compile(
    r"</?think>|\[/?THINK\]|</?seed:think>|<\|(?:START|END)_THINKING\|>"
    r"|<\|(?:channel|message|start|end|call|return|constrain)\|>"
)
_SENTINEL_RE = re.compile(r"\x00(\d{1,9})\x00")
_THINK_TOKENS = ("<think>", "</think>", "[THINK]", "[/THINK]")
#: Every literal :data:`_SPLIT_MARKUP_RE` matches.
_SPLIT_TOKENS = (
    *_THINK_TOKENS,
    *(f"<|{t}|>" for t in ("channel", "message", "start", "end", "call", "return", "constrain")),
)


def _may_hold_split_markup(markers: _Markers) -> bool:
    """False when :data:`_SPLIT_MARKUP_RE` cannot match (substring tests first: on a long
    text the regex engine tries every position, a substring search skips ahead)."""
    return markers.has_any(_SPLIT_ANCHORS) and _SPLIT_MARKUP_RE.search(markers.text) is not None


#: What every split token holds (a reasoning tag, a channel token).
_SPLIT_ANCHORS = ("think>", "THINK]", "<|")


def _may_hold_reasoning(markers: _Markers) -> bool:
    """False when :func:`split_reasoning` would return the text unchanged (no think markup)."""
    text = markers.text
    if len(text) < _Markers.MIN_CHARS:
        # every reasoning token holds "think" or "THINK": two tests answer for eight
        return "think" in text or "THINK" in text
    return any(markers.has(token) for token in _REASONING_TOKENS)


#: Every reasoning token :func:`split_reasoning` reads.
_REASONING_TOKENS = (THINK_OPEN, THINK_CLOSE, *(t for pair in OTHER_THINK_TOKENS for t in pair))


class _Markers:
    """Which fixed markers occur in one text, answered at C speed for long texts.

    A marker is looked for at the occurrences of its anchor (its first character that is
    neither a letter, a digit nor a space: ``<``, ``[``, ``|``, ``=``...), found with
    ``str.find``. Such characters are rare in long prose and long argument values, so a
    few ``find`` calls answer for every marker that shares the anchor; an anchor seen more
    than :attr:`MAX_ANCHORS` times falls back to ``marker in text``. Short texts use
    ``in`` directly (``ToolCallFormat.detect``)."""

    MIN_CHARS = 16_384
    MAX_ANCHORS = 32

    __slots__ = ("_has", "_positions", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._positions: dict[str, list[int] | None] = {}
        self._has = self.tester()

    def detect(self, fmt: ToolCallFormat) -> bool:
        """``fmt.detect``, asked through this index: a marker of the format occurs (or it
        has none)."""
        return fmt.detect(self._has)

    def has_any(self, markers: tuple[str, ...]) -> bool:
        """``any(marker in text for marker in markers)``."""
        text = self.text
        if len(text) < self.MIN_CHARS:
            for marker in markers:  # noqa: SIM110 - a plain loop: runs on every text
                if marker in text:
                    return True
            return False
        return any(self.has(m) for m in markers)

    def positions(self, ch: str) -> list[int] | None:
        """Every index of the character ``ch`` in a long text; ``None`` in a short text
        or when it occurs more than :attr:`MAX_ANCHORS` times."""
        if len(self.text) < self.MIN_CHARS:
            return None
        if ch in self._positions:
            return self._positions[ch]
        found = self._positions[ch] = _occurrences(self.text, ch, self.MAX_ANCHORS)
        return found

    def tester(self) -> Callable[[str], bool]:
        """:meth:`has` as the cheapest callable for this text: a short text's own ``in``
        (asked once per question asker, then called per marker)."""
        return self.text.__contains__ if len(self.text) < self.MIN_CHARS else self.has

    def has(self, marker: str) -> bool:
        """``marker in text``."""
        text = self.text
        if len(text) < self.MIN_CHARS:
            return marker in text
        anchor, offset = _anchor(marker)
        positions = self.positions(anchor)
        if positions is None:
            return marker in text
        return any(p >= offset and text.startswith(marker, p - offset) for p in positions)


@functools.lru_cache(maxsize=256)
def _anchor(marker: str) -> tuple[str, int]:
    for i, ch in enumerate(marker):
        if not (ch.isalnum() or ch.isspace()):
            return ch, i
    return marker[0], 0


def _occurrences(text: str, ch: str, most: int) -> list[int] | None:
    """Every index of ``ch`` in ``text``; ``None`` when there are more than ``most``."""
    found = occurrences(text, ch, most + 1)
    return None if len(found) > most else found


#: Formats from this priority on (pythonic, generic JSON, tool elements) scan free text,
#: not markup; their ``span_openers`` say where their spans can start.
_GENERIC_PRIORITY = 60


class _Outside:
    """What lies outside the spans found so far, for the generic formats' two questions:
    is it all whitespace (``covered``: ``taken`` covers the text), and may a span of
    theirs start there (:meth:`may_start`). Built once per change of the spans; the
    text outside the hard spans is gathered at the first :meth:`may_start` (when the
    spans cover the text, the scan stops before asking)."""

    __slots__ = ("_content", "_firsts", "_gaps", "_hard", "covered")

    def __init__(self, content: str, taken: _Spans, hard: _Spans) -> None:
        self._content = content
        self._hard = hard
        self._gaps: str | None = None
        self._firsts = ""
        self.covered = taken.covers(content)

    def may_start(self, openers: str | None) -> bool:
        """False when none of ``openers`` occurs outside the ``hard`` spans (explicit
        calls, quoted markup), nor at a hard span's first character: then every span a
        generic format could find starts inside one of them, and is text of that call
        (a candidate inside a call's span is never a call, docs/design.md#promise-9)."""
        hard = self._hard
        if openers is None or not hard.starts:
            return True  # no hard span: a span may start anywhere
        gaps = self._gaps
        if gaps is None:
            content = self._content
            pieces: list[str] = []
            pos = 0
            for s, e in zip(hard.starts, hard.ends, strict=True):
                pieces.append(content[pos:s])
                pos = max(pos, e)
            pieces.append(content[pos:])
            gaps = self._gaps = "".join(pieces)
            self._firsts = "".join([content[s] for s in hard.starts])
        firsts = self._firsts
        for ch in openers:  # noqa: SIM110 - a plain loop: runs per generic format per text
            if ch in gaps or ch in firsts:
                return True
        return False


def _scan_context(interp: Interpreter, ended: str | None = None) -> ScanContext:
    """The interpreter's scan context (tool names, limits) with a fresh
    :class:`ScanReads`: what one scan works out is never seen by another."""
    base = interp.scan_context
    return ScanContext(
        base.tool_names, base.limits, ScanReads(), base.sole_strings, ended, base.lone_params
    )


def _same(s: str) -> str:
    return s


def _match_start(m: re.Match[str]) -> int:
    return m.start()


def _only_spans(text: str, cands: list[Candidate]) -> bool:
    """True when the text holds nothing but the candidates' spans (and whitespace)."""
    pos = 0
    for c in cands:  # sorted by start
        if text[pos : c.start].strip():
            return False
        pos = max(pos, c.end)
    return not text[pos:].strip()


class _Spans:
    """The outermost spans found so far, disjoint and sorted (found by binary search)."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def crosses(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` overlaps an outermost span without one holding the
        other. Nested spans are allowed (the interpreter decides which one is the call)."""
        i = bisect.bisect_left(self.starts, start)
        if i > 0 and self.ends[i - 1] > start:
            return end > self.ends[i - 1]  # starts inside a span: nested unless it ends after
        if i < len(self.starts) and self.starts[i] == start and self.ends[i] >= end:
            return False  # same start, inside it
        # starts in a gap: it may hold the following spans whole, but not end inside one
        k = i
        while k < len(self.starts) and self.starts[k] < end:
            if self.ends[k] > end:
                return True
            k += 1
        return False

    def copy(self) -> _Spans:
        other = _Spans()
        other.starts, other.ends = list(self.starts), list(self.ends)
        return other

    def covers(self, text: str) -> bool:
        """True when every character outside the spans is whitespace."""
        if len(self.starts) == 1:  # (the common case: one call)
            return not text[: self.starts[0]].strip() and not text[self.ends[0] :].strip()
        pos = 0
        for s, e in zip(self.starts, self.ends, strict=True):
            if text[pos:s].strip():
                return False
            pos = max(pos, e)
        return not text[pos:].strip()

    def add(self, start: int, end: int) -> None:
        """Record a span; only the outermost spans are kept (a span held by one is not,
        a span holding some replaces them)."""
        i = bisect.bisect_right(self.starts, start)
        if i > 0 and self.ends[i - 1] >= end:
            return
        j = bisect.bisect_left(self.starts, start)
        k = j
        while k < len(self.starts) and self.ends[k] <= end:
            k += 1
        self.starts[j:k] = [start]
        self.ends[j:k] = [end]


def _owners(formats: tuple[ToolCallFormat, ...]) -> dict[str, ToolCallFormat]:
    """The format that finds candidates of each format name (a declared family's
    candidates come from the one scanner of all of them)."""
    owners: dict[str, ToolCallFormat] = {}
    for fmt in formats:
        if isinstance(fmt, SpecScanner):
            owners.update((name, fmt) for name in fmt.spec_names)
        else:
            owners[fmt.name] = fmt
    return owners


def _in_span_order(cands: list[Candidate]) -> bool:
    """Already sorted by start, outer spans first (one format's candidates usually are):
    the sort, and its key per candidate, are spared."""
    for i in range(1, len(cands)):
        a, b = cands[i - 1], cands[i]
        if a.start > b.start or (a.start == b.start and a.end < b.end):
            return False
    return True


def _blank_outside(text: str, spans: list[int]) -> bool:
    """Is ``text`` whitespace outside the spans (flat start, end pairs in order)?"""
    pos = 0
    for s, e in zip(spans[::2], spans[1::2], strict=True):
        if s > pos and not text[pos:s].isspace():
            return False
        pos = max(pos, e)
    return pos >= len(text) or text[pos:].isspace()


_EMPTY_DIGEST = hashlib.sha256(b"").hexdigest()[:24]


class _PrefixDigest:
    """Digests of ``text[:end]`` for growing ``end`` (one pass over the text)."""

    __slots__ = ("_hash", "_pos", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._hash: hashlib._Hash | None = None  # made at the first call not at the start
        self._pos = 0

    def upto(self, end: int) -> str:
        if end == 0:
            return _EMPTY_DIGEST  # (a call at the very start: common, and a constant)
        if end < self._pos:  # not in order (never, with candidates sorted by start)
            data = self._text[:end].encode("utf-8", "surrogatepass")
            return hashlib.sha256(data).hexdigest()[:24]
        data = self._text[self._pos : end].encode("utf-8", "surrogatepass")
        if self._hash is None:
            self._hash = hashlib.sha256(data)
        else:
            self._hash.update(data)
        self._pos = end
        return self._hash.hexdigest()[:24]  # (a digest does not end the hash: no copy)
