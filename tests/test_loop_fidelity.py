"""Loop fidelity over real HTTP (issue 19): provider-executed calls, inline provider
errors, calls of the last allowed step. Every request goes to the local stub server."""

from __future__ import annotations

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
from stub_providers import anthropic_web_search, openrouter_inline_error

from toolfix import (
    ExecutorError,
    Message,
    Prompt,
    ProviderRateLimitError,
    StepLoop,
    ToolfixError,
)
from toolfix._litellm import LiteLLMExecutor

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
