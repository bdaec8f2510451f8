"""The LLM-based tool-call fixer: re-ask the model, with feedback, when a call is broken.

For each response, :class:`LLMBasedToolCallFixProcessor`:

1. runs its preprocessor (by default the manual fixer), which repairs whatever can
   be repaired without an LLM;
2. decides whether a call was intended: a call part (valid or not) means yes; a
   ``required`` or named tool choice means yes; otherwise the cheap
   :class:`~toolfix.IntentPrecheck` looks at the text and, only when it sees a sign
   of an intended call, the model is asked one yes/no question, with no tools
   attached (:mod:`.intent`); no call is ever taken from its reply;
3. validates every call against the registry. Valid calls are kept as they are and
   never re-asked. All broken calls of the response are fixed in **one**
   conversation (:mod:`.session`), up to ``max_retries`` fix calls;
4. when retries run out: the ``fallback`` processor gets the original prompt and
   response, or (no fallback) the preprocessed response is returned with the calls
   still broken reported as :class:`~toolfix.InvalidToolCallPart`.

Budget per response: at most one intent question plus ``max_retries`` fix calls, and
none at all when every call is valid (promise 8, docs/guides/litellm.md). Every call
spent is recorded in a ``RepairRecord(kind="llm_fix", llm_calls=n, usage=...)`` on
``Response.repairs`` (:mod:`.ledger`); the fallback's own calls are recorded by the
fallback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

from .._config import FixConfig, ToolCallJsonConfig, as_fix_config, check_registry_first
from .._errors import ConfigurationError
from .._messages import FailureKind, InvalidToolCallPart, Prompt, Response, ToolCallPart
from .._pipeline.processor import (
    ProcessResult,
    ResponseProcessor,
    ResponsesLike,
    ToolsLike,
    as_responses,
    tools_or,
)
from .._repair.manual import ManualToolCallFixProcessor
from .._tools import ToolRegistry
from .feedback import Broken, Feedback
from .intent import ask_intent
from .ledger import Ledger
from .precheck import IntentPrecheck
from .prompts import FixerPrompts
from .session import FixSession, is_valid

if TYPE_CHECKING:
    from .._pipeline.executor import PromptExecutor

__all__ = ["LLMBasedToolCallFixProcessor", "build_llm_processor"]


@dataclass(frozen=True)
class _Request:
    """The request whose responses are being fixed, as given to ``process``."""

    executor: PromptExecutor | None
    prompt: Prompt
    model: str
    registry: ToolRegistry


class LLMBasedToolCallFixProcessor(ResponseProcessor):
    """Fixes broken or missing tool calls by asking the model again, with feedback.

    Args:
        registry: Tools to validate against when :meth:`process` is given none.
        config: Settings of the default preprocessor: a :class:`~toolfix.FixConfig`,
            or a :class:`~toolfix.ToolCallJsonConfig` for custom keys only (Koog's
            ``LLMBasedToolCallFixProcessor(registry, ToolCallJsonConfig(...))``).
        preprocessor: Runs first and on every fix reply (default
            ``ManualToolCallFixProcessor(registry=registry, config=config)``).
        fallback: Processor that gets the original prompt and response when the
            retries run out; ``None`` returns the calls marked invalid.
        max_retries: Fix calls per response (the intent question is not counted).
            ``0`` spends no LLM call at all: no fix call and no intent question;
            broken calls go straight to ``fallback`` (or come back invalid).
        prompts: The texts sent to the model (templates or functions of the failure).
        precheck: The cheap intent pre-check (default ``IntentPrecheck()``).
        model: Model for the fixer's own calls (default: the one given to process).
        executor: Executor for the fixer's own calls (default: the one given to process).
    """

    def __init__(
        self,
        registry: ToolsLike = None,
        config: FixConfig | ToolCallJsonConfig | None = None,
        *,
        preprocessor: ResponseProcessor | None = None,
        fallback: ResponseProcessor | None = None,
        max_retries: int = 3,
        prompts: FixerPrompts | None = None,
        precheck: IntentPrecheck | None = None,
        model: str | None = None,
        executor: PromptExecutor | None = None,
    ):
        check_registry_first(registry, type(self).__name__)
        if max_retries < 0:
            raise ConfigurationError("max_retries must be >= 0")
        self.registry = ToolRegistry.of(registry)
        self.preprocessor = preprocessor or ManualToolCallFixProcessor(
            registry=self.registry, config=as_fix_config(config, type(self).__name__)
        )
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

    @overload
    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Response,
    ) -> Response: ...
    @overload
    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]: ...
    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: ResponsesLike,
    ) -> ProcessResult:
        batch = as_responses(responses)
        registry = tools_or(tools, self.registry)
        pre = await self.preprocessor.process(executor, prompt, model, registry, batch)
        originals = batch if len(batch) == len(pre) else pre
        request = _Request(executor, prompt, model, registry)
        out: list[Response] = []
        for original, resp in zip(originals, pre, strict=True):
            out.extend(await self._fix(request, original, resp))
        return out

    async def _fix(self, request: _Request, original: Response, resp: Response) -> list[Response]:
        """One response: find what to fix (spending nothing when nothing is), then fix it."""
        ledger = Ledger(self.executor or request.executor, self.model or request.model)
        feedback = Feedback(self.prompts)
        broken = await self._to_fix(request, ledger, feedback, resp)
        if not broken:
            return [ledger.stamp(resp)] if ledger.calls else [resp]
        session = FixSession(
            ledger=ledger,
            feedback=feedback,
            preprocessor=self.preprocessor,
            max_retries=self.max_retries,
            prompt=request.prompt,
            registry=request.registry,
        )
        outcome = await session.run(resp, broken)
        if outcome.remaining and self.fallback is not None:
            ledger.note("retries exhausted; handed to the fallback processor")
            results = await self.fallback.process(
                request.executor, request.prompt, request.model, request.registry, [original]
            )
            return [ledger.stamp(r) for r in results]
        if outcome.remaining:
            ledger.note("retries exhausted; calls left invalid")
        return [ledger.stamp(outcome.apply(resp))]

    async def _to_fix(
        self, request: _Request, ledger: Ledger, feedback: Feedback, resp: Response
    ) -> list[Broken]:
        """The broken calls of ``resp``, or its missing call when one was intended."""
        prompt, registry = request.prompt, request.registry
        if not len(registry) or prompt.tool_choice.mode == "none":
            return []
        if any(r.kind == FailureKind.LLM_FIX for r in resp.repairs):
            return []  # already handled: repairing a repaired response changes nothing
        if any(isinstance(p, ToolCallPart | InvalidToolCallPart) for p in resp.parts):
            return self._broken_calls(feedback, resp, registry)  # none: no LLM call (promise 8)
        missing = feedback.missing(registry, resp.text or resp.reasoning or "")
        if prompt.tool_choice.forces_call:
            ledger.note(f"tool choice {prompt.tool_choice.mode} forces a call")
            return [missing]
        if self.max_retries == 0:
            return []  # no fix call could follow a yes: the question is not asked
        check = self.precheck.check(missing.failure.text, registry.names)
        if not check:
            return []
        answer = await ask_intent(ledger, feedback, prompt, resp, missing.failure)
        ledger.note(f"pre-check: {check.reason}; {answer.note()}")
        return [missing] if answer.intended else []

    @staticmethod
    def _broken_calls(feedback: Feedback, resp: Response, registry: ToolRegistry) -> list[Broken]:
        out: list[Broken] = []
        for i, p in enumerate(resp.parts):
            if isinstance(p, ToolCallPart) and is_valid(p, registry):
                continue
            if isinstance(p, ToolCallPart | InvalidToolCallPart):
                out.append(feedback.broken(p, len(out) + 1, i, registry))
        return out


def build_llm_processor(
    model: str,
    api_base: str | None = None,
    max_retries: int = 3,
    *,
    api_key: str | None = None,
    config: FixConfig | None = None,
) -> LLMBasedToolCallFixProcessor:
    """The manual + LLM fixer for ``toolfix repair --llm MODEL``: its own litellm executor.

    Call ``await processor.process(None, prompt, model, tools, response)``; the
    executor and model given here are used for the fixer's calls.
    """
    from .._pipeline.litellm import LiteLLMExecutor

    return LLMBasedToolCallFixProcessor(
        config=config,
        max_retries=max_retries,
        model=model,
        executor=LiteLLMExecutor(api_base=api_base, api_key=api_key),
    )
