"""Rules taken from engines' own tests (each case cites its test file)."""

from __future__ import annotations

from typing import Any

from toolfix import Response, repair


def _tools(name: str, *params: str) -> list[dict[str, Any]]:
    props = {p: {"type": "string"} for p in params}
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "parameters": {"type": "object", "properties": props, "required": list(params)},
            },
        }
    ]


# vllm tests/tool_parsers/test_lfm2_tool_parser.py (multiline and nested-quote cases)
def test_lfm2_raw_line_breaks_inside_a_python_string_are_read() -> None:
    text = (
        "<|tool_call_start|>[exec(command='cat > f.py << EOF\nimport csv\nEOF')]<|tool_call_end|>"
    )
    (call,) = repair(text, _tools("exec", "command")).tool_calls
    assert call.arguments == {"command": "cat > f.py << EOF\nimport csv\nEOF"}
    assert "escaped quotes and line breaks written raw inside a Python string" in [
        r.detail for r in call.repairs
    ]


def test_lfm2_the_strings_own_quote_inside_it_is_content() -> None:
    text = "<|tool_call_start|>[bash(command='sed -n '360,450p' /x/common.py')]<|tool_call_end|>"
    (call,) = repair(text, _tools("bash", "command")).tool_calls
    assert call.arguments == {"command": "sed -n '360,450p' /x/common.py"}


def test_two_arguments_with_quotes_inside_keep_their_own_values() -> None:
    text = "[grep(pattern='it's', path='a 'b' c')]"
    (call,) = repair(text, _tools("grep", "pattern", "path")).tool_calls
    assert call.arguments == {"pattern": "it's", "path": "a 'b' c"}


# vllm tests/tool_parsers/test_minicpm5xml_tool_parser.py (test_cdata_multiline)
def test_a_cdata_value_is_its_literal_text() -> None:
    text = (
        '<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param>'
        '<param name="date">2024-06-27</param></function>\n'
    )
    (call,) = repair(text, _tools("get_weather", "city", "date")).tool_calls
    assert call.arguments == {"city": "北\n京", "date": "2024-06-27"}


# vllm tests/parser/engine/test_qwen3_fenced_examples.py (tilde fences)
def test_markup_in_a_tilde_fence_next_to_prose_is_an_example() -> None:
    text = (
        "Example:\n~~~xml\n<tool_call>\n<function=Bash>\n<parameter=command>ls -la"
        "</parameter>\n</function>\n</tool_call>\n~~~\ndone"
    )
    resp = Response.text_only(text)
    assert repair(resp, _tools("Bash", "command")) is resp


# vllm tests/tool_parsers/test_kimi_k2_tool_parser.py (test_bare_counter)
def test_kimi_bare_counter_id_is_the_only_tool_offered() -> None:
    text = (
        "Let me check. <|tool_calls_section_begin|><|tool_call_begin|>0 "
        '<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|>'
        "<|tool_calls_section_end|>"
    )
    (call,) = repair(text, _tools("get_weather", "city")).tool_calls
    assert (call.name, call.arguments) == ("get_weather", {"city": "Tokyo"})
    assert "the call named no tool: read as the only one" in [r.detail for r in call.repairs]
    # with two tools offered it could be either: not guessed
    out = repair(text, _tools("get_weather", "city") + _tools("get_time", "city"))
    assert out.tool_calls == []
    assert [c.kind for c in out.invalid_tool_calls] == ["unknown_name"]
