"""Response processors: the pipeline between an executor and the agent loop.

A processor takes ``(executor, prompt, model, tools, responses)`` and returns
responses. Processors chain with ``a + b`` or ``a.chain(b, c)``: each one sees
what the previous one returned. A processor may call the executor (the
LLM-based fixer does); the manual fixer never does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._messages import Prompt, Response
from ._sync import run_sync
from ._tools import ToolDescriptor, ToolRegistry

if TYPE_CHECKING:
    from ._executor import ProcessingExecutor, PromptExecutor

__all__ = ["ChainProcessor", "IdentityProcessor", "ResponseProcessor", "ToolsLike"]

ToolsLike = ToolRegistry | Sequence[ToolDescriptor | Mapping[str, Any] | Callable[..., Any]] | None


class ResponseProcessor(ABC):
    """Base class of every processor. Subclasses implement :meth:`process`."""

    @abstractmethod
    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]:
        """Return the processed responses (new objects; inputs are never mutated)."""

    def process_sync(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]:
        """Blocking counterpart of :meth:`process`."""
        return run_sync(self.process(executor, prompt, model, tools, responses))

    def chain(self, *others: ResponseProcessor) -> ResponseProcessor:
        """This processor followed by ``others``, in order."""
        return ChainProcessor([self, *others])

    def __add__(self, other: ResponseProcessor) -> ResponseProcessor:
        if not isinstance(other, ResponseProcessor):
            return NotImplemented
        return self.chain(other)

    def wrap(self, executor: PromptExecutor) -> ProcessingExecutor:
        """An executor whose every response goes through this processor."""
        return executor.with_processor(self)


class IdentityProcessor(ResponseProcessor):
    """Returns the responses unchanged. The neutral element of ``+``."""

    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]:
        return list(responses)

    def __repr__(self) -> str:
        return "IdentityProcessor()"


class ChainProcessor(ResponseProcessor):
    """Runs processors one after another. Nested chains are flattened."""

    def __init__(self, processors: Iterable[ResponseProcessor]):
        flat: list[ResponseProcessor] = []
        for p in processors:
            if isinstance(p, ChainProcessor):
                flat.extend(p.processors)
            elif not isinstance(p, IdentityProcessor):
                flat.append(p)
        self.processors: tuple[ResponseProcessor, ...] = tuple(flat)

    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]:
        out = list(responses)
        for p in self.processors:
            out = await p.process(executor, prompt, model, tools, out)
        return out

    def __repr__(self) -> str:
        return " + ".join(repr(p) for p in self.processors) or "IdentityProcessor()"
