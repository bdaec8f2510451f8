"""From what a format found to call shapes, and on to call parts.

Every format hands its spans here as :class:`~toolfix._repair.formats.Candidate`s. The
:class:`Interpreter` parses a candidate's payload (strict, then repaired on the span
only), reads each call object in it (wrappers unwrapped, key aliases mapped, calls
glued together split) into a :class:`~toolfix._repair.finish.CallShape`, tells bare
JSON in prose that is no call from a call, and hands each shape to the
:class:`~toolfix._repair.finish.CallFinisher`, which makes it a valid call or an
invalid-call record. Broken native ``tool_calls`` go to the finisher directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from .._config import FixConfig
from .._errors import LimitExceededError, MalformedToolCallError
from .._messages import CallPart, FailureKind, InvalidToolCallPart, RepairRecord
from .._tools import ToolRegistry
from .actionlist import listed_actions
from .finish import (
    CallFinisher,
    CallShape,
    CallSite,
    InvalidCall,
    derive_id,
    rec,
    where_records,
)
from .formats import Candidate, ScanContext
from .gate import duplicate_keys
from .jsonparse import ParsedJson, ScanReads, parse_lenient
from .jsonrpc import rpc_call
from .namekeyed import name_keyed
from .positional import lone_parameters

__all__ = ["CallShape", "CallSite", "Interpreter", "InvalidCall", "derive_id"]

_STR_OR_INT = (str, int)  # ``isinstance(x, A | B)`` would build the union on every call
_MAPPING_OR_STR = (Mapping, str)

K = FailureKind


#: How far into a span too large to repair a tool's name is looked for.
_NAME_HEAD_CHARS = 512


class Interpreter:
    """Reads candidates into call shapes and has them finished, for one registry and
    configuration."""

    def __init__(self, registry: ToolRegistry, config: FixConfig):
        self.registry = registry
        self.config = config
        self.keys = config.json_keys
        self._name_keys = tuple(self.keys.name_keys)
        self._argument_keys = tuple(self.keys.argument_keys)
        self._id_keys = tuple(self.keys.id_keys)
        # each wrapper key with the keys allowed beside it
        self._wrappers = tuple(
            (wk, frozenset({wk, "type", *self._id_keys, "index"})) for wk in self.keys.wrapper_keys
        )
        self._wrapper_keys = frozenset(self.keys.wrapper_keys)
        self.scan_context = ScanContext(
            tool_names=frozenset(registry),
            limits=config.limits,
            sole_strings=_sole_strings(registry),
            lone_params=lone_parameters(registry),
        )
        self.finisher = CallFinisher(registry, config)
        #: :meth:`CallFinisher.finish`: a shape's call part (found in text, or a broken
        #: native call), through the admission gate
        self.finish = self.finisher.finish
        self.resolve = self.finisher.resolve

    # ---- call objects ------------------------------------------------------------------

    def _names_a_tool(self, payload: str) -> bool:
        """Whether the head of ``payload`` names one of the tools in quotes (a span too
        large to repair is then reported as a call over a limit rather than kept as text)."""
        head = payload[:_NAME_HEAD_CHARS]
        return any(f'"{name}"' in head for name in self.registry.names)

    def shape(self, obj: Any, *, canonical_args: str = "arguments") -> CallShape | None:
        """Read a JSON object as a call; ``None`` when it has no name key at all."""
        if not _is_mapping(obj):
            return None
        name_keys, id_keys = self._name_keys, self._id_keys
        repairs: list[RepairRecord] = []
        # {"type": "function", "function": {...}} and {"function": {...}} wrappers
        for _ in range(3):
            inner_key = self._wrapper_key(obj)
            if inner_key is None:
                break
            outer = obj
            obj = outer[inner_key]
            if not any(k in obj for k in id_keys):
                ids = [outer[k] for k in id_keys if k in outer]
                if ids:
                    obj = {**obj, "id": ids[0]}
            if not (inner_key == "function" and outer.get("type") == "function"):
                repairs.append(rec(K.WRAPPER, f"unwrapped the call from {inner_key!r}"))
            else:
                repairs.append(rec(K.WRAPPER, "unwrapped {'type': 'function', 'function': ...}"))
        name_key = name = None
        for key in name_keys:
            value = obj.get(key)
            if isinstance(value, str) and value:
                name_key, name = key, value
                break
        if name_key is None or name is None:
            keyed = name_keyed(obj, self.registry, self.resolve, self._argument_keys)
            if keyed is None and "method" in obj:  # (jsonrpc.py: a JSON-RPC request)
                return rpc_call(obj, self.registry, self.resolve, self.shape)
            return keyed
        if name_key != name_keys[0]:
            repairs.append(rec(K.KEY_ALIAS, f"read the tool name from {name_key!r}"))
        args_key = None
        for key in self._argument_keys:
            if key in obj and key != name_key:
                args_key = key
                break
        call_id = None
        for key in id_keys:
            value = obj.get(key)
            if isinstance(value, _STR_OR_INT):
                call_id = str(value)
                break
        if args_key is not None:
            if args_key not in (self._argument_keys[0], canonical_args):
                repairs.append(rec(K.KEY_ALIAS, f"read the arguments from {args_key!r}"))
            return CallShape(name, obj[args_key], call_id, repairs, has_args_key=True)
        rest = {k: v for k, v in obj.items() if k not in (name_key, "type", *id_keys)}
        return CallShape(name, rest, call_id, repairs, has_args_key=False, flat=bool(rest))

    def _wrapper_key(self, obj: Mapping[str, Any]) -> str | None:
        """The key of a wrapper around the call (``{"function": {...}}``, with nothing
        beside it but ``type``, an id or an index), if ``obj`` is one."""
        if obj.keys().isdisjoint(self._wrapper_keys):
            return None  # (most call objects: no wrapper key at all, one set test)
        for wk, allowed in self._wrappers:
            inner = obj.get(wk)
            if (
                _is_mapping(inner)
                and not inner.keys().isdisjoint(self._name_keys)
                and obj.keys() <= allowed
            ):
                return wk
        return None

    # ---- candidates -----------------------------------------------------------------------

    def from_candidate(
        self, cand: Candidate, seed: str, *, alone: bool = True, reads: ScanReads | None = None
    ) -> list[CallPart] | None:
        """Call parts for a candidate, or ``None`` when it is not a call (text stays text).

        ``alone``: the text holds nothing but candidates. Otherwise bare JSON in prose
        (``explicit=False``) is a call only when it validates after repair, or names a
        tool and carries an explicit arguments key; else it stays prose, unchanged.
        ``reads``: what the scan that found the candidate worked out (its payload may be
        decoded already), for :func:`parse_lenient`; ``None``: nothing is remembered.
        """
        if cand.error is not None:
            return [_known_invalid(cand, seed)]
        if cand.payload is None:  # the markup named the tool
            args = cand.arguments
            args = {} if args is None else args
            return [
                self.finish(
                    CallShape(cand.name, args, cand.id),
                    cand,
                    CallSite(seed, 0, cand.kinds),
                    reads=reads,
                )
            ]
        try:
            parsed = parse_lenient(
                cand.payload, self.config.limits, cut=cand.truncated, reads=reads
            )
        except (LimitExceededError, MalformedToolCallError) as exc:
            over = isinstance(exc, LimitExceededError)
            if not cand.explicit and not (over and self._names_a_tool(cand.payload)):
                return None  # (a call-shaped span over a limit is reported, not left as text)
            kind = K.LIMIT_EXCEEDED if over else K.INVALID_JSON
            return [_candidate_invalid(cand, seed, str(exc), kind)]
        twice = duplicate_keys(cand.payload, parsed.value)
        values, extra = self._payload_calls(parsed, reads, alone=alone)
        shapes = [self.shape(v, canonical_args=cand.args_key) for v in values]
        if not cand.explicit and (
            not shapes or any(s is None or not self._call_shaped(s) for s in shapes)
        ):
            return None  # bare JSON in prose that is not unmistakably call-shaped
        if not shapes:
            return [_candidate_invalid(cand, seed, "no tool call in the markup", K.INVALID_JSON)]
        out: list[CallPart] = []
        last = len(shapes) - 1
        for i, s in enumerate(shapes):
            if s is None:
                error = "the call object has no tool name"
                out.append(_candidate_invalid(cand, seed, error, K.KEY_ALIAS, index=i))
                continue
            if extra:
                s.repairs[:0] = extra
            s.duplicates = twice
            # Only the last call of a cut-off span can itself be cut off.
            is_last, complete = i == last, parsed.complete_prefix
            site = CallSite(seed, i, cand.kinds, is_last, complete)
            part = self.finish(s, cand, site, reads=reads)
            if not cand.explicit and not alone and self._prose_mention(s, part):
                return None  # prose that mentions a tool: prose is prose
            out.append(part)
        return out

    def _payload_calls(
        self, parsed: ParsedJson, reads: ScanReads | None, *, alone: bool = False
    ) -> tuple[list[Any], list[RepairRecord]]:
        """The call objects of a parsed payload (a list of calls, a ``tool_calls`` wrapper,
        JSON objects glued together, a message that is one object listing name-keyed
        calls: :mod:`.actionlist`) and the records of what that took."""
        extra: list[RepairRecord] = []
        if parsed.repaired:
            extra.append(rec(K.INVALID_JSON, parsed.note))
        # (truncation of a span is the format's call: a missing brace inside a closed
        # <tool_call> tag is broken JSON, not a cut-off output)
        values: list[Any] = self._call_list(parsed.value)
        if alone and not parsed.trailing.strip() and _is_mapping(parsed.value):
            listed = listed_actions(
                parsed.value, self.registry, self.resolve, self._name_keys, self._argument_keys
            )
            if listed is not None:
                extra.append(rec(K.WRAPPER, f"read the calls listed under {listed[0]!r}"))
                return list(listed[1]), extra
        if parsed.trailing.lstrip().startswith(("{", "[")):
            try:
                more = parse_lenient(parsed.trailing, self.config.limits, reads=reads)
            except (LimitExceededError, MalformedToolCallError):
                more = None
            if more is not None:
                values.extend(self._call_list(more.value))
                extra.append(rec(K.CONCATENATED, "split concatenated JSON objects"))
        return values, extra

    def _prose_mention(self, s: CallShape, part: CallPart) -> bool:
        """Bare JSON in prose that failed as a call, and is not one that names a tool
        with an explicit arguments key: a mention, to be left as text."""
        return isinstance(part, InvalidToolCallPart) and not (
            s.has_args_key
            and not _schema_like(s.arguments)
            and self.resolve(s.name or "").name is not None
        )

    def _call_list(self, value: Any) -> list[Any]:
        if isinstance(value, list):
            return list(value)
        if _is_mapping(value):
            if len(value) == 1:  # (a wrapper holds its list and nothing else)
                for key in ("tool_calls", "calls", "function_calls"):
                    inner = value.get(key)
                    if isinstance(inner, list):
                        return list(inner)
            return [value]
        return [value]

    def _call_shaped(self, s: CallShape) -> bool:
        if s.name is None:
            return False
        if s.has_args_key and isinstance(s.arguments, _MAPPING_OR_STR):
            return True
        match = self.resolve(s.name)
        if match.name is None:
            return False
        return not s.flat or self.config.accept_flat_arguments


def _candidate_invalid(
    cand: Candidate, seed: str, error: str, kind: str, *, index: int = 0
) -> InvalidToolCallPart:
    """A candidate (or its call number ``index``) that is no call: its raw text, the
    records of where it was found, an id derived from the seed."""
    return InvalidCall(
        raw=cand.raw,
        error=error,
        kind=kind,
        name=None,
        call_id=derive_id(seed, "invalid", str(index)),
        repairs=tuple(where_records(cand.kinds)),
    ).part()


def _known_invalid(cand: Candidate, seed: str) -> InvalidToolCallPart:
    """A candidate its format already judged invalid (``cand.error``), with the arguments
    that were complete when it was cut off."""
    kinds = cand.kinds
    kind = K.TRUNCATED if cand.truncated else K.PYTHONIC if K.PYTHONIC in kinds else K.INVALID_JSON
    return InvalidCall(
        raw=cand.raw,
        error=cand.error or "",
        kind=kind,
        name=cand.name,
        call_id=derive_id(seed, "invalid", "0"),
        repairs=tuple(where_records(kinds)),
        arguments=dict(cand.arguments) if isinstance(cand.arguments, Mapping) else None,
    ).part()


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, answered without the ABC check for a dict and for
    the other values JSON decodes to."""
    t = type(value)
    return t is dict or (t not in _JSON_NON_MAPPINGS and isinstance(value, Mapping))


_JSON_NON_MAPPINGS = frozenset({type(None), str, int, float, bool, list})


def _schema_like(value: Any) -> bool:
    """A JSON schema (``{"type": "object", "properties": ...}``) where arguments would be:
    a tool *definition* quoted in prose, not a call."""
    return isinstance(value, Mapping) and (
        value.get("type") == "object" or isinstance(value.get("properties"), Mapping)
    )


def _sole_strings(registry: ToolRegistry) -> dict[str, str]:
    """Each tool that takes exactly one parameter, a required string: its parameter
    (:attr:`ScanContext.sole_strings`)."""
    out: dict[str, str] = {}
    for name in registry:
        tool = registry.lookup(name)
        if tool is None or len(tool.properties) != 1 or tool.required != tuple(tool.properties):
            continue
        ((param, schema),) = tool.properties.items()
        if isinstance(schema, dict) and schema.get("type", "string") == "string":
            out[name] = param
    return out
