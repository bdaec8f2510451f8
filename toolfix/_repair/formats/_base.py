"""The interface every native tool-call format implements.

A format recognises its markup by fixed markers (cheap substring checks, so a
streaming parser can reuse them later), and turns text into
:class:`Candidate` spans. It does not validate, alias keys, repair names or
coerce types: the interpreter (``toolfix._repair.interpret``) does that for every
format alike. A format module is one file: a subclass of
:class:`ToolCallFormat` plus its tests.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..._config import Limits
from ..._errors import TooManyCallsError
from ..jsonparse import ScanReads
from ..names import normalise_name
from ..text import escaped_json_end, find_bracket_end

__all__ = [
    "Candidate",
    "ScanContext",
    "ToolCallFormat",
    "arguments_before",
    "make_candidate",
    "respan",
]


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class Candidate:
    """A span of text that holds one or more tool calls, as a format found it.

    Exactly one of ``payload`` (JSON-ish text of one call object or a list of
    them, e.g. the body of ``<tool_call>…</tool_call>``) or ``name`` (the markup
    itself names the tool, e.g. ``<function=get_weather>``) is set.

    ``start``/``end`` delimit the text removed from the content when the
    candidate is taken (markers included). ``kinds`` are the failure classes
    of *where* the call was found (``call_in_content``, ``code_fence``,
    ``native_markup``, ``pythonic``, ``truncated``...): the interpreter adds
    the classes of what it repairs.
    """

    start: int
    end: int
    format: str
    raw: str
    kinds: tuple[str, ...] = ()
    payload: str | None = None
    name: str | None = None
    arguments: str | Mapping[str, Any] | None = None
    """With ``name``: the arguments as JSON-ish text, or as an already structured mapping."""
    string_values: bool = False
    """Argument values are untyped text (XML-style parameters): type them by the schema."""
    id: str | None = None
    """A call id given by the markup (Mistral, Kimi), if any."""
    truncated: bool = False
    """The output ended before the call's own closer (``finish_reason=length``): the
    interpreter reports an invalid ``truncated`` call unless ``FixConfig.truncated`` opts
    into keeping the complete members. A closer that following markup supplies (the
    next call's opener, an end tag) is a missing brace, not a cut."""
    explicit: bool = True
    """The markup makes this unmistakably a tool call (tags, special tokens). ``False`` for
    bare JSON in prose: then the interpreter only takes it when it is call-shaped."""
    args_key: str = "arguments"
    """The key the family names a call's arguments with (Llama: ``parameters``); the
    interpreter reads both, and records an alias only for the other one."""
    open_ended: bool = False
    """No markup says where the arguments end (a native call's raw arguments string):
    whether they were cut off is read from the JSON itself."""
    error: str | None = None
    """Set when the format already knows the call is invalid (e.g. a pythonic call outside
    the literal whitelist, ``f(**kw)``): report it as invalid with this reason, and do not
    try to repair ``arguments`` (they hold the raw call text, or, for a call cut off
    before its closer, the arguments that were complete as a mapping, attached to the
    invalid call)."""
    notes: tuple[tuple[str, str], ...] = ()
    """What the format repaired while reading the call, as ``(kind, detail)`` pairs (a
    Python string requoted, a missing name read from the only tool offered): each
    becomes a repair record."""
    quoted: str | None = None
    """Why this call is only quoted (a comment, a blockquote, another call's value, a
    refused reasoning quote), as the scanner or a reader found it: the admission gate
    never admits it (rule G2, toolfix/_repair/gate.py). ``None``: not quoted."""


#: Where a call written in a family's markup was found.
MARKUP_KINDS = ("call_in_content", "native_markup")


def make_candidate(
    text: str,
    start: int,
    end: int,
    fmt: str,
    *,
    truncated: bool = False,
    where: tuple[str, ...] = MARKUP_KINDS,
    extra: tuple[str, ...] = (),
    payload: str | None = None,
    name: str | None = None,
    arguments: str | Mapping[str, Any] | None = None,
    string_values: bool = False,
    call_id: str | None = None,
    error: str | None = None,
    args_key: str = "arguments",
    explicit: bool = True,
    notes: tuple[tuple[str, str], ...] = (),
) -> Candidate:
    """The candidate of the call ``text[start:end]``, found by ``fmt``. Its kinds are
    ``where`` (by default: written in markup), then ``extra``, then ``truncated``."""
    # positional, in the fields' order: a keyword call costs more
    return Candidate(
        start,
        end,
        fmt,
        text[start:end],
        where if not extra and not truncated else _kinds(where, extra, truncated),
        payload,
        name,
        arguments,
        string_values,
        call_id,
        truncated,
        explicit,
        args_key,
        False,  # open_ended
        error,
        notes,
    )


def respan(c: Candidate, start: int, end: int, raw: str) -> Candidate:
    """``c`` with its span widened to ``text[start:end]`` (``raw``): what
    ``dataclasses.replace`` does, without its field-by-field introspection."""
    return Candidate(
        start,
        end,
        c.format,
        raw,
        c.kinds,
        c.payload,
        c.name,
        c.arguments,
        c.string_values,
        c.id,
        c.truncated,
        c.explicit,
        c.args_key,
        c.open_ended,
        c.error,
        c.notes,
        c.quoted,
    )


@functools.lru_cache(maxsize=256)
def _kinds(where: tuple[str, ...], extra: tuple[str, ...], truncated: bool) -> tuple[str, ...]:
    """A candidate's kinds, one shared tuple per combination (thousands of candidates in
    one text hold a handful of distinct ones). Without ``extra`` and ``truncated`` they
    are ``where`` itself: the makers use it as it is, without this lookup."""
    return (*where, *extra, *(("truncated",) if truncated else ()))


def arguments_before(
    text: str, at: int, stop: int, limits: Limits, reads: ScanReads | None = None
) -> tuple[str, int, bool]:
    """The arguments written at ``text[at:]`` of a call whose end token is at ``stop``
    (``len(text)`` when there is none): ``(arguments, end, truncated)``.

    JSON runs to its closing bracket (JSON written escaped, ``{\\"k\\": 1}``, to the
    bracket that closes it: :func:`~toolfix._repair.text.escaped_json_end`); when it does
    not close before the end token it is broken JSON, and only the end of the output
    cuts a call off. Anything else runs to the end token, without trailing whitespace.
    ``reads``: the scan's (``ScanContext``)."""
    n = len(text)
    if at < n and text[at] in "{[":
        escaped = escaped_json_end(text, at)  # (JSON written escaped: escapedjson.py)
        if escaped is None or escaped.truncated:
            escaped = None
        span = escaped or find_bracket_end(text, at, limits, reads=reads)
        if span.truncated and stop < n:
            span = find_bracket_end(text, at, limits, stop=stop, reads=reads)
        arguments = text[at : span.end]
        if span.truncated:
            arguments = arguments.rstrip()
        return arguments, at + len(arguments), span.truncated and stop == n
    arguments = text[at:stop].rstrip()
    return arguments, at + len(arguments), stop == n


def _per_tool(table: Mapping[str, str], name: str) -> str | None:
    """``table``'s entry for tool ``name``, matched exactly or normalised (case,
    separators; no namespace prefix), or ``None``."""
    hit = table.get(name)
    if hit is not None or not table:
        return hit
    norm = normalise_name(name, strip_prefix=False)
    for tool, value in table.items():
        if normalise_name(tool, strip_prefix=False) == norm:
            return value
    return None


@dataclass(frozen=True, slots=True)
class ScanContext:
    """What a format may consult while scanning: the tool names, the limits, and what
    this scan has worked out so far (``reads``: one :class:`ScanReads` per scan, made by
    the scanner and handed to ``find_bracket_end`` and ``json_past_markers``; ``None``:
    nothing is remembered)."""

    tool_names: frozenset[str] = frozenset()
    limits: Limits = field(default_factory=Limits)
    reads: ScanReads | None = None
    sole_strings: Mapping[str, str] = field(default_factory=dict)
    """Each tool that takes exactly one parameter, a required string, with that
    parameter's name: a value a family writes bare in the call (its argument's opener
    left out) can only be that one."""
    ended: str | None = None
    """The response's finish reason when it says the model ended the output itself and
    the text scanned is that output's end (``None``: cut off, or not known): a call whose
    closers are all that is missing there is closed by the end (ending.py)."""
    lone_params: Mapping[str, str] = field(default_factory=dict)
    """Each tool with the one parameter a lone value written by position binds to
    (:func:`toolfix._repair.positional.lone_parameters`)."""

    def lone_param(self, name: str) -> str | None:
        """The parameter a lone positional value of tool ``name`` (as :meth:`is_tool`
        matches it) binds to, or ``None``."""
        return _per_tool(self.lone_params, name)

    def sole_string(self, name: str) -> str | None:
        """The one string parameter of tool ``name`` (as :meth:`is_tool` matches it),
        or ``None``."""
        return _per_tool(self.sole_strings, name)

    def is_tool(self, name: str) -> bool:
        """Exact or normalised (case, ``-``/``_``/space) match against the tool names."""
        if name in self.tool_names:
            return True
        # a namespace prefix is the model's (``default_api.f``): not a match here
        norm = normalise_name(name, strip_prefix=False)
        return any(normalise_name(t, strip_prefix=False) == norm for t in self.tool_names)


class ToolCallFormat(ABC):
    """One family's native tool-call markup."""

    #: Short name used in corpus ``format`` fields and ``FixConfig.formats``.
    name: ClassVar[str]
    #: Substrings whose presence means this format may apply. Empty: always try.
    markers: ClassVar[tuple[str, ...]] = ()
    #: Lower runs first; the generic JSON scanner runs last on what is left.
    priority: ClassVar[int] = 50
    #: Where the markup is documented (chat template, parser source).
    source: ClassVar[str] = ""
    #: The key the family names a call's arguments with (Llama: ``parameters``).
    args_key: ClassVar[str] = "arguments"
    #: The family's markup is message channels (harmony): the channel tokens inside its
    #: calls' spans are its own headers, not markup written inside a value.
    channel_markup: ClassVar[bool] = False
    #: Substrings without which :meth:`split_channels` has nothing to split.
    channel_markers: ClassVar[tuple[str, ...]] = ()
    #: For a generic format (it reads free text, not markup): the characters its spans
    #: start with (for pythonic calls: that follow the name). ``None``: no such promise,
    #: the format always runs.
    span_openers: ClassVar[str | None] = None
    #: For a markup format: every span starts at one of :attr:`markers`, or at wrapper
    #: markup, a tool name or whitespace right before one, never at free text before it.
    #: Then no span holds text that lies before the format's first marker.
    spans_start_at_markers: ClassVar[bool] = False

    def may_open_before(self, text: str, pos: int) -> bool:
        """False when no span of this format in ``text`` can start before ``pos`` and
        hold text there (what the masking pass asks before it runs a format: markup
        that lies in no span needs no masking). ``True`` when unsure."""
        openers = self.span_openers
        if openers is not None:
            return any(text.find(ch, 0, pos) != -1 for ch in openers)
        if self.spans_start_at_markers:
            return any(text.find(m, 0, pos + len(m)) != -1 for m in self.markers)
        return True

    def split_channels(self, text: str) -> tuple[str | None, list[tuple[str, bool]]] | None:
        """``(reasoning, [(segment, addressed), ...])`` for a family that writes messages
        in channels (only addressed segments may hold calls); ``None`` otherwise."""
        return None

    def _make(
        self,
        text: str,
        start: int,
        end: int,
        truncated: bool,
        *,
        payload: str | None = None,
        name: str | None = None,
        arguments: str | Mapping[str, Any] | None = None,
        where: tuple[str, ...] = MARKUP_KINDS,
        extra: tuple[str, ...] = (),
        error: str | None = None,
        call_id: str | None = None,
        string_values: bool = False,
        explicit: bool = True,
        notes: tuple[tuple[str, str], ...] = (),
    ) -> Candidate:
        """A candidate of this format for ``text[start:end]``: :func:`make_candidate`'s,
        built here (this runs for every call a format reads: a second call with sixteen
        keywords would cost more than the candidate itself)."""
        return Candidate(
            start,
            end,
            self.name,
            text[start:end],
            where if not extra and not truncated else _kinds(where, extra, truncated),
            payload,
            name,
            arguments,
            string_values,
            call_id,
            truncated,
            explicit,
            self.args_key,
            False,  # open_ended
            error,
            notes,
        )

    def detect(self, has: Callable[[str], bool]) -> bool:
        """Cheap check: could the text contain this format's calls? ``has(marker)`` says
        whether the text holds ``marker`` (the scan's marker index; ``text.__contains__``
        for a plain answer)."""
        markers = self.markers
        if not markers:
            return True
        for marker in markers:  # noqa: SIM110 - a plain loop: runs per format per text
            if has(marker):
                return True
        return False

    def check_call_count(self, found: int, ctx: ScanContext, text: str, at: int = 0) -> None:
        """Raise :class:`~toolfix.TooManyCallsError` before taking call number ``found + 1``
        when ``found`` calls already reach ``ctx.limits.max_calls``."""
        limit = ctx.limits.max_calls
        if found >= limit:
            raise TooManyCallsError(
                f"more than {limit} {self.name} tool calls in one message",
                limit=limit,
                actual=found + 1,
                raw=text[at : at + 200],
            )

    def tidy(self, remaining: str) -> str:
        """The text left once this format's calls are taken, without the format's own
        channel tokens (Functionary's ``>>>all``, Kimi K3's response channel). The
        manual fixer calls it only when one of this format's calls was taken."""
        return remaining

    @abstractmethod
    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """Find this format's calls. Candidates must not overlap; order by ``start``.

        Must run in linear time in ``len(text)`` and never execute anything. Raise a
        :class:`~toolfix.LimitExceededError` subclass when a limit is exceeded.
        """
