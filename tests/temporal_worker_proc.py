"""Scripted agent scenarios for the Temporal tests, and a worker process running them.

Run as a script, this is a real Temporal worker in its own process (the killed-worker
test SIGKILLs it)::

    python tests/temporal_worker_proc.py ADDRESS TASK_QUEUE WORKDIR

Everything the scenario does is deterministic and decided from the prompt's messages
(not from a counter), so a restarted worker answers the same request the same way.
Side effects go to files in WORKDIR: ``side_effects`` (one line per tool event) and
``llm_calls`` (one line per LLM call, with the number of tool results seen).
"""

from __future__ import annotations

import asyncio
import sys
import time
from datetime import timedelta
from pathlib import Path

from toolfix import ManualToolCallFixProcessor, Prompt, Response, ToolCallPart, ToolRegistry
from toolfix.loop import LoopHooks, Step, ToolRun
from toolfix.testing import FunctionExecutor

MODEL = "scripted-model"


def tool_results_seen(prompt: Prompt) -> list[str]:
    """The contents of the tool-result messages in the prompt, in order."""
    return [m.parts[0].content for m in prompt.messages if m.role == "tool"]  # type: ignore[union-attr]


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(line + "\n")


def math_reply(prompt: Prompt, model: str, tools: ToolRegistry) -> Response | str:
    """A three-step conversation: a broken call in text, two parallel calls, an answer."""
    seen = tool_results_seen(prompt)
    if not seen:
        return '<tool_call>{"name": "add", "arguments": {"a": "2", "b": 3}}</tool_call>'
    if len(seen) == 1:
        return Response(
            parts=(
                ToolCallPart.create("add", {"a": 5, "b": 10}, id="call_b"),
                ToolCallPart.create("multiply", {"a": 5, "b": 2}, id="call_c"),
            ),
            id="resp_2",
        )
    return f"Results: {', '.join(seen)}."


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def durable_scenario(workdir: Path) -> tuple[ToolRegistry, FunctionExecutor]:
    """Tools and executor of the killed-worker scenario: ``record`` (fast), then ``slow``
    (blocks until WORKDIR/release exists), then an answer."""
    effects = workdir / "side_effects"
    llm_log = workdir / "llm_calls"

    def record(tag: str) -> str:
        """Record a tag."""
        _append(effects, tag)
        return f"recorded {tag}"

    def slow(tag: str) -> str:
        """Record a tag, slowly."""
        _append(effects, f"{tag}-start")
        deadline = time.monotonic() + 60
        while not (workdir / "release").exists():
            if time.monotonic() > deadline:
                raise TimeoutError("release file never appeared")
            time.sleep(0.05)
        _append(effects, f"{tag}-done")
        return f"slow {tag} done"

    def reply(prompt: Prompt, model: str, tools: ToolRegistry) -> Response | str:
        seen = tool_results_seen(prompt)
        _append(llm_log, f"llm {len(seen)}")
        if not seen:
            return '<tool_call>{"name": "record", "arguments": {"tag": "a"}}</tool_call>'
        if len(seen) == 1:
            return Response(parts=(ToolCallPart.create("slow", {"tag": "b"}, id="call_slow"),))
        return "finished: " + "; ".join(seen)

    return ToolRegistry.from_functions(record, slow), FunctionExecutor(reply)


class FileHooks(LoopHooks):
    """Hooks that append each event to WORKDIR/hooks (one line per call)."""

    def __init__(self, workdir: Path) -> None:
        self.log = workdir / "hooks"

    def after_llm_call(self, step_index: int, prompt: Prompt, response: Response) -> None:
        _append(self.log, f"after_llm_call {step_index}")

    def before_tool(self, step_index: int, call: ToolCallPart) -> None:
        _append(self.log, f"before_tool {step_index} {call.name}")

    def after_tool(self, step_index: int, call: ToolCallPart, result: ToolRun) -> None:
        _append(self.log, f"after_tool {step_index} {call.name}")


def file_stop_when(workdir: Path) -> object:
    def stop_when(step: Step) -> bool:
        _append(workdir / "hooks", f"stop_when {step.index}")
        return False

    return stop_when


async def _main(address: str, task_queue: str, workdir: Path, with_hooks: bool) -> None:
    from toolfix.temporal import connect, create_worker

    client = await connect(address)
    registry, executor = durable_scenario(workdir)
    worker = create_worker(
        client,
        task_queue,
        registry,
        executor,
        ManualToolCallFixProcessor(),
        model=MODEL,
        hooks=FileHooks(workdir) if with_hooks else None,
        stop_when=file_stop_when(workdir) if with_hooks else None,  # type: ignore[arg-type]
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    async with worker:
        (workdir / "worker-ready").touch()
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1], sys.argv[2], Path(sys.argv[3]), "hooks" in sys.argv[4:]))
