"""Broken native ``tool_calls`` that engines hand over (toolfix/_repair/native.py).

Each case is an engine failure reported in a public thread; the texts are the
reporters' (cited per test)."""

from __future__ import annotations

from typing import Any

from toolfix import Response, ToolCallPart, repair


def _tool(name: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


def _native(name: str, arguments: str) -> Response:
    return Response(
        parts=(ToolCallPart(id="call_0", name=name, arguments_raw=arguments, arguments=None),)
    )


def test_argument_objects_glued_in_one_string_are_a_call_each() -> None:
    # https://github.com/BerriAI/litellm/issues/40582: three calls' arguments in one string
    tools = [_tool("query_mail", {"args": {"type": "string"}}, ["args"])]
    raw = '{"args": "{\\"flag\\": true}"}{"args": "{\\"box\\": \\"A\\"}"}{"args": "{}"}'
    out = repair(_native("query_mail", raw), tools)
    assert [(c.id, c.arguments) for c in out.tool_calls] == [
        ("call_0", {"args": '{"flag": true}'}),
        ("call_0_1", {"args": '{"box": "A"}'}),
        ("call_0_2", {"args": "{}"}),
    ]
    assert all([r.kind for r in c.repairs] == ["concatenated"] for c in out.tool_calls)
    assert out.invalid_tool_calls == []
    assert repair(out, tools) is out  # a repaired response is left as it is


def test_glued_text_that_is_not_all_objects_is_not_split() -> None:
    tools = [_tool("f", {"a": {"type": "integer"}}, ["a"])]
    out = repair(_native("f", '{"a": 1} and then {"a": 2}'), tools)
    assert len(out.tool_calls) + len(out.invalid_tool_calls) == 1
    assert all(r.kind != "concatenated" for c in out.tool_calls for r in c.repairs)


def test_markup_written_into_the_arguments_string_is_read() -> None:
    # https://github.com/vllm-project/vllm/issues/51804: a named tool_choice, and the
    # server put the generated Qwen3-Coder XML verbatim into the arguments
    tools = [_tool("report_sum", {"a": {"type": "integer"}, "b": {"type": "integer"}}, ["a", "b"])]
    raw = (
        "<tool_call>\n<function=report_sum>\n<parameter=a>3</parameter>\n"
        "<parameter=b>4</parameter>\n</function>\n</tool_call>"
    )
    (call,) = repair(_native("report_sum", raw), tools).tool_calls
    assert (call.id, call.name, call.arguments) == ("call_0", "report_sum", {"a": 3, "b": 4})
    assert call.repairs[0].detail == "read tool-call markup that leaked into the arguments string"


def test_markup_of_another_tool_in_the_arguments_is_not_taken() -> None:
    tools = [
        _tool("report_sum", {"a": {"type": "integer"}}, ["a"]),
        _tool("other", {"a": {"type": "integer"}}, ["a"]),
    ]
    raw = "<tool_call>\n<function=other>\n<parameter=a>3</parameter>\n</function>\n</tool_call>"
    out = repair(_native("report_sum", raw), tools)
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert (bad.name, bad.raw) == ("report_sum", raw)


def test_a_key_value_call_swallowed_by_its_first_value_is_read_back() -> None:
    # https://github.com/ggml-org/llama.cpp/pull/26608 (Ling-3.0-flash): the parser put
    # every later key and value into the first value
    tools = [
        _tool(
            "search",
            {
                "file": {"type": "string"},
                "pattern": {"type": "string"},
                "start_line": {"type": "integer"},
            },
            ["file", "pattern", "start_line"],
        )
    ]
    raw = (
        '{"file":"app.log</arg_value><arg_key>pattern</arg_key>\\n<arg_value>error'
        '</arg_value><arg_key>start_line</arg_key>\\n<arg_value>100"}'
    )
    resp = Response(
        parts=(
            ToolCallPart(
                id="call_0",
                name="search",
                arguments_raw=raw,
                arguments={
                    "file": "app.log</arg_value><arg_key>pattern</arg_key>\n<arg_value>error"
                    "</arg_value><arg_key>start_line</arg_key>\n<arg_value>100"
                },
            ),
        )
    )
    (call,) = repair(resp, tools).tool_calls
    assert call.arguments == {"file": "app.log", "pattern": "error", "start_line": 100}
    assert call.id == "call_0"
    assert call.repairs[0].detail == "read tool-call markup that leaked into an argument value"


def test_the_same_arguments_glued_twice_are_one_call() -> None:
    # https://github.com/NousResearch/hermes-agent/issues/6841: the client accumulated
    # a streamed call's argument deltas two and three times over
    tools = [_tool("skills_list", {"category": {"type": "string"}}, [])]
    out = repair(_native("skills_list", '{"category":"research"}{"category":"research"}'), tools)
    (call,) = out.tool_calls
    assert (call.id, call.arguments) == ("call_0", {"category": "research"})
    assert [r.detail for r in call.repairs] == ["read arguments written 2 times over once"]


def test_an_object_that_started_over_is_read_from_its_complete_copy() -> None:
    # https://github.com/anomalyco/opencode/issues/17315 (GLM-5)
    tools = [_tool("bash", {"command": {"type": "string"}, "description": {"type": "string"}}, [])]
    raw = (
        '{"command":"pwd","description":"Check current directory"'
        '{"command": "pwd", "description": "Check current directory"}'
    )
    (call,) = repair(_native("bash", raw), tools).tool_calls
    assert call.arguments == {"command": "pwd", "description": "Check current directory"}
    assert [r.kind for r in call.repairs] == ["invalid_json"]


def test_a_key_one_edit_from_a_missing_required_parameter_is_not_that_parameter() -> None:
    # https://github.com/continuedev/continue/issues/12131 (Gemma 4: content for contents):
    # a key that differs in its letters is never renamed (docs/design.md#the-admission-gate)
    tools = [
        _tool(
            "create_new_file",
            {"filepath": {"type": "string"}, "contents": {"type": "string"}},
            ["filepath", "contents"],
        )
    ]
    out = repair(_native("create_new_file", '{"content":"test","filepath":"test"}'), tools)
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert bad.kind == "missing_required"
    assert "contents" in bad.error


def test_an_extra_key_is_not_renamed_to_an_optional_parameter_of_an_open_schema() -> None:
    tools = [_tool("f", {"name": {"type": "string"}, "names": {"type": "string"}}, [])]
    out = repair(_native("f", '{"nme": "x"}'), tools)
    (call,) = out.tool_calls
    assert call.arguments == {"nme": "x"}
