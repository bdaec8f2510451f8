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

import json
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ._errors import InvalidArgumentsError, MalformedToolCallError, UnknownToolError
from ._strenum import StrEnum

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


class FailureKind(StrEnum):
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
    DUPLICATE_ARGUMENT = "duplicate_argument"
    """A parameter written twice in one call: invalid, both values in the error (a
    second value must not silently override the first)."""
    QUOTED_CALL = "quoted_call"
    """A call the text only quotes (a comment, a blockquote, another call's value, a
    refused reasoning quote): never admitted."""
    SCHEMA_ANCHORED = "schema_anchored"
    """The call was read by the schema-anchored reader (docs/finding-calls.md)."""
    POSITIONAL_ARGUMENTS = "positional_arguments"
    """A value written by position bound to the one parameter it can be
    (toolfix/_repair/positional.py)."""


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


#: A call part: a valid call, or a call that failed with its raw text.
CallPart = ToolCallPart | InvalidToolCallPart

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


# ---- the parts the repair engine makes, through pydantic's validating constructors
#
# Each builder hands the model's own cached validator (what ``Model(**fields)`` and
# ``model_validate`` call) a dict of the model's fields and nothing else, built here: so
# ``extra="ignore"`` spares pydantic the search for unknown keys that ``extra="forbid"``
# makes for what users pass. Every value is validated as the constructor validates it.

_validate_record = RepairRecord.__pydantic_validator__.validate_python
_validate_call = ToolCallPart.__pydantic_validator__.validate_python
_validate_invalid = InvalidToolCallPart.__pydantic_validator__.validate_python
_validate_text = TextPart.__pydantic_validator__.validate_python


def repair_record(kind: FailureKind, detail: str) -> RepairRecord:
    """``RepairRecord(kind=kind, detail=detail)``."""
    record: RepairRecord = _validate_record({"kind": kind, "detail": detail}, extra="ignore")
    return record


def recovered_call(
    call_id: str,
    name: str,
    arguments_raw: str,
    arguments: dict[str, Any],
    repairs: tuple[RepairRecord, ...],
) -> ToolCallPart:
    """``ToolCallPart(id=call_id, name=..., arguments_raw=..., arguments=..., repairs=...)``."""
    call: ToolCallPart = _validate_call(
        {
            "id": call_id,
            "name": name,
            "arguments_raw": arguments_raw,
            "arguments": arguments,
            "repairs": repairs,
        },
        extra="ignore",
    )
    return call


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
    arguments=..., repairs=...)``."""
    call: InvalidToolCallPart = _validate_invalid(
        {
            "id": call_id,
            "name": name,
            "raw": raw,
            "error": error,
            "kind": str(kind),
            "arguments": arguments,
            "repairs": repairs,
        },
        extra="ignore",
    )
    return call


_Model = TypeVar("_Model", bound=BaseModel)


def copied_with(model: _Model, update: dict[str, Any]) -> _Model:
    """``model.model_copy(update=update)``."""
    return model.model_copy(update=update)


def text_part(text: str) -> TextPart:
    """``TextPart(text=text)`` (a dict of its one field, as the builders above)."""
    part: TextPart = _validate_text({"text": text}, extra="ignore")
    return part


#: One encoder for every call (``json.dumps`` with options builds a new one each time),
#: and its twin that refuses what JSON cannot carry (``NaN``, ``Infinity``).
_CANONICAL_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_FINITE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def canonical_json(value: Any, *, finite: bool = False) -> str:
    """Compact JSON used for the ``arguments_raw`` of recovered calls (stable, unicode kept).

    ``finite``: raise ``ValueError`` on a float JSON cannot carry (``NaN``, an infinity)
    instead of writing it (the admission gate's G7, answered while encoding)."""
    return (_FINITE_ENCODER if finite else _CANONICAL_ENCODER).encode(value)


def texts_of(parts: Sequence[Part]) -> str:
    return "".join(p.text for p in parts if isinstance(p, TextPart))
