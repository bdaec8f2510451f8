"""LiteLLMExecutor end to end over real HTTP, against a scripted server on 127.0.0.1.

No test reaches a hosted API: every request goes to the stub in tests/openai_stub.py.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

try:
    import litellm  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(
            'litellm is not installed but CI=true: install the extra, pip install ".[litellm]"',
            pytrace=False,
        )
    pytest.skip("litellm not installed (pip install '.[litellm]')", allow_module_level=True)

from openai_stub import (
    StubServer,
    anthropic_message,
    openai_completion,
    openai_error,
    run_stub_server,
)

from toolfix import ManualToolCallFixProcessor, Message, Prompt, ToolRegistry
from toolfix._llm import LLMBasedToolCallFixProcessor, build_llm_processor, llm_calls_of
from toolfix._pipeline.litellm import LiteLLMExecutor
from toolfix.errors import (
    ContextLengthExceededError,
    ExecutorError,
    ProviderAuthenticationError,
    ProviderRateLimitError,
    ProviderTimeoutError,
)
from toolfix.messages import ReasoningPart, ToolChoice

pytestmark = pytest.mark.integration

TOOLS = ToolRegistry.from_openai(
    [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather in a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                    "required": ["city"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "search_web",
                "description": "Search the web",
                "parameters": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}},
                    "required": ["query"],
                },
            },
        },
    ]
)
MODEL = "openai/test-model"
PROMPT = Prompt.of("What's the weather in Paris for 3 days?")


@pytest.fixture
def stub() -> Iterator[StubServer]:
    yield from run_stub_server()


def executor(stub: StubServer, **kw: Any) -> LiteLLMExecutor:
    return LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test", **kw)


def calls(r: Any) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in r.tool_calls]


def test_import_toolfix_does_not_import_litellm() -> None:
    import subprocess

    code = "import sys, toolfix, toolfix._pipeline.litellm; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_call_in_content_recovered_by_manual_fixer(stub: StubServer) -> None:
    stub.reply(
        openai_completion(
            'Sure.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}'
            "</tool_call>"
        )
    )
    ex = executor(stub).with_processor(ManualToolCallFixProcessor())
    prompt = PROMPT.model_copy(update={"tool_choice": ToolChoice.required()})
    (out,) = await ex.execute(prompt, MODEL, TOOLS)
    assert calls(out) == [("get_weather", {"city": "Paris", "days": 3})]
    assert out.text.strip() == "Sure."
    (req,) = stub.requests
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert req.body["model"] == "test-model"
    assert [t["function"]["name"] for t in req.body["tools"]] == ["get_weather", "search_web"]
    assert req.body["tool_choice"] == "required"
    assert req.body["messages"] == [
        {"role": "user", "content": "What's the weather in Paris for 3 days?"}
    ]


async def test_broken_arguments_fixed_by_llm_over_http(stub: StubServer) -> None:
    stub.reply(
        openai_completion(
            None, [{"id": "call_a", "name": "get_weather", "arguments": "city: Paris, days 3"}]
        )
    )
    stub.reply(
        openai_completion(
            None,
            [{"id": "call_b", "name": "get_weather", "arguments": '{"city": "Paris", "days": 3}'}],
            prompt_tokens=50,
            completion_tokens=9,
        )
    )
    ex = executor(stub).with_processor(LLMBasedToolCallFixProcessor(max_retries=2))
    (out,) = await ex.execute(PROMPT, MODEL, TOOLS)
    assert calls(out) == [("get_weather", {"city": "Paris", "days": 3})]
    assert out.tool_calls[0].id == "call_a"
    assert llm_calls_of(out) == 1
    rec = next(r for r in out.repairs if r.kind == "llm_fix")
    assert rec.usage is not None
    assert (rec.usage.input_tokens, rec.usage.output_tokens) == (50, 9)
    first, second = stub.requests
    assert "tool_choice" not in first.body
    assert second.body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert [t["function"]["name"] for t in second.body["tools"]] == ["get_weather", "search_web"]
    msgs = second.body["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert "Reply with corrected tool calls only" in msgs[0]["content"]  # the fix system text
    assert "city: Paris, days 3" in msgs[2]["content"]
    assert "could not be parsed" in msgs[3]["content"]


async def test_intent_only_message_over_http(stub: StubServer) -> None:
    stub.reply(openai_completion("Let me look up the weather in Paris."))
    stub.reply(openai_completion("yes"))
    stub.reply(openai_completion(None, [{"name": "get_weather", "arguments": '{"city": "Paris"}'}]))
    ex = executor(stub).with_processor(LLMBasedToolCallFixProcessor())
    (out,) = await ex.execute(PROMPT, MODEL, TOOLS)
    assert calls(out) == [("get_weather", {"city": "Paris"})]
    assert len(stub.requests) == 3
    assert "tool_choice" not in stub.requests[1].body  # the intent question only asks:
    assert "tools" not in stub.requests[1].body  # no tools, no tool choice
    assert stub.requests[2].body["tool_choice"] == "required"


async def test_response_metadata_mapped(stub: StubServer) -> None:
    stub.reply(
        openai_completion(
            "It is sunny.",
            reasoning_content="The user wants weather.",
            id="chatcmpl-42",
            finish_reason="stop",
        )
    )
    (out,) = await executor(stub).execute(PROMPT, MODEL, TOOLS)
    assert out.text == "It is sunny."
    assert out.reasoning == "The user wants weather."
    assert out.id == "chatcmpl-42"
    assert out.finish_reason == "stop"
    assert out.usage is not None
    assert (out.usage.input_tokens, out.usage.output_tokens, out.usage.requests) == (11, 7, 1)


async def test_raw_argument_string_kept_and_named_choice_mapped(stub: StubServer) -> None:
    raw = '{"query":  "paris"}'
    stub.reply(openai_completion(None, [{"id": "c1", "name": "search_web", "arguments": raw}]))
    prompt = PROMPT.model_copy(update={"tool_choice": ToolChoice.named("search_web")})
    (out,) = await executor(stub).execute(prompt, MODEL, TOOLS)
    assert out.tool_calls[0].arguments_raw == raw
    assert stub.requests[0].body["tool_choice"] == {
        "type": "function",
        "function": {"name": "search_web"},
    }


async def test_params_and_provider_options_sent(stub: StubServer) -> None:
    stub.reply(openai_completion("ok"))
    ex = executor(stub, temperature=0.5, max_tokens=10)
    prompt = Prompt.of("hi", temperature=0.1)
    await ex.execute(prompt, MODEL, None)
    body = stub.requests[0].body
    assert body["temperature"] == 0.1
    assert body["max_tokens"] == 10
    assert "tools" not in body


async def test_anthropic_thinking_signature_preserved_and_replayed(stub: StubServer) -> None:
    stub.reply(
        anthropic_message(
            [
                {"type": "thinking", "thinking": "Need the weather.", "signature": "c2lnLTEyMw=="},
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
            ],
            stop_reason="tool_use",
        )
    )
    stub.reply(anthropic_message([{"type": "text", "text": "Sunny, 21°C."}]))
    ex = LiteLLMExecutor(api_base=stub.base_url, api_key="sk-test")
    (first,) = await ex.execute(PROMPT, "anthropic/claude-test", TOOLS)
    (thinking,) = [p for p in first.parts if isinstance(p, ReasoningPart)]
    assert (thinking.text, thinking.signature) == ("Need the weather.", "c2lnLTEyMw==")
    assert calls(first) == [("get_weather", {"city": "Paris"})]
    follow = PROMPT.with_messages(
        first.to_message(), Message.tool_result("toolu_1", "get_weather", "sunny, 21C")
    )
    (second,) = await ex.execute(follow, "anthropic/claude-test", TOOLS)
    assert second.text == "Sunny, 21°C."
    req = stub.requests[1]
    assert req.path == "/v1/messages"
    assistant = req.body["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "Need the weather.",
        "signature": "c2lnLTEyMw==",
    }
    assert assistant["content"][2]["type"] == "tool_use"
    assert req.body["messages"][2]["content"][0]["tool_use_id"] == "toolu_1"
    assert stub.requests[0].body["tools"][0]["name"] == "get_weather"


@pytest.mark.parametrize(
    ("status", "body", "error", "exact"),
    [
        (401, openai_error("bad key", code="invalid_api_key"), ProviderAuthenticationError, True),
        (429, openai_error("slow down", type="rate_limit_exceeded"), ProviderRateLimitError, True),
        (
            400,
            openai_error(
                "This model's maximum context length is 8192 tokens. However, your messages "
                "resulted in 9000 tokens.",
                code="context_length_exceeded",
            ),
            ContextLengthExceededError,
            True,
        ),
        (400, openai_error("unsupported parameter"), ExecutorError, True),
    ],
)
async def test_provider_errors_are_typed(
    stub: StubServer, status: int, body: dict[str, Any], error: type[Exception], exact: bool
) -> None:
    stub.reply(body, status)
    with pytest.raises(ExecutorError) as info:
        await executor(stub).execute(PROMPT, MODEL, TOOLS)
    assert type(info.value) is error
    assert info.value.status_code == status
    assert info.value.provider == "openai"
    assert len(stub.requests) == 1


async def test_timeout_is_typed(stub: StubServer) -> None:
    stub.reply({**openai_completion("late"), "__delay__": 1.5})
    with pytest.raises(ProviderTimeoutError):
        await executor(stub, timeout=0.3).execute(PROMPT, MODEL, TOOLS)


async def test_cli_builder_repairs_a_saved_response(stub: StubServer) -> None:
    from toolfix.convert import response_from_openai

    stub.reply(openai_completion(None, [{"name": "search_web", "arguments": '{"query": "paris"}'}]))
    proc = build_llm_processor(MODEL, stub.openai_base, 1, api_key="sk-test")
    saved = response_from_openai(
        {
            "content": None,
            "tool_calls": [{"id": "c", "function": {"name": "serch", "arguments": "{}"}}],
        }
    )
    (out,) = await proc.process(None, Prompt(), MODEL, TOOLS, [saved])
    assert calls(out) == [("search_web", {"query": "paris"})]
    assert llm_calls_of(out) == 1
    assert json.loads(json.dumps(out.repairs[-1].as_dict()))["llm_calls"] == 1


async def test_anthropic_redacted_thinking_replayed(stub: StubServer) -> None:
    stub.reply(
        anthropic_message(
            [
                {"type": "redacted_thinking", "data": "ENCRYPTED=="},
                {"type": "text", "text": "Done."},
            ]
        )
    )
    stub.reply(anthropic_message([{"type": "text", "text": "Again."}]))
    ex = LiteLLMExecutor(api_base=stub.base_url, api_key="sk-test")
    (first,) = await ex.execute(PROMPT, "anthropic/claude-test", TOOLS)
    (redacted,) = [p for p in first.parts if isinstance(p, ReasoningPart)]
    assert redacted.redacted
    await ex.execute(
        PROMPT.with_messages(first.to_message(), Message.user("more")),
        "anthropic/claude-test",
        TOOLS,
    )
    assistant = stub.requests[1].body["messages"][1]
    assert assistant["content"][0] == {"type": "redacted_thinking", "data": "ENCRYPTED=="}


def test_cli_repair_with_llm_over_http(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """`toolfix repair --jsonl - --llm MODEL --api-base URL` spends and reports LLM calls."""
    from typer.testing import CliRunner

    from toolfix._cli import app

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    stub.reply(openai_completion(None, [{"name": "search_web", "arguments": '{"query": "paris"}'}]))
    broken = {
        "id": "needs-llm",
        "tools": TOOLS.to_openai(),
        "response": {
            "content": None,
            "tool_calls": [{"id": "c1", "function": {"name": "serch", "arguments": "{}"}}],
        },
    }
    valid = {
        "id": "already-valid",
        "tools": TOOLS.to_openai(),
        "response": {
            "content": None,
            "tool_calls": [
                {"id": "c2", "function": {"name": "search_web", "arguments": '{"query": "x"}'}}
            ],
        },
    }
    args = ["repair", "--jsonl", "-", "--llm", MODEL, "--api-base", stub.openai_base]
    args += ["--max-retries", "1"]
    lines = json.dumps(broken) + "\n" + json.dumps(valid) + "\n"
    result = CliRunner().invoke(app, args, input=lines)
    assert result.exit_code == 0, result.output
    first, second = (json.loads(x) for x in result.stdout.splitlines())
    assert first["id"] == "needs-llm"
    assert [(c["name"], c["arguments"]) for c in first["tool_calls"]] == [
        ("search_web", {"query": "paris"})
    ]
    assert first["llm_calls"] == 1
    assert second["llm_calls"] == 0  # a valid call costs no LLM call (promise 8)
    assert len(stub.requests) == 1
