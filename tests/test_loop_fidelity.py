"""Loop fidelity over real HTTP (issue 19): provider-executed calls, inline provider
errors, calls of the last allowed step. Every request goes to the local stub server."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Iterator

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

try:
    import litellm  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("litellm is not installed but CI=true", pytrace=False)
    pytest.skip("litellm not installed (pip install '.[litellm]')", allow_module_level=True)

from openai_stub import StubServer, anthropic_message, openai_completion, run_stub_server
from stub_providers import anthropic_web_search, openrouter_inline_error, responses_api_reply

from toolfix import (
    InvalidToolCallPart,
    Message,
    Prompt,
    Response,
    StepLoop,
    ToolCallPart,
    ToolfixError,
    ToolRegistry,
    run_tool_calls,
)
from toolfix._pipeline.litellm import LiteLLMExecutor
from toolfix.errors import ExecutorError, ProviderRateLimitError
from toolfix.loop import run_tool_calls_sync
from toolfix.messages import ToolChoice

pytestmark = pytest.mark.integration


@pytest.fixture
def stub() -> Iterator[StubServer]:
    yield from run_stub_server()


def lookup(city: str) -> str:
    """Look up the local weather station.

    Args:
        city: City name.
    """
    return f"station data for {city}"


async def test_anthropic_server_tool_call_is_not_run_locally_and_is_replayed(
    stub: StubServer,
) -> None:
    ran: list[str] = []

    def web_search(query: str) -> str:
        """Search the web (a local tool with the server tool's name).

        Args:
            query: The query.
        """
        ran.append(query)
        return "local results"

    stub.reply(
        anthropic_message(
            [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"city": "Paris"}},
            ],
            stop_reason="tool_use",
        )
    )
    stub.reply(anthropic_web_search("paris weather", "Sunny, 21°C."))
    stub.reply(anthropic_message([{"type": "text", "text": "Done."}]))
    loop = StepLoop(
        LiteLLMExecutor(api_base=stub.base_url, api_key="sk-test"),
        [lookup, web_search],
        model="anthropic/claude-test",
    )
    result = await loop.run("Weather in Paris?")
    assert ran == []  # the provider ran its own search
    assert result.stopped_reason == "answer"
    assert len(result.steps) == 2
    (server_call,) = result.steps[1].tool_calls
    assert (server_call.id, server_call.provider_executed) == ("srvtoolu_01", True)
    assert result.steps[1].tool_results == ()
    assert result.final_text == "Searching. Sunny, 21°C."

    # replay: a follow-up turn sends the provider's call and its result back
    follow = Prompt(messages=(*result.messages, Message.user("And tomorrow?")))
    await loop.executor.execute(follow, "anthropic/claude-test", loop.registry)
    sent = stub.requests[2].body["messages"]
    assistant = [m for m in sent if m["role"] == "assistant"][-1]
    types = [b["type"] for b in assistant["content"]]
    assert "server_tool_use" in types
    assert "web_search_tool_result" in types
    (use,) = [b for b in assistant["content"] if b["type"] == "server_tool_use"]
    assert (use["id"], use["name"], use["input"]) == (
        "srvtoolu_01",
        "web_search",
        {"query": "paris weather"},
    )
    assert "tool_use" not in types  # not turned into a call the client must answer


async def test_openrouter_inline_error_raises_typed_error_and_keeps_the_run(
    stub: StubServer,
) -> None:
    stub.reply(
        openai_completion(None, [{"id": "c1", "name": "lookup", "arguments": '{"city": "Oslo"}'}])
    )
    stub.reply(openrouter_inline_error("Upstream overloaded", code=502, provider="Fireworks"))
    loop = StepLoop(
        LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test"),
        [lookup],
        model="openai/router-model",
    )
    with pytest.raises(ExecutorError) as info:
        await loop.run("Weather in Oslo?")
    err = info.value
    assert isinstance(err, ToolfixError)
    assert err.status_code == 502
    assert err.provider == "Fireworks"
    assert "Upstream overloaded" in str(err)
    partial = err.partial_result
    assert partial is not None
    assert partial.stopped_reason == "error"
    assert [r.content for r in partial.tool_results] == ["station data for Oslo"]
    assert [m.role for m in partial.messages] == ["user", "assistant", "tool"]


async def test_inline_error_from_one_call_is_typed(stub: StubServer) -> None:
    stub.reply(openrouter_inline_error("Rate limited upstream", code=429, provider="Together"))
    ex = LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test")
    with pytest.raises(ProviderRateLimitError) as info:
        await ex.execute(Prompt.of("hi"), "openai/router-model")
    assert (info.value.status_code, info.value.provider) == (429, "Together")


# ---- run_tool_calls: the loop's tool step without the loop ----------------------------------


def scale(factor: int, value: int, unit: str = "m") -> str:
    """Scale a value.

    Args:
        factor: Multiplier.
        value: The value.
        unit: Unit of the result.
    """
    return f"{factor * value}{unit}"


def test_run_tool_calls_accepts_partial_tools_and_keeps_call_order() -> None:
    double = functools.partial(scale, 2)
    in_cm = functools.partial(scale, unit="cm")
    registry = ToolRegistry.of([double])
    (tool,) = registry.descriptors
    assert tool.name == "scale"
    assert tool.description == "Scale a value."
    assert set(tool.parameters["properties"]) == {"value", "unit"}

    response = Response(
        parts=(
            ToolCallPart.create("scale", {"value": 21}, id="c1"),
            ToolCallPart.create("nope", {}, id="c2"),
            InvalidToolCallPart(raw="<call>scale(", error="truncated", kind="malformed", id="c3"),
            ToolCallPart.create("scale", {"value": 1}, id="c4").model_copy(
                update={"provider_executed": True}
            ),
        )
    )
    runs = run_tool_calls_sync(response, [double])
    assert [(r.call_id, r.is_error) for r in runs] == [("c1", False), ("c2", True), ("c3", True)]
    assert runs[0].content == "42m"
    assert runs[1].error_type == "unknown_tool"

    (cm,) = ToolRegistry.of([in_cm]).descriptors
    assert set(cm.parameters["properties"]) == {"factor", "value"}  # unit is fixed
    (run,) = run_tool_calls_sync(
        [ToolCallPart.create("scale", {"factor": 3, "value": 2}, id="x")], [in_cm]
    )
    assert run.content == "6cm"
    assert run.to_message().parts[0].tool_call_id == "x"


async def test_run_tool_calls_runs_async_partials_and_times_out() -> None:
    async def slow(delay: float, label: str) -> str:
        """Sleep.

        Args:
            delay: Seconds.
            label: Label.
        """
        await asyncio.sleep(delay)
        return label

    runs = await run_tool_calls(
        [
            ToolCallPart.create("slow", {"delay": 0, "label": "fast"}, id="a"),
            ToolCallPart.create("slow", {"delay": 30, "label": "never"}, id="b"),
        ],
        [functools.partial(slow)],
        timeout=1,
    )
    assert runs[0].content == "fast"
    assert runs[1].error_type == "timeout"


async def test_two_call_recipe_over_http(stub: StubServer) -> None:
    stub.reply(
        openai_completion(None, [{"id": "c1", "name": "lookup", "arguments": '{"city": "Rome"}'}])
    )
    stub.reply(openai_completion("Rome: station data."))
    ex = LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test")
    prompt = Prompt.of("Weather in Rome?").model_copy(update={"tool_choice": ToolChoice.required()})
    (first,) = await ex.execute(prompt, "openai/m", [lookup])
    runs = await run_tool_calls(first, [lookup])
    follow = prompt.with_messages(first.to_message(), *(r.to_message() for r in runs))
    follow = follow.model_copy(update={"tool_choice": ToolChoice.none()})
    (answer,) = await ex.execute(follow, "openai/m", [lookup])
    assert answer.text == "Rome: station data."
    sent = stub.requests[1].body["messages"]
    assert sent[-1] == {"role": "tool", "tool_call_id": "c1", "content": "station data for Rome"}
    assert stub.requests[1].body["tool_choice"] == "none"


# ---- previous_response_id on the wire (Responses API) ---------------------------------------


async def test_responses_api_continuation_sends_previous_response_id_and_new_items(
    stub: StubServer,
) -> None:
    stub.reply(responses_api_reply("resp_1", calls=[("call_1", "lookup", '{"city": "Lima"}')]))
    stub.reply(responses_api_reply("resp_2", text="Lima: station data."))
    loop = StepLoop(
        LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test", api="responses"),
        [lookup],
        model="openai/test-model",
    )
    result = await loop.run("Weather in Lima?")
    assert result.stopped_reason == "answer"
    assert result.final_text == "Lima: station data."
    assert [r.content for r in result.tool_results] == ["station data for Lima"]

    first, second = (r.body for r in stub.requests)
    assert all(r.path.endswith("/responses") for r in stub.requests)
    assert "previous_response_id" not in first
    assert first["input"] == [{"role": "user", "content": "Weather in Lima?"}]
    assert first["tools"][0]["name"] == "lookup"
    assert second["previous_response_id"] == "resp_1"
    assert second["input"] == [
        {"type": "function_call_output", "call_id": "call_1", "output": "station data for Lima"}
    ]


async def test_chat_completions_resend_the_whole_history(stub: StubServer) -> None:
    stub.reply(
        openai_completion(None, [{"id": "c1", "name": "lookup", "arguments": '{"city": "Kyiv"}'}])
    )
    stub.reply(openai_completion("Kyiv: station data."))
    loop = StepLoop(
        LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test"),
        [lookup],
        model="openai/test-model",
    )
    await loop.run("Weather in Kyiv?")
    second = stub.requests[1].body
    assert "previous_response_id" not in second
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]
