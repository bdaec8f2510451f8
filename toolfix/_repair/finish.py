"""From a call's shape to a valid call or an invalid-call record.

:class:`~toolfix._repair.interpret.Interpreter` reads what a format found (or a broken
native call) into a :class:`CallShape`: a name and arguments. :class:`CallFinisher`
takes it from there, the same way for every format: it resolves the tool name,
decodes the arguments (JSON text parsed, double encoding undone, markup taken out of
keys), applies the truncation policy, coerces the arguments to the schema and
validates them. Each step that changes something leaves a
:class:`~toolfix.RepairRecord`; a call that cannot be made valid becomes an
:class:`~toolfix.InvalidToolCallPart` with its raw text and the reason.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._config import FixConfig
from .._errors import LimitExceededError, MalformedToolCallError
from .._messages import (
    FailureKind,
    InvalidToolCallPart,
    RepairRecord,
    ToolCallPart,
    canonical_json,
    invalid_call,
    recovered_call,
)
from .._tools import ToolDescriptor, ToolRegistry
from .coerce import Coercer, decode_double_encoded, schema_coercer, text_keys
from .formats import Candidate
from .jsonparse import ParsedJson, parse_lenient
from .names import NameMatch, normalise_name, resolve_name, within_one_edit

__all__ = [
    "CallFinisher",
    "CallShape",
    "CallSite",
    "InvalidCall",
    "derive_id",
    "rec",
    "where_records",
]

_DICT_OR_LIST = (dict, list)  # ``isinstance(x, A | B)`` would build the union on every call

K = FailureKind
CallPart = ToolCallPart | InvalidToolCallPart
_RAW_PREVIEW = 2000
_TRUNCATED = K.TRUNCATED  # (read on every call: an enum member's lookup costs more)


#: What :meth:`CallFinisher.found` reads of a name (see :meth:`CallFinisher._known`).
_Known = tuple[NameMatch, ToolDescriptor | None, Mapping[str, Any], frozenset[str]]
_ONLY_STR = frozenset({str})


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
    # (no part can be longer than the parts joined: the usual short call skips the look)
    if len(text) > _ID_PART_CHARS and any(len(part) > _ID_PART_CHARS for part in parts):
        half = _ID_PART_CHARS // 2
        text = "\x1f".join(
            f"{len(p)}:{p[:half]}:{p[-half:]}" if len(p) > _ID_PART_CHARS else p for p in parts
        )
    return "call_" + _sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


_sha256 = hashlib.sha256


#: Longest id part hashed whole (see :func:`derive_id`).
_ID_PART_CHARS = 65_536


@dataclass
class CallShape:
    """A call object after unwrapping and key aliasing, before validation."""

    name: str | None
    arguments: Any
    id: str | None = None
    repairs: list[RepairRecord] = field(default_factory=list)
    has_args_key: bool = False
    flat: bool = False


@functools.lru_cache(maxsize=2048)
def rec(kind: str, detail: str) -> RepairRecord:
    # Records are immutable, so equal ones can be shared (most details are fixed texts).
    return RepairRecord(kind=kind, detail=detail)


_GIVEN_AS_STRING = rec(K.DOUBLE_ENCODED, "decoded arguments given as a JSON string")


class CallFinisher:
    """Finishes call shapes into call parts, for one registry and configuration."""

    def __init__(self, registry: ToolRegistry, config: FixConfig):
        self.registry = registry
        self.config = config
        self.names = list(registry)
        self._name_cache: dict[str, NameMatch] = {}
        # read on every call (the registry and the configuration are immutable)
        self._tools: dict[str, ToolDescriptor] = dict(registry.items())
        self._cap = config.limits.max_pattern_input_chars
        self._coerce = config.coerce_arguments
        self._drop_extra_keys = config.drop_extra_keys
        self._limits = config.limits
        #: each tool's coercion (:func:`schema_coercer`), made when first needed
        self._coercers: dict[str, Coercer] = {}
        #: :meth:`_known`'s answers, by name
        self._plain: dict[str, _Known] = {}

    def resolve(self, name: str) -> NameMatch:
        """The registry name for ``name`` (cached: a message often repeats a name)."""
        hit = self._name_cache.get(name)
        if hit is None:
            hit = resolve_name(
                name,
                self.names,
                max_distance=self.config.name_max_distance,
                max_ratio=self.config.name_max_ratio,
            )
            if len(self._name_cache) > 512:
                self._name_cache.clear()
            self._name_cache[name] = hit
        return hit

    def _coercer(self, tool: ToolDescriptor) -> Coercer:
        """The coercion of ``tool``'s arguments (made once per tool)."""
        found = self._coercers.get(tool.name)
        if found is None:
            found = self._coercers[tool.name] = schema_coercer(
                tool.parameters, self._drop_extra_keys, self._limits
            )
        return found

    def finish(self, s: CallShape, cand: Candidate | None, site: CallSite) -> CallPart:
        """The call part for one call shape: name resolved, arguments decoded, cut-off
        calls handled by the truncation policy, then coerced and validated."""
        if cand is not None and not s.flat:  # (found() knows no flat arguments)
            return self.found(
                s.name,
                s.arguments,
                s.id,
                s.repairs,
                cand,
                site.seed,
                site.index,
                site.last,
                site.prefix_safe,
                site.kinds,
            )
        name = s.name or ""  # shape() and the formats always set a name
        return self._finish(s, cand, site, self._name_cache.get(name) or self.resolve(name), None)

    def found(
        self,
        name: str | None,
        arguments: Any,
        call_id: str | None,
        repairs: Sequence[RepairRecord],
        cand: Candidate,
        seed: str,
        index: int = 0,
        last: bool = True,
        prefix_safe: bool = False,
        kinds: tuple[str, ...] | None = None,
    ) -> CallPart:
        """:meth:`finish` of the shape ``CallShape(name, arguments, call_id, repairs)`` of a
        call found in text (``cand``; ``kinds``: where, ``cand.kinds`` unless given), at
        ``CallSite(seed, index, kinds, last, prefix_safe)``: the shape and the site are
        built only when the call is not plain.

        The commonest call (its tool known, nothing cut off, its arguments an object of
        declared keys, or the JSON text of one) is made here, without a draft, as
        :meth:`_finish` would make it: the repairs and the id are those :meth:`validate`
        gives (tests/test_finish_paths.py holds the two paths to one answer).
        """
        if kinds is None:
            kinds = cand.kinds
        given = name or ""  # (the formats and shape() always set a name)
        match, tool, props, texts = self._plain.get(given) or self._known(given)
        args = arguments
        parsed: ParsedJson | None = None
        string_values = cand.string_values
        # a call a format noted repairs in, or cut off, takes the general path
        plain = not cand.notes and not (last and (cand.truncated or _TRUNCATED in kinds))
        if plain and tool is not None and type(args) is str and not string_values and args.strip():
            # read as :meth:`_parse_arguments` reads it (cut off only when no markup says
            # where it ends)
            try:
                parsed = parse_lenient(args, self.config.limits, cut=cand.open_ended)
            except (LimitExceededError, MalformedToolCallError):
                parsed = None  # (the general path reports it)
            else:
                args = parsed.value
                if cand.open_ended and parsed.truncated:
                    args = None
        if (
            tool is None
            or not plain
            or type(args) is not dict
            or (props and not args.keys() <= props.keys())
        ):
            shape = CallShape(name, arguments, call_id, list(repairs), True)
            site = CallSite(seed, index, kinds, last, prefix_safe)
            return self._finish(shape, cand, site, match, parsed)
        # The plain call: what :meth:`_finish` would make of it, without a draft.
        args = dict(args)
        coerced: tuple[RepairRecord, ...] = ()
        if not string_values:
            valid = tool.is_valid(args, max_pattern_chars=self._cap)
            if not valid and self._coerce:
                args, coerced = self._coercer(tool)(args, False)
                valid = tool.is_valid(args, max_pattern_chars=self._cap)
        else:
            # untyped text, typed by the schema; text for plain string parameters only
            # stays as it is (:func:`text_keys`): no coercion to run
            if not args.keys() <= texts or not _ONLY_STR.issuperset(map(type, args.values())):
                args, coerced = self._coercer(tool)(args, True)
            valid = tool.is_valid(args, max_pattern_chars=self._cap)
        if not valid:  # (:meth:`_finish` says why)
            shape = CallShape(name, arguments, call_id, list(repairs), True)
            site = CallSite(seed, index, kinds, last, prefix_safe)
            return self._finish(shape, cand, site, match, parsed)
        # the repairs :meth:`validate` gives
        records = _where_records(kinds) if kinds else ()
        if repairs or match.repair is not None or parsed is not None or coerced:
            named = () if match.repair is None else (match.repair,)
            read: tuple[RepairRecord, ...] = ()
            if parsed is not None:  # the records :meth:`_parse_arguments` leaves
                if cand.payload is not None:
                    read = (_GIVEN_AS_STRING,)
                if parsed.repaired:
                    read = (*read, rec(K.INVALID_JSON, parsed.note))
            records = (*records, *repairs, *named, *read, *coerced)
        arguments_raw = canonical_json(args)
        if not call_id:
            call_id = derive_id(seed, str(cand.start), str(index), given, arguments_raw)
        return recovered_call(call_id, tool.name, arguments_raw, args, records)

    def _known(self, name: str) -> _Known:
        """``name``'s match, its tool (``None``: unknown), the tool's properties and its
        :func:`text_keys`, as :meth:`found` reads them for every call (cached, as
        :meth:`resolve` is)."""
        match = self.resolve(name)
        tool = self._tools.get(match.name)  # type: ignore[arg-type]  # (None: unknown)
        if tool is None:
            known: _Known = (match, None, {}, frozenset())
        else:
            texts = text_keys(tool.parameters, self._drop_extra_keys)
            known = (match, tool, tool.properties, texts)
        if len(self._plain) > 512:
            self._plain.clear()
        self._plain[name] = known
        return known

    def _finish(
        self,
        s: CallShape,
        cand: Candidate | None,
        site: CallSite,
        match: NameMatch,
        parsed: ParsedJson | None,
    ) -> CallPart:
        """:meth:`finish`, step by step (``parsed``: the reading of the arguments' text,
        when :meth:`finish` already has it)."""
        draft = _Draft.start(s, cand, site)
        if match.name is None:
            return self._unknown_tool(s, match, draft)
        if match.repair is not None:
            draft.repairs.append(match.repair)
        tool = self._tools[match.name]
        args = self._arguments(s.arguments, tool, cand, draft, parsed)
        if isinstance(args, InvalidToolCallPart):
            return args
        if draft.truncated:
            args = self._cut_off(args, tool, draft)
            if isinstance(args, InvalidToolCallPart):
                return args
        return self.validate(tool, args, draft, string_values=bool(cand and cand.string_values))

    def _unknown_tool(self, s: CallShape, match: NameMatch, draft: _Draft) -> InvalidToolCallPart:
        hint = f"; closest: {', '.join(match.candidates)}" if match.candidates else ""
        return draft.invalid(
            f"unknown tool {s.name!r}{hint}; available: {', '.join(self.names[:20])}",
            K.UNKNOWN_NAME,
            s.name,
            raw=draft.raw or canonical_json({"name": s.name, "arguments": _jsonable(s.arguments)}),
        )

    def _arguments(
        self,
        args: Any,
        tool: ToolDescriptor,
        cand: Candidate | None,
        draft: _Draft,
        parsed: ParsedJson | None = None,
    ) -> dict[str, Any] | InvalidToolCallPart:
        """The arguments as a fresh dict: JSON text parsed, double encoding undone, markup
        taken out of keys; an invalid call when they are not an object (or never came)."""
        if type(args) is not dict:  # (a dict, the usual, needs none of what it does)
            found = self._object(args, tool, cand, draft, parsed)
            if isinstance(found, InvalidToolCallPart):
                return found
            args = found
        fresh: dict[str, Any] = dict(args)
        props = tool.properties
        if not props or fresh.keys() <= props.keys():
            return fresh  # every key a parameter: nothing below would change a thing
        fresh = _strip_markup_from_keys(fresh, tool, draft.repairs)
        fresh = _unwrap_arguments_key(fresh, tool, draft.repairs)
        return _rename_near_keys(fresh, tool, draft.repairs)

    def _object(
        self,
        args: Any,
        tool: ToolDescriptor,
        cand: Candidate | None,
        draft: _Draft,
        parsed: ParsedJson | None = None,
    ) -> Mapping[str, Any] | InvalidToolCallPart:
        """Arguments that are not a dict as an object: JSON text parsed (an empty text is
        ``{}``), double encoding undone; an invalid call when they are no object."""
        if draft.truncated and (args is None or (isinstance(args, str) and not args.strip())):
            return draft.invalid(
                "the call was cut off before its arguments", K.TRUNCATED, tool.name
            )
        if isinstance(args, str):
            if not args.strip():
                args = {}
                draft.repairs.append(rec(K.INVALID_JSON, "read an empty arguments string as {}"))
            else:
                args = self._parse_arguments(args, tool, cand, draft, parsed)
                if isinstance(args, InvalidToolCallPart):
                    return args
        elif args is None:
            args = {}
        if isinstance(args, str):
            decoded, changed = decode_double_encoded(args, self._limits)
            if changed:
                args = decoded
                draft.repairs.append(rec(K.DOUBLE_ENCODED, "decoded arguments encoded twice"))
        if not isinstance(args, Mapping):
            return draft.invalid(
                f"arguments must be a JSON object, got {type(args).__name__}",
                K.TYPE_MISMATCH,
                tool.name,
                raw=draft.raw or canonical_json(_jsonable(args)),
            )
        return args

    def _parse_arguments(
        self,
        text: str,
        tool: ToolDescriptor,
        cand: Candidate | None,
        draft: _Draft,
        parsed: ParsedJson | None = None,
    ) -> Any:
        """Arguments given as JSON text, parsed (leniently); an invalid call if they are not
        JSON. A native arguments string (``openai``) may have been cut off: an open string
        or bracket at its end says so, as it has no markup to say where it ended."""
        native = cand is None or cand.open_ended
        try:
            if parsed is None:  # (else :meth:`finish` read it, as this would)
                parsed = parse_lenient(text, self.config.limits, cut=draft.truncated or native)
        except (LimitExceededError, MalformedToolCallError) as exc:
            kind = K.LIMIT_EXCEEDED if isinstance(exc, LimitExceededError) else K.INVALID_JSON
            return draft.invalid(
                f"arguments are not JSON: {exc}", kind, tool.name, raw=draft.raw or text
            )
        if cand is None or cand.payload is not None or cand.string_values:
            draft.repairs.append(_GIVEN_AS_STRING)
        # else: the markup gave the name, the arguments came as JSON text (no double encoding)
        if parsed.repaired:
            draft.repairs.append(rec(K.INVALID_JSON, parsed.note))
        if cand is not None and cand.open_ended:
            draft.truncated = draft.truncated or parsed.truncated
        draft.prefix_safe = draft.prefix_safe or parsed.complete_prefix
        return parsed.value

    def _cut_off(
        self, args: dict[str, Any], tool: ToolDescriptor, draft: _Draft
    ) -> dict[str, Any] | InvalidToolCallPart:
        """A call the output cut off: by default an invalid call carrying the complete
        arguments (never run a call the model did not finish, docs/design.md#promise-9);
        with ``truncated="keep_complete_members"`` the complete arguments."""
        complete = args if draft.prefix_safe else _drop_incomplete_tail(args, draft.raw)
        if self.config.truncated == "invalid":
            cut = [k for k in args if k not in complete]
            where = f" inside the value of {cut[0]!r}" if cut else ""
            return draft.invalid(
                f"the call was cut off before its closer{where}; "
                "the arguments that were complete are attached",
                K.TRUNCATED,
                tool.name,
                arguments=complete,
            )
        draft.repairs.append(rec(K.TRUNCATED, "the call text ended before the call closed"))
        if not complete and not tool.required:
            # nothing survived and nothing is required: never return a call with {}
            # (with required arguments, validation reports them missing)
            return draft.invalid(
                "the call was cut off before any argument was complete", K.TRUNCATED, tool.name
            )
        return complete

    def validate(
        self,
        tool: ToolDescriptor,
        args: dict[str, Any],
        draft: _Draft,
        *,
        string_values: bool = False,
    ) -> CallPart:
        """The call, coerced to the schema when it does not validate as it is; an invalid
        call listing the schema's complaints when coercion does not make it valid."""
        cap = self._cap
        if string_values or not tool.is_valid(args, max_pattern_chars=cap):
            if self._coerce or string_values:
                args, coerced = self._coercer(tool)(args, string_values)
                draft.repairs.extend(coerced)
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
                    if draft.truncated and missing
                    else (K.MISSING_REQUIRED if missing else K.TYPE_MISMATCH)
                )
                return draft.invalid(
                    "invalid arguments: " + "; ".join(str(i) for i in issues[:10]),
                    kind,
                    tool.name,
                    raw=draft.raw
                    or canonical_json({"name": tool.name, "arguments": _jsonable(args)}),
                    arguments=args,
                )
        arguments_raw = canonical_json(args)
        return recovered_call(
            draft.valid_id(arguments_raw), tool.name, arguments_raw, args, tuple(draft.repairs)
        )


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class CallSite:
    """Where one call sits: the seed its ids derive from, its index among the calls of
    its candidate, where the candidate was found (``kinds``), whether it is the
    candidate's last call (only that one can be cut off), and whether truncation was
    already repaired by keeping complete members only (``prefix_safe``)."""

    seed: str
    index: int = 0
    kinds: tuple[str, ...] = ()
    last: bool = True
    prefix_safe: bool = False


@dataclass(slots=True)
class _Draft:
    """One call on its way through :meth:`Interpreter.finish`: its raw text, the repairs
    so far, whether it was cut off, and what its id derives from (computed when asked:
    a valid call's id hashes its canonical arguments, which validation writes anyway)."""

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

    @classmethod
    def start(cls, s: CallShape, cand: Candidate | None, site: CallSite) -> _Draft:
        kinds = site.kinds
        repairs = [*_where_records(kinds), *s.repairs] if kinds else [*s.repairs]
        if s.flat:
            repairs.append(rec(K.KEY_ALIAS, "read arguments given beside the tool name"))
        # a text-found call's id hashes its own name and arguments too: ids do not depend
        # on what follows the call (streaming sends calls before the text ends)
        if cand is None:
            native = (site.seed, "0", str(site.index))
            return cls("", repairs, False, site.prefix_safe, s.id, native, s.arguments, False)
        if cand.notes:
            repairs.extend(rec(kind, detail) for kind, detail in cand.notes)
        truncated = site.last and (cand.truncated or K.TRUNCATED in kinds)
        parts = (site.seed, str(cand.start), str(site.index), s.name or "")
        return cls(cand.raw, repairs, truncated, site.prefix_safe, s.id, parts, s.arguments, True)

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


_WHERE: dict[str, str] = {
    K.CALL_IN_CONTENT: "took the call out of the text content",
    K.CODE_FENCE: "read the call from a code fence",
    K.NATIVE_MARKUP: "parsed native tool-call markup",
    K.PYTHONIC: "read a Python-style call",
    K.IN_REASONING: "promoted a call found in the reasoning",
    K.CONCATENATED: "split calls glued together",
}


def where_records(kinds: Iterable[str]) -> list[RepairRecord]:
    """The records saying where a call was found (fence, markup, pythonic...)."""
    return [rec(k, _WHERE[k]) for k in kinds if k in _WHERE]


@functools.lru_cache(maxsize=256)
def _where_records(kinds: tuple[str, ...]) -> tuple[RepairRecord, ...]:
    """:func:`where_records` of a candidate's kinds (a few formats' combinations)."""
    return tuple(where_records(kinds))


def _drop_incomplete_tail(args: dict[str, Any], raw: str) -> dict[str, Any]:
    """After truncation, keep the last argument only if its value visibly completed.

    A cut-off value (``"query": "weather in Par``, or ``"n": 12`` that may have been
    ``123``) is not a guess we make: it is dropped, and validation then reports a
    missing required argument if it was one.
    """
    if not args:
        return args
    tail = raw.rstrip()
    if tail.endswith((",", "</parameter>", "</arg_value>")):
        return args
    keys = list(args)
    last = args[keys[-1]]
    if isinstance(last, _DICT_OR_LIST) and tail.endswith(("}", "]")):
        return args
    if isinstance(last, str) and tail.endswith(json.dumps(last, ensure_ascii=False)):
        return args
    if (
        isinstance(last, bool | type(None))
        and tail.endswith(("true", "false", "null", "True", "False", "None"))
        and (tail.endswith((json.dumps(last), repr(last))))
    ):
        return args
    if tail.endswith(("}", "]")) and not isinstance(last, _DICT_OR_LIST):
        # the arguments object itself closed; only the outer call was cut
        return args
    out = dict(args)
    out.pop(keys[-1])
    return out


_TAG = re.compile(r"</?[A-Za-z_][\w.-]{0,40}>")


def _strip_markup_from_keys(
    args: dict[str, Any], tool: ToolDescriptor, repairs: list[RepairRecord]
) -> dict[str, Any]:
    """``{"path</arg_key>": ...}``: markup leaked into a key (a parser bug upstream)."""
    props = tool.properties
    if not props or all(k in props for k in args):
        return args
    out: dict[str, Any] = {}
    for key, value in args.items():
        clean = key
        if key not in props and "<" in key and len(key) < 300:
            clean = _TAG.sub("", key).strip()
        if clean != key and clean in props and clean not in args:
            repairs.append(rec(K.KEY_ALIAS, f"removed markup from the key {key!r}"))
            out[clean] = value
        else:
            out[key] = value
    return out


#: Keys under which models nest the whole arguments object (``{"arguments": {...}}``).
_WRAPPER_KEYS = frozenset({"arguments", "input", "parameters", "args", "params"})


def _unwrap_arguments_key(
    args: dict[str, Any], tool: ToolDescriptor, repairs: list[RepairRecord]
) -> dict[str, Any]:
    """``{"arguments": {...}}`` for a tool with no such parameter, whose inner keys are
    all the tool's parameters: the inner object is the arguments (DeepSeek V4 engine
    tests: a lone ``arguments`` parameter holding the call's arguments)."""
    props = tool.properties
    if len(args) != 1 or not props:
        return args
    ((key, value),) = args.items()
    if key not in _WRAPPER_KEYS or key in props:
        return args
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = json.loads(value)
        except ValueError:
            return args
    if not isinstance(value, dict) or not value or not all(k in props for k in value):
        return args
    repairs.append(rec(K.WRAPPER, f"read the arguments nested under {key!r} (no such parameter)"))
    return dict(value)


def _rename_near_keys(
    args: dict[str, Any], tool: ToolDescriptor, repairs: list[RepairRecord]
) -> dict[str, Any]:
    """An undeclared key one edit away from a declared parameter that is missing (Gemma 4
    writes ``content`` for Continue's required ``contents``, continue #12131): renamed.
    Only a parameter that is required, or a schema that admits no other key, is a
    target, and only one that a single undeclared key is near."""
    props = tool.properties
    if not props or all(k in props for k in args):
        return args
    closed = tool.parameters.get("additionalProperties") is False
    wanted = [p for p in props if p not in args and (closed or p in tool.required)]
    if not wanted:
        return args
    renames: dict[str, str] = {}
    for key in args:
        if key in props:
            continue
        near = [p for p in wanted if _near_key(key, p)]
        if len(near) == 1 and near[0] not in renames.values():
            renames[key] = near[0]
    if not renames:
        return args
    for old, new in renames.items():
        repairs.append(rec(K.KEY_ALIAS, f"read the argument {old!r} as the parameter {new!r}"))
    return {renames.get(k, k): v for k, v in args.items()}


def _near_key(key: str, param: str) -> bool:
    """One edit apart, or the same once case and separators are set aside."""
    if len(key) < 3 or len(param) < 3:
        return False
    # (the cheaper test first: normalising takes a Unicode pass and a join for each)
    if within_one_edit(key.casefold(), param.casefold()):
        return True
    return normalise_name(key, strip_prefix=False) == normalise_name(param, strip_prefix=False)


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value
