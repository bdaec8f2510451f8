"""StepLoop faults: timeouts honoured for sync tools, unrenderable results guarded."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest

from toolfix import StepLoop, ToolRegistry
from toolfix.testing import ScriptedExecutor

MODEL = "scripted"


def _call(name: str, args: str = "{}") -> dict[str, object]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": name, "arguments": args}}
        ],
    }


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()  # lets the abandoned tool thread finish after the test


def _slow_tool(release: threading.Event) -> ToolRegistry:
    def slow_lookup() -> str:
        """Blocks like time.sleep(20), but the test can release it."""
        release.wait(20)
        return "late"

    return ToolRegistry.from_functions(slow_lookup)


def test_sync_tool_timeout_returns_on_time_under_run_sync(release: threading.Event) -> None:
    executor = ScriptedExecutor([_call("slow_lookup"), "gave up on it"])
    loop = StepLoop(executor, _slow_tool(release), model=MODEL, tool_timeout=0.2)
    start = time.monotonic()
    result = loop.run_sync("go")
    elapsed = time.monotonic() - start
    assert elapsed < 10, elapsed  # 20 s before: the thread was joined at loop shutdown
    [run] = result.tool_results
    assert run.error_type == "timeout"
    assert "timed out after 0.2s" in run.content
    assert result.final_text == "gave up on it"


def test_sync_tool_timeout_returns_on_time_under_asyncio_run(release: threading.Event) -> None:
    executor = ScriptedExecutor([_call("slow_lookup"), "gave up on it"])
    loop = StepLoop(executor, _slow_tool(release), model=MODEL, tool_timeout=0.2)
    start = time.monotonic()
    result = asyncio.run(loop.run("go"))
    assert time.monotonic() - start < 10
    assert [r.error_type for r in result.tool_results] == ["timeout"]


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text for you")

    __repr__ = __str__


def test_a_result_that_cannot_be_rendered_is_a_tool_error_and_the_loop_goes_on() -> None:
    def make_thing() -> object:
        """Returns an object whose str() raises."""
        return _Unprintable()

    executor = ScriptedExecutor([_call("make_thing"), "done anyway"])
    result = StepLoop(executor, ToolRegistry.from_functions(make_thing), model=MODEL).run_sync("go")
    [run] = result.tool_results
    assert run.is_error
    assert run.exception_type == "RuntimeError"
    assert "cannot be shown as text" in run.content
    assert result.final_text == "done anyway"


def test_an_exception_whose_str_raises_is_reported() -> None:
    class Nasty(Exception):
        def __str__(self) -> str:
            raise ValueError("nope")

    def explode() -> str:
        """Raises an exception that cannot be printed."""
        raise Nasty

    executor = ScriptedExecutor([_call("explode"), "ok"])
    result = StepLoop(executor, ToolRegistry.from_functions(explode), model=MODEL).run_sync("go")
    [run] = result.tool_results
    assert run.is_error
    assert run.exception_type == "Nasty"
    assert "whose str() raised" in run.content


class _Counting:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def registry(self) -> ToolRegistry:
        def lookup(city: str) -> str:
            """Looks a city up."""
            self.calls.append(city)
            time.sleep(0.05)
            return f"{city}: sunny"

        return ToolRegistry.from_functions(lookup)


def _parallel(*cities: str) -> dict[str, object]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"c{i}",
                "type": "function",
                "function": {"name": "lookup", "arguments": f'{{"city": "{c}"}}'},
            }
            for i, c in enumerate(cities)
        ],
    }


def test_a_provider_error_at_step_two_keeps_step_one() -> None:
    from toolfix import ToolfixError
    from toolfix.errors import ProviderRateLimitError
    from toolfix.testing import FunctionExecutor

    tools = _Counting()
    replies = iter([_parallel("Paris")])

    def respond(prompt: object, model: str, registry: object) -> object:
        try:
            return next(replies)
        except StopIteration:
            raise ProviderRateLimitError("429 from the provider") from None

    loop = StepLoop(FunctionExecutor(respond), tools.registry(), model=MODEL)
    with pytest.raises(ProviderRateLimitError) as err:
        loop.run_sync("weather?")
    partial = err.value.partial_result
    assert isinstance(err.value, ToolfixError)
    assert partial.stopped_reason == "error"
    assert "ProviderRateLimitError" in partial.stop_detail
    assert [r.content for r in partial.tool_results] == ["Paris: sunny"]
    assert len(partial.steps) == 1
    assert partial.messages[-1].role == "tool"
    assert tools.calls == ["Paris"]


def test_a_hook_that_raises_lets_running_calls_finish_and_runs_none_twice() -> None:
    from toolfix.errors import LoopAbortedError
    from toolfix.loop import LoopHooks

    tools = _Counting()

    class Hooks(LoopHooks):
        def after_tool(self, step_index: int, call: object, run: object) -> None:
            if getattr(call, "id", "") == "c0":
                raise ValueError("audit log is down")

    executor = ScriptedExecutor([_parallel("Paris", "Rome", "Oslo"), "never reached"])
    loop = StepLoop(executor, tools.registry(), model=MODEL, hooks=Hooks(), tool_concurrency=3)
    with pytest.raises(LoopAbortedError, match="audit log is down") as err:
        loop.run_sync("weather?")
    assert isinstance(err.value.__cause__, ValueError)
    partial = err.value.partial_result
    assert partial.stopped_reason == "error"
    # the three calls were already running: all finished and were recorded, none twice
    assert sorted(tools.calls) == ["Oslo", "Paris", "Rome"]
    assert sorted(r.content for r in partial.tool_results) == [
        "Oslo: sunny",
        "Paris: sunny",
        "Rome: sunny",
    ]


def test_a_hook_error_stops_calls_not_yet_started() -> None:
    from toolfix.errors import LoopAbortedError
    from toolfix.loop import LoopHooks

    tools = _Counting()

    class Hooks(LoopHooks):
        def before_tool(self, step_index: int, call: object) -> None:
            if getattr(call, "id", "") == "c1":
                raise RuntimeError("policy engine crashed")

    executor = ScriptedExecutor([_parallel("Paris", "Rome", "Oslo")])
    loop = StepLoop(executor, tools.registry(), model=MODEL, hooks=Hooks(), tool_concurrency=1)
    with pytest.raises(LoopAbortedError) as err:
        loop.run_sync("weather?")
    runs = err.value.partial_result.tool_results
    assert tools.calls == ["Paris"]
    assert [r.error_type for r in runs] == [None, "stopped", "stopped"]
