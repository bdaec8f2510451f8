"""Payloads of the toolfix Temporal workflow and activities (pydantic, serialized with
``temporalio.contrib.pydantic.pydantic_data_converter``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from pydantic import Field

from .._config import StrictSettings
from .._loop.steploop import Step
from .._loop.tools import ToolRun
from .._messages import Prompt, RepairRecord, Response, ToolCallPart, ToolChoice, _Frozen

__all__ = [
    "ActivityOptions",
    "AgentInput",
    "HookCallInput",
    "LlmCallInput",
    "RetrySettings",
    "StopWhenInput",
    "ToolCallInput",
]

LLM_ACTIVITY = "toolfix.llm_call"
TOOL_ACTIVITY = "toolfix.tool_call"
HOOK_ACTIVITY = "toolfix.hook"
STOP_WHEN_ACTIVITY = "toolfix.stop_when"
WORKFLOW_NAME = "toolfix.AgentWorkflow"

#: LLM errors that retrying cannot fix.
NON_RETRYABLE_LLM_ERRORS: tuple[str, ...] = (
    "ProviderAuthenticationError",
    "ContextLengthExceededError",
    "ConfigurationError",
    "ScriptExhaustedError",
)


class RetrySettings(_Frozen, StrictSettings):
    """A Temporal retry policy as data. ``maximum_attempts=0`` means no limit."""

    maximum_attempts: int = 3
    initial_interval_s: float = 1.0
    backoff_coefficient: float = 2.0
    maximum_interval_s: float | None = 60.0
    non_retryable_error_types: tuple[str, ...] = ()


class ActivityOptions(_Frozen, StrictSettings):
    """Timeouts and retry policy of one kind of activity.

    ``heartbeat_timeout_s`` lets the server notice a dead worker quickly: the tool
    activity heartbeats while the tool function runs, so a killed worker's call is
    retried elsewhere after this many seconds instead of after the whole
    ``start_to_close_timeout_s``.
    """

    start_to_close_timeout_s: float = 300.0
    schedule_to_close_timeout_s: float | None = None
    heartbeat_timeout_s: float | None = None
    retry: RetrySettings = RetrySettings()

    def start_to_close(self) -> timedelta:
        return timedelta(seconds=self.start_to_close_timeout_s)

    def schedule_to_close(self) -> timedelta | None:
        s = self.schedule_to_close_timeout_s
        return None if s is None else timedelta(seconds=s)

    def heartbeat(self) -> timedelta | None:
        s = self.heartbeat_timeout_s
        return None if s is None else timedelta(seconds=s)


def default_llm_options() -> ActivityOptions:
    return ActivityOptions(
        start_to_close_timeout_s=300.0,
        retry=RetrySettings(maximum_attempts=5, non_retryable_error_types=NON_RETRYABLE_LLM_ERRORS),
    )


def default_hook_options() -> ActivityOptions:
    """Hooks and ``stop_when`` run once: a hook that raises fails the run (as in
    :class:`~toolfix.StepLoop`) instead of being retried."""
    return ActivityOptions(start_to_close_timeout_s=60.0, retry=RetrySettings(maximum_attempts=1))


def default_tool_options() -> ActivityOptions:
    return ActivityOptions(
        start_to_close_timeout_s=300.0, heartbeat_timeout_s=30.0, retry=RetrySettings()
    )


class AgentInput(_Frozen):
    """The workflow's input: the prompt and the loop settings (all data, no callables).

    ``tool_choice`` is one choice for every step or one per step (the last repeats).
    ``model`` ``None`` uses the worker's default model.
    """

    prompt: Prompt
    model: str | None = None
    max_steps: int = 10
    tool_concurrency: int = 8
    max_tool_retries: int = 3
    tool_choice: ToolChoice | tuple[ToolChoice, ...] | None = None
    llm: ActivityOptions = Field(default_factory=default_llm_options)
    tool: ActivityOptions = Field(default_factory=default_tool_options)
    hooks: bool = False
    """Call the worker's :class:`~toolfix.LoopHooks` (given to ``create_worker``), each
    hook call an activity."""
    stop_when: bool = False
    """Ask the worker's ``stop_when`` (given to ``create_worker``) after each step with
    tool results, as an activity."""
    hook: ActivityOptions = Field(default_factory=default_hook_options)
    """Timeouts and retries of the hook and ``stop_when`` activities."""


class LlmCallInput(_Frozen):
    """Input of the LLM activity: one request."""

    prompt: Prompt
    model: str | None = None


class ToolCallInput(_Frozen):
    """Input of the tool activity: one valid-looking call (validated in the activity)."""

    call: ToolCallPart


class HookCallInput(_Frozen):
    """Input of the hook activity: which :class:`~toolfix.LoopHooks` method, and its
    arguments (those the method takes; the others ``None``)."""

    hook: Literal["before_llm_call", "after_llm_call", "on_repair", "before_tool", "after_tool"]
    step_index: int
    prompt: Prompt | None = None
    response: Response | None = None
    repairs: tuple[RepairRecord, ...] = ()
    call: ToolCallPart | None = None
    run: ToolRun | None = None


class StopWhenInput(_Frozen):
    """Input of the ``stop_when`` activity: the step just finished."""

    step: Step
