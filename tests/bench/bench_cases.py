"""A tiny hand-written corpus with known answers, shared by the bench tests.

(Not a conftest.py: other test directories import their own ``conftest`` by name.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


def line(
    case_id: str,
    content: str | None,
    expected: list[dict[str, Any]] | None,
    *,
    tags: list[str] | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    error: str | None = None,
    fmt: str = "json",
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": case_id,
        "tools": [WEATHER],
        "response": {"content": content, "tool_calls": tool_calls or [], "reasoning_content": None},
    }
    if error is not None:
        out["expected_error"] = {"reason": error}
    else:
        out["expected"] = {"tool_calls": expected or [], "content": None}
    out["tags"] = tags or []
    out["format"] = fmt
    return out


def native(name: str, arguments: str, i: int = 0) -> dict[str, Any]:
    return {
        "id": f"call_{i}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


TINY: list[dict[str, Any]] = [
    # 1. valid native call: every strategy recovers it
    line(
        "native-ok",
        None,
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        tool_calls=[native("get_weather", '{"city": "Paris"}')],
        fmt="openai",
    ),
    # 2. single quotes: strict fails, json-repair and toolfix recover
    line(
        "native-quotes",
        None,
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        tool_calls=[native("get_weather", "{'city': 'Paris'}")],
        tags=["invalid_json"],
        fmt="openai",
    ),
    # 3. exactly one JSON call object in content: strict takes it
    line(
        "content-json",
        '{"name": "get_weather", "arguments": {"city": "Rome", "days": 2}}',
        [{"name": "get_weather", "arguments": {"city": "Rome", "days": 2}}],
        tags=["call_in_content"],
    ),
    # 4. parallel in a hermes block, order differs from expected
    line(
        "hermes-parallel",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Bern"}}\n</tool_call>',
        [
            {"name": "get_weather", "arguments": {"city": "Bern"}},
            {"name": "get_weather", "arguments": {"city": "Oslo"}},
        ],
        tags=["call_in_content", "native_markup", "parallel"],
        fmt="hermes",
    ),
    # 5. plain answer with braces: no call is the right answer
    line(
        "plain",
        'No tool needed; a result looks like {"value": 42}.',
        [],
        tags=["no_call"],
        fmt="text",
    ),
    # 6. hallucinated tool: expected_error
    line(
        "hallucinated",
        '{"name": "book_flight", "arguments": {"to": "NYC"}}',
        None,
        error="book_flight is not a tool",
        tags=["call_in_content", "unknown_name"],
    ),
    # 7. intent only
    line(
        "intent",
        "Let me check the weather in Paris with get_weather.",
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        tags=["intent_only"],
        fmt="text",
    ),
]


def tiny_lines() -> list[dict[str, Any]]:
    """Fresh copies of the tiny corpus lines."""
    return [json.loads(json.dumps(x)) for x in TINY]


def write_tiny(tmp_path: Path) -> Path:
    """Write the tiny corpus to ``tmp_path/tiny.jsonl``."""
    path = tmp_path / "tiny.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in TINY), encoding="utf-8")
    return path
