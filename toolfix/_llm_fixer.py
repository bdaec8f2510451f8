"""The LLM-based tool-call fixer: re-ask the model, with feedback, when a call is broken.

For each response, :class:`LLMBasedToolCallFixProcessor`:

1. runs its preprocessor (by default the manual fixer), which repairs whatever can
   be repaired without an LLM;
2. decides whether a call was intended: a call part (valid or not) means yes; a
   ``required`` or named tool choice means yes; otherwise the cheap
   :class:`~toolfix.IntentPrecheck` looks at the text and, only when it sees a sign
   of an intended call, the model is asked one yes/no question;
3. validates every call against the registry. Valid calls are kept as they are and
   never re-asked. All broken calls of the response are fixed in **one**
   conversation (original prompt, the broken assistant message as text, and a user
   message with the feedback: parse error, unknown name with the available names,
   or the schema errors with the tool's schema); the reply goes through the
   preprocessor and is validated again, up to ``max_retries`` times;
4. when retries run out: the ``fallback`` processor gets the original prompt and
   response, or (no fallback) the preprocessed response is returned with the calls
   still broken reported as :class:`~toolfix.InvalidToolCallPart`.

Budget per response: at most one intent question plus ``max_retries`` fix calls, and
none at all when every call is valid (DESIGN promise 8). Every call spent is
recorded in a ``RepairRecord(kind="llm_fix", llm_calls=n, usage=...)`` on
``Response.repairs``; the fallback's own calls are recorded by the fallback.

A fixed call takes the place (and the id, when it had one) of the broken call it
replaces; a reply call is matched to a broken call by tool name, or to a broken
call whose name was not a tool. Valid reply calls that match no broken call are
added after the others, except calls of a tool that a kept call already uses
(most likely a repeat of it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._config import FixConfig
from ._errors import ConfigurationError
from ._intent import IntentPrecheck
from ._manual import ManualToolCallFixProcessor
from ._messages import (
    FailureKind,
    InvalidToolCallPart,
    Message,
    Part,
    Prompt,
    RepairRecord,
    Response,
    ToolCallPart,
    ToolChoice,
    Usage,
)
from ._processor import ResponseProcessor, ToolsLike
from ._prompts import FixerPrompts
from ._tools import ToolRegistry

if TYPE_CHECKING:
    from ._executor import PromptExecutor

__all__ = ["LLMBasedToolCallFixProcessor", "build_llm_processor", "llm_calls_of"]

K = FailureKind
_ARGUMENT_KINDS = frozenset({K.MISSING_REQUIRED, K.TYPE_MISMATCH, K.ENUM_CASE, K.EXTRA_KEYS})


@dataclass
class _Broken:
    """One call that needs the LLM: where it sits and what is wrong with it."""

    index: int | None  # position in the preprocessed response; None: not in it
    part: ToolCallPart | InvalidToolCallPart | None  # None: the call is missing entirely
    name: str | None
    kind: str
    problem: str


@dataclass
class _Spend:
    calls: int = 0
    intent_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    notes: list[str] = field(default_factory=list)

    def add(self, response: Response) -> None:
        self.calls += 1
        u = response.usage or Usage()
        self.usage = self.usage + u.model_copy(update={"requests": 1})


class LLMBasedToolCallFixProcessor(ResponseProcessor):
    """Fixes broken or missing tool calls by asking the model again, with feedback.

    Args:
        registry: Tools to validate against when :meth:`process` is given none.
        config: Settings of the default preprocessor.
        preprocessor: Runs first and on every fix reply (default
            ``ManualToolCallFixProcessor(config, registry)``).
        fallback: Processor that gets the original prompt and response when the
            retries run out; ``None`` returns the calls marked invalid.
        max_retries: Fix calls per response (the intent question is not counted).
        prompts: The texts sent to the model.
        precheck: The cheap intent pre-check (default ``IntentPrecheck()``).
        model: Model for the fixer's own calls (default: the one given to process).
        executor: Executor for the fixer's own calls (default: the one given to process).
    """

    def __init__(
        self,
        registry: ToolsLike = None,
        config: FixConfig | None = None,
        *,
        preprocessor: ResponseProcessor | None = None,
        fallback: ResponseProcessor | None = None,
        max_retries: int = 3,
        prompts: FixerPrompts | None = None,
        precheck: IntentPrecheck | None = None,
        model: str | None = None,
        executor: PromptExecutor | None = None,
    ):
        if max_retries < 0:
            raise ConfigurationError("max_retries must be >= 0")
        self.registry = ToolRegistry.of(registry)
        self.preprocessor = preprocessor or ManualToolCallFixProcessor(config, self.registry)
        self.fallback = fallback
        self.max_retries = max_retries
        self.prompts = prompts or FixerPrompts()
        self.precheck = precheck or IntentPrecheck()
        self.model = model
        self.executor = executor

    def __repr__(self) -> str:
        return (
            f"LLMBasedToolCallFixProcessor(max_retries={self.max_retries}, "
            f"fallback={self.fallback!r})"
        )

    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]:
        given = ToolRegistry.of(tools)
        registry = given if len(given) else self.registry
        pre = await self.preprocessor.process(executor, prompt, model, registry, responses)
        originals: Sequence[Response] = responses if len(responses) == len(pre) else pre
        out: list[Response] = []
        for original, resp in zip(originals, pre, strict=True):
            out.extend(await self._fix(executor, prompt, model, registry, original, resp))
        return out

    # ---- one response -----------------------------------------------------------------

    async def _fix(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        registry: ToolRegistry,
        original: Response,
        resp: Response,
    ) -> list[Response]:
        if not len(registry) or prompt.tool_choice.mode == "none":
            return [resp]
        if any(r.kind == K.LLM_FIX for r in resp.repairs):
            return [resp]  # already handled: repairing a repaired response changes nothing
        has_calls = any(isinstance(p, ToolCallPart | InvalidToolCallPart) for p in resp.parts)
        spend = _Spend()
        candidate: Response | None = None
        if has_calls:
            broken = self._broken_calls(resp, registry)
            if not broken:
                return [resp]  # every call valid: no LLM call (promise 8)
        else:
            if prompt.tool_choice.forces_call:
                spend.notes.append(f"tool choice {prompt.tool_choice.mode} forces a call")
            else:
                text = resp.text or resp.reasoning or ""
                check = self.precheck.check(text, registry.names)
                if not check:
                    return [resp]
                intended, candidate = await self._ask_intent(
                    executor, prompt, model, registry, resp, spend
                )
                if not intended:
                    spend.notes.append(f"pre-check: {check.reason}; intent question: no")
                    return [self._with_record(resp, spend)]
                spend.notes.append(f"pre-check: {check.reason}; intent question: yes")
            broken = [
                _Broken(
                    None,
                    None,
                    None,
                    K.INTENT_ONLY.value,
                    self.prompts.missing_call.format(tool_names=", ".join(registry.names)),
                )
            ]
        return await self._repair(
            executor, prompt, model, registry, original, resp, broken, spend, candidate
        )

    async def _repair(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        registry: ToolRegistry,
        original: Response,
        resp: Response,
        broken: list[_Broken],
        spend: _Spend,
        candidate: Response | None,
    ) -> list[Response]:
        broken_idx = {b.index for b in broken}
        kept = [
            p
            for i, p in enumerate(resp.parts)
            if isinstance(p, ToolCallPart) and i not in broken_idx
        ]
        kept_names = {p.name for p in kept}
        fixed: dict[int, tuple[ToolCallPart, _Broken, int]] = {}
        extra: list[tuple[ToolCallPart, _Broken | None, int]] = []
        remaining = list(broken)
        conversation = [
            *prompt.messages,
            Message.assistant(self._assistant_text(resp, broken)),
            Message.user(self._feedback(remaining, kept, registry)),
        ]
        attempt = 0
        while remaining:
            if candidate is not None:
                reply, candidate = candidate, None
            else:
                if attempt >= self.max_retries:
                    break
                attempt += 1
                fix_prompt = prompt.model_copy(
                    update={
                        "messages": tuple(conversation),
                        "tool_choice": self._fix_choice(prompt, remaining, registry),
                        "previous_response_id": None,
                    }
                )
                reply = await self._call(executor, fix_prompt, model, registry, spend)
            valid, invalid = await self._classify_reply(executor, prompt, model, registry, reply)
            remaining, unassigned = self._assign(remaining, valid, registry, fixed, extra, attempt)
            seen = {_call_key(c) for c, _, _ in (*fixed.values(), *extra)}
            extra.extend(
                (v, None, attempt)
                for v in unassigned
                if v.name not in kept_names and _call_key(v) not in seen
            )
            if not remaining:
                break
            new_problems = [self._problem(p, n, registry) for n, p in enumerate(invalid, 1)]
            for b, problem in zip(remaining, new_problems, strict=False):
                b.problem = problem[1]
            if not valid and not invalid:
                note = self.prompts.no_call_in_reply.format(tool_names=", ".join(registry.names))
            else:
                note = ""
            conversation.append(Message.assistant(self._reply_text(reply)))
            conversation.append(
                Message.user(
                    (note + "\n\n" if note else "") + self._feedback(remaining, kept, registry)
                )
            )

        done = len(broken) - len(remaining)
        spend.notes.append(
            f"{spend.calls - spend.intent_calls} fix call(s); "
            f"fixed {done} of {len(broken)} broken call(s)"
        )
        if remaining and self.fallback is not None:
            spend.notes.append("retries exhausted; handed to the fallback processor")
            results = await self.fallback.process(executor, prompt, model, registry, [original])
            return [self._with_record(r, spend) for r in results]
        if remaining:
            spend.notes.append("retries exhausted; calls left invalid")
        parts: list[Part] = []
        unresolved = {b.index: b for b in remaining if b.index is not None}
        for i, p in enumerate(resp.parts):
            if i in fixed:
                call, b, k = fixed[i]
                parts.append(self._fixed_part(call, b, k))
            elif i in unresolved and isinstance(p, ToolCallPart):
                parts.append(_as_invalid(p, unresolved[i]))
            else:
                parts.append(p)
        parts.extend(self._fixed_part(call, b, k) for call, b, k in extra)
        new = resp.model_copy(update={"parts": tuple(parts)})
        return [self._with_record(new, spend)]

    # ---- LLM calls --------------------------------------------------------------------

    async def _call(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        registry: ToolRegistry,
        spend: _Spend,
    ) -> Response:
        ex = self.executor or executor
        if ex is None:
            raise ConfigurationError(
                "LLMBasedToolCallFixProcessor needs an executor: pass one to process() "
                "(executor.with_processor(...) does) or to the constructor"
            )
        replies = await ex.execute(prompt, self.model or model, registry)
        reply = replies[0] if replies else Response()
        spend.add(reply)
        return reply

    async def _ask_intent(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        registry: ToolRegistry,
        resp: Response,
        spend: _Spend,
    ) -> tuple[bool, Response | None]:
        question = self.prompts.intent_question.format(tool_names=", ".join(registry.names))
        ask = prompt.model_copy(
            update={
                "messages": (
                    *prompt.messages,
                    Message.assistant(resp.text or resp.reasoning or ""),
                    Message.user(question),
                ),
                "tool_choice": ToolChoice.none(),
                "previous_response_id": None,
            }
        )
        reply = await self._call(executor, ask, model, registry, spend)
        spend.intent_calls += 1
        if any(isinstance(p, ToolCallPart | InvalidToolCallPart) for p in reply.parts):
            return True, reply  # it answered with the call itself: use it
        words = reply.text.strip().lower().lstrip("*_\"' ").split()
        first = words[0].strip(".,!:;*_\"'") if words else ""
        return first == "yes", None

    async def _classify_reply(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        registry: ToolRegistry,
        reply: Response,
    ) -> tuple[list[ToolCallPart], list[ToolCallPart | InvalidToolCallPart]]:
        processed = await self.preprocessor.process(executor, prompt, model, registry, [reply])
        valid: list[ToolCallPart] = []
        invalid: list[ToolCallPart | InvalidToolCallPart] = []
        for r in processed:
            for p in r.parts:
                if isinstance(p, ToolCallPart) and _is_valid(p, registry):
                    valid.append(p)
                elif isinstance(p, ToolCallPart | InvalidToolCallPart):
                    invalid.append(p)
        return valid, invalid

    # ---- bookkeeping --------------------------------------------------------------------

    def _broken_calls(self, resp: Response, registry: ToolRegistry) -> list[_Broken]:
        out: list[_Broken] = []
        for i, p in enumerate(resp.parts):
            if isinstance(p, ToolCallPart) and _is_valid(p, registry):
                continue
            if isinstance(p, ToolCallPart | InvalidToolCallPart):
                kind, problem = self._problem(p, len(out) + 1, registry)
                out.append(_Broken(i, p, p.name, kind, problem))
        return out

    def _assign(
        self,
        remaining: list[_Broken],
        valid: list[ToolCallPart],
        registry: ToolRegistry,
        fixed: dict[int, tuple[ToolCallPart, _Broken, int]],
        extra: list[tuple[ToolCallPart, _Broken | None, int]],
        attempt: int,
    ) -> tuple[list[_Broken], list[ToolCallPart]]:
        """Match reply calls to broken calls: same tool name first, then nameless slots."""
        unassigned = list(valid)
        still: list[_Broken] = []
        for b in remaining:
            match = next((v for v in unassigned if b.name is not None and v.name == b.name), None)
            if match is None and (b.name is None or b.name not in registry):
                match = unassigned[0] if unassigned else None
            if match is None:
                still.append(b)
                continue
            unassigned.remove(match)
            if b.index is None:
                extra.append((match, b, attempt))
            else:
                fixed[b.index] = (match, b, attempt)
        return still, unassigned

    def _fixed_part(self, call: ToolCallPart, b: _Broken | None, attempt: int) -> ToolCallPart:
        how = f"corrected by the LLM (fix call {attempt})" if attempt else "given by the LLM"
        if b is None:
            rec = RepairRecord(kind=K.LLM_FIX.value, detail=f"extra call {how}")
            return call.model_copy(update={"repairs": (*call.repairs, rec)})
        rec = RepairRecord(kind=b.kind, detail=f"{how}: {_first_line(b.problem)}")
        old = b.part.repairs if b.part is not None else ()
        new_id = b.part.id if b.part is not None and b.part.id else call.id
        return call.model_copy(update={"id": new_id, "repairs": (*old, rec, *call.repairs)})

    def _with_record(self, resp: Response, spend: _Spend) -> Response:
        rec = RepairRecord(
            kind=K.LLM_FIX.value,
            detail="; ".join(spend.notes) or "LLM fixer",
            llm_calls=spend.calls,
            usage=spend.usage,
        )
        return resp.model_copy(update={"repairs": (*resp.repairs, rec)})

    def _fix_choice(
        self, prompt: Prompt, remaining: list[_Broken], registry: ToolRegistry
    ) -> ToolChoice:
        if prompt.tool_choice.mode == "named":
            return prompt.tool_choice
        names = {b.name for b in remaining}
        if len(names) == 1:
            (only,) = names
            if only is not None and only in registry:
                return ToolChoice.named(only)
        return ToolChoice.required()

    # ---- texts --------------------------------------------------------------------------

    def _cap(self, text: str) -> str:
        cap = self.prompts.max_raw_chars
        return text if len(text) <= cap else text[:cap] + "…[truncated]"

    def _problem(
        self, p: ToolCallPart | InvalidToolCallPart, n: int, registry: ToolRegistry
    ) -> tuple[str, str]:
        """(failure class, feedback paragraph) for one broken call."""
        pr = self.prompts
        label = f"#{n}" + (f" ({p.name})" if p.name else "")
        names = ", ".join(registry.names)
        raw = p.arguments_raw if isinstance(p, ToolCallPart) else p.raw
        kind = p.kind if isinstance(p, InvalidToolCallPart) else ""
        if kind == K.UNKNOWN_NAME or (p.name is not None and p.name and p.name not in registry):
            return K.UNKNOWN_NAME.value, pr.unknown_name.format(
                label=label, name=p.name or "", tool_names=names
            )
        if p.name and p.arguments is not None:
            tool = registry[p.name]
            issues = [str(i) for i in tool.validate_arguments(p.arguments)]
            if not issues and isinstance(p, InvalidToolCallPart):
                issues = [p.error]
            if kind not in _ARGUMENT_KINDS:
                kind = _argument_kind(tool.validate_arguments(p.arguments))
            return kind, pr.invalid_arguments.format(
                label=label,
                name=p.name,
                issues="\n".join(f"- {i}" for i in issues),
                arguments=self._cap(json.dumps(p.arguments, ensure_ascii=False)),
                schema=self._cap(json.dumps(tool.parameters, ensure_ascii=False)),
            )
        if isinstance(p, InvalidToolCallPart):
            error = p.error
        else:
            error = _json_error(raw) if p.name else "the call has no tool name"
        return kind or K.INVALID_JSON.value, pr.invalid_json.format(
            label=label, error=error, raw=self._cap(raw)
        )

    def _feedback(
        self, remaining: list[_Broken], kept: list[ToolCallPart], registry: ToolRegistry
    ) -> str:
        kept_text = (
            self.prompts.kept_calls.format(
                calls=", ".join(f"{c.name}({c.arguments_raw})" for c in kept)
            )
            if kept
            else ""
        )
        problems = "\n\n".join(b.problem for b in remaining)
        return self.prompts.fix_request.format(problems=problems, kept=kept_text)

    def _assistant_text(self, resp: Response, broken: list[_Broken]) -> str:
        pieces = [resp.text] if resp.text else []
        for b in broken:
            if isinstance(b.part, InvalidToolCallPart):
                pieces.append(self._cap(b.part.raw))
            elif isinstance(b.part, ToolCallPart):
                pieces.append(self._cap(_call_text(b.part)))
        return "\n".join(pieces) or (resp.reasoning or "")

    def _reply_text(self, reply: Response) -> str:
        pieces = [reply.text] if reply.text else []
        for p in reply.parts:
            if isinstance(p, ToolCallPart):
                pieces.append(self._cap(_call_text(p)))
            elif isinstance(p, InvalidToolCallPart):
                pieces.append(self._cap(p.raw))
        return "\n".join(pieces) or "(empty reply)"


# ---- helpers ------------------------------------------------------------------------------


def _is_valid(p: ToolCallPart, registry: ToolRegistry) -> bool:
    if p.provider_executed:
        return True
    tool = registry.get(p.name)
    return tool is not None and p.arguments is not None and tool.is_valid(p.arguments)


def _call_key(p: ToolCallPart) -> tuple[str, str]:
    return p.name, json.dumps(p.arguments, sort_keys=True)


def _call_text(p: ToolCallPart) -> str:
    return f'{{"name": {json.dumps(p.name)}, "arguments": {p.arguments_raw or "null"}}}'


def _as_invalid(p: ToolCallPart, b: _Broken) -> InvalidToolCallPart:
    return InvalidToolCallPart(
        id=p.id,
        name=p.name,
        raw=p.arguments_raw,
        error=_first_line(b.problem),
        kind=b.kind,
        arguments=p.arguments,
        repairs=p.repairs,
        provider_data=p.provider_data,
    )


def _argument_kind(issues: Sequence[Any]) -> str:
    keywords = {getattr(i, "keyword", "") for i in issues}
    if "required" in keywords:
        return K.MISSING_REQUIRED.value
    if "additionalProperties" in keywords:
        return K.EXTRA_KEYS.value
    if "enum" in keywords:
        return K.ENUM_CASE.value
    return K.TYPE_MISMATCH.value


def _json_error(raw: str) -> str:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return f"invalid JSON: {exc}"
    return f"the arguments must be a JSON object, not {type(value).__name__}"


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:300]


def llm_calls_of(response: Response) -> int:
    """LLM requests the fixer spent on ``response`` (the CLI's ``llm_calls``)."""
    return sum(r.llm_calls for r in response.all_repairs)


def build_llm_processor(
    model: str,
    api_base: str | None = None,
    max_retries: int = 3,
    *,
    api_key: str | None = None,
    config: FixConfig | None = None,
) -> LLMBasedToolCallFixProcessor:
    """The manual + LLM fixer for ``toolfix repair --llm MODEL``: its own litellm executor.

    Call ``await processor.process(None, prompt, model, tools, [response])``; the
    executor and model given here are used for the fixer's calls.
    """
    from ._litellm import LiteLLMExecutor

    return LLMBasedToolCallFixProcessor(
        config=config,
        max_retries=max_retries,
        model=model,
        executor=LiteLLMExecutor(api_base=api_base, api_key=api_key),
    )
