"""Worker helper: a Temporal worker that hosts the agent workflow and its activities."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import PydanticPayloadConverter, pydantic_data_converter
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from .._loop.steploop import LoopHooks, StopWhen
from .._pipeline.executor import PromptExecutor
from .._pipeline.processor import ResponseProcessor
from .._tools import ToolDescriptor, ToolHandler, ToolRegistry
from .activities import ToolfixActivities
from .workflow import AgentWorkflow

__all__ = ["create_worker", "sandbox_runner", "with_pydantic_converter"]

#: Modules the workflow sandbox imports from the host instead of re-importing.
PASSTHROUGH_MODULES = ("toolfix", "pydantic", "pydantic_core", "jsonschema", "json_repair")


def with_pydantic_converter(client: Client) -> Client:
    """``client`` itself when it uses the pydantic data converter, else a copy that does
    (same connection and namespace)."""
    if client.data_converter.payload_converter_class is PydanticPayloadConverter:
        return client
    config = client.config()
    config["data_converter"] = pydantic_data_converter
    return Client(**config)


def sandbox_runner() -> SandboxedWorkflowRunner:
    """The default sandbox, with toolfix and its dependencies passed through."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH_MODULES)
    return SandboxedWorkflowRunner(restrictions=restrictions)


def create_worker(
    client: Client,
    task_queue: str,
    registry: ToolRegistry | Iterable[ToolDescriptor | Mapping[str, Any] | ToolHandler],
    executor: PromptExecutor,
    processor: ResponseProcessor | None = None,
    *,
    model: str | None = None,
    hooks: LoopHooks | None = None,
    stop_when: StopWhen | None = None,
    **worker_options: Any,
) -> Worker:
    """A worker for the agent workflow and its LLM and tool activities.

    Run it with ``await worker.run()`` or ``async with worker: ...``. Every worker of a
    task queue must have the same tools (any worker may get any tool call) and an
    executor for the same models. ``worker_options`` go to :class:`temporalio.worker.Worker`
    (e.g. ``max_concurrent_activities``); your own ``workflows`` and ``activities`` are
    added to toolfix's, so the agent workflow can run as a child of your workflow on the
    same worker.

    ``hooks`` and ``stop_when`` are the runs' :class:`~toolfix.LoopHooks` and stop
    condition, as on :class:`~toolfix.StepLoop`; a run uses them when started with
    ``hooks=True`` / ``stop_when=True`` (each call is an activity on a worker of the
    queue, so give every worker of a queue the same ones).
    """
    acts = ToolfixActivities(registry, executor, processor, model, hooks=hooks, stop_when=stop_when)
    worker_options.setdefault("workflow_runner", sandbox_runner())
    workflows = [AgentWorkflow, *worker_options.pop("workflows", ())]
    activities = [*acts.activities, *worker_options.pop("activities", ())]
    return Worker(
        with_pydantic_converter(client),
        task_queue=task_queue,
        workflows=list(dict.fromkeys(workflows)),
        activities=list(dict.fromkeys(activities)),
        **worker_options,
    )
