"""The agent workflow: the StepLoop's driver with each LLM call and each tool call
as an activity. Conversation state lives in the workflow history.

Workflow code must be deterministic: it only runs :func:`toolfix._loop.steploop.drive`
and the pure step functions (no I/O, clock or randomness there); everything
that touches the outside world happens in the activities.
"""

from __future__ import annotations

from datetime import timedelta
from typing import cast

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutError

with workflow.unsafe.imports_passed_through():
    from collections.abc import Sequence

    from .._errors import LoopAbortedError, ToolfixError
    from .._loop.steploop import LoopHooks, LoopResult, Step, StopLoop, drive_with
    from .._loop.tools import ToolRun, error_run, exception_content, timeout_content
    from .._messages import Prompt, RepairRecord, Response, ToolCallPart
    from ._models import (
        HOOK_ACTIVITY,
        LLM_ACTIVITY,
        STOP_WHEN_ACTIVITY,
        TOOL_ACTIVITY,
        WORKFLOW_NAME,
        ActivityOptions,
        AgentInput,
        HookCallInput,
        LlmCallInput,
        RetrySettings,
        StopWhenInput,
        ToolCallInput,
    )

__all__ = ["ActivityHooks", "AgentWorkflow", "retry_policy"]


def retry_policy(settings: RetrySettings) -> RetryPolicy:
    """The Temporal retry policy of ``settings``."""
    max_interval = settings.maximum_interval_s
    return RetryPolicy(
        initial_interval=timedelta(seconds=settings.initial_interval_s),
        backoff_coefficient=settings.backoff_coefficient,
        maximum_interval=None if max_interval is None else timedelta(seconds=max_interval),
        maximum_attempts=settings.maximum_attempts,
        non_retryable_error_types=list(settings.non_retryable_error_types) or None,
    )


@workflow.defn(name=WORKFLOW_NAME)
class AgentWorkflow:
    """Runs one agent conversation durably (see :func:`toolfix.temporal.run_agent`)."""

    def __init__(self) -> None:
        self._steps_done = 0

    @workflow.query
    def steps_done(self) -> int:
        """How many LLM calls have completed."""
        return self._steps_done

    @workflow.run
    async def run(self, agent: AgentInput) -> LoopResult:
        async def call_llm(prompt: Prompt) -> Response:
            response = await _execute(
                LLM_ACTIVITY, LlmCallInput(prompt=prompt, model=agent.model), Response, agent.llm
            )
            self._steps_done += 1
            return cast(Response, response)

        async def run_tool(call: ToolCallPart) -> ToolRun:
            try:
                run = await _execute(TOOL_ACTIVITY, ToolCallInput(call=call), ToolRun, agent.tool)
                return cast(ToolRun, run)
            except ActivityError as err:
                return _failed_tool_run(call, err, agent.tool)

        async def stop_when(step: Step) -> bool:
            out = await _execute(STOP_WHEN_ACTIVITY, StopWhenInput(step=step), bool, agent.hook)
            return bool(out)

        try:
            return await drive_with(
                agent,
                agent.prompt,
                call_llm,
                run_tool,
                stop_when=stop_when if agent.stop_when else None,
                hooks=ActivityHooks(agent.hook) if agent.hooks else None,
            )
        except ToolfixError as err:
            # fail the run (not the workflow task, which would retry forever), carrying
            # the run so far: ``err.cause.details[0]`` on the client is the LoopResult
            raise ApplicationError(
                str(err), err.partial_result, type=type(err).__name__, non_retryable=True
            ) from err


class ActivityHooks(LoopHooks):
    """The workflow's side of the hooks: each hook call is an activity that runs the
    worker's :class:`~toolfix.LoopHooks` method (hooks are your code, with side effects:
    as activities they run once and are not repeated when the workflow replays)."""

    def __init__(self, options: ActivityOptions) -> None:
        self.options = options

    async def _call(self, request: HookCallInput) -> None:
        try:
            reason = await _execute(HOOK_ACTIVITY, request, str, self.options)
        except ActivityError as err:  # the hook raised: name it and what it raised
            cause = err.cause
            what = f"{cause.type}: {cause.message}" if isinstance(cause, ApplicationError) else err
            raise LoopAbortedError(f"the {request.hook} hook raised {what}") from err
        if reason:
            raise StopLoop(str(reason))

    async def before_llm_call(self, step_index: int, prompt: Prompt) -> None:
        await self._call(
            HookCallInput(hook="before_llm_call", step_index=step_index, prompt=prompt)
        )

    async def after_llm_call(self, step_index: int, prompt: Prompt, response: Response) -> None:
        await self._call(
            HookCallInput(
                hook="after_llm_call", step_index=step_index, prompt=prompt, response=response
            )
        )

    async def on_repair(
        self, step_index: int, response: Response, repairs: Sequence[RepairRecord]
    ) -> None:
        await self._call(
            HookCallInput(
                hook="on_repair", step_index=step_index, response=response, repairs=tuple(repairs)
            )
        )

    async def before_tool(self, step_index: int, call: ToolCallPart) -> None:
        await self._call(HookCallInput(hook="before_tool", step_index=step_index, call=call))

    async def after_tool(self, step_index: int, call: ToolCallPart, result: ToolRun) -> None:
        await self._call(
            HookCallInput(hook="after_tool", step_index=step_index, call=call, run=result)
        )


async def _execute(name: str, arg: object, result_type: type, options: ActivityOptions) -> object:
    return await workflow.execute_activity(
        name,
        arg,
        result_type=result_type,
        start_to_close_timeout=options.start_to_close(),
        schedule_to_close_timeout=options.schedule_to_close(),
        heartbeat_timeout=options.heartbeat(),
        retry_policy=retry_policy(options.retry),
    )


def _failed_tool_run(call: ToolCallPart, err: ActivityError, options: ActivityOptions) -> ToolRun:
    """The error result fed back when a tool activity failed after its retries (the same
    text the in-process loop feeds back)."""
    cause = err.cause
    if isinstance(cause, ApplicationError):
        exc_type = cause.type or "Exception"
        return error_run(
            call.id,
            call.name,
            exception_content(call.name, exc_type, cause.message),
            "exception",
            arguments=call.arguments,
            exception_type=exc_type,
        )
    if isinstance(cause, TimeoutError):
        return error_run(
            call.id,
            call.name,
            timeout_content(call.name, options.start_to_close_timeout_s),
            "timeout",
            arguments=call.arguments,
        )
    raise err
