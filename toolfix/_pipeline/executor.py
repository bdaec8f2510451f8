"""Executors: one LLM call per invocation.

An executor is a thin, single-turn adapter: ``(prompt, model, tools)`` in,
responses out. Orchestration belongs to the loop (:class:`~toolfix.StepLoop`),
repair to processors. Any executor can be wrapped so that every response it
returns goes through a processor chain.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from .._messages import Prompt, Response
from .._sync import run_sync
from .._tools import ToolRegistry

if TYPE_CHECKING:
    from .processor import ResponseProcessor, ToolsLike

__all__ = ["ProcessingExecutor", "PromptExecutor"]


class PromptExecutor(ABC):
    """Base class of executors. Implement :meth:`execute`; the sync surface comes free."""

    @abstractmethod
    async def execute(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        """Make one LLM call and return its response(s) (one per choice)."""

    def execute_sync(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        """Blocking counterpart of :meth:`execute`."""
        return run_sync(self.execute(prompt, model, tools))

    def reasoning_prefilled(self, prompt: Prompt, model: str) -> bool | None:
        """Whether this request's output starts inside a reasoning block the chat
        template opened in the prompt (``FixConfig.reasoning_prefilled``): ``None`` (not
        known) unless the executor can tell. The manual fixer asks it when its own
        config leaves the question open."""
        return None

    def with_processor(self, processor: ResponseProcessor) -> ProcessingExecutor:
        """An executor whose every response goes through ``processor``."""
        return ProcessingExecutor(self, processor)


class ProcessingExecutor(PromptExecutor):
    """Wraps an executor; every response goes through the processor before it is returned.

    The processor is given the *inner* executor, so an LLM-based processor's own
    calls are not processed twice.
    """

    def __init__(self, inner: PromptExecutor, processor: ResponseProcessor):
        self.inner = inner
        self.processor = processor

    async def execute(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        registry = ToolRegistry.of(tools)
        responses = await self.inner.execute(prompt, model, registry)
        return await self.processor.process(self.inner, prompt, model, registry, responses)

    def with_processor(self, processor: ResponseProcessor) -> ProcessingExecutor:
        return ProcessingExecutor(self.inner, self.processor + processor)

    def reasoning_prefilled(self, prompt: Prompt, model: str) -> bool | None:
        return self.inner.reasoning_prefilled(prompt, model)

    def __repr__(self) -> str:
        return f"ProcessingExecutor({self.inner!r}, {self.processor!r})"
