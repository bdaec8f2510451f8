"""StepLoop under hostile tools and interrupted runs: nothing finished or paid is lost.

- whatever a tool raises (``SystemExit`` from argparse, a ``CancelledError`` of its own,
  any ``BaseException`` but ``KeyboardInterrupt``) is a tool error the model reads;
- a tool that finishes after ``tool_timeout`` is a timeout, whatever it returns;
- a run cancelled from outside (``asyncio.timeout``, ``task.cancel()``) and a run whose
  hook raises keep every finished step and every paid response in ``partial_result``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from typing import Any

import pytest

from toolfix import Prompt, Response, StepLoop, ToolRegistry
from toolfix.errors import LoopAbortedError
from toolfix.loop import LoopHooks
from toolfix.messages import Usage
from toolfix.testing import ScriptedExecutor

MODEL = "scripted"
USAGE = Usage(input_tokens=10, output_tokens=5)


def call(name: str, args: str = "{}", cid: str = "c1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
        ],
    }


def run(tools: ToolRegistry, replies: list[Any], **kw: Any) -> Any:
    executor = ScriptedExecutor(replies)
    return StepLoop(executor, tools, model=MODEL, **kw).run_sync("go")


# ---- what a tool raises ------------------------------------------------------------------


def parse_flags(flags: str) -> str:
    """Runs a command line through argparse (which exits on a bad flag)."""
    parser = argparse.ArgumentParser(prog="tool", add_help=False)
    parser.add_argument("--count", type=int, required=True)
    return str(parser.parse_args(flags.split()).count)


async def async_exit(code: int) -> str:
    """An async tool that calls sys.exit."""
    raise SystemExit(code)


def cancels_itself() -> str:
    """A sync tool whose library raises CancelledError."""
    raise asyncio.CancelledError("the library gave up")


async def async_cancels_itself() -> str:
    """An async tool whose library raises CancelledError."""
    raise asyncio.CancelledError("the library gave up")


class _Odd(BaseException):
    pass


def odd_base_exception() -> str:
    """Raises a BaseException that is not an Exception."""
    raise _Odd("odd")


@pytest.mark.parametrize(
    ("tool", "args", "exc_name"),
    [
        (parse_flags, '{"flags": "--cuont 3"}', "SystemExit"),
        (async_exit, '{"code": 2}', "SystemExit"),
        (cancels_itself, "{}", "CancelledError"),
        (async_cancels_itself, "{}", "CancelledError"),
        (odd_base_exception, "{}", "_Odd"),
    ],
    ids=["argparse-exit", "async-exit", "sync-cancelled", "async-cancelled", "base-exception"],
)
def test_a_base_exception_from_a_tool_is_a_tool_error(tool: Any, args: str, exc_name: str) -> None:
    result = run(ToolRegistry.from_functions(tool), [call(tool.__name__, args), "I see the error."])
    [tool_run] = result.tool_results
    assert (tool_run.is_error, tool_run.error_type, tool_run.exception_type) == (
        True,
        "exception",
        exc_name,
    )
    assert f"raised {exc_name}" in tool_run.content
    assert result.stopped_reason == "answer"
    assert result.final_text == "I see the error."
    # the model read the error in the next request
    assert "raised " + exc_name in result.messages[-2].parts[0].content  # type: ignore[union-attr]


# ---- late tools ---------------------------------------------------------------------------


async def blocks_the_loop() -> str:
    """An async tool that blocks the event loop (a sync call inside async code)."""
    time.sleep(0.5)
    return "late but returned"


async def swallows_cancellation() -> str:
    """An async tool that ignores being cancelled and returns anyway."""
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.sleep(30)
    return "late but returned"


@pytest.mark.parametrize("tool", [blocks_the_loop, swallows_cancellation])
def test_an_async_tool_past_its_timeout_is_a_timeout_whatever_it_returns(tool: Any) -> None:
    result = run(
        ToolRegistry.from_functions(tool),
        [call(tool.__name__), "gave up"],
        tool_timeout=0.05,
    )
    [tool_run] = result.tool_results
    assert tool_run.error_type == "timeout"
    assert "late but returned" not in tool_run.content
    assert "timed out after 0.05s" in tool_run.content


# ---- interrupted runs -----------------------------------------------------------------------


def _two_step_loop(started: asyncio.Event, **kw: Any) -> tuple[StepLoop, ScriptedExecutor]:
    def fast() -> str:
        """Returns at once."""
        return "fast result"

    async def stuck() -> str:
        """Never returns on its own."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    executor = ScriptedExecutor(
        [call("fast", cid="a"), call("stuck", cid="b"), "unused"], usage=USAGE
    )
    tools = ToolRegistry.from_functions(fast, stuck)
    return StepLoop(executor, tools, model=MODEL, **kw), executor


def _assert_kept(partial: Any, executor: ScriptedExecutor) -> None:
    assert partial is not None
    assert partial.stopped_reason == "error"
    assert len(partial.steps) == len(executor.calls) == 2  # every paid response is a step
    first, second = partial.steps
    assert [r.content for r in first.tool_results] == ["fast result"]
    assert second.response.tool_calls[0].name == "stuck"
    assert [r.error_type for r in second.tool_results] == ["stopped"]
    assert partial.usage.input_tokens == 2 * USAGE.input_tokens  # both responses counted
    roles = [m.role for m in partial.messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]


def _loop_error(raised: BaseException | None) -> Any:
    """The loop's own ``CancelledError`` from the one raised across a task boundary: the
    same object from Python 3.11 on; Python 3.10 raises a new one whose ``__context__`` it
    is (docs/guides/agent-loop.md says so)."""
    assert isinstance(raised, asyncio.CancelledError)
    return raised if sys.version_info >= (3, 11) else raised.__context__


if sys.version_info >= (3, 11):  # asyncio.timeout is 3.11+ (wait_for below: every version)

    async def test_a_run_cut_by_an_outer_asyncio_timeout_keeps_its_steps() -> None:
        started = asyncio.Event()
        loop, executor = _two_step_loop(started)

        async def run_under_a_deadline() -> None:
            async with asyncio.timeout(None) as deadline:
                task = asyncio.ensure_future(loop.run("go"))
                await started.wait()
                deadline.reschedule(asyncio.get_running_loop().time())  # expire now
                await task

        with pytest.raises(TimeoutError) as info:
            await run_under_a_deadline()
        cause = info.value.__cause__
        assert isinstance(cause, asyncio.CancelledError)
        _assert_kept(cause.partial_result, executor)  # type: ignore[attr-defined]


async def test_a_run_cut_by_wait_for_keeps_its_steps() -> None:
    started = asyncio.Event()
    loop, executor = _two_step_loop(started)
    task = asyncio.ensure_future(loop.run("go"))
    await started.wait()
    with pytest.raises(asyncio.TimeoutError) as info:
        await asyncio.wait_for(task, timeout=0)  # expires now
    _assert_kept(_loop_error(info.value.__cause__).partial_result, executor)


async def test_a_cancelled_run_keeps_its_steps() -> None:
    started = asyncio.Event()
    loop, executor = _two_step_loop(started)
    task = asyncio.ensure_future(loop.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as info:
        await task
    _assert_kept(_loop_error(info.value).partial_result, executor)


async def test_a_cancellation_caught_in_the_running_task_is_the_loops_own() -> None:
    started = asyncio.Event()
    loop, executor = _two_step_loop(started)
    caught: list[BaseException] = []

    async def run() -> None:
        try:
            await loop.run("go")
        except asyncio.CancelledError as exc:
            caught.append(exc)
            raise

    task = asyncio.ensure_future(run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    _assert_kept(caught[0].partial_result, executor)  # type: ignore[attr-defined]


async def test_a_tool_that_swallows_the_loops_cancellation_does_not_swallow_it() -> None:
    """The tool runs in a task of its own: the cancellation of the task running the
    loop propagates even when the tool catches its own and returns."""
    started = asyncio.Event()

    async def stubborn() -> str:
        """Catches its cancellation and returns anyway."""
        started.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()
        return "returned anyway"

    executor = ScriptedExecutor([call("stubborn"), "unused"], usage=USAGE)
    loop = StepLoop(executor, ToolRegistry.from_functions(stubborn), model=MODEL)
    task = asyncio.ensure_future(loop.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError) as info:
        await task
    partial = _loop_error(info.value).partial_result
    assert [r.error_type for r in partial.tool_results] == ["stopped"]
    assert len(executor.calls) == 1  # the run stopped: no second model call


class _Raises(LoopHooks):
    def __init__(self, at_step: int) -> None:
        self.at_step = at_step

    def after_llm_call(self, step_index: int, prompt: Prompt, response: Response) -> None:
        if step_index == self.at_step:
            raise RuntimeError("the hook broke")


def test_a_raising_after_llm_call_hook_keeps_the_paid_response() -> None:
    def fast() -> str:
        """Returns at once."""
        return "fast result"

    executor = ScriptedExecutor([call("fast", cid="a"), call("fast", cid="b")], usage=USAGE)
    loop = StepLoop(executor, ToolRegistry.from_functions(fast), model=MODEL, hooks=_Raises(1))
    with pytest.raises(LoopAbortedError, match="the hook broke") as info:
        loop.run_sync("go")
    partial = info.value.partial_result
    assert len(partial.steps) == len(executor.calls) == 2
    assert partial.steps[1].response.tool_calls[0].id == "b"
    assert partial.steps[1].tool_results == ()  # its calls never ran
    assert partial.usage.input_tokens == 2 * USAGE.input_tokens
    assert [m.role for m in partial.messages] == ["user", "assistant", "tool", "assistant"]
