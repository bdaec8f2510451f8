"""The sync and async surfaces agree: repair, process_sync/process, chains,
executors wrapped with processors, and the sync API called inside a running loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from conftest import BASIC_TOOLS

from toolfix import (
    ManualToolCallFixProcessor,
    Prompt,
    PromptExecutor,
    Response,
    ResponseProcessor,
    ToolRegistry,
    repair,
)
from toolfix._pipeline.processor import OFFLOAD_CHARS, ToolsLike, text_size
from toolfix.processors import ChainProcessor, IdentityProcessor, ProcessingExecutor

BIG_QUERY = "q" * OFFLOAD_CHARS
BIG_CALL_TEXT = '{"name": "search_web", "arguments": {"query": "' + BIG_QUERY + '"}}'
CALL_TEXT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
BROKEN = {
    "role": "assistant",
    "content": "Checking",
    "tool_calls": [
        {
            "id": "n1",
            "type": "function",
            "function": {"name": "search_web", "arguments": "{'query': 'x',}"},
        }
    ],
}


def _calls(r: Response) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in r.tool_calls]


class FakeExecutor(PromptExecutor):
    """Returns the scripted texts, one response per call; records what it was asked."""

    def __init__(self, replies: Sequence[str]):
        self.replies = list(replies)
        self.seen: list[tuple[Prompt, str, ToolsLike]] = []

    async def execute(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        self.seen.append((prompt, model, tools))
        return [Response.text_only(self.replies.pop(0))]


class TagProcessor(ResponseProcessor):
    """Appends its tag to every text part (to observe chain order)."""

    def __init__(self, tag: str):
        self.tag = tag

    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]:
        return [Response.text_only(r.text + self.tag) for r in responses]


def test_repair_reads_every_input() -> None:
    assert _calls(repair(BIG_CALL_TEXT, BASIC_TOOLS)) == [("search_web", {"query": BIG_QUERY})]
    assert _calls(repair(CALL_TEXT, BASIC_TOOLS)) == [("get_weather", {"city": "Paris"})]
    assert _calls(repair(BROKEN, BASIC_TOOLS)) == [("search_web", {"query": "x"})]


def _fix_threads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the thread of every ``fix`` the manual fixer makes."""
    threads: list[int] = []
    real = ManualToolCallFixProcessor.fix

    def recording(self: ManualToolCallFixProcessor, *args: Any, **kwargs: Any) -> Response:
        threads.append(threading.get_ident())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ManualToolCallFixProcessor, "fix", recording)
    return threads


async def test_a_large_input_is_repaired_off_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At OFFLOAD_CHARS and above, process() repairs in a worker thread and the loop keeps
    running other tasks meanwhile; below, it repairs inline (no hand-off cost)."""
    threads = _fix_threads(monkeypatch)
    proc = ManualToolCallFixProcessor()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    small = Response.text_only(CALL_TEXT)
    out = await proc.process(None, Prompt(), "m", BASIC_TOOLS, small)
    assert (ticks, threads) == (0, [threading.get_ident()])  # inline: the loop never ran
    assert _calls(out) == [("get_weather", {"city": "Paris"})]
    big = Response.text_only(BIG_CALL_TEXT)
    assert text_size([big]) >= OFFLOAD_CHARS > text_size([small])
    out = await proc.process(None, Prompt(), "m", BASIC_TOOLS, big)
    task.cancel()
    assert ticks > 0  # the ticker ran while the repair was in its thread
    assert threads[1] != threading.get_ident()
    assert _calls(out) == [("search_web", {"query": BIG_QUERY})]


async def test_process_and_process_sync_agree() -> None:
    proc = ManualToolCallFixProcessor()
    responses = [Response.text_only(CALL_TEXT), Response.text_only("no call")]
    got_async = await proc.process(None, Prompt(), "m", BASIC_TOOLS, responses)
    got_sync = proc.process_sync(None, Prompt(), "m", BASIC_TOOLS, responses)
    assert got_async == got_sync
    assert _calls(got_async[0]) == [("get_weather", {"city": "Paris"})]
    assert got_async[1] is responses[1]


def test_process_sync_outside_a_loop() -> None:
    proc = ManualToolCallFixProcessor()
    [out] = proc.process_sync(None, Prompt(), "m", BASIC_TOOLS, [Response.text_only(CALL_TEXT)])
    assert _calls(out) == [("get_weather", {"city": "Paris"})]


async def test_process_sync_inside_running_loop() -> None:
    asyncio.get_running_loop()  # we are inside a loop
    proc = ManualToolCallFixProcessor() + IdentityProcessor()
    [out] = proc.process_sync(None, Prompt(), "m", BASIC_TOOLS, [Response.text_only(CALL_TEXT)])
    assert _calls(out) == [("get_weather", {"city": "Paris"})]


async def test_chaining_with_plus_and_chain() -> None:
    a, b = TagProcessor("a"), TagProcessor("b")
    ident = IdentityProcessor()
    for chained in (a + b, a.chain(b), ident + a + ident + b, a.chain(ident, b)):
        [out] = await chained.process(None, Prompt(), "m", None, [Response.text_only("x")])
        assert out.text == "xab"
    chain = a + b + a
    assert isinstance(chain, ChainProcessor)
    assert chain.processors == (a, b, a)  # nested chains are flattened
    [same] = await (ident + ident).process(None, Prompt(), "m", None, [Response.text_only("y")])
    assert same.text == "y"


async def test_identity_returns_same_objects() -> None:
    r = Response.text_only(CALL_TEXT)
    assert (await IdentityProcessor().process(None, Prompt(), "m", None, [r]))[0] is r


async def test_processing_executor_with_processor() -> None:
    fixer = ManualToolCallFixProcessor()
    inner = FakeExecutor([CALL_TEXT, CALL_TEXT])
    for executor in (inner.with_processor(fixer), inner.with_processor(fixer)):
        assert isinstance(executor, ProcessingExecutor)
        [out] = await executor.execute(Prompt.of("weather?"), "test-model", BASIC_TOOLS)
        assert _calls(out) == [("get_weather", {"city": "Paris"})]
        assert out.text == ""
    assert len(inner.seen) == 2
    _prompt, model, tools = inner.seen[0]
    assert model == "test-model"
    assert isinstance(tools, ToolRegistry)
    assert tools.names == ["get_weather", "search_web"]


def test_processing_executor_execute_sync_and_stacking() -> None:
    inner = FakeExecutor([CALL_TEXT])
    executor = inner.with_processor(ManualToolCallFixProcessor()).with_processor(TagProcessor("!"))
    assert isinstance(executor, ProcessingExecutor)
    assert executor.inner is inner  # stacking keeps one inner executor
    [out] = executor.execute_sync(Prompt.of("hi"), "m", BASIC_TOOLS)
    # the manual fixer ran first (call removed from the text), then the tagger
    assert out.text == "!"


async def test_execute_sync_inside_running_loop() -> None:
    executor = FakeExecutor([CALL_TEXT]).with_processor(ManualToolCallFixProcessor())
    [out] = executor.execute_sync(Prompt.of("hi"), "m", BASIC_TOOLS)
    assert _calls(out) == [("get_weather", {"city": "Paris"})]
