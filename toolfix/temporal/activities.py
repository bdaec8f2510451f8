"""The activities: one LLM call (executor + processors) and one tool call.

They run on workers, where the real executor and tool functions live; the
workflow only sees their inputs and results in its history.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from .._loop.steploop import LoopHooks, StopWhen, call_model, hook_stop_reason
from .._loop.tools import ToolRun, invoke, prepare_call, success_run
from .._messages import Response
from .._pipeline.executor import PromptExecutor
from .._pipeline.processor import ResponseProcessor
from .._tools import ToolDescriptor, ToolHandler, ToolRegistry
from ._models import (
    HOOK_ACTIVITY,
    LLM_ACTIVITY,
    STOP_WHEN_ACTIVITY,
    TOOL_ACTIVITY,
    HookCallInput,
    LlmCallInput,
    StopWhenInput,
    ToolCallInput,
)

__all__ = ["ToolfixActivities"]


class ToolfixActivities:
    """The activity implementations, bound to a worker's tools, executor and processor.

    Args:
        registry: The tools with their handlers.
        executor: Makes the LLM calls.
        processor: Repairs each response (e.g. ``ManualToolCallFixProcessor()``).
        model: The model used when the workflow input names none.
        hooks: The run's :class:`~toolfix.LoopHooks`, called by runs started with
            ``hooks=True`` (each call one activity, run once: a hook observes an event
            that happened once, and its side effects are not repeated on replay).
        stop_when: The run's stop condition, asked by runs started with
            ``stop_when=True`` (sync or async; an activity, since it is your code).
    """

    def __init__(
        self,
        registry: ToolRegistry | Iterable[ToolDescriptor | Mapping[str, Any] | ToolHandler],
        executor: PromptExecutor,
        processor: ResponseProcessor | None = None,
        model: str | None = None,
        *,
        hooks: LoopHooks | None = None,
        stop_when: StopWhen | None = None,
    ):
        self.registry = ToolRegistry.of(registry)
        self.executor = executor
        self.processor = processor
        self.model = model
        self.hooks = hooks
        self.stop_when = stop_when

    @activity.defn(name=LLM_ACTIVITY)
    async def llm_call(self, request: LlmCallInput) -> Response:
        """One LLM call, processed. Executor errors propagate (retried by the policy)."""
        model = request.model or self.model
        if not model:
            raise ValueError("no model: pass model= to the workflow input or the worker")
        return await call_model(self.executor, self.processor, request.prompt, model, self.registry)

    @activity.defn(name=TOOL_ACTIVITY)
    async def tool_call(self, request: ToolCallInput) -> ToolRun:
        """Validate and run one call. Model mistakes come back as error results; an
        exception raised by the tool fails the attempt (retried by the policy)."""
        prepared = prepare_call(self.registry, request.call)
        if isinstance(prepared, ToolRun):
            return prepared
        beat = _start_heartbeats()
        try:
            value, duration = await invoke(prepared)
        finally:
            if beat is not None:
                beat.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await beat
        return success_run(prepared, value, duration)

    @activity.defn(name=HOOK_ACTIVITY)
    async def hook(self, request: HookCallInput) -> str:
        """One hook call; the stop reason when the hook asked to stop, else ``""``.
        An exception the hook raises fails the activity (and, not retried, the run)."""
        if self.hooks is None:
            raise ApplicationError(
                "the run was started with hooks=True but this worker has no hooks: "
                "pass hooks= to create_worker",
                type="ConfigurationError",
                non_retryable=True,
            )
        fn = getattr(self.hooks, request.hook)
        return await hook_stop_reason(fn, *_hook_arguments(request)) or ""

    @activity.defn(name=STOP_WHEN_ACTIVITY)
    async def check_stop(self, request: StopWhenInput) -> bool:
        """The user's stop condition for one step."""
        if self.stop_when is None:
            raise ApplicationError(
                "the run was started with stop_when=True but this worker has no stop_when: "
                "pass stop_when= to create_worker",
                type="ConfigurationError",
                non_retryable=True,
            )
        out = self.stop_when(request.step)
        if not isinstance(out, bool):
            out = await out
        return bool(out)

    @property
    def activities(self) -> list[Any]:
        """The bound activity methods, for ``Worker(activities=...)``."""
        return [self.llm_call, self.tool_call, self.hook, self.check_stop]


def _hook_arguments(r: HookCallInput) -> tuple[Any, ...]:
    """The arguments of the :class:`~toolfix.LoopHooks` method ``r.hook``, in order."""
    by_hook: dict[str, tuple[Any, ...]] = {
        "before_llm_call": (r.step_index, r.prompt),
        "after_llm_call": (r.step_index, r.prompt, r.response),
        "on_repair": (r.step_index, r.response, r.repairs),
        "before_tool": (r.step_index, r.call),
        "after_tool": (r.step_index, r.call, r.run),
    }
    return by_hook[r.hook]


def _start_heartbeats() -> asyncio.Task[None] | None:
    """Heartbeat while the tool runs, when the workflow set a heartbeat timeout."""
    timeout = activity.info().heartbeat_timeout
    if not timeout:
        return None
    interval = max(timeout.total_seconds() / 3, 0.05)

    async def loop() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(interval)

    return asyncio.create_task(loop())
