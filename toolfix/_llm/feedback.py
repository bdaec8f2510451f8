"""What is wrong with a broken call, and the feedback message that says it.

:func:`describe` turns one call into a :class:`~toolfix.FixFailure` (its failure
class, error, schema issues); :class:`Feedback` renders failures with the
:class:`~toolfix.FixerPrompts` and quotes the model's own text back to it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._config import DEFAULT_ARGUMENT_KEYS, DEFAULT_NAME_KEYS, DEFAULT_WRAPPER_KEYS
from .._messages import (
    FailureKind,
    InvalidToolCallPart,
    Message,
    Response,
    TextPart,
    ToolCallPart,
)
from .._tools import ToolRegistry
from .prompts import FixerPrompts, FixFailure, RequestKind

__all__ = [
    "Broken",
    "Feedback",
    "describe",
    "first_line",
    "intent_failure",
    "named_problems",
    "sent_arguments",
]

K = FailureKind
_ARGUMENT_KINDS = frozenset({K.MISSING_REQUIRED, K.TYPE_MISMATCH, K.ENUM_CASE, K.EXTRA_KEYS})


@dataclass
class Broken:
    """One call the LLM is asked to fix: where it sits and what is wrong with it now.

    ``failure`` and ``text`` follow the conversation (the last reply's attempt at
    this call); ``kind`` stays the failure class of the call as it first came.
    """

    number: int  # the "#n" of the feedback
    index: int | None  # position in the response; None: the call is missing entirely
    part: ToolCallPart | InvalidToolCallPart | None
    kind: FailureKind | str
    failure: FixFailure
    text: str  # the feedback paragraph for ``failure``
    first_text: str = ""  # the paragraph for the call as it first came (for records)

    def __post_init__(self) -> None:
        self.first_text = self.first_text or self.text

    @property
    def name(self) -> str | None:
        return self.part.name if self.part is not None else None

    @property
    def id(self) -> str | None:
        return self.part.id if self.part is not None else None


def intent_failure(registry: ToolRegistry, text: str = "") -> FixFailure:
    """The failure of a message that announces a call and makes none."""
    return FixFailure(kind=K.INTENT_ONLY, tool_names=tuple(registry.names), text=text)


def describe(
    p: ToolCallPart | InvalidToolCallPart, number: int, registry: ToolRegistry
) -> FixFailure:
    """The failure of one broken call, labelled ``#number``."""
    label = f"#{number}" + (f" ({p.name})" if p.name else "")
    names = tuple(registry.names)
    raw = p.arguments_raw if isinstance(p, ToolCallPart) else p.raw
    kind: FailureKind | str = p.kind if isinstance(p, InvalidToolCallPart) else ""
    base = FixFailure(kind=kind, tool_names=names, label=label, name=p.name, call_id=p.id, raw=raw)
    if kind == K.TRUNCATED:
        error = p.error if isinstance(p, InvalidToolCallPart) else "cut off"
        return replace(base, error=error, arguments=p.arguments)
    if kind == K.UNKNOWN_NAME or (p.name and p.name not in registry):
        return replace(base, kind=K.UNKNOWN_NAME, error=f"unknown tool {p.name!r}")
    if p.name and p.arguments is not None:
        tool = registry[p.name]
        found = tool.validate_arguments(p.arguments)
        sent = sent_arguments(p)
        issues = named_problems(sent, p.arguments, found, tool.parameters)
        if not issues and isinstance(p, InvalidToolCallPart):
            issues = [p.error]
        return replace(
            base,
            kind=kind if kind in _ARGUMENT_KINDS else _argument_kind(found),
            error="; ".join(issues),
            issues=tuple(issues),
            arguments=sent,
            schema=tool.parameters,
        )
    if isinstance(p, InvalidToolCallPart):
        error = p.error
    else:
        error = _json_error(raw) if p.name else "the call has no tool name"
    return replace(base, kind=kind or K.INVALID_JSON, error=error)


class Feedback:
    """Renders the fixer's messages from its prompts."""

    def __init__(self, prompts: FixerPrompts):
        self.prompts = prompts

    def broken(
        self,
        p: ToolCallPart | InvalidToolCallPart,
        number: int,
        index: int | None,
        registry: ToolRegistry,
    ) -> Broken:
        failure = describe(p, number, registry)
        return Broken(number, index, p, failure.kind, failure, self.problem(failure))

    def missing(self, registry: ToolRegistry, text: str) -> Broken:
        failure = intent_failure(registry, text)
        problem = self.prompts.render(self.prompts.missing_call, failure)
        return Broken(1, None, None, failure.kind, failure, problem)

    def update(
        self, b: Broken, attempt: ToolCallPart | InvalidToolCallPart, registry: ToolRegistry
    ) -> None:
        """``b`` now fails the way the reply's ``attempt`` at it does."""
        b.failure = describe(attempt, b.number, registry)
        b.text = self.problem(b.failure)

    def problem(self, f: FixFailure) -> str:
        """The feedback paragraph for one failure."""
        pr = self.prompts
        if f.kind == K.TRUNCATED:
            return pr.render(pr.truncated, f)
        if f.kind == K.UNKNOWN_NAME:
            return pr.render(pr.unknown_name, f)
        if f.kind == K.INTENT_ONLY:
            return pr.render(pr.missing_call, f)
        if f.schema is not None:
            return pr.render(pr.invalid_arguments, f)
        return pr.render(pr.invalid_json, f)

    def request(
        self,
        remaining: Sequence[Broken],
        kept: Sequence[ToolCallPart],
        *,
        no_call: bool = False,
    ) -> str:
        """The user message asking for the calls in ``remaining`` again."""
        pr = self.prompts
        calls = tuple(f"{c.name}({c.arguments_raw})" for c in kept)
        first = remaining[0].failure
        summary = replace(first, problems=tuple(b.text for b in remaining), kept_calls=calls)
        kept_text = pr.render(pr.kept_calls, summary) if kept else ""
        text = pr.render(pr.fix_request, summary, kept=kept_text)
        if no_call:
            text = pr.render(pr.no_call_in_reply, summary) + "\n\n" + text
        return text

    def with_system(
        self, messages: Sequence[Message], failure: FixFailure, request: RequestKind
    ) -> tuple[Message, ...]:
        """``messages`` with the system text of ``request`` (added to a leading system
        message, or first)."""
        pr = self.prompts
        system = pr.system_for(request)
        if system is None:
            return tuple(messages)
        text = pr.render(system, replace(failure, request=request))
        if messages and messages[0].role == "system":
            first = messages[0]
            parts = (*first.parts, TextPart(text=("\n\n" if first.text else "") + text))
            return (first.model_copy(update={"parts": parts}), *messages[1:])
        return (Message.system(text), *messages)

    def assistant_text(self, resp: Response, broken: Sequence[Broken]) -> str:
        """The broken message as text (the calls written out), for the fix conversation."""
        pieces = [resp.text] if resp.text else []
        for b in broken:
            if isinstance(b.part, InvalidToolCallPart):
                pieces.append(self.prompts.cap(invalid_text(b.part)))
            elif isinstance(b.part, ToolCallPart):
                pieces.append(self.prompts.cap(call_text(b.part)))
        return "\n".join(pieces) or (resp.reasoning or "")

    def reply_text(self, reply: Response) -> str:
        """A fix reply as text, for the next turn of the conversation."""
        pieces = [reply.text] if reply.text else []
        for p in reply.parts:
            if isinstance(p, ToolCallPart):
                pieces.append(self.prompts.cap(call_text(p)))
            elif isinstance(p, InvalidToolCallPart):
                pieces.append(self.prompts.cap(invalid_text(p)))
        return "\n".join(pieces) or "(empty reply)"


def call_text(p: ToolCallPart) -> str:
    return f'{{"name": {json.dumps(p.name)}, "arguments": {p.arguments_raw or "null"}}}'


def invalid_text(p: InvalidToolCallPart) -> str:
    """An invalid call as the model wrote it: its raw text, with the tool name put back
    when the raw text is only the arguments (a native call's)."""
    if p.name and p.name not in p.raw:
        return f'{{"name": {json.dumps(p.name)}, "arguments": {p.raw or "null"}}}'
    return p.raw


def first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:300]


def sent_arguments(p: ToolCallPart | InvalidToolCallPart) -> dict[str, Any] | None:
    """The arguments as the model sent them, before any repair dropped or changed a key:
    read back from the call's raw text when it is (or its outermost braces hold, as in
    ``<tool_call>{...}</tool_call>``) a JSON object: the arguments themselves, or a whole
    call holding them under a default argument key; else the parsed ones."""
    raw = p.raw if isinstance(p, InvalidToolCallPart) else p.arguments_raw
    try:
        value = json.loads(raw[raw.find("{") : raw.rfind("}") + 1] if "{" in raw else raw)
    except (ValueError, RecursionError):
        return p.arguments
    for _ in range(2):  # a whole call, possibly inside one wrapper ({"function": {...}})
        if not isinstance(value, dict):
            return p.arguments
        names = [k for k in DEFAULT_NAME_KEYS if isinstance(value.get(k), str)]
        if not names or value[names[0]] != p.name:
            wrapped = [value[k] for k in DEFAULT_WRAPPER_KEYS if isinstance(value.get(k), dict)]
            if len(value) == 1 and wrapped:
                value = wrapped[0]
                continue
            return value  # the arguments object itself
        held = [value[k] for k in DEFAULT_ARGUMENT_KEYS if isinstance(value.get(k), dict)]
        return held[0] if held else p.arguments
    return p.arguments


def named_problems(
    sent: Mapping[str, Any] | None,
    repaired: Mapping[str, Any],
    found: Sequence[Any],
    schema: Mapping[str, Any],
) -> list[str]:
    """One line per problem, named: keys the tool does not have (as sent, even when the
    fixer dropped them), required keys missing, and values of the wrong type or value."""
    properties = schema.get("properties")
    known = set(properties) if isinstance(properties, Mapping) else set()
    keys = [*(sent or {}), *(k for k in repaired if k not in (sent or {}))]
    unknown = [k for k in keys if known and k not in known]
    out = [f"unknown key {k!r}: the tool has no such parameter" for k in unknown]
    for issue in found:
        keyword, message = getattr(issue, "keyword", ""), getattr(issue, "message", str(issue))
        path = getattr(issue, "path", "")
        where = f" at {path}" if path else ""
        if keyword == "required":
            out.append(f"missing required key: {message}")
        elif keyword == "additionalProperties":
            if not unknown:  # else already named above
                out.append(f"unknown key: {message}")
        elif keyword == "type":
            out.append(f"wrong type{where}: {message}")
        else:
            out.append(f"invalid value{where}: {message}")
    if unknown and known:
        out.append(f"the tool's parameters are: {', '.join(sorted(known))}")
    return out


def _argument_kind(issues: Sequence[Any]) -> FailureKind:
    keywords = {getattr(i, "keyword", "") for i in issues}
    if "required" in keywords:
        return K.MISSING_REQUIRED
    if "additionalProperties" in keywords:
        return K.EXTRA_KEYS
    if "enum" in keywords:
        return K.ENUM_CASE
    return K.TYPE_MISMATCH


def _json_error(raw: str) -> str:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return f"invalid JSON: {exc}"
    return f"the arguments must be a JSON object, not {type(value).__name__}"
