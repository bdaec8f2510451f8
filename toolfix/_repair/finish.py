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
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._config import FixConfig
from .._errors import LimitExceededError, MalformedToolCallError
from .._messages import (
    CallPart,
    FailureKind,
    InvalidToolCallPart,
    RepairRecord,
    ToolCallPart,
    canonical_json,
)
from .._tools import ToolDescriptor, ToolRegistry
from .coerce import Coercer, decode_double_encoded, schema_coercer, text_keys
from .formats import Candidate
from .gate import (
    Duplicate,
    Gate,
    InvalidCall,
    Proposal,
    ReadArguments,
    derive_id,
    duplicate_keys,
    jsonable,
)
from .jsonparse import ScanReads, parse_lenient
from .junkkeys import junk_key
from .keyalias import apply_argument_aliases
from .keymarks import unglue_keys
from .listargs import LISTED, listed_arguments
from .names import NameMatch, normalise_name, resolve_name

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


@dataclass
class CallShape:
    """A call object after unwrapping and key aliasing, before validation."""

    name: str | None
    arguments: Any
    id: str | None = None
    repairs: list[RepairRecord] = field(default_factory=list)
    has_args_key: bool = False
    flat: bool = False
    duplicates: tuple[Duplicate, ...] = ()
    """Keys written twice in the call's JSON (:func:`~toolfix._repair.gate.duplicate_keys`)."""


@functools.lru_cache(maxsize=2048)
def rec(kind: str, detail: str) -> RepairRecord:
    # Records are immutable, so equal ones can be shared (most details are fixed texts).
    return RepairRecord(kind=kind, detail=detail)


_GIVEN_AS_STRING = rec(K.DOUBLE_ENCODED, "decoded arguments given as a JSON string")


class CallFinisher:
    """Finishes call shapes into call parts, for one registry and configuration: the
    name resolved, the arguments decoded, the truncation policy applied, and the result
    handed to the admission gate (:class:`~toolfix._repair.gate.Gate`), the one place a
    call becomes valid."""

    def __init__(self, registry: ToolRegistry, config: FixConfig):
        self.registry = registry
        self.config = config
        self.names = list(registry)
        self._name_cache: dict[str, NameMatch] = {}
        self._aliases = dict(config.name_aliases)
        # read on every call (the registry and the configuration are immutable)
        self._tools: dict[str, ToolDescriptor] = dict(registry.items())
        self._drop_extra_keys = config.drop_extra_keys
        self._limits = config.limits
        #: each tool's coercion (:func:`schema_coercer`), made when first needed
        self._coercers: dict[str, Coercer] = {}
        #: each tool's :func:`text_keys`, made when first needed
        self._texts: dict[str, frozenset[str]] = {}
        self.gate = Gate(config, self._coercer, self._text_keys)

    def resolve(self, name: str) -> NameMatch:
        """The registry name for ``name`` (cached: a message often repeats a name)."""
        hit = self._name_cache.get(name)
        if hit is None:
            hit = resolve_name(name, self.names, aliases=self._aliases)
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

    def _text_keys(self, tool: ToolDescriptor) -> frozenset[str]:
        """``tool``'s parameters whose untyped text stays as it is (made once per tool)."""
        found = self._texts.get(tool.name)
        if found is None:
            found = self._texts[tool.name] = text_keys(tool.parameters, self._drop_extra_keys)
        return found

    def finish(
        self,
        s: CallShape,
        cand: Candidate | None,
        site: CallSite,
        native: ToolCallPart | None = None,
        reads: ScanReads | None = None,
    ) -> CallPart:
        """The call part for one call shape: name resolved, arguments decoded, cut-off
        calls handled by the truncation policy, then admitted (coerced and validated) by
        the gate, or an invalid call. ``native``: the provider's call the shape was read
        from, passed through as it is when the gate admits it unchanged. ``reads``: what
        the scan that found ``cand`` worked out (arguments text it decoded already)."""
        name = s.name or ""  # shape() and the formats always set a name
        match = self._name_cache.get(name) or self.resolve(name)
        p = _proposal(s, cand, site)
        p.native = native
        if match.name is None:
            return self._unknown_tool(s, match, p)
        if match.repair is not None:
            p.repairs.append(match.repair)
        tool = self._tools[match.name]
        args = self._arguments(s.arguments, tool, cand, p, reads)
        # (not a dict: the invalid call. A failed ``isinstance`` on a pydantic model would
        # go through ABCMeta on every call; a dict's is answered at once)
        if not isinstance(args, dict):
            return args
        if p.truncated:
            args = self._cut_off(args, tool, p)
            if not isinstance(args, dict):
                return args
        return self.gate.admit(tool, args, p, string_values=bool(cand and cand.string_values))

    def _unknown_tool(self, s: CallShape, match: NameMatch, p: Proposal) -> InvalidToolCallPart:
        hint = f"; closest: {', '.join(match.candidates)}" if match.candidates else ""
        return p.invalid(
            f"unknown tool {s.name!r}{hint}; available: {', '.join(self.names[:20])}",
            K.UNKNOWN_NAME,
            s.name,
            raw=p.raw or canonical_json({"name": s.name, "arguments": jsonable(s.arguments)}),
        )

    def _arguments(
        self,
        args: Any,
        tool: ToolDescriptor,
        cand: Candidate | None,
        p: Proposal,
        reads: ScanReads | None = None,
    ) -> dict[str, Any] | InvalidToolCallPart:
        """The arguments as a fresh dict: JSON text parsed, double encoding undone, markup
        taken out of keys; an invalid call when they are not an object (or never came).
        Keys a reader saw written twice are noted on ``p`` (the gate's G3)."""
        if type(args) is not dict:  # (a dict, the usual, needs none of what it does)
            if type(args) is ReadArguments and args.duplicates:
                p.duplicates = (*p.duplicates, *args.duplicates)
            found = self._object(args, tool, cand, p, reads)
            if type(found) is InvalidToolCallPart:
                return found
            args = found
        fresh: dict[str, Any] = dict(args)
        props = tool.properties
        if props and fresh.keys() <= props.keys():
            return fresh  # every key a parameter: nothing below would change a thing
        if props:
            fresh = _strip_markup_from_keys(fresh, tool, p.repairs)
            fresh = unglue_keys(fresh, tool, p.repairs)
            fresh = _unwrap_arguments_key(fresh, tool, p.repairs)
            fresh = apply_argument_aliases(fresh, tool, self.config.argument_aliases, p.repairs)
            fresh = _rename_near_keys(fresh, tool, p.repairs)
        junk = junk_key(fresh, props)  # (junkkeys.py: broken structure, not a name)
        if junk is not None:
            return p.invalid(f"argument key {junk!r} is broken JSON", K.INVALID_JSON, tool.name)
        return fresh

    def _object(
        self,
        args: Any,
        tool: ToolDescriptor,
        cand: Candidate | None,
        p: Proposal,
        reads: ScanReads | None = None,
    ) -> Mapping[str, Any] | InvalidToolCallPart:
        """Arguments that are not a dict as an object: JSON text parsed (an empty text is
        ``{}``), double encoding undone; an invalid call when they are no object."""
        if p.truncated and (args is None or (isinstance(args, str) and not args.strip())):
            return p.invalid("the call was cut off before its arguments", K.TRUNCATED, tool.name)
        if isinstance(args, str):
            if not args.strip():
                args = {}
                p.repairs.append(rec(K.INVALID_JSON, "read an empty arguments string as {}"))
            else:
                args = self._parse_arguments(args, tool, cand, p, reads)
                if type(args) is InvalidToolCallPart:
                    return args
        elif args is None:
            args = {}
        if isinstance(args, str):
            decoded, changed = decode_double_encoded(args, self._limits)
            if changed:
                args = decoded
                p.repairs.append(rec(K.DOUBLE_ENCODED, "decoded arguments encoded twice"))
        if type(args) is not dict and not isinstance(args, Mapping):
            listed = listed_arguments(args, tool)  # (listargs.py: ``[{...}]``)
            if listed is not None:
                p.repairs.append(LISTED)
                return listed
            return p.invalid(
                f"arguments must be a JSON object, got {type(args).__name__}",
                K.TYPE_MISMATCH,
                tool.name,
                raw=p.raw or canonical_json(jsonable(args)),
            )
        return args

    def _parse_arguments(
        self,
        text: str,
        tool: ToolDescriptor,
        cand: Candidate | None,
        p: Proposal,
        reads: ScanReads | None = None,
    ) -> Any:
        """Arguments given as JSON text, parsed (leniently); an invalid call if they are not
        JSON. A native arguments string (``openai``) may have been cut off: an open string
        or bracket at its end says so, as it has no markup to say where it ended."""
        native = cand is None or cand.open_ended
        try:
            parsed = parse_lenient(
                text,
                self.config.limits,
                cut=p.truncated or native,
                reads=reads,
                declared=tool.properties,
            )
        except (LimitExceededError, MalformedToolCallError) as exc:
            kind = K.LIMIT_EXCEEDED if isinstance(exc, LimitExceededError) else K.INVALID_JSON
            return p.invalid(f"arguments are not JSON: {exc}", kind, tool.name, raw=p.raw or text)
        if cand is None or cand.payload is not None or cand.string_values:
            p.repairs.append(_GIVEN_AS_STRING)
        # else: the markup gave the name, the arguments came as JSON text (no double encoding)
        if parsed.repaired:
            p.repairs.append(rec(K.INVALID_JSON, parsed.note))
        if cand is not None and cand.open_ended:
            p.truncated = p.truncated or parsed.truncated
        p.prefix_safe = p.prefix_safe or parsed.complete_prefix
        twice = duplicate_keys(text, parsed.value)
        if twice:
            p.duplicates = (*p.duplicates, *twice)
        return parsed.value

    def _cut_off(
        self, args: dict[str, Any], tool: ToolDescriptor, p: Proposal
    ) -> dict[str, Any] | InvalidToolCallPart:
        """A call the output cut off: by default an invalid call carrying the complete
        arguments (never run a call the model did not finish, docs/design.md#promise-9);
        with ``truncated="keep_complete_members"`` the complete arguments."""
        complete = args if p.prefix_safe else _drop_incomplete_tail(args, p.raw)
        if self.config.truncated == "invalid":
            cut = [k for k in args if k not in complete]
            where = f" inside the value of {cut[0]!r}" if cut else ""
            return p.invalid(
                f"the call was cut off before its closer{where}; "
                "the arguments that were complete are attached",
                K.TRUNCATED,
                tool.name,
                arguments=complete,
            )
        p.repairs.append(rec(K.TRUNCATED, "the call text ended before the call closed"))
        if not complete and not tool.required:
            # nothing survived and nothing is required: never return a call with {}
            # (with required arguments, validation reports them missing)
            return p.invalid(
                "the call was cut off before any argument was complete", K.TRUNCATED, tool.name
            )
        return complete


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


def _proposal(s: CallShape, cand: Candidate | None, site: CallSite) -> Proposal:
    """The proposal of one call shape found at ``site`` (in ``cand``; ``None``: a native
    call): its records so far, whether it was cut off, what its id derives from."""
    kinds = site.kinds
    repairs = [*_where_records(kinds), *s.repairs] if kinds else [*s.repairs]
    if s.flat:
        repairs.append(rec(K.KEY_ALIAS, "read arguments given beside the tool name"))
    # a text-found call's id hashes its own name and arguments too: ids do not depend
    # on what follows the call (streaming sends calls before the text ends)
    if cand is None:
        native = (site.seed, "0", str(site.index))
        return Proposal(
            "", repairs, False, site.prefix_safe, s.id, native, s.arguments, False, s.duplicates
        )
    if cand.notes:
        repairs.extend(rec(kind, detail) for kind, detail in cand.notes)
    truncated = site.last and (cand.truncated or K.TRUNCATED in kinds)
    parts = (site.seed, str(cand.start), str(site.index), s.name or "")
    return Proposal(
        cand.raw,
        repairs,
        truncated,
        site.prefix_safe,
        s.id,
        parts,
        s.arguments,
        True,
        s.duplicates,
        cand.quoted,
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
    """An undeclared key that is a declared parameter written differently (``File-Path``
    or ``filePath`` for ``file_path``: case and separators only, never other letters:
    ``min`` is not ``max``, ``content`` is not ``contents``) and that parameter is
    missing: renamed. Only a parameter that is required, or a schema that admits no
    other key, is a target, and only one that a single undeclared key writes."""
    props = tool.properties
    if not props or all(k in props for k in args):
        return args
    closed = tool.parameters.get("additionalProperties") is False
    wanted: dict[str, list[str]] = {}
    for p in props:
        if p not in args and (closed or p in tool.required):
            wanted.setdefault(normalise_name(p, strip_prefix=False), []).append(p)
    if not wanted:
        return args
    renames: dict[str, str] = {}
    for key in args:
        if key in props or len(key) > 200:
            continue
        near = wanted.get(normalise_name(key, strip_prefix=False), ())
        if len(near) == 1:
            renames[key] = near[0]
    if len(set(renames.values())) < len(renames):  # two keys write one parameter
        counts: dict[str, int] = {}
        for target in renames.values():
            counts[target] = counts.get(target, 0) + 1
        renames = {k: v for k, v in renames.items() if counts[v] == 1}
    if not renames:
        return args
    for old, new in renames.items():
        repairs.append(rec(K.KEY_ALIAS, f"read the argument {old!r} as the parameter {new!r}"))
    return {renames.get(k, k): v for k, v in args.items()}
