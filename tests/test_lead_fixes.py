"""Repairs added while measuring the verbatim public corpus and the BFCL generator.

Each input is the shape of a real failure (the corpus case id is named); each test
asserts the exact recovered call and the repair kinds.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolfix import FixConfig, InvalidToolCallPart, ToolCallPart, repair
from toolfix._repair.quickfix import quick_fix


def _tool(name: str, props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": props, "required": required or []},
        },
    }


WEATHER = _tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}, ["city"])
GREP = _tool("grep", {"pattern": {"type": "string"}}, ["pattern"])


def _calls(fixed: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in fixed.tool_calls]


def _kinds(call: ToolCallPart | InvalidToolCallPart) -> list[str]:
    return [r.kind for r in call.repairs]


def test_mistral_args_without_leading_token() -> None:
    # mlx-lm #1448: the engine stripped the first [TOOL_CALLS] token
    text = 'get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Tokyo"}'
    fixed = repair(text, [WEATHER])
    assert _calls(fixed) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})]
    assert fixed.text == ""


def test_mistral_args_without_token_keeps_trailing_prose() -> None:
    fixed = repair('grep[ARGS]{"pattern": "TODO"}\n\nLet me search for that.', [GREP])
    assert _calls(fixed) == [("grep", {"pattern": "TODO"})]
    assert fixed.text == "Let me search for that."


def test_args_marker_in_prose_is_not_a_call() -> None:
    text = "The tokenizer uses [ARGS] between the name and the JSON."
    fixed = repair(text, [GREP])
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == text


def test_name_written_twice() -> None:
    # hermes-agent #6841
    tools = [_tool("skills_list", {"category": {"type": "string"}})]
    msg = {
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {
                    "name": "skills_listskills_list",
                    "arguments": '{"category":"research"}',
                },
            }
        ],
    }
    # a name with other letters (here, written twice) is never renamed: an unknown name,
    # listing the tools for the LLM fixer (docs/design.md#the-admission-gate, G4)
    out = repair(msg, tools)
    assert out.tool_calls == []
    [bad] = out.invalid_tool_calls
    assert (bad.id, bad.kind, bad.name) == ("c1", "unknown_name", "skills_listskills_list")
    assert "skills_list" in bad.error


def test_glm_markup_leaked_into_native_name() -> None:
    # GLM-5 #84: the parser split the call inside the name
    tools = [_tool("read", {"filePath": {"type": "string"}}, ["filePath"])]
    name = "read<arg_key>filePath</arg_key><arg_value>/home/u/exam</arg_value>"
    msg = {
        "content": None,
        "tool_calls": [
            {"id": "c9", "type": "function", "function": {"name": name, "arguments": ""}}
        ],
    }
    [call] = repair(msg, tools).tool_calls
    assert (call.id, call.name, call.arguments) == ("c9", "read", {"filePath": "/home/u/exam"})
    assert "native_markup" in _kinds(call)


def test_markup_leaked_into_argument_key() -> None:
    # vLLM #54971
    tools = [_tool("list_dir", {"path": {"type": "string"}}, ["path"])]
    msg = {
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "list_dir", "arguments": '{"path</arg_key>": "/tmp/p"}'},
            }
        ],
    }
    [call] = repair(msg, tools).tool_calls
    assert call.arguments == {"path": "/tmp/p"}
    assert _kinds(call) == ["key_alias"]


def test_gemma4_paren_call() -> None:
    # vllm-mlx #622
    fixed = repair('<|tool_call>call:get_weather(city="Tokyo", unit="celsius")', [WEATHER])
    assert _calls(fixed) == [("get_weather", {"city": "Tokyo", "unit": "celsius"})]


def test_gemma4_paren_call_with_code_is_invalid() -> None:
    fixed = repair("<|tool_call>call:get_weather(city=__import__('os').getcwd())", [WEATHER])
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert bad.name == "get_weather"
    assert "whitelist" in bad.error


def test_react_action_input_python_dict() -> None:
    # llama_index #10322
    tools = [
        _tool(
            "look_up_wikipedia",
            {
                "pages": {"type": "array", "items": {"type": "string"}},
                "query_str": {"type": "string"},
            },
        )
    ]
    text = (
        "Thought: I'll use the tool.\nAction: look_up_wikipedia\n"
        "Action Input: {'pages': ['Coca-Cola'], 'query_str': ''}"
    )
    fixed = repair(text, tools)
    assert _calls(fixed) == [("look_up_wikipedia", {"pages": ["Coca-Cola"], "query_str": ""})]
    assert fixed.text == "Thought: I'll use the tool."


def test_missing_brace_before_prose_is_not_truncation() -> None:
    text = (
        'Calling it now:\n\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}'
        "\n\nI'll share the result."
    )
    fixed = repair(text, [WEATHER])
    [call] = fixed.tool_calls
    assert call.arguments == {"city": "Paris", "unit": "C"}
    assert "truncated" not in _kinds(call)
    assert fixed.text == "Calling it now:\nI'll share the result."


@pytest.mark.parametrize(
    ("closed_by", "text"),
    [
        (
            "harmony",
            '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris", "unit": "C"<|call|>',  # noqa: E501
        ),
        (
            "kimi",
            '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris", "unit": "C"<|tool_call_end|><|tool_calls_section_end|>',  # noqa: E501
        ),
    ],
)
def test_missing_brace_inside_closed_markup_keeps_every_argument(closed_by: str, text: str) -> None:
    [call] = repair(text, [WEATHER]).tool_calls
    assert call.arguments == {"city": "Paris", "unit": "C"}, closed_by
    assert "truncated" not in _kinds(call)


def test_truncated_native_arguments_keep_complete_members_only() -> None:
    msg = {
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "cel'},
            }
        ],
    }
    fixed = repair(msg, [WEATHER])
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert (bad.kind, bad.arguments) == ("truncated", {"city": "Paris"})
    [call] = repair(msg, [WEATHER], config=FixConfig(truncated="keep_complete_members")).tool_calls
    assert call.arguments == {"city": "Paris"}
    assert "truncated" in _kinds(call)


def test_truncated_call_with_no_complete_argument_is_invalid_not_empty() -> None:
    tools = [_tool("ping", {"host": {"type": "string"}})]  # nothing required
    fixed = repair('[TOOL_CALLS]ping[ARGS]{"host": "exa', tools)
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert bad.kind == "truncated"


@pytest.mark.parametrize(
    ("src", "cut", "expected"),
    [
        ('{"a": 1, "b": "par', True, {"a": 1}),
        ('{"a": 1, "b": "done"', True, {"a": 1, "b": "done"}),
        ('{"a": "x", "n": 12', True, {"a": "x"}),
        ('{"a": "x", "items": [1, 2', True, {"a": "x"}),
        ('[{"a": 1}, {"b": "x"', True, [{"a": 1}, {"b": "x"}]),
        ('{"a": "x", "n": 12', False, {"a": "x", "n": 12}),
        ("{'a': True, b: None, 'c': [1,],}", True, {"a": True, "b": None, "c": [1]}),
        ('{"k": "C:\\dir", "m\\_n": 1}', True, {"k": "C:\\dir", "m_n": 1}),
    ],
)
def test_quick_fix(src: str, cut: bool, expected: Any) -> None:
    assert json.loads(quick_fix(src, cut=cut).text) == expected


def test_think_word_inside_json_string_is_content() -> None:
    text = 'Here is the data: {"city": "<think>"}'
    fixed = repair(text, [WEATHER])
    assert fixed.parts[0].type == "text"
    assert fixed.text == text
    assert fixed.reasoning is None


def test_markup_quoted_in_inline_code_is_an_example() -> None:
    # curated-plain-tool-format-docs: documentation of the format, not a call
    tools = [_tool("get_weather", {"location": {"type": "string"}})]
    text = (
        'Hermes-style models wrap calls in tags, e.g. `<tool_call>{"name": "get_weather", '
        '"arguments": {"location": "Paris"}}</tool_call>`, and the server parses them.'
    )
    fixed = repair(text, tools)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == text


def test_reasoning_calls_when_no_answer() -> None:
    # vllm #39056: the whole output was a think block holding the call
    from toolfix import FixConfig

    tools = [_tool("Finish", {"answer": {"type": "string"}}, ["answer"])]
    text = (
        "<think>\n...\n<tool_call>\n<function=Finish>\n<parameter=answer>\n204\n"
        "</parameter>\n</function>\n</tool_call>\n</think>"
    )
    # "when_no_answer" is the default: the engine's reasoning parser swallowed the call
    # (vllm #39056, sglang #26172, lmstudio #1592), the model said nothing else
    assert repair(text, tools, config=FixConfig(reasoning_calls="ignore")).tool_calls == []
    config = FixConfig()
    [call] = repair(text, tools, config=config).tool_calls
    assert (call.name, call.arguments) == ("Finish", {"answer": "204"})
    assert call.repairs[0].kind == "in_reasoning"
    # with a visible answer, the reasoning's call stays a thought
    answered = text + "\nThe answer is 204."
    assert repair(answered, tools, config=config).tool_calls == []
