"""StepLoop.run_stream: events for a UI, over real HTTP (SSE) and with a non-streaming executor."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from openai_stub import StubServer, openai_sse, run_stub_server

from toolfix import LiteLLMExecutor, ManualToolCallFixProcessor, StepLoop, ToolRegistry
from toolfix.testing import ScriptedExecutor


def weather(city: str) -> str:
    """Weather for a city."""
    return f"{city}: 21C"


CALL_TEXT = (
    'Let me look.\n<tool_call>{"name": "weather", "arguments": {"city": "Lima",}}</tool_call>'
)


@pytest.fixture
def stub() -> Iterator[StubServer]:
    yield from run_stub_server()


def _summary(events: list[Any]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for e in events:
        if not out or out[-1] != (e.kind, e.step):
            out.append((e.kind, e.step))
    return out


@pytest.mark.integration
async def test_streamed_run_over_sse_repairs_and_runs_the_call(stub: StubServer) -> None:
    pieces = [CALL_TEXT[i : i + 5] for i in range(0, len(CALL_TEXT), 5)]
    stub.reply(openai_sse(pieces))
    stub.reply(openai_sse(["It is ", "21C in ", "Lima."]))
    loop = StepLoop(
        LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test"),
        ToolRegistry.from_functions(weather),
        model="openai/stub-model",
        processor=ManualToolCallFixProcessor(),
    )
    events = [e async for e in loop.run_stream("weather in Lima?")]
    assert _summary(events) == [
        ("text", 0),
        ("call", 0),
        ("tool_result", 0),
        ("text", 1),
        ("done", 1),
    ]
    text0 = "".join(e.text for e in events if e.kind == "text" and e.step == 0)
    assert text0 == "Let me look."  # the markup never reached the UI
    [call] = [e.call for e in events if e.kind == "call"]
    assert call is not None
    assert (call.name, call.arguments) == ("weather", {"city": "Lima"})
    [result_event] = [e for e in events if e.kind == "tool_result"]
    assert result_event.run is not None
    assert result_event.run.content == "Lima: 21C"
    done = events[-1].result
    assert done is not None
    assert done.stopped_reason == "answer"
    assert done.final_text == "It is 21C in Lima."
    assert all(r.body["stream"] is True for r in stub.requests)


async def test_a_non_streaming_executor_gives_one_text_event_per_step() -> None:
    executor = ScriptedExecutor([CALL_TEXT, "Sunny in Lima."])
    loop = StepLoop(
        executor,
        ToolRegistry.from_functions(weather),
        model="m",
        processor=ManualToolCallFixProcessor(),
    )
    events = [e async for e in loop.run_stream("weather?")]
    assert [(e.kind, e.step) for e in events] == [
        ("text", 0),
        ("call", 0),
        ("tool_result", 0),
        ("text", 1),
        ("done", 1),
    ]
    assert events[0].text == "Let me look."
    assert events[-1].result is not None
    assert events[-1].result.final_text == "Sunny in Lima."
