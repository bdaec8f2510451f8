"""A call the text repeats beside the same native call runs once.

Some servers parse the model's call into ``tool_calls`` and leave its markup in the
content too (SGLang with Llama 3.2 1B: ``<|python_tag|>{...}`` plus the parsed call;
mistral.rs with Qwen3 4B in rig's cassette: ``<tool_call>{...}</tool_call>`` plus the
parsed call). The model made one call: the text's copy (same name, same arguments) is
not a second call. A call in the text that differs from every native call is kept.
"""

from __future__ import annotations

import json
from typing import Any

from conftest import openai_tool
from hypothesis import given
from hypothesis import strategies as st

from toolfix import accumulate, repair, repair_stream

TOOLS = [
    openai_tool("get_weather", {"city": {"type": "string"}}, ["city"]),
    openai_tool("get_time", {"zone": {"type": "string"}}, ["zone"]),
]

cities = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=30
)
wrappers = st.sampled_from(
    [
        "<tool_call>\n{}\n</tool_call>",
        "<|python_tag|>{}",
        "```json\n{}\n```",
        "{}",
    ]
)


def _response(content: str, native: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(native)
    ]
    message = {"role": "assistant", "content": content, "tool_calls": calls}
    return {"choices": [{"message": message, "finish_reason": "tool_calls"}]}


def _markup(wrapper: str, name: str, args: dict[str, Any]) -> str:
    body = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    return wrapper.replace("{}", body)


@given(cities, wrappers)
def test_the_text_copy_of_a_native_call_is_not_a_second_call(city: str, wrapper: str) -> None:
    args = {"city": city}
    r = repair(_response(_markup(wrapper, "get_weather", args), [("get_weather", args)]), TOOLS)
    assert [(c.id, c.name, c.arguments) for c in r.tool_calls] == [("call_0", "get_weather", args)]
    assert any("repeats the native call get_weather" in rec.detail for rec in r.repairs)


@given(cities, cities, wrappers)
def test_a_different_call_in_the_text_is_kept(city: str, other: str, wrapper: str) -> None:
    native = {"city": city}
    text = {"zone": other}
    r = repair(_response(_markup(wrapper, "get_time", text), [("get_weather", native)]), TOOLS)
    got = sorted((c.name, json.dumps(c.arguments)) for c in r.tool_calls)
    assert got == sorted([("get_weather", json.dumps(native)), ("get_time", json.dumps(text))])


@given(cities, wrappers)
def test_repairing_again_changes_nothing(city: str, wrapper: str) -> None:
    args = {"city": city}
    once = repair(_response(_markup(wrapper, "get_weather", args), [("get_weather", args)]), TOOLS)
    assert repair(once, TOOLS) == once


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "r", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


@given(cities, wrappers, st.integers(1, 9), st.booleans())
def test_a_stream_reads_the_echo_once_as_repair_does(
    city: str, wrapper: str, size: int, native_first: bool
) -> None:
    args = {"city": city}
    content = _markup(wrapper, "get_weather", args)
    native = {"index": 0, "id": "call_0", "type": "function"}
    native["function"] = {"name": "get_weather", "arguments": json.dumps(args)}
    text = [_chunk({"content": content[i : i + size]}) for i in range(0, len(content), size)]
    calls = [_chunk({"tool_calls": [native]})]
    body = calls + text if native_first else text + calls
    chunks = [_chunk({"role": "assistant", "content": ""}), *body, _chunk({}, "tool_calls")]
    streamed = accumulate(repair_stream(chunks, TOOLS))
    whole = repair(_response(content, [("get_weather", args)]), TOOLS)
    assert [(c.name, c.arguments) for c in streamed.tool_calls] == [("get_weather", args)]
    assert [(c.name, c.arguments) for c in whole.tool_calls] == [("get_weather", args)]
