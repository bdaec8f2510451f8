"""The fix conversation for one response: re-ask with feedback, up to ``max_retries``.

All broken calls of a response are fixed in one conversation: the original
prompt, the broken assistant message as text, and a user message with the
feedback. Each reply goes through the preprocessor and is validated; a valid
reply call replaces the broken call it answers (see :mod:`.match`), an invalid
one updates that call's feedback for the next turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._messages import (
    InvalidToolCallPart,
    Message,
    Part,
    Prompt,
    RepairRecord,
    Response,
    ToolCallPart,
    ToolChoice,
)
from .._tools import ToolRegistry
from .feedback import Broken, Feedback, first_line
from .ledger import Ledger
from .match import match_calls

if TYPE_CHECKING:
    from .._pipeline.processor import ResponseProcessor

__all__ = ["FixOutcome", "FixSession", "is_valid"]


@dataclass
class _Fixed:
    call: ToolCallPart
    broken: Broken
    attempt: int


@dataclass
class FixOutcome:
    """What the conversation produced; :meth:`apply` puts it into the response."""

    fixed: dict[int, _Fixed] = field(default_factory=dict)  # by position in the response
    extra: list[_Fixed] = field(default_factory=list)  # appended after the other parts
    remaining: list[Broken] = field(default_factory=list)

    def take(self, pairs: Sequence[tuple[Broken, ToolCallPart]], attempt: int) -> None:
        for b, call in pairs:
            if b.index is None:
                self.extra.append(_Fixed(call, b, attempt))
            else:
                self.fixed[b.index] = _Fixed(call, b, attempt)

    def apply(self, resp: Response) -> Response:
        parts: list[Part] = []
        unresolved = {b.index: b for b in self.remaining if b.index is not None}
        for i, p in enumerate(resp.parts):
            if i in self.fixed:
                parts.append(_fixed_part(self.fixed[i]))
            elif i in unresolved and isinstance(p, ToolCallPart):
                parts.append(_as_invalid(p, unresolved[i]))
            else:
                parts.append(p)
        parts.extend(_fixed_part(f) for f in self.extra)
        return resp.model_copy(update={"parts": tuple(parts)})


@dataclass(kw_only=True, eq=False)
class FixSession:
    """Runs the fix conversation of one response."""

    ledger: Ledger
    feedback: Feedback
    preprocessor: ResponseProcessor
    max_retries: int
    prompt: Prompt
    registry: ToolRegistry

    async def run(self, resp: Response, broken: list[Broken]) -> FixOutcome:
        broken_idx = {b.index for b in broken}
        kept = [
            p
            for i, p in enumerate(resp.parts)
            if isinstance(p, ToolCallPart) and i not in broken_idx
        ]
        out = FixOutcome()
        remaining = list(broken)
        conversation = [
            *self.feedback.with_system(self.prompt.messages, broken[0].failure, "fix_call"),
            Message.assistant(self.feedback.assistant_text(resp, broken)),
            Message.user(self.feedback.request(remaining, kept)),
        ]
        attempt = 0
        while remaining and attempt < self.max_retries:
            attempt += 1
            choice = self._choice(remaining)
            reply = await self.ledger.ask(self._fix_prompt(conversation, choice), self.registry)
            valid, invalid = await self._read(reply)
            named = [c for c in valid if choice.mode != "named" or c.name == choice.name]
            pairs, unasked = match_calls(remaining, named, self.registry)
            out.take(pairs, attempt)
            answered = {id(b) for b, _ in pairs}
            remaining = [b for b in remaining if id(b) not in answered]
            attempts, stray = match_calls(remaining, invalid, self.registry, lone=True)
            self._drop(attempt, [*(c for c in valid if c not in named), *unasked, *stray])
            if not remaining:
                break
            for b, attempt_at in attempts:
                self.feedback.update(b, attempt_at, self.registry)
            conversation.append(Message.assistant(self.feedback.reply_text(reply)))
            conversation.append(
                Message.user(
                    self.feedback.request(remaining, kept, no_call=not valid and not invalid)
                )
            )
        out.remaining = remaining
        self.ledger.note(
            f"{self.ledger.fix_calls} fix call(s); "
            f"fixed {len(broken) - len(remaining)} of {len(broken)} broken call(s)"
        )
        return out

    def _drop(self, attempt: int, calls: Sequence[ToolCallPart | InvalidToolCallPart]) -> None:
        """Record reply calls that answer no call the fixer asked for: a fix reply may only
        replace the broken calls (the same tool, or the tool choice the request named);
        anything else it carries is dropped, never run (docs/guides/litellm.md)."""
        if calls:
            cap = self.feedback.prompts.cap
            listed = ", ".join(
                f"{c.name}({cap(c.arguments_raw)})" if isinstance(c, ToolCallPart) else cap(c.raw)
                for c in calls
            )
            self.ledger.note(
                f"fix call {attempt}: dropped {len(calls)} call(s) not asked for: {listed}"
            )

    def _fix_prompt(self, conversation: list[Message], choice: ToolChoice) -> Prompt:
        return self.prompt.model_copy(
            update={
                "messages": tuple(conversation),
                "tool_choice": choice,
                "previous_response_id": None,
            }
        )

    def _choice(self, remaining: list[Broken]) -> ToolChoice:
        if self.prompt.tool_choice.mode == "named":
            return self.prompt.tool_choice
        names = {b.name for b in remaining}
        if len(names) == 1:
            (only,) = names
            if only is not None and only in self.registry:
                return ToolChoice.named(only)
        return ToolChoice.required()

    async def _read(
        self, reply: Response
    ) -> tuple[list[ToolCallPart], list[ToolCallPart | InvalidToolCallPart]]:
        """The reply's calls after the preprocessor: (valid, invalid)."""
        processed = await self.preprocessor.process(
            self.ledger.executor, self.prompt, self.ledger.model, self.registry, [reply]
        )
        valid: list[ToolCallPart] = []
        invalid: list[ToolCallPart | InvalidToolCallPart] = []
        for r in processed:
            for p in r.parts:
                if isinstance(p, ToolCallPart) and is_valid(p, self.registry):
                    valid.append(p)
                elif isinstance(p, ToolCallPart | InvalidToolCallPart):
                    invalid.append(p)
        return valid, invalid


def is_valid(p: ToolCallPart, registry: ToolRegistry) -> bool:
    """A call that needs no fix: provider-executed, or a registry tool with valid arguments."""
    if p.provider_executed:
        return True
    tool = registry.get(p.name)
    return tool is not None and p.arguments is not None and tool.is_valid(p.arguments)


def _fixed_part(f: _Fixed) -> ToolCallPart:
    how = f"corrected by the LLM (fix call {f.attempt})"
    b = f.broken
    rec = RepairRecord(kind=b.kind, detail=f"{how}: {first_line(b.first_text)}")
    old = b.part.repairs if b.part is not None else ()
    new_id = b.id or f.call.id
    return f.call.model_copy(update={"id": new_id, "repairs": (*old, rec, *f.call.repairs)})


def _as_invalid(p: ToolCallPart, b: Broken) -> InvalidToolCallPart:
    return InvalidToolCallPart(
        id=p.id,
        name=p.name,
        raw=p.arguments_raw,
        error=first_line(b.first_text),
        kind=b.kind,
        arguments=p.arguments,
        repairs=p.repairs,
        provider_data=p.provider_data,
    )
