"""Durable agent runs on Temporal (``pip install "toolfix[temporal]"``).

The same loop as :class:`toolfix.StepLoop`, as a Temporal workflow: each LLM call
(executor + processors) and each tool call is an activity with its own timeouts
and retry policy, and the conversation lives in the workflow history, so a run
survives worker crashes and restarts. See ``docs/guides/temporal.md``.

Worker side::

    client = await connect("temporal.internal:7233")
    worker = create_worker(client, "agents", registry, executor,
                           ManualToolCallFixProcessor(), model="qwen2.5-7b")
    await worker.run()

Caller side::

    result = await run_agent(client, "What is 2 + 3?", task_queue="agents",
                             workflow_id="ticket-42")
"""

from __future__ import annotations

try:
    import temporalio  # noqa: F401 - checked first so a missing extra says what to install
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without temporalio
    raise ImportError(
        'toolfix.temporal needs temporalio: pip install "toolfix[temporal]"', name=exc.name
    ) from exc

from ._models import (
    ActivityOptions,
    AgentInput,
    HookCallInput,
    LlmCallInput,
    RetrySettings,
    StopWhenInput,
    ToolCallInput,
)
from .activities import ToolfixActivities
from .client import connect, run_agent, start_agent
from .worker import create_worker, sandbox_runner, with_pydantic_converter
from .workflow import AgentWorkflow, retry_policy

__all__ = [
    "ActivityOptions",
    "AgentInput",
    "AgentWorkflow",
    "HookCallInput",
    "LlmCallInput",
    "RetrySettings",
    "StopWhenInput",
    "ToolCallInput",
    "ToolfixActivities",
    "connect",
    "create_worker",
    "retry_policy",
    "run_agent",
    "sandbox_runner",
    "start_agent",
    "with_pydantic_converter",
]
