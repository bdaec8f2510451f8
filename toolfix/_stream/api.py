"""The stream's entry points: OpenAI chunks or Anthropic events in, repaired ones out.

:func:`repair_stream` / :func:`repair_stream_async` pick the repairer by the first chunk
(:mod:`.core` for OpenAI chunks, :mod:`.anthropic` for Anthropic events, which builds on
the core); :func:`accumulate` adds a repaired stream up again; :func:`stream_through`
streams any processor (its own ``process_stream`` when it has one, else the whole
message is gathered, processed and emitted).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from .._config import FixConfig
from .._convert import ModelDumpable
from .._messages import Response
from .._pipeline.processor import ToolsLike
from .anthropic import AnthropicStreamRepairer, accumulate_anthropic
from .core import StreamRepairer, accumulate_openai

if TYPE_CHECKING:
    from .._messages import Prompt
    from .._pipeline.executor import PromptExecutor
    from .._pipeline.processor import ResponseProcessor

__all__ = [
    "StreamChunk",
    "accumulate",
    "process_stream_whole",
    "repair_stream",
    "repair_stream_async",
    "stream_through",
]

StreamChunk: TypeAlias = Mapping[str, Any] | ModelDumpable
"""One chunk of a stream: an OpenAI chat completion chunk or an Anthropic stream event,
as a dict or an SDK object (litellm's ``ModelResponseStream`` too)."""


def _is_anthropic(chunk: Any) -> bool:
    kind = chunk.get("type") if isinstance(chunk, Mapping) else getattr(chunk, "type", None)
    return isinstance(kind, str) and (
        kind.startswith(("message_", "content_block")) or kind in ("ping", "error")
    )


def _repairer(
    first: Any,
    tools: ToolsLike,
    config: FixConfig | None,
    hold: bool = False,
    release_calls: bool = True,
) -> Any:
    if _is_anthropic(first):
        return AnthropicStreamRepairer(tools, config=config, hold=hold, release_calls=release_calls)
    return StreamRepairer(tools, config=config, hold=hold, release_calls=release_calls)


def repair_stream(
    chunks: Iterable[StreamChunk],
    tools: ToolsLike,
    *,
    config: FixConfig | None = None,
    release_calls: bool = True,
) -> Iterator[dict[str, Any]]:
    """Repair a streamed response chunk by chunk (sync).

    OpenAI chunks in give OpenAI chunk dicts out; Anthropic stream events in give
    Anthropic event dicts out. ``release_calls=False``: calls wait for the end of the
    stream (no repair of prefixes: the cheapest stream)."""
    state: Any = None
    for chunk in chunks:
        if state is None:
            state = _repairer(chunk, tools, config, release_calls=release_calls)
        yield from state.feed(chunk)
    if state is None:
        state = StreamRepairer(tools, config=config)
    yield from state.finish()


async def repair_stream_async(
    chunks: AsyncIterable[StreamChunk] | Iterable[StreamChunk],
    tools: ToolsLike,
    *,
    config: FixConfig | None = None,
    release_calls: bool = True,
) -> AsyncIterator[dict[str, Any]]:
    """Repair a streamed response (async); accepts an async or a sync iterable."""
    state: Any = None
    async for chunk in _aiter(chunks):
        if state is None:
            state = _repairer(chunk, tools, config, release_calls=release_calls)
        for out in state.feed(chunk):
            yield out
    if state is None:
        state = StreamRepairer(tools, config=config)
    for out in state.finish():
        yield out


async def _aiter(chunks: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[Any]:
    if isinstance(chunks, AsyncIterable):
        async for chunk in chunks:
            yield chunk
    else:
        for chunk in chunks:
            yield chunk


async def process_stream_whole(
    processor: ResponseProcessor,
    executor: PromptExecutor | None,
    prompt: Prompt,
    model: str,
    tools: ToolsLike,
    chunks: AsyncIterable[Any] | Iterable[Any],
) -> AsyncIterator[dict[str, Any]]:
    """Any processor on a stream: gather the whole message, process it, emit the result.

    What a processor that may ask an LLM again (the LLM-based fixer) does: nothing goes
    out until it has answered, and the final chunk's ``toolfix.llm_calls`` says what
    the fix spent."""
    state: Any = None
    async for chunk in _aiter(chunks):
        if state is None:
            state = _repairer(chunk, tools, None, hold=True)
        state.feed(chunk)
    if state is None:
        state = StreamRepairer(tools, hold=True)
    [fixed] = await processor.process(executor, prompt, model, tools, [state.whole_response()])
    for out in state.finish(fixed):
        yield out


def accumulate(chunks: Iterable[Mapping[str, Any]]) -> Response:
    """Add up a repaired stream (what :func:`repair_stream` yields) into a ``Response``.

    Gives the same calls, invalid calls, content and reasoning that ``repair()`` gives
    for the whole message, with the response id, model, usage and finish reason.
    Anthropic events (a repaired Anthropic stream) are read as well."""
    chunks = iter(chunks)
    first = next(chunks, None)
    if first is None:
        return Response()
    if _is_anthropic(first):
        return accumulate_anthropic([first, *chunks])
    return accumulate_openai([first, *chunks])


def stream_through(
    processor: ResponseProcessor,
    executor: PromptExecutor | None,
    prompt: Prompt,
    model: str,
    tools: ToolsLike,
    chunks: AsyncIterable[Any] | Iterable[Any],
) -> AsyncIterator[dict[str, Any]]:
    """``processor`` on a streamed response: OpenAI chunks in, repaired chunks out.

    A processor with its own ``process_stream`` (the manual fixer: prose goes out as it
    arrives) streams through it; any other gathers the whole message, processes it, then
    emits the result (:func:`process_stream_whole`, see docs/guides/streaming.md)."""
    own = getattr(processor, "process_stream", None)
    if callable(own):
        stream: AsyncIterator[dict[str, Any]] = own(executor, prompt, model, tools, chunks)
        return stream
    return process_stream_whole(processor, executor, prompt, model, tools, chunks)
