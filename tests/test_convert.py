"""Conversions between provider shapes and toolfix's message model."""

from __future__ import annotations

from typing import Any

from conftest import BASIC_TOOLS

from toolfix import Message, Prompt, Response, ToolCallPart, as_response, repair
from toolfix.convert import (
    message_to_openai,
    messages_from_openai,
    prompt_to_openai,
    response_from_anthropic,
    response_from_openai,
    response_to_openai,
)
from toolfix.messages import ReasoningPart, TextPart, ToolResultPart, Usage

RAW_ARGS = '{ "city" : "Paris",\n  "days": 3 }'


def _openai_message(**extra: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": RAW_ARGS},
            }
        ],
        **extra,
    }


def test_openai_message_to_response_keeps_raw_arguments() -> None:
    r = response_from_openai(_openai_message(reasoning_content="thinking..."))
    assert isinstance(r.parts[0], ReasoningPart)
    assert r.reasoning == "thinking..."
    assert r.text == "Let me check."
    [call] = r.tool_calls
    assert (call.id, call.name, call.arguments_raw, call.arguments) == (
        "call_1",
        "get_weather",
        RAW_ARGS,
        {"city": "Paris", "days": 3},
    )
    back = response_to_openai(r)
    assert back == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": RAW_ARGS},
            }
        ],
        "reasoning_content": "thinking...",
    }


def test_broken_arguments_kept_and_parsed_as_none() -> None:
    msg = _openai_message()
    msg["tool_calls"][0]["function"]["arguments"] = "{'city': 'Paris'"
    [call] = response_from_openai(msg).tool_calls
    assert (call.arguments_raw, call.arguments) == ("{'city': 'Paris'", None)


def test_object_arguments_and_missing_arguments() -> None:
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": {"x": 1}}},
            {"id": "b", "function": {"name": "g"}},
        ],
    }
    a, b = response_from_openai(msg).tool_calls
    assert (a.arguments_raw, a.arguments) == ('{"x":1}', {"x": 1})
    assert (b.arguments_raw, b.arguments) == ("", None)


def test_chat_completion_with_usage() -> None:
    completion = {
        "id": "chatcmpl-1",
        "model": "qwen3",
        "choices": [{"index": 0, "finish_reason": "length", "message": _openai_message()}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33},
    }
    r = response_from_openai(completion)
    assert (r.id, r.model, r.finish_reason) == ("chatcmpl-1", "qwen3", "length")
    assert r.usage == Usage(input_tokens=11, output_tokens=22, requests=1)
    assert r.usage.total_tokens == 33


def test_thinking_blocks_with_signature_round_trip() -> None:
    msg = {
        "role": "assistant",
        "content": "Answer",
        "reasoning_content": "ignored when thinking_blocks exist",
        "thinking_blocks": [
            {"type": "thinking", "thinking": "step 1", "signature": "sig-abc=="},
            {"type": "redacted_thinking", "data": "opaque"},
        ],
    }
    r = response_from_openai(msg)
    first, second = r.parts[0], r.parts[1]
    assert isinstance(first, ReasoningPart)
    assert isinstance(second, ReasoningPart)
    assert (first.text, first.signature, first.redacted) == ("step 1", "sig-abc==", False)
    assert (second.text, second.redacted, second.provider_data) == ("", True, {"data": "opaque"})
    out = response_to_openai(r)
    # Anthropic requires thinking blocks, redacted ones included, replayed verbatim.
    assert out["thinking_blocks"] == [
        {"type": "thinking", "thinking": "step 1", "signature": "sig-abc=="},
        {"type": "redacted_thinking", "data": "opaque"},
    ]
    assert out["reasoning_content"] == "step 1"


def test_legacy_function_call() -> None:
    r = response_from_openai(
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}
    )
    [call] = r.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_0", "f", {})


def test_content_parts_list() -> None:
    r = response_from_openai(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "output_text", "text": "b"}],
        }
    )
    assert r.text == "ab"


def test_invalid_calls_listed_not_sent() -> None:
    fixed = repair('<tool_call>{"name": "nope", "arguments": {}}</tool_call>', BASIC_TOOLS)
    out = response_to_openai(fixed)
    assert "tool_calls" not in out
    assert out["invalid_tool_calls"][0]["name"] == "nope"
    assert out["content"] is None


def test_repaired_call_serialises_canonical_json() -> None:
    fixed = repair(
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call>',
        BASIC_TOOLS,
    )
    [tc] = response_to_openai(fixed)["tool_calls"]
    assert tc["function"] == {"name": "get_weather", "arguments": '{"city":"Zürich"}'}


def test_anthropic_blocks() -> None:
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "model": "claude",
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 5, "output_tokens": 7},
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
            {"type": "redacted_thinking", "data": "xx"},
            {"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "tu1", "name": "get_weather", "input": {"city": "P"}},
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"q": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
        ],
    }
    r = response_from_anthropic(message)
    assert (r.id, r.model, r.finish_reason) == ("msg_1", "claude", "tool_use")
    assert r.usage == Usage(input_tokens=5, output_tokens=7, requests=1)
    thinking, redacted, text, tool, server = r.parts
    assert thinking == ReasoningPart(text="hmm", signature="sig==")
    assert redacted == ReasoningPart(text="", redacted=True, provider_data={"data": "xx"})
    assert text == TextPart(text="hi")
    assert tool == ToolCallPart(
        id="tu1", name="get_weather", arguments_raw='{"city":"P"}', arguments={"city": "P"}
    )
    assert isinstance(server, ToolCallPart)
    assert server.provider_executed
    assert r.provider_data == {"anthropic_blocks": [message["content"][-1]]}
    # as_response recognises the Anthropic shape; the valid call passes the fast path
    assert as_response(message) == r
    resp = as_response(message)
    assert repair(resp, BASIC_TOOLS) is resp


def test_anthropic_block_list_and_tool_result() -> None:
    r = response_from_anthropic(
        [
            {
                "type": "tool_result",
                "tool_use_id": "tu1",
                "content": [{"type": "text", "text": "ok"}],
                "is_error": True,
            }
        ]
    )
    assert r.parts == (ToolResultPart(tool_call_id="tu1", name="", content="ok", is_error=True),)


def test_as_response_shapes() -> None:
    r = Response.text_only("x")
    assert as_response(r) is r
    assert as_response("hello") == Response(parts=(TextPart(text="hello"),))
    assert as_response("") == Response()
    assert as_response({"role": "assistant", "content": "x"}).text == "x"


def test_messages_round_trip() -> None:
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        _openai_message(),
        {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "sunny"},
    ]
    parsed = messages_from_openai(msgs)
    assert [m.role for m in parsed] == ["system", "user", "assistant", "tool"]
    assert parsed[1].text == "hi"
    out = prompt_to_openai(Prompt(messages=tuple(parsed)))
    assert out[0] == {"role": "system", "content": "sys"}
    assert out[1] == {"role": "user", "content": "hi"}
    assert out[2]["tool_calls"][0]["function"]["arguments"] == RAW_ARGS
    assert out[3] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}
    assert message_to_openai(Message.tool_result("x", "f", "r")) == [
        {"role": "tool", "tool_call_id": "x", "content": "r"}
    ]
