"""Client helpers: connect, start an agent run, wait for its result."""

from __future__ import annotations

from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter

from .._loop.steploop import LoopResult
from .._messages import Prompt, ToolChoice
from ._models import (
    ActivityOptions,
    AgentInput,
    default_hook_options,
    default_llm_options,
    default_tool_options,
)
from .worker import with_pydantic_converter
from .workflow import AgentWorkflow

__all__ = ["connect", "run_agent", "start_agent"]


async def connect(target_host: str = "localhost:7233", **kwargs: Any) -> Client:
    """``Client.connect`` with the pydantic data converter the toolfix payloads need."""
    kwargs["data_converter"] = pydantic_data_converter
    return await Client.connect(target_host, **kwargs)


async def start_agent(
    client: Client,
    prompt: Prompt | str,
    *,
    task_queue: str,
    workflow_id: str,
    model: str | None = None,
    max_steps: int = 10,
    tool_concurrency: int = 8,
    max_tool_retries: int = 3,
    tool_choice: ToolChoice | tuple[ToolChoice, ...] | None = None,
    llm: ActivityOptions | None = None,
    tool: ActivityOptions | None = None,
    hooks: bool = False,
    stop_when: bool = False,
    hook: ActivityOptions | None = None,
    **start_options: Any,
) -> WorkflowHandle[AgentWorkflow, LoopResult]:
    """Start an agent run; ``await handle.result()`` gives the :class:`LoopResult`.

    ``workflow_id`` names the run (starting a second run with the id of a running
    one fails: the id is how you find, query or cancel it). ``start_options`` go to
    ``Client.start_workflow`` (e.g. ``execution_timeout``). ``hooks=True`` and
    ``stop_when=True`` make the run call the worker's hooks and stop condition (given to
    :func:`create_worker`), each call an activity with the ``hook`` options (default:
    60 s, one attempt).
    """
    agent = AgentInput(
        prompt=Prompt.of(prompt) if isinstance(prompt, str) else prompt,
        model=model,
        max_steps=max_steps,
        tool_concurrency=tool_concurrency,
        max_tool_retries=max_tool_retries,
        tool_choice=tool_choice,
        llm=llm or default_llm_options(),
        tool=tool or default_tool_options(),
        hooks=hooks,
        stop_when=stop_when,
        hook=hook or default_hook_options(),
    )
    return await with_pydantic_converter(client).start_workflow(
        AgentWorkflow.run,
        agent,
        id=workflow_id,
        task_queue=task_queue,
        **start_options,
    )


async def run_agent(
    client: Client,
    prompt: Prompt | str,
    *,
    task_queue: str,
    workflow_id: str,
    **options: Any,
) -> LoopResult:
    """Start an agent run and wait for its :class:`LoopResult` (options as :func:`start_agent`)."""
    handle = await start_agent(
        client, prompt, task_queue=task_queue, workflow_id=workflow_id, **options
    )
    return await handle.result()
