"""The plain-dict fast path of ``as_response`` reads what the general reader reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolfix import _api, _convert, as_response
from toolfix._convert import plain_openai_message, response_from_openai


def _call(i: int, name: str = "get_weather", args: Any = None) -> dict[str, Any]:
    raw = json.dumps({"city": "Paris"} if args is None else args)
    return {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": raw}}


PLAIN = [
    {"role": "assistant", "content": None, "tool_calls": [_call(0)]},
    {"role": "assistant", "content": "Checking.", "tool_calls": [_call(0), _call(1, "x", [1])]},
    {"role": "assistant", "content": "", "tool_calls": []},
    {"content": None, "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": ""}}]},
    {"tool_calls": [{"id": "c", "index": 0, "function": {"name": "f", "arguments": "{'a': 1"}}]},
]

NOT_PLAIN = [
    {"role": "assistant", "content": "hi"},  # no tool_calls: general path
    {"role": "assistant", "content": None, "tool_calls": None},
    {"role": "assistant", "content": [{"type": "text", "text": "x"}], "tool_calls": []},
    {"role": "assistant", "reasoning_content": "think", "tool_calls": [_call(0)]},
    {"role": "assistant", "tool_calls": [{**_call(0), "extra": 1}]},  # provider_data kept
    {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]},  # no id
    {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "", "arguments": "{}"}}]},
    {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": 3, "arguments": "{}"}}]},
    {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {}}}]},
    {"role": "assistant", "tool_calls": [{"id": 7, "function": {"name": "f", "arguments": "{}"}}]},
]


@pytest.mark.parametrize("message", PLAIN)
def test_fast_path_gives_what_the_general_reader_gives(message: dict[str, Any]) -> None:
    fast = plain_openai_message(message)
    assert fast is not None
    assert fast == response_from_openai(message)
    assert as_response(message) == fast


@pytest.mark.parametrize("message", NOT_PLAIN)
def test_other_shapes_take_the_general_path(message: dict[str, Any]) -> None:
    assert plain_openai_message(message) is None
    assert as_response(message) == _api._from_mapping(message, None)


def test_as_response_takes_the_fast_path_for_plain_messages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[object] = []
    real = _convert.response_from_openai

    def counting(message: Any, **kw: Any) -> Any:
        seen.append(message)
        return real(message, **kw)

    monkeypatch.setattr(_api, "response_from_openai", counting)
    as_response(PLAIN[1])
    assert seen == []  # read by the fast path
    as_response(NOT_PLAIN[3])
    assert seen == [NOT_PLAIN[3]]  # and the counter does count
