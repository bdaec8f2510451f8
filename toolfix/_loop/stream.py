"""``StepLoop.run_stream``: the agent loop as a stream of events for a UI.

The same loop as :meth:`StepLoop.run` (the same driver, the same repair and tool
runs), with each model call streamed when the executor can stream
(``execute_stream``, as :class:`~toolfix.LiteLLMExecutor` does) and repaired on the
way through the processor's ``process_stream``. Events, in order, per step:

* ``text`` / ``reasoning``: deltas of the answer and of the reasoning, as repaired
  (markup the fixer removes never reaches the UI);
* ``call``: a repaired call about to run, ``tool_result``: its result;
* and once at the end ``done``, carrying the :class:`~toolfix.LoopResult`.

An executor that cannot stream gives one ``text`` event per step. An error ends
the stream by raising it (with ``partial_result``, as ``run`` does).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .._messages import Prompt, Response, ToolCallPart
from .._pipeline.processor import IdentityProcessor
from .._stream.core import accumulate
from .tools import ToolRun, run_call

if TYPE_CHECKING:
    from .steploop import LoopResult, StepLoop

__all__ = ["LoopEvent", "run_stream"]

EventKind = Literal["text", "reasoning", "call", "tool_result", "done"]


@dataclass(frozen=True, slots=True)
class LoopEvent:
    """One thing that happened in a streamed run (see :meth:`StepLoop.run_stream`)."""

    kind: EventKind
    step: int
    text: str = ""
    call: ToolCallPart | None = None
    run: ToolRun | None = None
    result: LoopResult | None = None


async def run_stream(loop: StepLoop, prompt: Prompt | str) -> AsyncIterator[LoopEvent]:
    """Run ``loop`` from ``prompt``, yielding :class:`LoopEvent`\\ s as they happen."""
    from .steploop import call_model, drive_with

    start = Prompt.of(prompt) if isinstance(prompt, str) else prompt
    queue: asyncio.Queue[LoopEvent | BaseException] = asyncio.Queue()
    step = 0

    async def call_llm(request: Prompt) -> Response:
        nonlocal step
        index = step
        step += 1
        stream = getattr(loop.executor, "execute_stream", None)
        if stream is None:
            response = await call_model(
                loop.executor, loop.processor, request, loop.model, loop.registry
            )
            if response.reasoning:
                queue.put_nowait(LoopEvent("reasoning", index, text=response.reasoning))
            if response.text:
                queue.put_nowait(LoopEvent("text", index, text=response.text))
        else:
            processor = loop.processor or IdentityProcessor()
            chunks = stream(request, loop.model, loop.registry)
            out = []
            async for chunk in processor.process_stream(
                loop.executor, request, loop.model, loop.registry, chunks
            ):
                out.append(chunk)
                delta = chunk["choices"][0].get("delta") or {}
                if delta.get("reasoning_content"):
                    queue.put_nowait(LoopEvent("reasoning", index, text=delta["reasoning_content"]))
                if delta.get("content"):
                    queue.put_nowait(LoopEvent("text", index, text=delta["content"]))
            response = accumulate(out)
        return response

    async def run_tool(call: ToolCallPart) -> ToolRun:
        queue.put_nowait(LoopEvent("call", step - 1, call=call))
        run = await run_call(loop.registry, call, timeout=loop.tool_timeout)
        queue.put_nowait(LoopEvent("tool_result", step - 1, call=call, run=run))
        return run

    async def drive_to_queue() -> None:
        try:
            result = await drive_with(
                loop, start, call_llm, run_tool, stop_when=loop.stop_when, hooks=loop.hooks
            )
        except BaseException as exc:
            queue.put_nowait(exc)
            return
        queue.put_nowait(LoopEvent("done", max(step - 1, 0), result=result))

    task = asyncio.create_task(drive_to_queue())
    try:
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
            if item.kind == "done":
                return
    finally:
        if not task.done():
            task.cancel()
