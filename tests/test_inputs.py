"""Inputs users have (issue 17): SDK objects, Responses API, Ollama, MCP tools; and a
typed error for any other shape (issue 12). SDK model classes are built locally from
dicts: no network."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tooldefs import WEATHER_CITY_DAYS

import toolfix
from toolfix import Response, ToolfixError, as_response, as_tools, repair
from toolfix.convert import (
    response_to_anthropic,
    response_to_ollama,
    response_to_openai_completion,
    response_to_openai_responses,
)
from toolfix.errors import NestingTooDeepError, UnsupportedInputError

TOOLS = [WEATHER_CITY_DAYS]
IN_TEXT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "2"}}'
PARIS = [("get_weather", {"city": "Paris", "days": 2})]


def _calls(r: Response) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in r.tool_calls]


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }


# ---- OpenAI SDK ---------------------------------------------------------------------


def test_openai_sdk_chat_completion_and_message() -> None:
    from openai.types.chat import ChatCompletion

    cc = ChatCompletion.model_validate(_completion({"role": "assistant", "content": IN_TEXT}))
    fixed = repair(cc, TOOLS)
    assert _calls(fixed) == PARIS
    assert (fixed.id, fixed.model, fixed.usage and fixed.usage.output_tokens) == (
        "chatcmpl-1",
        "m",
        4,
    )
    assert _calls(repair(cc.choices[0].message, TOOLS)) == PARIS
    # back to the SDK shape the caller had
    back = ChatCompletion.model_validate(response_to_openai_completion(fixed))
    assert back.choices[0].finish_reason == "tool_calls"
    [tc] = back.choices[0].message.tool_calls or []
    assert tc.type == "function"
    assert (tc.function.name, json.loads(tc.function.arguments)) == PARIS[0]


def test_openai_sdk_message_with_broken_native_arguments() -> None:
    from openai.types.chat import ChatCompletionMessage

    msg = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": "{'city': 'Oslo',}"},
                }
            ],
        }
    )
    fixed = repair(msg, TOOLS)
    assert _calls(fixed) == [("get_weather", {"city": "Oslo"})]
    assert fixed.tool_calls[0].id == "c1"


RESPONSES_API: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-x",
    "status": "completed",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "weather, so call the tool"}],
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": IN_TEXT, "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_9",
            "name": "get_weather",
            "arguments": "{'city': 'Rome'}",
            "status": "completed",
        },
    ],
}


def test_responses_api_object_items_and_dicts() -> None:
    from openai.types.responses import Response as SDKResponse

    sdk = SDKResponse.model_validate(RESPONSES_API)
    for given_value in (sdk, RESPONSES_API, RESPONSES_API["output"], sdk.output):
        fixed = repair(given_value, TOOLS)
        assert _calls(fixed) == [*PARIS, ("get_weather", {"city": "Rome"})]
        assert fixed.reasoning == "weather, so call the tool"
        rome = next(c for c in fixed.tool_calls if c.arguments == {"city": "Rome"})
        assert rome.id == "call_9"  # the call_id a function_call_output must answer
    assert as_response(sdk).id == "resp_1"
    # a single output item, as SDK object and dict
    assert _calls(repair(sdk.output[2], TOOLS)) == [("get_weather", {"city": "Rome"})]
    assert _calls(repair(RESPONSES_API["output"][1], TOOLS)) == PARIS
    # and back out as output items the SDK accepts
    from openai.types.responses import ResponseFunctionToolCall

    items = response_to_openai_responses(repair(sdk, TOOLS))
    calls = [
        ResponseFunctionToolCall.model_validate(i) for i in items if i["type"] == "function_call"
    ]
    assert {c.call_id for c in calls} >= {"call_9"}


# ---- Anthropic SDK --------------------------------------------------------------------


def test_anthropic_sdk_message_round_trip() -> None:
    anthropic = pytest.importorskip("anthropic")
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "need weather", "signature": "sig=="},
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "tu_1",
                "name": "get_weather",
                "input": {"city": "Lima", "days": "3"},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }
    msg = anthropic.types.Message.model_validate(body)
    fixed = repair(msg, TOOLS)
    assert _calls(fixed) == [("get_weather", {"city": "Lima", "days": 3})]
    assert fixed.reasoning == "need weather"
    assert _calls(repair(body, TOOLS)) == _calls(fixed)
    back = anthropic.types.Message.model_validate(response_to_anthropic(fixed))
    thinking, text, tool_use = back.content
    assert thinking.type == "thinking"
    assert thinking.signature == "sig=="  # replayed verbatim
    assert text.type == "text"
    assert (tool_use.type, tool_use.id, tool_use.input) == (
        "tool_use",
        "tu_1",
        {"city": "Lima", "days": 3},
    )
    assert back.stop_reason == "tool_use"


# ---- Ollama ---------------------------------------------------------------------------

OLLAMA: dict[str, Any] = {
    "model": "qwen3",
    "created_at": "2026-01-01T00:00:00Z",
    "message": {
        "role": "assistant",
        "content": "",
        "thinking": "use the tool",
        "tool_calls": [
            {"function": {"name": "get_weather", "arguments": {"city": "Kyiv", "days": "1"}}}
        ],
    },
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 9,
    "eval_count": 8,
}


def test_ollama_native_reply_dict_and_sdk() -> None:
    fixed = repair(OLLAMA, TOOLS)
    assert _calls(fixed) == [("get_weather", {"city": "Kyiv", "days": 1})]
    assert fixed.reasoning == "use the tool"
    assert fixed.usage is not None
    assert fixed.usage.input_tokens == 9
    out = response_to_ollama(fixed)
    assert out["message"]["tool_calls"] == [
        {"function": {"name": "get_weather", "arguments": {"city": "Kyiv", "days": 1}}}
    ]
    ollama = pytest.importorskip("ollama")
    sdk = ollama.ChatResponse.model_validate(OLLAMA)
    assert _calls(repair(sdk, TOOLS)) == _calls(fixed)
    back = ollama.ChatResponse.model_validate(out)
    assert back.message.tool_calls
    assert back.message.tool_calls[0].function.arguments == {"city": "Kyiv", "days": 1}


def test_ollama_valid_call_passes_through() -> None:
    reply = {
        **OLLAMA,
        "message": {
            **OLLAMA["message"],
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Kyiv"}}}],
        },
    }
    fixed = repair(reply, TOOLS)
    assert fixed.tool_calls[0].repairs == ()
    assert fixed.tool_calls[0].arguments_raw == '{"city":"Kyiv"}'


def test_litellm_model_response() -> None:
    litellm = pytest.importorskip("litellm")
    mr = litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": IN_TEXT}}])
    assert _calls(repair(mr, TOOLS)) == PARIS


# ---- tools ----------------------------------------------------------------------------


def get_weather(city: str, days: int = 1) -> str:
    """Weather for a city."""
    return city


MCP_TOOL = {
    "name": "get_weather",
    "description": "Weather",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
}


@pytest.mark.parametrize(
    "tools",
    [
        TOOLS,
        TOOLS[0],  # a single tool dict
        TOOLS[0]["function"],  # a bare function object
        json.dumps(TOOLS),  # a JSON string of tools
        json.dumps(TOOLS[0]),
        get_weather,  # a single Python function
        [MCP_TOOL],
        MCP_TOOL,
        {"tools": [MCP_TOOL]},  # an MCP ListToolsResult as a dict
        toolfix.ToolRegistry.of(TOOLS),
    ],
    ids=lambda t: type(t).__name__,
)
def test_tool_shapes(tools: Any) -> None:
    assert _calls(repair(IN_TEXT, tools)) == PARIS


def test_mcp_sdk_tool_objects() -> None:
    mcp_types = pytest.importorskip("mcp.types")
    tool = mcp_types.Tool.model_validate(MCP_TOOL)
    listed = mcp_types.ListToolsResult(tools=[tool])
    for tools in (tool, listed, [tool], listed.tools):
        assert _calls(repair(IN_TEXT, tools)) == PARIS


@pytest.mark.parametrize("tools", [42, "not json", '"a string"', 3.5, object()])
def test_unknown_tools_shape_is_typed(tools: Any) -> None:
    with pytest.raises(ToolfixError):
        repair(IN_TEXT, as_tools(tools))


# ---- unknown shapes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shape"),
    [
        ({"foo": "bar"}, "dict with keys ['foo']"),
        ({"tool_calls": ["oops"]}, "str"),
        ({"tool_calls": "oops"}, "str"),
        ({"content": 42}, "int"),
        ({"choices": []}, "empty list"),
        ({"choices": [3]}, "list of 1 item(s)"),
        ({}, "empty dict"),
        (42, "int"),
        (None, "NoneType"),
        (3.5, "float"),
        ([], "empty list"),
        ([1, 2], "list of 2 item(s)"),
        ({"message": "hi"}, "dict with keys ['message']"),
        ({"type": "message", "content": [42]}, "int"),
        (object(), "object"),
    ],
)
def test_unknown_shape_raises_typed_error_naming_it(value: Any, shape: str) -> None:
    with pytest.raises(UnsupportedInputError) as info:
        repair(value, TOOLS)
    assert info.value.shape == shape
    assert shape in str(info.value)
    assert isinstance(info.value, ToolfixError)


def _deep(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return root


@pytest.mark.parametrize("shape", ["openai", "ollama", "anthropic", "responses"])
def test_structured_arguments_100k_deep_give_the_typed_error(shape: str) -> None:
    deep = _deep(100_000)
    value: Any = {
        "openai": {
            "tool_calls": [{"id": "c", "function": {"name": "get_weather", "arguments": deep}}]
        },
        "ollama": {
            "model": "m",
            "message": {
                "role": "assistant",
                "tool_calls": [{"function": {"name": "get_weather", "arguments": deep}}],
            },
            "done": True,
        },
        "anthropic": {
            "type": "message",
            "content": [{"type": "tool_use", "id": "t", "name": "get_weather", "input": deep}],
        },
        "responses": {
            "type": "function_call",
            "call_id": "c",
            "name": "get_weather",
            "arguments": deep,
        },
    }[shape]
    with pytest.raises(NestingTooDeepError) as info:
        repair(value, TOOLS)
    assert info.value.limit == toolfix.Limits().max_depth
    assert info.value.tool_name == "get_weather"


def test_depth_limit_follows_the_config() -> None:
    value = {
        "tool_calls": [{"id": "c", "function": {"name": "get_weather", "arguments": _deep(10)}}]
    }
    repair(value, TOOLS)  # 11 levels: under the default 64
    config = toolfix.FixConfig(limits=toolfix.Limits(max_depth=5))
    with pytest.raises(NestingTooDeepError):
        repair(value, TOOLS, config=config)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "content",
                    "tool_calls",
                    "choices",
                    "message",
                    "type",
                    "output",
                    "function",
                    "arguments",
                    "name",
                    "role",
                    "input",
                    "id",
                    "x",
                ]
            ),
            kids,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@given(_json)
def test_any_json_value_gives_a_response_or_a_toolfix_error(value: Any) -> None:
    try:
        out = repair(value, TOOLS)
    except ToolfixError:
        return
    assert isinstance(out, Response)
