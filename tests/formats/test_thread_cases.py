"""Markup users pasted in public threads (each test cites its thread)."""

from __future__ import annotations

from typing import Any

from toolfix import repair


def _tools(name: str, *params: str) -> list[dict[str, Any]]:
    props = {p: {"type": "string"} for p in params}
    return [
        {
            "type": "function",
            "function": {"name": name, "parameters": {"type": "object", "properties": props}},
        }
    ]


def test_seed_function_and_parameter_names_as_attributes() -> None:
    # https://github.com/sipeed/picoclaw/issues/3153 (Doubao behind picoclaw)
    text = (
        '<seed:tool_call>\n  <function name="exec">\n    <parameter name="action" '
        'string="true">run</parameter>\n    <parameter name="command" string="true">ls -la'
        "</parameter>\n  </function>\n</seed:tool_call>"
    )
    out = repair(text, _tools("exec", "action", "command"))
    (call,) = out.tool_calls
    assert (call.name, call.arguments) == ("exec", {"action": "run", "command": "ls -la"})
    assert out.text == ""


def test_hermes_name_in_a_function_tag_then_json_arguments() -> None:
    # https://github.com/madroidmaq/mlx-omni-server/issues/126
    text = (
        "Let me check the services...\n<tool_call>\n<function>terminal</function>\n"
        '{"command": "lsof -i :10240"}\n</tool_call>'
    )
    out = repair(text, _tools("terminal", "command"))
    (call,) = out.tool_calls
    assert (call.name, call.arguments) == ("terminal", {"command": "lsof -i :10240"})
    assert out.text == "Let me check the services..."


def test_cline_style_element_named_after_the_tool() -> None:
    # https://github.com/RooCodeInc/Roo-Code/issues/10270
    text = "I'll analyze the codebase first.\n\n<read_file>\n<path>ReadMe.md</path>\n</read_file>"
    out = repair(text, _tools("read_file", "path"))
    (call,) = out.tool_calls
    assert (call.name, call.arguments) == ("read_file", {"path": "ReadMe.md"})
    assert out.text == "I'll analyze the codebase first."


def test_cline_style_repeated_children_are_a_list() -> None:
    tools: list[dict[str, Any]] = [
        {
            "type": "function",
            "function": {
                "name": "ask_followup_question",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "question": {"type": "string"},
                        "suggestions": {"type": "array", "items": {"type": "string"}},
                    },
                },
            },
        }
    ]
    text = (
        "<ask_followup_question>\n<question>What next?</question>\n<suggestions>\n"
        "<suggestion>Explain it</suggestion>\n<suggestion>Test it</suggestion>\n"
        "</suggestions>\n</ask_followup_question>"
    )
    (call,) = repair(text, tools).tool_calls
    assert call.arguments == {"question": "What next?", "suggestions": ["Explain it", "Test it"]}


def test_an_element_named_after_a_tool_with_text_inside_is_prose() -> None:
    from toolfix import Response

    for text in (
        "Use <search>the docs</search> first.",
        "<read_file>\n<path>a.md</path>",  # never closed
        "<b>bold</b> and <path>x</path>",  # not a tool's name
    ):
        resp = Response.text_only(text)
        assert repair(resp, _tools("search", "query") + _tools("read_file", "path")) is resp


def test_a_tool_element_inside_another_is_text_of_it() -> None:
    # found by hypothesis: the inner element was taken as a call, and repairing the
    # result took the outer one too (not idempotent)
    from toolfix import Response

    text = "<read_file><path><read_file></read_file></path></read_file>"
    resp = Response.text_only(text)
    out = repair(resp, _tools("read_file", "path"))
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls  # one call: the outer element, its value not a string
    assert (bad.name, bad.raw, bad.kind) == ("read_file", text, "type_mismatch")
    assert repair(out, _tools("read_file", "path")) == out
