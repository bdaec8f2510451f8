"""A user's own workflow that runs toolfix's agent workflow as a child (Temporal test)."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from toolfix import LoopResult, Prompt
    from toolfix.temporal import AgentInput, AgentWorkflow


@workflow.defn
class TripPlanner:
    """Plans a trip: asks the agent for the weather, then reports its answer."""

    @workflow.run
    async def run(self, city: str) -> str:
        result: LoopResult = await workflow.execute_child_workflow(
            AgentWorkflow.run,
            AgentInput(prompt=Prompt.of(f"weather in {city}?")),
            id=f"{workflow.info().workflow_id}-agent",
        )
        return f"{result.stopped_reason}: {result.final_text}"
