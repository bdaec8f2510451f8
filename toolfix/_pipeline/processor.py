"""Response processors: the pipeline between an executor and the agent loop.

A processor takes ``(executor, prompt, model, tools, responses)`` and returns
what it was given: one :class:`~toolfix.Response` for one, a list for a sequence
(every processor accepts both: the base class turns one response into a one-item
list before a subclass's ``process`` runs, and the one result back into a response).
Processors chain with ``a + b`` or ``a.chain(b, c)``: each one sees what the
previous one returned. A processor may call the executor (the
LLM-based fixer does); the manual fixer never does.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import (
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any, overload

from .._errors import UnsupportedInputError
from .._messages import Prompt, ReasoningPart, Response, TextPart, ToolCallPart
from .._sync import run_sync
from .._tools import ToolDescriptor, ToolRegistry

if TYPE_CHECKING:
    from .executor import PromptExecutor

__all__ = [
    "ChainProcessor",
    "IdentityProcessor",
    "ResponseProcessor",
    "ResponsesLike",
    "ToolsLike",
    "as_responses",
    "tools_or",
]

ToolsLike = ToolRegistry | Sequence[ToolDescriptor | Mapping[str, Any] | Callable[..., Any]] | None
ResponsesLike = Response | Sequence[Response]
"""What ``process`` accepts: one response or a sequence of them."""


def as_responses(responses: ResponsesLike) -> list[Response]:
    """``responses`` as a list (one response becomes a one-item list)."""
    return [responses] if isinstance(responses, Response) else list(responses)


OFFLOAD_CHARS = 64_000
"""Inputs at least this long (text, reasoning and arguments of a batch, in characters)
are repaired in a worker thread by the async entry points, so the event loop keeps
serving (about 4 ms of repair below it; the hand-off costs about 0.1 ms above it)."""


def text_size(responses: Sequence[Response]) -> int:
    """Characters a repair reads in ``responses``: text, reasoning and raw arguments."""
    n = 0
    for r in responses:
        for p in r.parts:
            if isinstance(p, TextPart | ReasoningPart):
                n += len(p.text)
            elif isinstance(p, ToolCallPart):
                n += len(p.arguments_raw)
    return n


_Process = Callable[..., Awaitable[list[Response]]]
ProcessResult = Response | list[Response]
"""What ``process`` returns: one response for one, a list for a sequence."""


def tools_or(tools: ToolsLike, default: ToolRegistry) -> ToolRegistry:
    """The registry of ``tools`` when it holds any tool, else ``default``: the tools given
    to ``process`` win over a processor's own, since they are what the model was offered."""
    registry = ToolRegistry.of(tools)
    return registry if len(registry) else default


def _accept_one_or_many(process: _Process) -> Callable[..., Awaitable[ProcessResult]]:
    @functools.wraps(process)
    async def wrapper(
        self: ResponseProcessor,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: ResponsesLike,
        *args: Any,
        **kwargs: Any,
    ) -> ProcessResult:
        batch = as_responses(responses)
        out = await process(self, executor, prompt, model, tools, batch, *args, **kwargs)
        return one_or_many(responses, out, self)

    wrapper.__toolfix_one_or_many__ = True  # type: ignore[attr-defined]
    return wrapper


def one_or_many(given: ResponsesLike, out: list[Response], processor: object) -> ProcessResult:
    """``out`` in the shape ``given`` had: its one response when ``given`` was one."""
    if not isinstance(given, Response):
        return out
    if len(out) != 1:
        raise UnsupportedInputError(
            f"{type(processor).__name__} turned one response into {len(out)}; "
            "pass a list (process(..., [response])) to receive them all",
            shape=f"{len(out)} responses for one",
        )
    return out[0]


class ResponseProcessor(ABC):
    """Base class of every processor. Subclasses implement :meth:`process`.

    A subclass's ``process`` always receives a list and returns a list: when a
    caller passes one :class:`~toolfix.Response`, the base class wraps it first and
    hands the one result back, so ``processor.process(executor, prompt, model,
    tools, response)`` returns a :class:`~toolfix.Response` and the sequence form a
    list. A processor that turns one response into several (a fallback may) raises
    :class:`~toolfix.UnsupportedInputError` when called with one: call it with a list.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("process")
        if callable(own) and not getattr(own, "__toolfix_one_or_many__", False):
            cls.process = _accept_one_or_many(own)  # type: ignore[method-assign,assignment]

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
    @abstractmethod
    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: ResponsesLike,
    ) -> ProcessResult:
        """Return the processed responses (new objects; inputs are never mutated).

        ``responses`` is one response or a sequence of them; an implementation
        receives a list either way and returns a list; the caller gets one
        response back for one.
        """

    @overload
    def process_sync(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Response,
    ) -> Response: ...
    @overload
    def process_sync(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]: ...
    def process_sync(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: ResponsesLike,
    ) -> ProcessResult:
        """Blocking counterpart of :meth:`process`."""
        if isinstance(responses, Response):  # two calls: one per overload, for the types
            return run_sync(self.process(executor, prompt, model, tools, responses))
        return run_sync(self.process(executor, prompt, model, tools, responses))

    def chain(self, *others: ResponseProcessor) -> ResponseProcessor:
        """This processor followed by ``others``, in order."""
        return ChainProcessor([self, *others])

    def __add__(self, other: ResponseProcessor) -> ResponseProcessor:
        if not isinstance(other, ResponseProcessor):
            return NotImplemented
        return self.chain(other)


class IdentityProcessor(ResponseProcessor):
    """Returns the responses unchanged. The neutral element of ``+``."""

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
        return as_responses(responses)

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
        out = as_responses(responses)
        for p in self.processors:
            out = await p.process(executor, prompt, model, tools, out)
        return out

    def __repr__(self) -> str:
        return " + ".join(repr(p) for p in self.processors) or "IdentityProcessor()"
