"""Responses in the shapes users hold: SDK objects, Responses API, Ollama; typed refusals."""

from __future__ import annotations

from typing import Any

import pytest

from toolfix import UnsupportedInputError, repair

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]
IN_TEXT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}'
EXPECTED = ("get_weather", {"city": "Paris", "days": 3})


def _one_call(fixed: Any) -> tuple[str, dict[str, Any]]:
    [call] = fixed.tool_calls
    return call.name, call.arguments


def test_openai_sdk_chat_completion_and_message() -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionMessage

    completion = ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "qwen3",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": IN_TEXT},
                }
            ],
        }
    )
    fixed = repair(completion, TOOLS)
    assert _one_call(fixed) == EXPECTED
    assert fixed.model == "qwen3"
    assert {r.kind for r in fixed.tool_calls[0].repairs} >= {"native_markup", "type_mismatch"}
    message = ChatCompletionMessage(role="assistant", content=IN_TEXT)
    assert _one_call(repair(message, TOOLS)) == EXPECTED


def test_openai_sdk_native_call_with_broken_arguments() -> None:
    from openai.types.chat import ChatCompletionMessage

    message = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_9",
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": "{'city': 'Paris', 'days': 3,}",
                    },
                }
            ],
        }
    )
    fixed = repair(message, TOOLS)
    assert _one_call(fixed) == EXPECTED
    assert fixed.tool_calls[0].id == "call_9"


def test_responses_api_object_and_items() -> None:
    from openai.types.responses import Response as OpenAIResponse

    resp = OpenAIResponse.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-oss-20b",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [{"type": "summary_text", "text": "need weather"}],
                },
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": "{'city': 'Paris', 'days': '3',}",
                },
            ],
        }
    )
    fixed = repair(resp, TOOLS)
    assert _one_call(fixed) == EXPECTED
    assert fixed.tool_calls[0].id == "call_1"
    assert fixed.reasoning == "need weather"
    assert fixed.id == "resp_1"
    # the output items alone, as dicts
    items = resp.model_dump(mode="json")["output"]
    assert _one_call(repair(items, TOOLS)) == EXPECTED
    message_item = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": IN_TEXT}],
    }
    assert _one_call(repair(message_item, TOOLS)) == EXPECTED


def test_anthropic_sdk_message() -> None:
    from anthropic.types import Message

    msg = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku",
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [{"type": "text", "text": IN_TEXT}],
        }
    )
    assert _one_call(repair(msg, TOOLS)) == EXPECTED


def test_ollama_chat_reply_with_parsed_arguments() -> None:
    reply = {
        "model": "qwen3:8b",
        "created_at": "2026-01-01T00:00:00Z",
        "message": {
            "role": "assistant",
            "content": "",
            "thinking": "call the tool",
            "tool_calls": [
                {"function": {"name": "get_weathr", "arguments": {"city": "Paris", "days": "3"}}}
            ],
        },
        "done": True,
        "done_reason": "stop",
    }
    fixed = repair(reply, TOOLS)
    assert _one_call(fixed) == EXPECTED
    assert fixed.reasoning == "call the tool"
    kinds = {r.kind for r in fixed.tool_calls[0].repairs}
    assert {"unknown_name", "type_mismatch"} <= kinds


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ({"foo": "bar"}, "keys ['foo']"),
        ({"tool_calls": ["oops"]}, "tool_calls[0] is a str"),
        ({"tool_calls": "oops"}, "tool_calls is a str"),
        (42, "a int"),
        (None, "a NoneType"),
        ([1, 2], "a list"),
        ({"object": "response", "output": [{"type": "mystery"}]}, "type 'mystery'"),
    ],
)
def test_unknown_shapes_raise_a_typed_error_naming_them(value: Any, named: str) -> None:
    with pytest.raises(UnsupportedInputError, match="cannot read a model response") as err:
        repair(value, TOOLS)
    assert named in str(err.value)
    assert err.value.raw is not None


def _deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "shape",
    [
        lambda args: {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": args},
                }
            ],
        },
        lambda args: {
            "model": "m",
            "done": True,
            "message": {
                "role": "assistant",
                "tool_calls": [{"function": {"name": "get_weather", "arguments": args}}],
            },
        },
        lambda args: [
            {"type": "function_call", "call_id": "c", "name": "get_weather", "arguments": args}
        ],
    ],
)
def test_parsed_arguments_100000_deep_are_an_invalid_call_not_a_crash(shape: Any) -> None:
    fixed = repair(shape({"city": "Paris", "extra": _deep(100_000)}), TOOLS)
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert bad.kind == "limit_exceeded"
    assert bad.name == "get_weather"
    assert "max_depth" in bad.error
