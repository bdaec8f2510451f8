"""OpenAI Agents SDK adapter: a real Agent and Runner, the model served by the local stub."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI
from openai.types.responses import ResponseFunctionToolCall
from openai_stub import StubServer, openai_completion, run_stub_server

from toolfix.integrations.openai_agents import ToolfixModel

TEXT_CALL = (
    "Let me check.\n<tool_call>\n"
    "{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '3',}}"
)


@pytest.fixture
def stub() -> Iterator[StubServer]:
    set_tracing_disabled(True)
    yield from run_stub_server()


def _agent(stub: StubServer, ran: list[tuple[str, int]], *, toolfix: bool = True) -> Agent[Any]:
    @function_tool
    def get_weather(city: str, days: int = 1) -> str:
        """Weather forecast for a city."""
        ran.append((city, days))
        return f"sunny in {city} for {days} days"

    client = AsyncOpenAI(base_url=stub.openai_base, api_key="sk-test", max_retries=0)
    model: Any = OpenAIChatCompletionsModel(model="weak-model", openai_client=client)
    return Agent(
        name="weather",
        instructions="Answer weather questions.",
        model=ToolfixModel(model) if toolfix else model,
        tools=[get_weather],
    )


def _tool_outputs(stub: StubServer) -> list[dict[str, Any]]:
    """The tool results the agent sent back to the model, from the recorded requests."""
    return [m for r in stub.requests for m in r.body.get("messages", []) if m.get("role") == "tool"]


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(openai_completion(TEXT_CALL), id="call-in-text"),
        pytest.param(
            openai_completion(
                None,
                [
                    {
                        "id": "c1",
                        "name": "get_weather",
                        "arguments": "{'city': 'Paris', 'days': '3',}",
                    }
                ],
            ),
            id="broken-json",
        ),
    ],
)
async def test_agent_runs_the_right_tool(stub: StubServer, reply: dict[str, Any]) -> None:
    ran: list[tuple[str, int]] = []
    stub.reply(reply).reply(openai_completion("Sunny in Paris."))
    result = await Runner.run(_agent(stub, ran), "Weather in Paris for 3 days?")
    assert ran == [("Paris", 3)]
    assert result.final_output == "Sunny in Paris."
    (out,) = _tool_outputs(stub)
    assert out["content"] == "sunny in Paris for 3 days"
    calls = [
        i.raw_item for i in result.new_items if isinstance(i.raw_item, ResponseFunctionToolCall)
    ]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
    assert out["tool_call_id"] == calls[0].call_id
    tools = stub.requests[0].body["tools"]
    assert [t["function"]["name"] for t in tools] == ["get_weather"]


async def test_without_the_wrapper_the_text_call_is_not_run(stub: StubServer) -> None:
    ran: list[tuple[str, int]] = []
    stub.reply(openai_completion(TEXT_CALL))
    result = await Runner.run(_agent(stub, ran, toolfix=False), "Weather?")
    assert ran == []
    assert "<tool_call>" in result.final_output


async def test_unrepairable_call_in_text_stays_text(stub: StubServer) -> None:
    ran: list[tuple[str, int]] = []
    text = '<tool_call>{"name": "launch_rocket", "arguments": {"x": 1}}</tool_call>'
    stub.reply(openai_completion(text))
    result = await Runner.run(_agent(stub, ran), "go")
    assert ran == []
    assert result.final_output == text


async def test_plain_answer_passes_through(stub: StubServer) -> None:
    ran: list[tuple[str, int]] = []
    stub.reply(openai_completion("Paris is in France."))
    result = await Runner.run(_agent(stub, ran), "where is Paris?")
    assert result.final_output == "Paris is in France."
    assert len(stub.requests) == 1


def test_sync_runner(stub: StubServer) -> None:
    ran: list[tuple[str, int]] = []
    stub.reply(openai_completion(TEXT_CALL)).reply(openai_completion("ok"))
    Runner.run_sync(_agent(stub, ran), "Weather in Paris for 3 days?")
    assert ran == [("Paris", 3)]


def test_stream_response_forwards_every_argument_unchanged() -> None:
    """Streaming passes through: the wrapped model gets exactly the arguments given."""
    seen: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    stream = object()

    class Inner:
        def stream_response(self, *args: Any, **kwargs: Any) -> object:
            seen.append((args, kwargs))
            return stream

    args = ("sys", "hi", "settings", ["tool"], None, ["handoff"], "tracing")
    kwargs = {"previous_response_id": "r1", "conversation_id": None, "prompt": None}
    wrapped = ToolfixModel(Inner())  # type: ignore[arg-type]
    assert wrapped.stream_response(*args, **kwargs) is stream
    assert seen == [(args, kwargs)]


# ---- strict schemas (the SDK's default @function_tool; issue 29) ------------------------


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(
            openai_completion(
                None, [{"id": "c1", "name": "get_weather", "arguments": "{'city': 'Paris',}"}]
            ),
            id="broken-json-days-omitted",
        ),
        pytest.param(
            openai_completion("<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris'}}"),
            id="text-call-days-omitted",
        ),
    ],
)
async def test_strict_tool_with_an_omitted_defaulted_argument_runs(
    stub: StubServer, reply: dict[str, Any]
) -> None:
    ran: list[tuple[str, int]] = []
    stub.reply(reply).reply(openai_completion("Sunny."))
    agent = _agent(stub, ran)
    [tool] = agent.tools
    assert tool.strict_json_schema  # the SDK's default: every property required
    assert tool.params_json_schema["required"] == ["city", "days"]
    result = await Runner.run(agent, "Weather in Paris?")
    assert ran == [("Paris", 1)]
    assert result.final_output == "Sunny."
    calls = [
        i.raw_item for i in result.new_items if isinstance(i.raw_item, ResponseFunctionToolCall)
    ]
    assert [json.loads(c.arguments) for c in calls] == [{"city": "Paris", "days": 1}]


async def test_without_the_wrapper_broken_json_with_an_omitted_argument_fails(
    stub: StubServer,
) -> None:
    ran: list[tuple[str, int]] = []
    bad = [{"id": "c1", "name": "get_weather", "arguments": "{'city': 'Paris',}"}]
    stub.reply(openai_completion(None, bad)).reply(openai_completion("gave up"))
    await Runner.run(_agent(stub, ran, toolfix=False), "Weather in Paris?")
    assert ran == []  # the SDK could not parse the arguments: the tool never ran


async def test_nullable_strict_argument_takes_null(stub: StubServer) -> None:
    ran: list[Any] = []

    @function_tool
    def lookup(city: str, unit: str | None = None) -> str:
        """Look a city up."""
        ran.append((city, unit))
        return "ok"

    client = AsyncOpenAI(base_url=stub.openai_base, api_key="sk-test", max_retries=0)
    model: Any = OpenAIChatCompletionsModel(model="weak-model", openai_client=client)
    agent = Agent(name="a", model=ToolfixModel(model), tools=[lookup])
    assert lookup.params_json_schema["required"] == ["city", "unit"]
    assert "default" not in lookup.params_json_schema["properties"]["unit"]
    text = "<tool_call>{'name': 'lookup', 'arguments': {'city': 'Oslo',}}</tool_call>"
    stub.reply(openai_completion(text)).reply(openai_completion("done"))
    await Runner.run(agent, "look up Oslo")
    assert ran == [("Oslo", None)]
