"""The manual (no-LLM) tool-call fixer as a processor.

The repair itself is the engine's (:mod:`toolfix._repair.engine`: valid native calls
pass through untouched, broken ones are repaired, calls written into the text are
found and taken out of it); this module puts it in the pipeline: ``process`` on a
batch (a large one in a worker thread), ``process_stream`` on a stream, and the tools
given to a call winning over the processor's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Sequence
from typing import TYPE_CHECKING, Any, overload

from .._config import FixConfig, ToolCallJsonConfig, as_fix_config, check_registry_first
from .._messages import Prompt, Response
from .._pipeline.processor import (
    OFFLOAD_CHARS,
    ProcessResult,
    ResponseProcessor,
    ResponsesLike,
    ToolsLike,
    as_responses,
    text_size,
    tools_or,
)
from .._stream.api import repair_stream_async
from .._tools import ToolRegistry
from .engine import Fixer

if TYPE_CHECKING:
    from .._pipeline.executor import PromptExecutor

__all__ = ["ManualToolCallFixProcessor"]


class ManualToolCallFixProcessor(ResponseProcessor):
    """Finds and repairs tool calls without calling an LLM.

    Args:
        registry: Tools to validate against when :meth:`process` is given none.
            The tools passed to :meth:`process` / :meth:`fix` win: they are what
            the model was offered.
        config: Key aliases, limits, pinned formats and repair policy: a
            :class:`~toolfix.FixConfig`, or a :class:`~toolfix.ToolCallJsonConfig`
            for custom keys only (Koog's ``ManualToolCallFixProcessor(registry,
            ToolCallJsonConfig(...))``).

    The registry comes first and the configuration second, as in Koog and in
    :class:`~toolfix.LLMBasedToolCallFixProcessor`; a configuration passed first
    raises :class:`~toolfix.ConfigurationError` saying so.
    """

    def __init__(
        self,
        registry: ToolsLike = None,
        config: FixConfig | ToolCallJsonConfig | None = None,
    ):
        check_registry_first(registry, type(self).__name__)
        self.config = as_fix_config(config, type(self).__name__)
        self.registry = ToolRegistry.of(registry)
        self._fixer = Fixer(self.config)
        self._prefilled: dict[bool, ManualToolCallFixProcessor] = {}  # twins, per value

    def __repr__(self) -> str:
        return f"ManualToolCallFixProcessor(tools={self.registry.names!r})"

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
        registry = self._registry_for(tools)
        fix = self._for(executor, prompt, model).fix
        if text_size(batch) < OFFLOAD_CHARS:
            return [fix(r, registry) for r in batch]
        # A large input repairs in a worker thread, so the event loop keeps serving.
        return await asyncio.to_thread(lambda: [fix(r, registry) for r in batch])

    def process_stream(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        chunks: AsyncIterable[Any] | Iterable[Any],
    ) -> AsyncIterator[dict[str, Any]]:
        """Repair a streamed response, letting prose through as it arrives
        (docs/guides/streaming.md)."""
        registry = self._registry_for(tools)
        config = self._for(executor, prompt, model).config
        return repair_stream_async(chunks, registry, config=config)

    def with_reasoning_prefilled(self, value: bool) -> ManualToolCallFixProcessor:
        """This processor with ``FixConfig.reasoning_prefilled=value``, when its own config
        leaves the question open (``None``); itself when the config says ``True`` or
        ``False`` (the config wins). One twin per value, kept."""
        if self.config.reasoning_prefilled is not None:
            return self
        twin = self._prefilled.get(value)
        if twin is None:
            config = self.config.model_copy(update={"reasoning_prefilled": value})
            twin = self._prefilled[value] = ManualToolCallFixProcessor(self.registry, config)
        return twin

    def _for(
        self, executor: PromptExecutor | None, prompt: Prompt, model: str
    ) -> ManualToolCallFixProcessor:
        """The processor for one request: :meth:`with_reasoning_prefilled` given what the
        executor knows of the request's template (:meth:`PromptExecutor.reasoning_prefilled`:
        ``LiteLLMExecutor`` reads the model name and ``chat_template_kwargs``)."""
        if executor is None or self.config.reasoning_prefilled is not None:
            return self
        value = executor.reasoning_prefilled(prompt, model)
        return self if value is None else self.with_reasoning_prefilled(value)

    def fix(self, response: Response, tools: ToolsLike = None) -> Response:
        """Repair one response (sync, no I/O). Returns ``response`` itself when nothing changed."""
        return self._fixer.fix(response, self._registry_for(tools))

    def _registry_for(self, tools: ToolsLike) -> ToolRegistry:
        if type(tools) is ToolRegistry and len(tools):
            return tools  # (what tools_or gives a registry that holds tools, in one test)
        return tools_or(tools, self.registry)
