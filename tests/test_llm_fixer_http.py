"""The LLM fixer over real HTTP against a server that ignores ``tool_choice``.

Many local servers answer every request that carries tools with a call, even with
``tool_choice: "none"``. The intent question must therefore go out with no tools:
plain answers get no call, an intent-only message gets its call in two LLM calls
(the question and one fix call). Everything runs through ``LiteLLMExecutor``
against ``tests/stub_noncompliant.py`` on 127.0.0.1.
"""

from __future__ import annotations

import os
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

from openai_stub import openai_completion
from stub_noncompliant import NoncompliantServer, run_noncompliant_server

from toolfix import LiteLLMExecutor, LLMBasedToolCallFixProcessor, Prompt, Response, ToolRegistry
from toolfix._llm import llm_calls_of
from toolfix.messages import ToolChoice

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
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
    ]
)
MODEL = "openai/local-model"
JOKE = Prompt.of("Tell me a joke")
WEATHER = Prompt.of("What's the weather in Paris?")
MARKUP_ROME = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'


@pytest.fixture
def server() -> Iterator[NoncompliantServer]:
    yield from run_noncompliant_server()


def executor(server: NoncompliantServer) -> LiteLLMExecutor:
    return LiteLLMExecutor(api_base=server.openai_base, api_key="sk-test")


def calls(r: Response) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in r.tool_calls]


def fixer_record(r: Response) -> str:
    return next(x.detail for x in r.repairs if x.kind == "llm_fix")


async def test_the_server_ignores_tool_choice_none(server: NoncompliantServer) -> None:
    """The premise: with tools attached, even tool_choice none gets a call back."""
    prompt = JOKE.model_copy(update={"tool_choice": ToolChoice.none()})
    (out,) = await executor(server).execute(prompt, MODEL, TOOLS)
    assert calls(out) == [("get_weather", {"city": "Paris"})]
    assert server.requests[0].body["tool_choice"] == "none"


async def test_plain_answer_without_a_sign_spends_nothing(server: NoncompliantServer) -> None:
    server.reply(openai_completion("Why don't skeletons fight? They don't have the guts."))
    agent = executor(server).with_processor(LLMBasedToolCallFixProcessor())
    (out,) = await agent.execute(JOKE, MODEL, TOOLS)
    assert out.tool_calls == []
    assert out.text.startswith("Why don't skeletons fight?")
    assert len(server.requests) == 1
    assert llm_calls_of(out) == 0


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("No.", "intent question: no"),
        ("Sure! Here is another one.", "counted as no"),
        (f"No. {MARKUP_ROME}", "intent question: no"),
        (MARKUP_ROME, "counted as no"),
    ],
)
async def test_plain_answer_that_trips_the_precheck_gets_no_call(
    server: NoncompliantServer, answer: str, said: str
) -> None:
    server.reply(openai_completion("Let me tell you one: the scarecrow was outstanding."))
    server.answer = answer
    agent = executor(server).with_processor(LLMBasedToolCallFixProcessor())
    (out,) = await agent.execute(JOKE, MODEL, TOOLS)
    assert out.tool_calls == []
    assert out.invalid_tool_calls == []
    assert out.text == "Let me tell you one: the scarecrow was outstanding."
    assert llm_calls_of(out) == 1
    assert said in fixer_record(out)
    question = server.requests[1].body
    assert "tools" not in question
    assert "tool_choice" not in question
    assert question["messages"][-1]["content"].endswith("Answer with exactly one word: yes or no.")
    assert server.served == ["scripted", "text"]


@pytest.mark.parametrize("answer", ["Yes.", f"Yes. {MARKUP_ROME}", f"**yes**\n{MARKUP_ROME}"])
async def test_intent_only_gets_the_intended_call_in_two_llm_calls(
    server: NoncompliantServer, answer: str
) -> None:
    server.reply(openai_completion("Let me check the weather in Paris."))
    server.answer = answer
    agent = executor(server).with_processor(LLMBasedToolCallFixProcessor())
    (out,) = await agent.execute(WEATHER, MODEL, TOOLS)
    assert calls(out) == [("get_weather", {"city": "Paris"})]  # never Rome, from the markup
    assert out.tool_calls[0].repairs[-1].kind == "intent_only"
    assert out.text == "Let me check the weather in Paris."
    assert llm_calls_of(out) == 2
    assert len(server.requests) == 3
    question, fix = server.requests[1].body, server.requests[2].body
    assert "tools" not in question
    assert "tool_choice" not in question
    assert [t["function"]["name"] for t in fix["tools"]] == ["get_weather"]
    assert fix["tool_choice"] == "required"
    assert "made no tool call" in fix["messages"][-1]["content"]
    assert server.served == ["scripted", "text", "call"]
    assert fixer_record(out).startswith("pre-check: ")
    assert "intent question: yes" in fixer_record(out)


async def test_single_response_given_to_process(server: NoncompliantServer) -> None:
    fixer = LLMBasedToolCallFixProcessor()
    given = Response.text_only("Let me check the weather in Paris.")
    out = await fixer.process(executor(server), WEATHER, MODEL, TOOLS, given)
    assert isinstance(out, Response)  # one response given: one back
    assert calls(out) == [("get_weather", {"city": "Paris"})]
    assert len(server.requests) == 2
