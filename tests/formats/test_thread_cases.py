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
