"""A user's own workflow that runs the toolfix agent workflow as a child (Temporal tests).

It lives in its own module so the workflow sandbox can import it by name."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from toolfix import Prompt
    from toolfix.temporal import AgentInput, AgentWorkflow


@workflow.defn
class TicketWorkflow:
    """Triage a ticket: ask the agent (a child workflow), then wrap its answer."""

    @workflow.run
    async def run(self, question: str) -> str:
        result = await workflow.execute_child_workflow(
            AgentWorkflow.run,
            AgentInput(prompt=Prompt.of(question), model="m"),
            id=f"{workflow.info().workflow_id}-agent",
        )
        tools = ",".join(r.content for r in result.tool_results)
        return f"{result.stopped_reason}: {result.final_text} [{tools}]"
