"""Lenient JSON parsing for one candidate span.

Order: strict ``json.loads`` (the common case costs one C-speed parse), then
``raw_decode`` for a complete value followed by junk, then json-repair on the
span only. Limits are checked before json-repair runs (it recurses), and the
result says what was done so the caller can record it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import json_repair

from .._config import Limits
from .._errors import (
    InputTooLargeError,
    MalformedToolCallError,
    NestingTooDeepError,
    NumberTooLongError,
)
from .elision import COMPOSED, ELIDED, composed_at, elided_at
from .envkeys import mend_envelope_keys
from .escapedjson import ESCAPED_NOTE, STRINGS_NOTE, escaped_value, object_strings
from .innerquotes import escape_inner_quotes
from .quickfix import quick_fix
from .splicedkeys import spliced_key

__all__ = [
    "DECODE_MISSES",
    "MEMO_MIN_CHARS",
    "ParsedJson",
    "ScanReads",
    "check_limits",
    "parse_lenient",
    "raw_decode",
]

# Tokens for the depth / number pre-check: a JSON or Python string literal, a bracket,
# or a run of digits. Each alternative consumes disjoint characters (no nested
# quantifiers), so one finditer pass is linear in the text length.
_TOKENS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|[\[\]{}()]|\d+')
#: ``json.JSONDecoder().raw_decode``: the JSON value that starts at ``s[idx]`` (no blank
#: skipped) and the index just past it; ``ValueError`` where none does. One bound method
#: the manual fixer's modules share.
raw_decode = json.JSONDecoder().raw_decode

#: Below this size a second parse costs less than remembering the first one.
MEMO_MIN_CHARS = 65_536
#: Failed fast decodes :class:`ScanReads` allows per text (see :meth:`ScanReads.may_decode`).
DECODE_MISSES = 64


class ScanReads:
    """What one scan has worked out about the texts it reads, handed explicitly to the
    readers that consult it (``ScanContext.reads``, the ``reads`` parameter of
    :func:`~toolfix._repair.text.find_bracket_end`, :func:`parse_lenient` and
    ``Interpreter.from_candidate``). A scan makes a fresh one and drops it when done; a
    caller outside a scan passes none (``None``: nothing is remembered).

    - the last bracket span found (``last_*``): the formats often ask for the same
      extent twice in a row;
    - the decoded value of the last large well-formed JSON value (``text``, ``value``):
      the :func:`parse_lenient` call on the same text that follows takes it, so a long
      argument is decoded once (:meth:`take_decoded` hands it out once: it is mutable);
    - the closers known absent past a position (:meth:`absent`);
    - the failed fast decodes on one text (``miss_source``, ``misses``): a failed decode
      costs more than its reading (the error message counts the lines of the whole text
      before it), so each text gets :data:`DECODE_MISSES` of them and the scan stays
      linear; and where the decoder found no JSON value at all (``broken_at``), so a
      payload read there is known broken without a second failed decode
      (:meth:`known_broken`).

    Everything it remembers is a fact about a text (compared by identity, or by value
    for the decoded text): reading with or without it gives the same answers."""

    __slots__ = (
        "absent_from",
        "absent_source",
        "broken_at",
        "last_key",
        "last_source",
        "last_span",
        "miss_source",
        "misses",
        "text",
        "value",
    )

    def __init__(self) -> None:
        self.last_source: str | None = None
        self.last_key: tuple[int, int, int, str] = (-1, -1, -1, "")
        self.last_span: Any = None
        self.text = ""
        self.value: Any = None
        self.miss_source: str | None = None
        self.misses = 0
        self.broken_at: tuple[int, ...] = ()
        self.absent_source: str | None = None
        self.absent_from: dict[str, int] = {}

    def absent(self, text: str) -> dict[str, int]:
        """Markers known absent from ``text`` past a position (marker: the lowest position
        a search from which found none), for readers that search one closer from every
        call (the tag readers: tags.py). A fact about the text: a search from a later
        position finds none either."""
        if self.absent_source is not text:
            self.absent_source, self.absent_from = text, {}
        return self.absent_from

    def may_decode(self, source: str) -> bool:
        """Is a fast decode in ``source`` still allowed (fewer than
        :data:`DECODE_MISSES` failed in it)?"""
        return self.miss_source is not source or self.misses < DECODE_MISSES

    def missed(self, source: str, start: int, *, broken: bool) -> None:
        """A fast decode at ``source[start]`` gave no usable span; ``broken``: the decoder
        found no JSON value there at all."""
        if self.miss_source is not source:
            self.miss_source, self.misses, self.broken_at = source, 0, ()
        self.misses += 1
        if broken:
            self.broken_at += (start,)

    def keep_decoded(self, text: str, value: Any) -> None:
        """``value`` is what ``text`` (a large JSON value) decodes to."""
        self.text, self.value = text, value

    def take_decoded(self, text: str) -> tuple[bool, Any]:
        """``(True, value)`` when the kept value is the decoding of ``text`` (it is then
        forgotten: handed out once), else ``(False, None)``."""
        if len(text) < MEMO_MIN_CHARS or len(self.text) != len(text) or self.text != text:
            return False, None
        value = self.value
        self.text, self.value = "", None
        return True, value

    def known_broken(self, text: str) -> bool:
        """Did a fast decode already fail, with a ``ValueError``, on a value that starts
        with ``text`` (in the text it scanned)? Then ``text`` is no JSON value either: a
        value's brackets close it, so a decode that fails on the longer text fails on or
        before the same character in its prefix, and ``raw_decode`` would fail again."""
        source = self.miss_source
        if source is None:
            return False
        for start in self.broken_at:  # noqa: SIM110 - a plain loop: usually none or one
            if source.startswith(text, start):
                return True
        return False


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class ParsedJson:
    """A parsed value, plus what it took: ``repaired`` (json-repair ran), ``trailing``
    (a complete value was followed by more text), ``note`` a human-readable detail."""

    value: Any
    repaired: bool = False
    trailing: str = ""
    note: str = ""
    truncated: bool = False
    """The text ended inside a string or with brackets still open."""
    complete_prefix: bool = False
    """Truncation was repaired by keeping complete members only (nothing cut is kept)."""


def check_limits(text: str, limits: Limits, *, what: str = "span") -> None:
    """Raise a LimitExceededError subclass when ``text`` is too long, too deep, or holds
    an over-long number. One linear pass; run it before any recursive parser."""
    if len(text) > limits.max_span_chars:
        raise InputTooLargeError(
            f"{what} of {len(text)} chars exceeds max_span_chars={limits.max_span_chars}",
            limit=limits.max_span_chars,
            actual=len(text),
            raw=text[:200],
        )
    max_num = limits.max_number_chars
    if (
        text.count("[") + text.count("{") + text.count("(") <= limits.max_depth
        and _digit_run(max_num).search(text) is None
    ):
        return  # too few openers to nest that deep, no digit run that long: C-speed answer
    depth = deepest = 0
    for m in _TOKENS.finditer(text):
        tok = m.group()
        c = tok[0]
        if c in "[{(":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limits.max_depth:
                    raise NestingTooDeepError(
                        f"{what} nests deeper than max_depth={limits.max_depth}",
                        limit=limits.max_depth,
                        actual=deepest,
                        raw=text[:200],
                    )
        elif c in "]})":
            depth = max(0, depth - 1)
        elif c.isdigit() and len(tok) > max_num:
            raise NumberTooLongError(
                f"a number of {len(tok)} digits exceeds max_number_chars={max_num}",
                limit=max_num,
                actual=len(tok),
                raw=text[:200],
            )


def _cheap_repair(stripped: str, cut: bool) -> tuple[ParsedJson | None, bool]:
    """``stripped`` read after the linear repairs (:func:`quick_fix`), or with the bare
    quotes inside its string values escaped first (innerquotes.py), ``None`` when
    neither reading gives JSON; and whether the linear repairs found it cut off. A text
    that reads as cut off is first read for bare inner quotes: when escaping them closes
    it, a quote, not a cut, left it open."""
    quick = quick_fix(stripped, cut=cut)
    inner = _inner_quotes_escaped(stripped, cut) if quick.truncated else None
    if inner is not None:
        return inner, quick.truncated
    if quick.fixes:
        try:
            value = json.loads(quick.text)
        except (ValueError, RecursionError):
            pass
        else:
            parsed = ParsedJson(
                value,
                repaired=True,
                note="repaired invalid JSON: " + ", ".join(quick.fixes),
                truncated=quick.truncated,
                complete_prefix=quick.truncated and cut,
            )
            return parsed, quick.truncated
    return (None if quick.truncated else _inner_quotes_escaped(stripped, cut)), quick.truncated


def _inner_quotes_escaped(text: str, cut: bool) -> ParsedJson | None:
    """``text`` read with the bare quotes inside its members' string values escaped
    (innerquotes.py), and then the common mistakes fixed (:func:`quick_fix`), when that
    closes every string and bracket and ``json.loads`` reads it whole; else ``None``."""
    if text.count('"') < 5:
        return None  # (no member with a quote inside its value)
    escaped = escape_inner_quotes(text)
    if escaped is None:
        return None
    quick = quick_fix(escaped, cut=cut)
    if quick.truncated:
        return None  # (a string left open to the end: not the reading that closes it)
    try:
        value = json.loads(quick.text)
    except (ValueError, RecursionError):
        return None
    return ParsedJson(
        value, repaired=True, note="repaired invalid JSON: escaped the quotes inside a string value"
    )


def _too_deep(doing: str, text: str, limits: Limits) -> NestingTooDeepError:
    """The error of a parser that ran out of stack on ``text`` (deeper than the limit)."""
    return NestingTooDeepError(
        f"JSON nests too deeply to {doing}",
        limit=limits.max_depth,
        actual=limits.max_depth + 1,
        raw=text[:200],
    )


def _refuse_placeholders(stripped: str, text: str) -> None:
    """Refuse a broken text whose values are placeholders, not values (elision.py): a
    bare ``...`` (``[...]`` is not ``[]``) or a call expression (``f()`` names what would
    compute a value); json-repair would read either as a value nobody wrote."""
    if elided_at(stripped) >= 0:
        raise MalformedToolCallError(ELIDED, raw=text)
    if composed_at(stripped) >= 0:
        raise MalformedToolCallError(COMPOSED, raw=text)


def _read_broken(stripped: str, text: str, declared: Collection[str]) -> ParsedJson | None:
    """What is read of a text no strict decode takes before any repair: JSON written
    escaped read whole (escapedjson.py: ``{\\"k\\": 1}``), or the text refused, its
    values placeholders (:func:`_refuse_placeholders`) or a key written again at a break
    without its colon (splicedkeys.py: no string value swallows the next key); ``None``:
    repair it."""
    if '\\"' in stripped[:32]:
        found, value = escaped_value(stripped)
        if found:
            return ParsedJson(value, repaired=True, note=ESCAPED_NOTE)
    _refuse_placeholders(stripped, text)
    if ("+" in stripped or _OPERAND.search(stripped)) and any(
        m.group(1) or m.group(2) for m in _JOINED.finditer(stripped)
    ):
        raise MalformedToolCallError(JOINED, raw=text)
    spliced = spliced_key(stripped, declared)
    if spliced is not None:
        raise MalformedToolCallError(
            f"the key {spliced!r} is written at a member's break without its colon", raw=text
        )
    return None


#: A value written as an expression. JSON has no operators, and a repair reads one as
#: wrong data, so the call is refused:
#: - group 1, a string value closed, then ``+`` and another string or a name
#:   (``"value":"MIIF…ESG"+"A".repeat(1001)``: gpt-oss-20b on vLLM,
#:   bbrowning/bfcl-vllm-results), read as one string glued across the quotes;
#: - group 2, a number after ``:``, ``[`` or ``,`` followed by an operator and an operand
#:   (``"x": 10 - 5``: Qwen2.5-7B, joerosh/BFCL-hardware-efficiency-study), read as ``10``.
#: The string literals are matched left to right, so a quote is known to close one (``"+"``
#: itself, ``"op":"+"``, is a string that holds ``+``) and no number inside a closed string
#: is read as an operand. One pass.
_JOINED = re.compile(
    r'"(?:[^"\\\n]|\\.)*"([ \t]*\+[ \t]*(?:"|[A-Za-z_$]))?'
    r"|[:\[,][ \t]*(-?\d+(?:\.\d+)?[ \t]*[-+*/][ \t]*[\d(A-Za-z_$])"
)
#: Group 2's shape anywhere (inside strings too): only a text holding one is scanned.
_OPERAND = re.compile(r"[:\[,][ \t]*-?\d+(?:\.\d+)?[ \t]*[-+*/][ \t]*[\d(A-Za-z_$]")
JOINED = "a value written as an expression (joined with an operator), not JSON"

#: A string that opens with an ellipsis (``"..."``, ``"\u2026"``, escaped ``"\\u2026"``):
#: only a text holding one can be an array of elided items (``["..."]``). One pass.
_QUOTED_ELLIPSIS = re.compile(r'"(?:\.\.\.|\u2026|\\u2026)')


@functools.lru_cache(maxsize=8)
def _digit_run(max_num: int) -> re.Pattern[str]:
    """A run of more than ``max_num`` digits (inside strings too: a superset of numbers)."""
    return re.compile(rf"\d{{{max_num + 1}}}")


def parse_lenient(
    text: str,
    limits: Limits,
    *,
    cut: bool = True,
    reads: ScanReads | None = None,
    declared: Collection[str] = (),
) -> ParsedJson:
    """Parse ``text`` as JSON, repairing it if needed.

    ``cut`` says whether the text may have been cut off (no markup closed it): then an
    unclosed value keeps only its complete members; otherwise missing closers are added.
    ``reads``: what the scan that found ``text`` worked out (a value it already decoded,
    a decode that already failed there); ``None``: nothing is remembered, ``text`` is
    decoded afresh. The answer is the same either way. ``declared``: the tool's parameters.

    Raises:
        LimitExceededError: the span is over a limit (checked before json-repair).
        MalformedToolCallError: nothing JSON-like could be recovered.
    """
    stripped = text.strip()
    if not stripped:
        raise MalformedToolCallError("empty text where JSON was expected", raw=text)
    size = len(stripped)
    if size > limits.max_span_chars:
        check_limits(stripped, limits)
    if _QUOTED_ELLIPSIS.search(stripped) is not None and elided_at(stripped) >= 0:
        raise MalformedToolCallError(ELIDED, raw=text)  # (``["..."]``: elision.py)
    if reads is not None and size >= MEMO_MIN_CHARS:  # (only a long value is kept decoded)
        found, value = reads.take_decoded(stripped)
        if found:
            return ParsedJson(value)
    # One C-speed parse answers both "valid JSON" and "a complete value, then junk"
    # (prose, a stray closer, a second object). ``stripped`` starts with no whitespace.
    if reads is None or reads.miss_source is None or not reads.known_broken(stripped):
        try:
            value, end = raw_decode(stripped)
        except RecursionError as exc:
            raise _too_deep("parse", stripped, limits) from exc
        except ValueError:
            pass
        else:
            rest = stripped[end:]  # empty, or ending in non-blank text (stripped)
            if type(value) is list and (listed := object_strings(value)) is not None:
                return ParsedJson(listed, repaired=True, trailing=rest, note=STRINGS_NOTE)
            if rest:
                return ParsedJson(value, trailing=rest, note="ignored text after the JSON value")
            return ParsedJson(value)
    check_limits(stripped, limits)
    if (read := _read_broken(stripped, text, declared)) is not None:
        return read  # (escaped JSON read whole; else refused, or on to the repairs)
    stripped = mend_envelope_keys(stripped)  # (envkeys.py: ``"parameters {``)
    # Cheap linear repairs of the common mistakes first; json-repair only if they fail.
    cheap, truncated = _cheap_repair(stripped, cut)
    if cheap is not None:
        return cheap
    _check_repair_size(stripped, limits)
    try:
        value = json_repair.loads(stripped, skip_json_loads=True)
    except RecursionError as exc:
        raise _too_deep("repair", stripped, limits) from exc
    except Exception as exc:  # json-repair raising is a bug there, not a crash here
        raise MalformedToolCallError(f"could not repair JSON: {exc}", raw=text) from exc
    if value == "" or value is None:
        raise MalformedToolCallError("no JSON value could be recovered", raw=text)
    if _arguments_dropped(stripped, value):
        raise MalformedToolCallError(
            "json-repair kept the call's name and dropped everything after it", raw=text
        )
    return ParsedJson(
        value,
        repaired=True,
        note="repaired invalid JSON with json-repair",
        truncated=truncated,
    )


def _check_repair_size(text: str, limits: Limits) -> None:
    """Refuse broken JSON over ``limits.max_repair_chars`` before json-repair sees it."""
    if len(text) > limits.max_repair_chars:
        raise InputTooLargeError(
            f"broken JSON of {len(text)} chars is over max_repair_chars="
            f"{limits.max_repair_chars}; not handed to json-repair",
            limit=limits.max_repair_chars,
            actual=len(text),
            raw=text[:200],
        )


#: A quoted run the model wrote (what a repair that keeps it keeps somewhere).
_QUOTED_RUN = re.compile(r'"([^"\\\n]{1,200})"')


def _arguments_dropped(text: str, value: Any) -> bool:
    """Did json-repair reduce a call object to its name alone while ``text`` held more
    (``{"name":"f","parameters{"key"]="Tokyo"}}`` comes back ``{"name": "f"}``)? Then the
    call would pass as one without arguments, every argument dropped (docs/design.md,
    promise 11): the text is no JSON call. Only quoted runs after the name's are looked
    at; one pass over the text."""
    if not isinstance(value, dict) or list(value) != ["name"]:
        return False
    name = value["name"]
    runs = [m.group(1) for m in _QUOTED_RUN.finditer(text)]
    after = runs[runs.index(name) + 1 :] if isinstance(name, str) and name in runs else runs
    return any(any(ch.isalnum() for ch in run) for run in after)
