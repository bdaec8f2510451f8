"""Koog's documented use cases 1-3, line by line, over HTTP against a local server that
ignores ``tool_choice`` (tests/stub_noncompliant.py), and the fix-request transcripts
shown in docs/koog.md, regenerated from the fixer.

Koog's module documentation (prompt/prompt-processor/Module.md in JetBrains/koog):
1. ``ManualToolCallFixProcessor(toolRegistry)`` with ``executor.executeProcessed``;
2. the same with a ``ToolCallJsonConfig`` extending the default key lists;
3. ``ManualToolCallFixProcessor(toolRegistry) + LLMBasedToolCallFixProcessor(toolRegistry)``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from openai_stub import openai_completion
from stub_noncompliant import NoncompliantServer, run_noncompliant_server

from toolfix import (
    LiteLLMExecutor,
    LLMBasedToolCallFixProcessor,
    ManualToolCallFixProcessor,
    Message,
    Prompt,
    Response,
    ToolRegistry,
    as_response,
)
from toolfix.config import ToolCallJsonConfig
from toolfix.testing import ScriptedExecutor

pytestmark = pytest.mark.integration

DOC = Path(__file__).resolve().parent.parent / "docs" / "koog.md"
MODEL = "openai/local-model"


def get_weather(city: str, days: int = 1) -> str:
    """Weather forecast for a city."""
    return f"Sunny in {city}"


def search_web(query: str) -> str:
    """Search the web."""
    return "results"


tool_registry = ToolRegistry.from_functions(get_weather, search_web)
prompt = Prompt.of("Weather in Paris?")


@pytest.fixture
def server() -> Iterator[NoncompliantServer]:
    yield from run_noncompliant_server()


def executor_for(server: NoncompliantServer) -> LiteLLMExecutor:
    return LiteLLMExecutor(api_base=server.openai_base, api_key="sk-local")


def calls(r: Response) -> list[tuple[str | None, str, dict[str, Any] | None]]:
    return [(c.id, c.name, c.arguments) for c in r.tool_calls]


# ---- use case 1 -------------------------------------------------------------------------------


async def test_use_case_1_manual_fixer(server: NoncompliantServer) -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    server.reply(openai_completion(text))
    executor = executor_for(server)
    # val processor = ManualToolCallFixProcessor(toolRegistry)
    processor = ManualToolCallFixProcessor(tool_registry)
    # val responses = executor.executeProcessed(prompt, model, tools, processor)
    responses = await executor.with_processor(processor).execute(prompt, MODEL, tool_registry)
    [response] = responses
    assert [(n, a) for _, n, a in calls(response)] == [("get_weather", {"city": "Paris"})]
    assert response.text == ""
    assert len(server.requests) == 1  # the manual fixer never calls the model


# ---- use case 2 -------------------------------------------------------------------------------


async def test_use_case_2_custom_json_keys(server: NoncompliantServer) -> None:
    text = '{"custom_id": "w1", "function_name": "get_weather", "function_args": {"city": "Oslo"}}'
    server.reply(openai_completion(text))
    server.reply(openai_completion(text))
    executor = executor_for(server)
    # val customConfig = ToolCallJsonConfig(
    #     idJsonKeys = ToolCallJsonConfig.defaultIdJsonKeys + listOf("custom_id"), ...
    custom_config = ToolCallJsonConfig(
        id_keys=(*ToolCallJsonConfig.DEFAULT_ID_KEYS, "custom_id"),
        name_keys=(*ToolCallJsonConfig.DEFAULT_NAME_KEYS, "function_name"),
        argument_keys=(*ToolCallJsonConfig.DEFAULT_ARGUMENT_KEYS, "function_args"),
    )
    # val processor = ManualToolCallFixProcessor(toolRegistry, customConfig)
    processor = ManualToolCallFixProcessor(tool_registry, custom_config)
    [response] = await executor.with_processor(processor).execute(prompt, MODEL, tool_registry)
    assert calls(response) == [("w1", "get_weather", {"city": "Oslo"})]
    # the default keys alone do not read this call: the custom keys did the work
    [plain] = await executor.with_processor(ManualToolCallFixProcessor(tool_registry)).execute(
        prompt, MODEL, tool_registry
    )
    assert plain.tool_calls == []


# ---- use case 3 -------------------------------------------------------------------------------


@pytest.mark.parametrize("announced", ["Now I have to do that.", "Computing the sum now."])
async def test_use_case_3_chained_fixers(server: NoncompliantServer, announced: str) -> None:
    server.reply(openai_completion(announced))  # the model's answer: an intent, no call
    # then the server answers as it always does: a text without tools, a call with tools
    server.answer = "Yes."
    server.call = ("get_weather", {"city": "Paris"})
    executor = executor_for(server)
    # val processor1 = ManualToolCallFixProcessor(toolRegistry)
    processor1 = ManualToolCallFixProcessor(tool_registry)
    # val processor2 = LLMBasedToolCallFixProcessor(toolRegistry)
    processor2 = LLMBasedToolCallFixProcessor(tool_registry)
    # val chainedProcessor = processor1 + processor2
    chained_processor = processor1 + processor2
    # val responses = executor.executeProcessed(prompt, model, tools, chainedProcessor)
    [response] = await executor.with_processor(chained_processor).execute(
        prompt, MODEL, tool_registry
    )
    assert [(n, a) for _, n, a in calls(response)] == [("get_weather", {"city": "Paris"})]
    assert server.served == ["scripted", "text", "call"]
    question = server.requests[1].body
    assert not [k for k in question if "tool" in k or "function" in k]  # no tool option
    assert question["messages"][0]["role"] == "system"  # the intent question's system text
    fix = server.requests[2].body
    assert fix["tool_choice"] == "required"
    assert question["messages"][0]["content"] != fix["messages"][0]["content"]


async def test_use_case_3_plain_answer_costs_nothing(server: NoncompliantServer) -> None:
    server.reply(openai_completion("It is sunny in Paris, 21 degrees."))
    executor = executor_for(server)
    chained = ManualToolCallFixProcessor(tool_registry) + LLMBasedToolCallFixProcessor(
        tool_registry
    )
    [response] = await executor.with_processor(chained).execute(prompt, MODEL, tool_registry)
    assert response.tool_calls == []
    assert len(server.requests) == 1  # no intent question for a plain answer


# ---- the transcripts of docs/koog.md ------------------------------------------------------

CASES: dict[str, dict[str, Any]] = {
    "invalid_json": {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "function": {"name": "get_weather", "arguments": "city=Paris"}}
        ],
    },
    "unknown_name": {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "function": {"name": "weather_lookup", "arguments": '{"city": "Paris"}'}}
        ],
    },
    "invalid_arguments": {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "function": {
                    "name": "get_weather",
                    "arguments": '{"town": "Paris", "days": "three"}',
                },
            }
        ],
    },
    "truncated": {
        "role": "assistant",
        "content": '<tool_call>{"name": "get_weather", "arguments": {"city": "Par',
        "finish_reason": "length",
    },
}
FIXED = {
    "content": None,
    "tool_calls": [
        {"id": "f1", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    ],
}


def transcript(case: str) -> str:
    executor = ScriptedExecutor([FIXED])
    given = as_response(CASES[case])
    out = LLMBasedToolCallFixProcessor(tool_registry).process_sync(
        executor, prompt, "m", tool_registry, given
    )
    assert [(n, a) for _, n, a in calls(out)] == [("get_weather", {"city": "Paris"})]
    (sent,) = executor.prompts
    return "\n".join(_line(m) for m in sent.messages)


def _line(m: Message) -> str:
    return f"[{m.role}] {m.text}"


BLOCK = re.compile(r"<!-- transcript:(\w+) -->\n```text\n(.*?)\n```\n<!-- /transcript -->", re.S)


def test_the_fix_request_transcripts_in_the_docs_are_current() -> None:
    page = DOC.read_text(encoding="utf-8")
    found = dict(BLOCK.findall(page))
    assert sorted(found) == sorted(CASES)
    fresh = {case: transcript(case) for case in CASES}
    if os.environ.get("TOOLFIX_UPDATE_TRANSCRIPTS") == "1":
        page = BLOCK.sub(
            lambda m: (
                f"<!-- transcript:{m.group(1)} -->\n```text\n{fresh[m.group(1)]}\n```\n"
                "<!-- /transcript -->"
            ),
            page,
        )
        DOC.write_text(page, encoding="utf-8")
        found = fresh
    assert found == fresh
    assert json.dumps(fresh)  # every transcript is plain text
