"""pydantic-ai adapter: a real Agent on pydantic-ai's FunctionModel gets broken calls."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from test_integration_prefilled import OFF, RAW, REASONING, SCHEMA

from toolfix import ManualToolCallFixProcessor
from toolfix.integrations.pydantic_ai import ToolfixCapability


def _agent(replies: list[ModelResponse], ran: list[tuple[str, int]], **kw: Any) -> Agent[None, str]:
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        assert [t.name for t in info.function_tools] == ["get_weather"]
        return replies[len(seen) - 1]

    agent: Agent[None, str] = Agent(FunctionModel(model), **kw)

    @agent.tool_plain
    def get_weather(city: str, days: int = 1) -> str:
        """Weather forecast for a city."""
        ran.append((city, days))
        return f"sunny in {city} for {days} days"

    agent.seen = seen  # type: ignore[attr-defined]
    return agent


def _tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [
        p
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    ]


def _feedback(messages: list[ModelMessage]) -> list[str]:
    """The retry feedback the model was sent after its first response.

    pydantic-ai 2.x sends a per-call retry as a ``ToolReturnPart`` with ``outcome="retried"``
    and a response-level ``ModelRetry`` as retry feedback in a user prompt part.
    """
    out = []
    for m in messages[2:]:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, RetryPromptPart):
                    out.append(p.model_response())
                elif isinstance(p, ToolReturnPart) and p.outcome == "retried":
                    out.append(f"{p.tool_call_id}: {p.content}")
                elif "retry_feedback" in str(getattr(p, "content", "")):
                    out.append(str(p.content))
    return out


def test_call_written_in_text_runs_the_tool() -> None:
    ran: list[tuple[str, int]] = []
    agent = _agent(
        [
            ModelResponse(
                parts=[
                    TextPart(
                        "Let me check.\n<tool_call>\n"
                        "{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '3',}}"
                    )
                ]
            ),
            ModelResponse(parts=[TextPart("It is sunny.")]),
        ],
        ran,
        capabilities=[ToolfixCapability()],
    )
    result = agent.run_sync("weather in Paris for 3 days?")
    assert ran == [("Paris", 3)]
    assert result.output == "It is sunny."
    (ret,) = _tool_returns(result.all_messages())
    assert ret.content == "sunny in Paris for 3 days"
    first = result.all_messages()[1]
    assert isinstance(first, ModelResponse)
    (call,) = [p for p in first.parts if isinstance(p, ToolCallPart)]
    assert (call.tool_name, call.args) == ("get_weather", {"city": "Paris", "days": 3})
    assert first.provider_details is not None
    assert first.provider_details["toolfix_repairs"]


def test_broken_json_in_a_tool_call_part_is_repaired_in_place() -> None:
    ran: list[tuple[str, int]] = []
    agent = _agent(
        [
            ModelResponse(
                parts=[
                    ToolCallPart("get-weather", "{'city': 'Oslo', 'days': '2',}", tool_call_id="c1")
                ]
            ),
            ModelResponse(parts=[TextPart("done")]),
        ],
        ran,
        capabilities=[ToolfixCapability()],
    )
    result = agent.run_sync("weather?")
    assert ran == [("Oslo", 2)]
    (ret,) = _tool_returns(result.all_messages())
    assert ret.tool_call_id == "c1"


def test_without_the_capability_the_text_call_is_not_run() -> None:
    # The control: the same reply without toolfix ends the run with the call as text.
    ran: list[tuple[str, int]] = []
    agent = _agent(
        [
            ModelResponse(
                parts=[
                    TextPart('<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}')
                ]
            )
        ],
        ran,
    )
    result = agent.run_sync("weather?")
    assert ran == []
    assert "<tool_call>" in result.output


def test_unrepairable_text_call_goes_through_model_retry() -> None:
    ran: list[tuple[str, int]] = []
    agent = _agent(
        [
            ModelResponse(
                parts=[
                    TextPart(
                        '<tool_call>{"name": "launch_rocket", "arguments": {"x": 1}}</tool_call>'
                    )
                ]
            ),
            ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Lima"})]),
            ModelResponse(parts=[TextPart("ok")]),
        ],
        ran,
        capabilities=[ToolfixCapability()],
    )
    result = agent.run_sync("weather?")
    assert ran == [("Lima", 1)]
    feedback = _feedback(agent.seen[1])  # type: ignore[attr-defined]
    assert len(feedback) == 1
    assert "unknown tool 'launch_rocket'" in feedback[0]
    assert result.output == "ok"


def test_unrepairable_tool_call_part_gets_pydantic_ais_own_retry_prompt() -> None:
    ran: list[tuple[str, int]] = []
    agent = _agent(
        [
            ModelResponse(parts=[ToolCallPart("get_weather", '{"days": 2}', tool_call_id="c9")]),
            ModelResponse(parts=[ToolCallPart("get_weather", json.dumps({"city": "Kyiv"}))]),
            ModelResponse(parts=[TextPart("ok")]),
        ],
        ran,
        capabilities=[ToolfixCapability()],
    )
    agent.run_sync("weather?")
    assert ran == [("Kyiv", 1)]
    feedback = _feedback(agent.seen[1])  # type: ignore[attr-defined]
    assert len(feedback) == 1
    assert feedback[0].startswith("c9: ")
    assert "city" in feedback[0]


def test_plain_answer_is_left_alone() -> None:
    ran: list[tuple[str, int]] = []
    reply = ModelResponse(parts=[TextPart("Paris is in France.")])
    agent = _agent([reply], ran, capabilities=[ToolfixCapability()])
    result = agent.run_sync("where is Paris?")
    assert result.output == "Paris is in France."
    assert result.all_messages()[1].parts == reply.parts


def test_structured_output_written_in_text_uses_the_output_tool() -> None:
    # Output tools are in the registry too: a final_result call in text becomes the output.
    from pydantic import BaseModel

    class City(BaseModel):
        name: str
        population: int

    text = "{'name': 'final_result', 'arguments': {'name': 'Oslo', 'population': '709000'}}"
    replies = [ModelResponse(parts=[TextPart(text)])]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert [t.name for t in info.output_tools] == ["final_result"]
        return replies.pop(0)

    agent = Agent(FunctionModel(model), output_type=City, capabilities=[ToolfixCapability()])
    assert agent.run_sync("Oslo?").output == City(name="Oslo", population=709000)


# ---- reasoning_prefilled from the response's model name (issue 29) ----------------


def _pai(model_name: str, processor: Any = None) -> Any:
    from pydantic_ai import messages as pai
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.tools import ToolDefinition

    from toolfix.integrations.pydantic_ai import repair_model_response

    response = pai.ModelResponse(parts=[pai.TextPart(content=RAW)], model_name=model_name)
    params = ModelRequestParameters(
        function_tools=[ToolDefinition(name="get_weather", parameters_json_schema=SCHEMA)]
    )
    return pai, repair_model_response(response, params, processor)


@pytest.mark.parametrize(
    ("model", "processor", "runs"),
    [
        ("deepseek-r1", None, False),
        ("gpt-4o", None, True),
        ("deepseek-r1", ManualToolCallFixProcessor(config=OFF), True),
    ],
)
async def test_pydantic_ai_reads_the_response_model_name(
    model: str, processor: Any, runs: bool
) -> None:
    pai, pending = _pai(model, processor)
    fixed, unrepaired = await pending
    calls = [(p.tool_name, p.args) for p in fixed.parts if isinstance(p, pai.ToolCallPart)]
    assert unrepaired == []
    assert calls == ([("get_weather", {"city": "Paris"})] if runs else [])
    if not runs:  # the reasoning is kept as a ThinkingPart, the answer as text
        assert [(type(p).__name__, p.content) for p in fixed.parts] == [
            ("ThinkingPart", REASONING),
            ("TextPart", "Which city do you mean?"),
        ]
