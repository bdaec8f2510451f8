"""The admission gate: the one place a proposed call becomes a valid call.

Readers (the formats, the scanner, the native-call fixer, the reasoning policy, the LLM
fixer's reply, streams) only *propose*: a tool, arguments decoded into an object, and the
evidence they saw (a :class:`Proposal`). :func:`Gate.admit` is the only function in the
repair engine that returns a valid :class:`~toolfix.ToolCallPart`; everything else it is
handed comes back as an :class:`~toolfix.InvalidToolCallPart` with its kind and raw text. Its rules
(docs/design.md#the-admission-gate), each checked here, in this order:

- **G1 closed**: the call's extent was closed by structure; a cut-off call is
  ``truncated`` (the finisher applies ``FixConfig.truncated`` before, and never hands
  over an emptied call);
- **G2 not quoted**: a call the scanner found quoted (a comment, a blockquote, another
  call's value, a refused reasoning quote: :attr:`Proposal.quoted`, from
  :attr:`Candidate.quoted <toolfix._repair.formats.Candidate.quoted>`) is never admitted;
- **G3 no duplicated parameter**: a key written twice in one call with two different
  values is ``duplicate_argument``, both values in the record (the same value twice is
  read once, with a ``duplicate_argument`` repair record: no value wins over another);
- **G4 a registry tool**: the finisher resolved the name only by how it is written
  (:mod:`toolfix._repair.names`); an unknown name never reaches :func:`Gate.admit`;
- **G5 arguments that validate** against the tool's schema (after the schema's
  coercions); a raw text value that is an elision mark (``(...)``: the text does not
  hold the value), and a list or object whose every item is an ellipsis or a mark
  (``[{"q": "..."}]``), are no value (:func:`~toolfix._repair.elision.elided_value`);
- **G6 not emptied**: a call that had arguments and lost every one of them to
  coercion (undeclared keys dropped) is invalid, never ``{}``;
- **G7 finite numbers**: toolfix never writes ``NaN``, ``Infinity`` or a number that
  overflowed a float: such a call is ``invalid_json`` with its raw text.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._config import FixConfig
from .._messages import (
    CallPart,
    FailureKind,
    InvalidToolCallPart,
    RepairRecord,
    ToolCallPart,
    canonical_json,
    invalid_call,
    recovered_call,
)
from .._tools import ToolDescriptor
from .elision import ELIDED, elided_value

__all__ = [
    "Duplicate",
    "Gate",
    "InvalidCall",
    "Proposal",
    "ReadArguments",
    "admits_as_sent",
    "derive_id",
    "differing",
    "duplicate_keys",
    "duplicates_detail",
    "has_non_finite",
]

K = FailureKind
_ONLY_STR = frozenset({str})

#: A key written twice in one call: the key, the first value, the value written after.
Duplicate = tuple[str, Any, Any]


class ReadArguments(dict[str, Any]):
    """The arguments a markup reader read, one key at a time: a key written a second
    time is kept (the last value, as before) *and* noted in :attr:`duplicates`, for the
    gate (G3). Readers build their argument dicts as one of these."""

    __slots__ = ("duplicates",)

    def __init__(self) -> None:
        super().__init__()
        self.duplicates: tuple[Duplicate, ...] = ()

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self:
            self.duplicates = (*self.duplicates, (key, self[key], value))
        dict.__setitem__(self, key, value)


def duplicates_detail(duplicates: tuple[Duplicate, ...]) -> str:
    """The error of a call with duplicated parameters: each key with both values."""
    shown = "; ".join(
        f"{key!r} is written twice: {_short(first)} then {_short(second)}"
        for key, first, second in duplicates[:5]
    )
    return f"duplicated parameter (a second value must not silently win): {shown}"


def differing(duplicates: tuple[Duplicate, ...]) -> tuple[Duplicate, ...]:
    """The keys written twice whose two values differ once parsed (G3 refuses those: a
    second value must not silently win). Two values are the same when they encode to the
    same JSON with sorted keys, so ``1`` and ``1.0``, ``1`` and ``true``, ``"1"`` and
    ``1`` differ; a value JSON cannot write (``NaN``) differs from everything."""
    return tuple(d for d in duplicates if not _same(d[1], d[2]))


def _same(first: Any, second: Any) -> bool:
    try:
        return _SORTED.encode(first) == _SORTED.encode(second)
    except (TypeError, ValueError):
        return False


_SORTED = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False)


def _once_record(duplicates: tuple[Duplicate, ...]) -> RepairRecord:
    """The record of keys written twice with the same value, read once (rule G3)."""
    keys = ", ".join(dict.fromkeys(repr(key) for key, _, _ in duplicates[:5]))
    return RepairRecord(
        kind=K.DUPLICATE_ARGUMENT,
        detail=f"read once a key written twice with the same value: {keys}",
    )


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 200 else text[:200] + "…"


# ---- G3 for JSON text ------------------------------------------------------------------


#: A quote followed by a colon: where a key of a JSON text ends (or a string value that
#: holds one: more matches than keys, never fewer).
_KEY_COLON = re.compile(r'"[ \t\r\n]*:')


def duplicate_keys(text: str, value: Any) -> tuple[Duplicate, ...]:
    """The keys written twice in any object of the JSON ``text`` that decoded to
    ``value`` (``json.loads`` keeps the last one silently).

    Each key of a JSON text is a string followed by a colon, so a text with no more
    colons than ``value`` has keys (counted until they reach that number) has no key
    twice: a C-speed count answers nearly every call (:func:`_text_duplicates` the
    rest)."""
    colons = text.count(":")
    if colons == 0 or (type(value) is dict and colons <= len(value)):
        return ()  # (no more colons than the keys at the top: no walk)
    keys = _count_keys(value, colons)  # (all of them, when fewer than the colons)
    return () if keys >= colons else _text_duplicates(text, keys)


def _text_duplicates(text: str, keys: int) -> tuple[Duplicate, ...]:
    """The keys written twice in the JSON ``text`` whose value holds ``keys`` keys (it
    has more colons than that). A text with no more quotes followed by a colon than
    ``keys`` has none; otherwise ``text`` is decoded again with a hook that sees every
    object's pairs (only when ``text`` is strict JSON: a repaired text is read again by
    :func:`toolfix._repair.quickfix.quick_fix`'s output, which the caller passes
    instead)."""
    # colons in string values (times, URLs) are no keys' colons
    if keys >= len(_KEY_COLON.findall(text)):
        return ()
    found: list[Duplicate] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in pairs:
            if key in out:
                found.append((key, out[key], item))
            out[key] = item
        return out

    try:
        json.loads(text, object_pairs_hook=pairs_hook)
    except (ValueError, RecursionError):
        return ()
    return tuple(found)


def _count_keys(value: Any, enough: int) -> int:
    """The keys of every object in ``value``, counted until ``enough`` (bounded work)."""
    count = 0
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if type(item) is dict or isinstance(item, dict):
            count += len(item)
            if count >= enough:
                return count
            for v in item.values():
                if type(v) is dict or type(v) is list:
                    push(v)
        elif type(item) is list:
            for v in item:
                if type(v) is dict or type(v) is list:
                    push(v)
    return count


# ---- G7 --------------------------------------------------------------------------------


#: The types of values that hold no number that is not finite (and no container).
_FLAT_TYPES = frozenset({str, int, bool, type(None)})


def has_non_finite(value: Any) -> bool:
    """Does ``value`` hold a NaN or an infinity (anywhere)? One walk over the parsed
    value (a long string is one item: the walk costs per value, not per character).
    The gate's own G7 is answered while it writes the arguments (``allow_nan=False``);
    this walk serves a provider's call kept as it came (:func:`admits_as_sent`)."""
    t = type(value)
    if t is float:
        return not math.isfinite(value)
    if not (t is dict or t is list or t is tuple or isinstance(value, dict)):
        return False
    stack = [value]
    pop, push = stack.pop, stack.append
    isfinite: Callable[[float], bool] = math.isfinite
    while stack:
        item = pop()
        for v in item.values() if type(item) is dict or isinstance(item, dict) else item:
            t = type(v)
            if t in _FLAT_TYPES:
                continue  # (most values: one set lookup)
            if t is float:
                if not isfinite(v):
                    return True
            elif t is dict or t is list or t is tuple or isinstance(v, dict):
                push(v)
    return False


# ---- proposals and the gate ------------------------------------------------------------


def _id_text(arguments: Any) -> str:
    """The arguments as text for an id: a call's id depends on the call itself and on
    the text before it, never on what follows it (a stream releases calls early)."""
    try:
        return _ID_ENCODER.encode(arguments)
    except (TypeError, ValueError, RecursionError):
        return repr(arguments)


#: ``json.dumps(..., sort_keys=True, ensure_ascii=False, default=repr)``'s encoder, made
#: once (``dumps`` with options builds one per call, and its ``encode`` a C encoder).
_ID_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=repr)


def derive_id(*parts: str) -> str:
    """A call id derived from the input (promise 7: no randomness).

    A part longer than :data:`_ID_PART_CHARS` counts by its length, head and tail: the
    other parts (position, name, the digest of the text before the call) already tell
    calls apart, and hashing a megabyte argument whole would cost more than reading it.
    """
    text = "\x1f".join(parts)
    # (no part is longer than the whole: the parts are looked at only for a long text)
    if len(text) > _ID_PART_CHARS and max(map(len, parts)) > _ID_PART_CHARS:
        half = _ID_PART_CHARS // 2
        text = "\x1f".join(
            f"{len(p)}:{p[:half]}:{p[-half:]}" if len(p) > _ID_PART_CHARS else p for p in parts
        )
    return "call_" + _sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


_sha256 = hashlib.sha256

#: Longest id part hashed whole (see :func:`derive_id`).
_ID_PART_CHARS = 65_536
_RAW_PREVIEW = 2000


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class Proposal:
    """One call on its way to the gate: its raw text, the repairs so far, the evidence
    the readers saw (``truncated``: G1, ``quoted``: G2, ``duplicates``: G3), and what
    its id derives from (computed when asked: a valid call's id hashes its canonical
    arguments, which admission writes anyway). ``native``: a provider's call, passed
    through as it is when it is admitted unchanged."""

    raw: str
    repairs: list[RepairRecord]
    truncated: bool
    prefix_safe: bool
    given_id: str | None
    id_parts: tuple[str, ...]
    arguments: Any
    in_text: bool
    """Found in text: the id hashes the call's arguments too (a native call's position
    alone tells it apart)."""
    duplicates: tuple[Duplicate, ...] = ()
    quoted: str | None = None
    native: ToolCallPart | None = None

    @property
    def call_id(self) -> str:
        """The id of this call as found (an invalid call's id)."""
        if self.given_id:
            return self.given_id
        if not self.in_text:
            return derive_id(*self.id_parts)
        return derive_id(*self.id_parts, _id_text(self.arguments))

    def valid_id(self, arguments_raw: str) -> str:
        """The id of this call once valid, ``arguments_raw`` its canonical arguments."""
        if self.given_id:
            return self.given_id
        if not self.in_text:
            return derive_id(*self.id_parts)
        return derive_id(*self.id_parts, arguments_raw)

    def invalid(
        self,
        error: str,
        kind: str,
        name: str | None,
        *,
        raw: str | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> InvalidToolCallPart:
        """This call as an invalid call (``raw`` replaces the candidate's text)."""
        return InvalidCall(
            raw=self.raw if raw is None else raw,
            error=error,
            kind=kind,
            name=name,
            call_id=self.call_id,
            repairs=tuple(self.repairs),
            arguments=arguments,
        ).part()


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class InvalidCall:
    """The facts of a call that cannot be made valid: what becomes its
    :class:`~toolfix.InvalidToolCallPart`."""

    raw: str
    error: str
    kind: str
    name: str | None
    call_id: str
    repairs: tuple[RepairRecord, ...] = ()
    arguments: dict[str, Any] | None = None

    def part(self) -> InvalidToolCallPart:
        raw = self.raw
        return invalid_call(
            self.call_id,
            self.name,
            raw if len(raw) <= _RAW_PREVIEW * 50 else raw[: _RAW_PREVIEW * 50],
            self.error,
            self.kind,
            self.arguments,
            self.repairs,
        )


Coercer = Callable[[dict[str, Any], bool], tuple[dict[str, Any], tuple[RepairRecord, ...]]]


class Gate:
    """Admits proposed calls, for one configuration (see the module docs for the rules).

    ``coercer``: the schema coercion of a tool's arguments (made once per tool by the
    finisher)."""

    def __init__(
        self,
        config: FixConfig,
        coercer: Callable[[ToolDescriptor], Coercer],
        texts: Callable[[ToolDescriptor], frozenset[str]],
    ):
        self._cap = config.limits.max_pattern_input_chars
        self._coerce = config.coerce_arguments
        self._keep_cut = config.truncated == "keep_complete_members"
        self._coercer = coercer
        #: a tool's parameters whose untyped text coercion keeps as it is
        #: (:func:`~toolfix._repair.coerce.text_keys`)
        self._texts = texts

    def admit(
        self,
        tool: ToolDescriptor,
        args: dict[str, Any],
        p: Proposal,
        *,
        string_values: bool = False,
    ) -> CallPart:
        """The valid call ``tool(args)`` when the proposal ``p`` meets every rule; else
        the invalid call of the first rule it breaks (G1 to G7, the module docs)."""
        name = tool.name
        if p.truncated and not self._keep_cut:  # G1 (the finisher reported it already)
            return p.invalid(
                "the call was cut off before its closer", K.TRUNCATED, name, arguments=args
            )
        if p.quoted is not None:  # G2
            return p.invalid(f"a quoted call, not a call: {p.quoted}", K.QUOTED_CALL, name)
        if p.duplicates and (differ := differing(p.duplicates)):  # G3
            return p.invalid(duplicates_detail(differ), K.DUPLICATE_ARGUMENT, name, arguments=args)
        if p.duplicates:  # (each key written twice with one value: read once, recorded)
            p.repairs.append(_once_record(p.duplicates))
        cap = self._cap
        if p.native is not None and not p.repairs and admits_as_sent(tool, p.native, cap):
            return p.native  # valid as the provider sent it: passed through byte-identical
        if p.native is None and (key := elided_value(args)) is not None:
            return p.invalid(f"{ELIDED}: {key}", K.MISSING_REQUIRED, name, arguments=args)  # G5
        given = bool(args)
        if (
            string_values
            and args.keys() <= self._texts(tool)
            and _ONLY_STR.issuperset(map(type, args.values()))
        ):
            string_values = False  # text for plain string parameters: nothing to coerce
        if string_values or not tool.is_valid(args, max_pattern_chars=cap):  # G5
            if self._coerce or string_values:
                args, coerced = self._coercer(tool)(args, string_values)
                p.repairs.extend(coerced)
            # the full error list (jsonschema) only when the answer is "invalid"
            issues = (
                []
                if tool.is_valid(args, max_pattern_chars=cap)
                else tool.validate_arguments(args, max_pattern_chars=cap)
            )
            if issues:
                missing = any(i.keyword == "required" for i in issues)
                kind = (
                    K.TRUNCATED
                    if p.truncated and missing
                    else (K.MISSING_REQUIRED if missing else K.TYPE_MISMATCH)
                )
                return p.invalid(
                    "invalid arguments: " + "; ".join(str(i) for i in issues[:10]),
                    kind,
                    name,
                    raw=p.raw or canonical_json({"name": name, "arguments": jsonable(args)}),
                    arguments=args,
                )
            if given and not args:  # G6
                return p.invalid(
                    "every argument was dropped (undeclared keys): the call would run "
                    f"with {{}}; parameters: {', '.join(list(tool.properties)[:20])}",
                    K.EXTRA_KEYS,
                    name,
                )
        try:
            arguments_raw = canonical_json(args, finite=True)
        except ValueError:  # G7, found while writing the arguments
            return p.invalid(
                "arguments hold a number JSON cannot carry (NaN, Infinity, or past a "
                "float's range); toolfix does not write one",
                K.INVALID_JSON,
                name,
                raw=p.raw or (p.native.arguments_raw if p.native is not None else ""),
            )
        return recovered_call(
            p.valid_id(arguments_raw), name, arguments_raw, args, tuple(p.repairs)
        )


def admits_as_sent(tool: ToolDescriptor, part: ToolCallPart, cap: int) -> bool:
    """The gate's rule for a provider's call kept exactly as it came (byte-identical, the
    fast path of every response): its arguments validate as they are (G5), its
    arguments text writes no key twice (G3) and no ``NaN``/``Infinity`` (G7: not JSON).
    A number past a float's range is kept as written: its text is JSON, and toolfix
    does not rewrite it. (The name is the registry's: ``tool`` is its tool, G4.)

    The text is read by a C-speed colon count: with no more colons than the arguments
    have keys at their top, no key is written twice, and two C-speed searches answer G7.
    Otherwise one walk over the arguments counts their keys and strings and finds a
    non-finite number: every key and string of the value is one quoted string of the
    text, and a key written twice is one more, so a text with no more quotes than twice
    their number has none (:func:`_text_duplicates` answers the rest)."""
    args = part.arguments
    if args is None:
        return False
    raw = part.arguments_raw
    if not tool.is_valid(args, max_pattern_chars=cap) and not (
        # jsonschema-rs refuses a float's infinity; written as a JSON number (1e999) it is
        # one, and jsonschema judges it
        "NaN" not in raw
        and "Infinity" not in raw
        and has_non_finite(args)
        and not tool.validate_arguments(args, max_pattern_chars=cap)
    ):
        return False
    colons = raw.count(":")
    if colons <= len(args):
        return not (("NaN" in raw or "Infinity" in raw) and has_non_finite(args))
    keys, strings, non_finite = _tally(args)
    if colons > keys and raw.count('"') > 2 * (keys + strings) and _text_duplicates(raw, keys):
        return False
    return not (non_finite and ("NaN" in raw or "Infinity" in raw))


def _tally(value: dict[str, Any]) -> tuple[int, int, bool]:
    """The keys and the strings the objects and arrays of ``value`` hold, and whether a
    NaN or an infinity is among its numbers: one walk (as :func:`_count_keys` and
    :func:`has_non_finite` walk)."""
    keys = strings = 0
    non_finite = False
    isfinite = math.isfinite
    stack: list[Any] = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if type(item) is dict or isinstance(item, dict):
            keys += len(item)
            item = item.values()
        for v in item:
            t = type(v)
            if t is str:
                strings += 1
            elif t is float:
                non_finite = non_finite or not isfinite(v)
            elif t is dict or t is list or t is tuple or isinstance(v, dict):
                push(v)
    return keys, strings, non_finite


def jsonable(value: Any) -> Any:
    """``value`` when JSON can write it, else its ``repr`` (an invalid call's raw text)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value
