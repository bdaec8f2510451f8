"""The provider-agnostic message model.

A :class:`Prompt` is what goes to one LLM call; a :class:`Response` is what
comes back. Both are made of typed parts. Provider metadata (reasoning
signatures, response ids, provider-executed flags, anything else a provider
returns) rides along untouched in ``provider_data`` fields and dedicated
attributes, so an agent loop can replay it on the next request.

All models are immutable pydantic models: processors return new objects and
never change the ones they were given.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ._errors import InvalidArgumentsError, MalformedToolCallError, UnknownToolError

__all__ = [
    "FailureKind",
    "InvalidToolCallPart",
    "Message",
    "Part",
    "Prompt",
    "ReasoningPart",
    "RepairRecord",
    "Response",
    "TextPart",
    "ToolCallPart",
    "ToolChoice",
    "ToolResultPart",
    "Usage",
]


class FailureKind(enum.StrEnum):
    """The failure taxonomy shared by repair records, corpus tags and benchmark breakdowns."""

    CALL_IN_CONTENT = "call_in_content"
    CODE_FENCE = "code_fence"
    NATIVE_MARKUP = "native_markup"
    PYTHONIC = "pythonic"
    IN_REASONING = "in_reasoning"
    INVALID_JSON = "invalid_json"
    TRUNCATED = "truncated"
    CONCATENATED = "concatenated"
    KEY_ALIAS = "key_alias"
    WRAPPER = "wrapper"
    DOUBLE_ENCODED = "double_encoded"
    UNKNOWN_NAME = "unknown_name"
    MISSING_REQUIRED = "missing_required"
    TYPE_MISMATCH = "type_mismatch"
    ENUM_CASE = "enum_case"
    EXTRA_KEYS = "extra_keys"
    INTENT_ONLY = "intent_only"
    NO_CALL = "no_call"
    PARALLEL = "parallel"
    # Extensions beyond docs/design.md's taxonomy (documented in docs/failure-classes.md):
    LIMIT_EXCEEDED = "limit_exceeded"
    """Input over a configured limit; the call is reported invalid, never parsed."""
    LLM_FIX = "llm_fix"
    """The LLM-based fixer spent LLM calls on this response."""
    SCHEMA_ANCHORED = "schema_anchored"
    """The call was read by the schema-anchored reader (docs/finding-calls.md)."""


def _as_failure_kind(value: Any) -> Any:
    """A string naming a failure class becomes its :class:`FailureKind` member; any other
    value is left for the field's own validation (a custom kind stays a plain string)."""
    if value.__class__ is str:
        return FailureKind._value2member_map_.get(value, value)
    return value


_TO_KIND = BeforeValidator(_as_failure_kind)
"""On ``kind`` fields: a :class:`FailureKind` for every failure class toolfix knows
(strings such as ``"truncated"`` are converted on construction), or a plain string for a
kind a custom processor defines itself (``"blocked"``). ``FailureKind`` is a ``StrEnum``,
so ``record.kind == "truncated"`` and JSON output are as with strings."""


class _Frozen(BaseModel):
    """Immutable, no unknown fields: the base of the message models and of the Temporal
    payloads (``toolfix/temporal/_models.py``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Usage(_Frozen):
    """Token counts of one or more LLM calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            requests=self.requests + other.requests,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class RepairRecord(_Frozen):
    """One repair: which failure class was found and what was done about it.

    ``kind`` is a :class:`FailureKind`: pass the member or its string value
    (``kind="truncated"`` gives ``FailureKind.TRUNCATED``); a string that names no failure
    class is kept as given, for kinds of a custom processor's own. ``llm_calls`` and
    ``usage`` are set by processors that spend LLM calls.
    """

    kind: Annotated[FailureKind | str, _TO_KIND]
    detail: str
    llm_calls: int = 0
    usage: Usage | None = None

    def as_dict(self) -> dict[str, Any]:
        """The ``{"kind", "detail"}`` shape of the corpus format (plus LLM cost when non-zero)."""
        out: dict[str, Any] = {"kind": str(self.kind), "detail": self.detail}
        if self.llm_calls:
            out["llm_calls"] = self.llm_calls
        if self.usage is not None:
            out["usage"] = self.usage.model_dump()
        return out


class TextPart(_Frozen):
    """Assistant or user text."""

    type: Literal["text"] = "text"
    text: str


class ReasoningPart(_Frozen):
    """Model reasoning ("thinking"). ``signature`` must be replayed verbatim (Anthropic)."""

    type: Literal["reasoning"] = "reasoning"
    text: str
    signature: str | None = None
    redacted: bool = False
    provider_data: dict[str, Any] | None = None


class ToolCallPart(_Frozen):
    """A tool call.

    ``arguments_raw`` is the arguments string exactly as the provider sent it (or,
    for a call toolfix recovered from text, the canonical JSON of the repaired
    arguments). ``arguments`` is the parsed object, ``None`` when the raw string
    did not parse to an object. ``repairs`` lists what toolfix did to produce it.
    """

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments_raw: str
    arguments: dict[str, Any] | None = None
    provider_executed: bool = False
    provider_data: dict[str, Any] | None = None
    repairs: tuple[RepairRecord, ...] = ()

    @classmethod
    def create(
        cls,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        id: str,
        repairs: Iterable[RepairRecord] = (),
    ) -> ToolCallPart:
        """A call from structured arguments; ``arguments_raw`` is their compact JSON."""
        args = dict(arguments or {})
        return cls(
            id=id,
            name=name,
            arguments_raw=canonical_json(args),
            arguments=args,
            repairs=tuple(repairs),
        )


class InvalidToolCallPart(_Frozen):
    """A call toolfix found but could not make valid: raw text and reason, never ``{}``."""

    type: Literal["invalid_tool_call"] = "invalid_tool_call"
    id: str | None = None
    name: str | None = None
    raw: str
    error: str
    kind: Annotated[FailureKind | str, _TO_KIND] = FailureKind.INVALID_JSON
    """The failure class, typed as :attr:`RepairRecord.kind` is."""
    arguments: dict[str, Any] | None = None
    repairs: tuple[RepairRecord, ...] = ()
    provider_data: dict[str, Any] | None = None

    def to_exception(self) -> Exception:
        """The typed exception matching this failure."""
        if self.kind == FailureKind.UNKNOWN_NAME:
            return UnknownToolError(self.error, raw=self.raw, tool_name=self.name)
        if self.arguments is not None or self.kind in {
            FailureKind.MISSING_REQUIRED,
            FailureKind.TYPE_MISMATCH,
            FailureKind.ENUM_CASE,
            FailureKind.EXTRA_KEYS,
        }:
            return InvalidArgumentsError(self.error, raw=self.raw, tool_name=self.name)
        return MalformedToolCallError(self.error, raw=self.raw, tool_name=self.name)


class ToolResultPart(_Frozen):
    """The result of running a tool, sent back to the model."""

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    name: str
    content: str
    is_error: bool = False


Part = Annotated[
    TextPart | ReasoningPart | ToolCallPart | InvalidToolCallPart | ToolResultPart,
    Field(discriminator="type"),
]


class Message(_Frozen):
    """One conversation turn."""

    role: Literal["system", "user", "assistant", "tool"]
    parts: tuple[Part, ...] = ()
    provider_data: dict[str, Any] | None = None

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", parts=(TextPart(text=text),))

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", parts=(TextPart(text=text),))

    @classmethod
    def assistant(cls, text: str) -> Message:
        return cls(role="assistant", parts=(TextPart(text=text),))

    @classmethod
    def tool_result(
        cls, tool_call_id: str, name: str, content: str, *, is_error: bool = False
    ) -> Message:
        return cls(
            role="tool",
            parts=(
                ToolResultPart(
                    tool_call_id=tool_call_id, name=name, content=content, is_error=is_error
                ),
            ),
        )

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


class ToolChoice(_Frozen):
    """Which tools the model may or must call: auto, none, required, or one named tool."""

    mode: Literal["auto", "none", "required", "named"] = "auto"
    name: str | None = None

    @classmethod
    def auto(cls) -> ToolChoice:
        return cls(mode="auto")

    @classmethod
    def none(cls) -> ToolChoice:
        return cls(mode="none")

    @classmethod
    def required(cls) -> ToolChoice:
        return cls(mode="required")

    @classmethod
    def named(cls, name: str) -> ToolChoice:
        return cls(mode="named", name=name)

    @property
    def forces_call(self) -> bool:
        return self.mode in ("required", "named")


class Prompt(_Frozen):
    """Everything one LLM call needs besides the model and the tools."""

    messages: tuple[Message, ...] = ()
    tool_choice: ToolChoice = ToolChoice()
    params: dict[str, Any] = Field(default_factory=dict)
    previous_response_id: str | None = None

    @classmethod
    def of(cls, *messages: Message | str, **params: Any) -> Prompt:
        """A prompt from messages; bare strings become user messages."""
        msgs = tuple(Message.user(m) if isinstance(m, str) else m for m in messages)
        return cls(messages=msgs, params=params)

    def with_messages(self, *messages: Message) -> Prompt:
        return self.model_copy(update={"messages": (*self.messages, *messages)})


class Response(_Frozen):
    """What one LLM call returned (one choice), as typed parts plus provider metadata."""

    parts: tuple[Part, ...] = ()
    id: str | None = None
    model: str | None = None
    finish_reason: str | None = None
    usage: Usage | None = None
    provider_data: dict[str, Any] | None = None
    repairs: tuple[RepairRecord, ...] = ()
    """Response-level repairs (reasoning moved, LLM cost); call-level ones sit on the calls."""

    @classmethod
    def text_only(cls, text: str, **kwargs: Any) -> Response:
        return cls(parts=(TextPart(text=text),), **kwargs)

    @property
    def text(self) -> str:
        """All text parts joined (empty string when there are none)."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def reasoning(self) -> str | None:
        texts = [p.text for p in self.parts if isinstance(p, ReasoningPart)]
        return "".join(texts) if texts else None

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    @property
    def invalid_tool_calls(self) -> list[InvalidToolCallPart]:
        return [p for p in self.parts if isinstance(p, InvalidToolCallPart)]

    @property
    def all_repairs(self) -> list[RepairRecord]:
        """Response-level repairs followed by every call's repairs, in part order."""
        out = list(self.repairs)
        for p in self.parts:
            if isinstance(p, ToolCallPart | InvalidToolCallPart):
                out.extend(p.repairs)
        return out

    def raise_for_invalid_calls(self) -> Response:
        """Raise the typed error of the first invalid call, if any; else return self."""
        bad = self.invalid_tool_calls
        if bad:
            raise bad[0].to_exception()
        return self

    def to_message(self) -> Message:
        """This response as an assistant turn for the next prompt."""
        return Message(role="assistant", parts=self.parts, provider_data=self.provider_data)


# ---- a recovered call's part, built without validating again what was just made
#
# pydantic validates every field again (and copies the arguments dict): a third of
# finishing a call. ``recovered_call`` builds the part the way ``model_construct`` stores
# one (``__dict__`` with the defaults pydantic itself filled in, the fields set) once it
# has checked each value's exact type; anything else goes to the validating constructor.
# ``_TRUSTED`` is false, and the validating constructor is used, unless a sample built
# both ways agrees in every attribute (checked at import, so a pydantic release that
# stores models otherwise is noticed). ``toolfix/_convert.py`` builds plain native calls
# the same way.

_setattr = object.__setattr__


def _setter(name: str) -> Callable[[Any, Any], None]:
    """The setter of a model's storage attribute ``name``: the ``__set__`` of BaseModel's
    own descriptor, which is what ``object.__setattr__`` calls once it has looked the
    name up on the type (a third cheaper); ``object.__setattr__`` if there is none."""
    descriptor = BaseModel.__dict__.get(name)
    if descriptor is None or not hasattr(descriptor, "__set__"):
        return lambda model, value: _setattr(model, name, value)
    setter: Callable[[Any, Any], None] = descriptor.__set__
    return setter


#: How the trusted builders store a model (here and in ``_convert``): an empty model,
#: then its fields, the names set, no extra fields, no private attributes.
new_model = BaseModel.__new__
set_dict = _setter("__dict__")
set_fields_set = _setter("__pydantic_fields_set__")
set_extra = _setter("__pydantic_extra__")
set_private = _setter("__pydantic_private__")

#: The fields :func:`recovered_call` sets, as the validating call sets them.
_RECOVERED_FIELDS = ("id", "name", "arguments_raw", "arguments", "repairs")
#: Copied for each part (``model_fields_set`` is a set of the part's own).
_RECOVERED_SET = set(_RECOVERED_FIELDS)
#: Field values (in field order) of a call as pydantic fills in defaults (``_convert``
#: builds its plain native calls from them too).
CALL_DEFAULTS: dict[str, Any] = dict(
    ToolCallPart(id="-", name="-", arguments_raw="", arguments=None).__dict__
)


def _validated_call(
    call_id: str,
    name: str,
    arguments_raw: str,
    arguments: dict[str, Any],
    repairs: tuple[RepairRecord, ...],
) -> ToolCallPart:
    return ToolCallPart(
        id=call_id, name=name, arguments_raw=arguments_raw, arguments=arguments, repairs=repairs
    )


_Model = TypeVar("_Model", bound=BaseModel)


def trusted_model(cls: type[_Model], values: dict[str, Any], fields_set: set[str]) -> _Model:
    """A model of ``cls`` holding ``values`` (every field, in field order) with
    ``fields_set`` (copied) as set, stored as ``model_construct`` stores one: for values
    already checked, behind an import-time check that it agrees with validation."""
    model = new_model(cls)
    set_dict(model, values)
    set_fields_set(model, fields_set.copy())
    set_extra(model, None)
    set_private(model, None)
    return model


_RECORD_SET = {"kind", "detail"}


def repair_record(kind: FailureKind, detail: str) -> RepairRecord:
    """``RepairRecord(kind=kind, detail=detail)`` for a failure class of toolfix's own
    and a detail string, without validating them again."""
    if _TRUSTED and type(kind) is FailureKind and type(detail) is str:
        values = {"kind": kind, "detail": detail, "llm_calls": 0, "usage": None}
        return trusted_model(RepairRecord, values, _RECORD_SET)
    return RepairRecord(kind=kind, detail=detail)


def recovered_call(
    call_id: str,
    name: str,
    arguments_raw: str,
    arguments: dict[str, Any],
    repairs: tuple[RepairRecord, ...],
) -> ToolCallPart:
    """``ToolCallPart(id=call_id, name=..., arguments_raw=..., arguments=..., repairs=...)``,
    the very part, holding ``arguments`` itself (the caller's own fresh dict) rather than
    the copy validation makes. (What :func:`trusted_model` does, in the same frame: it
    is made for every call found.)"""
    if not (
        _TRUSTED
        and type(call_id) is str
        and type(name) is str
        and type(arguments_raw) is str
        and type(arguments) is dict
        and type(repairs) is tuple
    ):
        return _validated_call(call_id, name, arguments_raw, arguments, repairs)
    for key in arguments:  # (a loop beats a C-level set test on the usual few keys)
        if type(key) is not str:
            return _validated_call(call_id, name, arguments_raw, arguments, repairs)
    for record in repairs:
        if type(record) is not RepairRecord:
            return _validated_call(call_id, name, arguments_raw, arguments, repairs)
    values = dict(
        CALL_DEFAULTS,
        id=call_id,
        name=name,
        arguments_raw=arguments_raw,
        arguments=arguments,
        repairs=repairs,
    )  # (the defaults' order, the fields replaced in place)
    model = new_model(ToolCallPart)
    set_dict(model, values)
    set_fields_set(model, _RECOVERED_SET.copy())
    set_extra(model, None)
    set_private(model, None)
    return model


#: Field values (in field order) of an invalid call as pydantic fills in defaults.
_INVALID_DEFAULTS: dict[str, Any] = dict(InvalidToolCallPart(raw="", error="").__dict__)
#: The fields :func:`invalid_call` sets, as the validating call sets them.
_INVALID_SET = {"id", "name", "raw", "error", "kind", "arguments", "repairs"}


def invalid_call(
    call_id: str,
    name: str | None,
    raw: str,
    error: str,
    kind: str,
    arguments: dict[str, Any] | None,
    repairs: tuple[RepairRecord, ...],
) -> InvalidToolCallPart:
    """``InvalidToolCallPart(id=call_id, name=..., raw=..., error=..., kind=...,
    arguments=..., repairs=...)``, the very part (``arguments`` copied, as validation
    copies it; ``kind`` a :class:`FailureKind`, as validation makes a known kind), stored
    as :func:`trusted_model` stores one once each value's exact type is checked; anything
    else goes to the validating constructor. (A call that cannot be
    made valid costs a validation of seven fields otherwise.)"""
    if (
        _TRUSTED
        and type(call_id) is str
        and (name is None or type(name) is str)
        and type(raw) is str
        and type(error) is str
        and type(kind) is FailureKind
        and type(repairs) is tuple
        and (arguments is None or type(arguments) is dict)
        and all(type(r) is RepairRecord for r in repairs)
        and (arguments is None or all(type(k) is str for k in arguments))
    ):
        values = dict(
            _INVALID_DEFAULTS,
            id=call_id,
            name=name,
            raw=raw,
            error=error,
            kind=kind,
            arguments=None if arguments is None else dict(arguments),
            repairs=repairs,
        )  # (the defaults' order, the fields replaced in place)
        return trusted_model(InvalidToolCallPart, values, _INVALID_SET)
    return InvalidToolCallPart(
        id=call_id,
        name=name,
        raw=raw,
        error=error,
        kind=str(kind),
        arguments=arguments,
        repairs=repairs,
    )


def copied_with(model: _Model, update: dict[str, Any]) -> _Model:
    """``model.model_copy(update=update)``, stored as that copy stores it (its ``__dict__``
    copied then updated, the updated names added to the fields set), without the generic
    copy's Python-level steps, for a model with no extra fields or private attributes
    (toolfix's parts) when the trusted builders agree with pydantic's own."""
    if not _TRUSTED or model.__pydantic_extra__ is not None or model.__pydantic_private__:
        return model.model_copy(update=update)
    values = model.__dict__.copy()
    values.update(update)
    copied = new_model(type(model))
    set_dict(copied, values)
    set_fields_set(copied, model.__pydantic_fields_set__ | update.keys())
    set_extra(copied, None)
    set_private(copied, None)
    return copied


_TEXT_SET = {"text"}


def text_part(text: str) -> TextPart:
    """``TextPart(text=text)`` for a ``str`` (the text a scan leaves), without validating it."""
    if _TRUSTED and type(text) is str:
        return trusted_model(TextPart, {"type": "text", "text": text}, _TEXT_SET)
    return TextPart(text=text)


def same_model(a: Any, b: Any) -> bool:
    """Two models alike in every way a user can see (values, types, fields set, dumps)."""
    return (
        type(a) is type(b)
        and a == b
        and a.__dict__ == b.__dict__
        and list(a.__dict__) == list(b.__dict__)
        and [type(v) for v in a.__dict__.values()] == [type(v) for v in b.__dict__.values()]
        and a.model_fields_set == b.model_fields_set
        and a.__pydantic_extra__ == b.__pydantic_extra__
        and a.__pydantic_private__ == b.__pydantic_private__
        and repr(a) == repr(b)
        and a.model_dump() == b.model_dump()
        and a.model_dump_json() == b.model_dump_json()
    )


def _trusted_agrees() -> bool:
    """Whether the trusted builder gives what the validating constructor gives."""
    immutable = (str, int, float, bool, tuple, type(None))
    defaults = (*CALL_DEFAULTS.values(), *_INVALID_DEFAULTS.values())
    if not all(isinstance(v, immutable) for v in defaults):
        return False  # a shared mutable default would be shared between parts
    try:
        for kind in (FailureKind.CODE_FENCE, FailureKind.EXTRA_KEYS):
            values = {"kind": kind, "detail": "'a': 1", "llm_calls": 0, "usage": None}
            record = trusted_model(RepairRecord, values, _RECORD_SET)
            if not same_model(record, RepairRecord(kind=kind.value, detail="'a': 1")):
                return False
        for text in ("", "prose\n"):
            if not same_model(text_part(text), TextPart(text=text)):
                return False
        records = (RepairRecord(kind="code_fence", detail="d"), RepairRecord(kind="x", detail=""))
        for name, arguments, kind, repairs in (
            (None, None, FailureKind.INVALID_JSON, ()),
            ("n", {"a": [1, {"b": None}]}, FailureKind.MISSING_REQUIRED, records),
        ):
            invalid = invalid_call("c", name, "raw", "why", kind, arguments, repairs)
            validated = InvalidToolCallPart(
                id="c",
                name=name,
                raw="raw",
                error="why",
                kind=str(kind),
                arguments=arguments,
                repairs=repairs,
            )
            if not same_model(invalid, validated) or (
                arguments is not None and invalid.arguments is arguments
            ):
                return False
            update: dict[str, Any] = {"id": "d", "raw": "r", "provider_data": {"p": 1}}
            if not same_model(copied_with(invalid, update), validated.model_copy(update=update)):
                return False
        for args, repairs in (({"a": [1, {"b": None}]}, records), ({}, ())):
            fresh = dict(args)
            built = recovered_call("c", "n", "{}", fresh, repairs)
            if built.arguments is not fresh:  # (the validating constructor's copy)
                return False
            validated_call = _validated_call("c", "n", "{}", dict(args), repairs)
            if not same_model(built, validated_call):
                return False
            update = {"id": "d", "provider_data": None}
            if not same_model(copied_with(built, update), validated_call.model_copy(update=update)):
                return False
    except Exception:  # an attribute pydantic no longer has
        return False
    return True


_TRUSTED = True  # (while the check builds its samples the trusted way)
_TRUSTED = _trusted_agrees()


def canonical_json(value: Any) -> str:
    """Compact JSON used for the ``arguments_raw`` of recovered calls (stable, unicode kept)."""
    if _FAST_ENCODE is None:
        return _CANONICAL_ENCODER.encode(value)
    # What ``_CANONICAL_ENCODER.encode`` does, without its two Python-level calls and
    # without building a C encoder per call: one encoder made once, with no circularity
    # markers (it keeps no other state between calls). A circular value makes it recurse
    # until RecursionError; the checking encoder then gives the usual ValueError.
    try:
        return "".join(_FAST_ENCODE(value, 0))
    except RecursionError:
        return _CANONICAL_ENCODER.encode(value)


#: One encoder for every call (``json.dumps`` with options builds a new one each time).
_CANONICAL_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def c_encoder(encoder: json.JSONEncoder) -> Any:
    """The C encoder with the options of ``encoder`` (not indenting, not escaping to
    ASCII), made once, without the circularity check: a circular value recurses until
    RecursionError where the check raised ValueError. ``None`` without the C module."""
    make: Any = json.encoder.c_make_encoder  # type: ignore[attr-defined]
    if make is None or encoder.indent is not None or encoder.ensure_ascii:
        return None
    return make(
        None,
        encoder.default,
        json.encoder.encode_basestring,
        None,
        encoder.key_separator,
        encoder.item_separator,
        encoder.sort_keys,
        encoder.skipkeys,
        encoder.allow_nan,
    )


#: The C encoder with ``_CANONICAL_ENCODER``'s options and no circularity check.
_FAST_ENCODE: Any = c_encoder(_CANONICAL_ENCODER)


def texts_of(parts: Sequence[Part]) -> str:
    return "".join(p.text for p in parts if isinstance(p, TextPart))
