"""Every limit comes from ``FixConfig.limits``: each one set low is enforced on each path
(text, native arguments, double-encoded argument values, the stream), and a limit that
stops a repair is reported, never a silent no-op.

Work is bounded by counting operations (calls of json-repair), never by timing.
"""

from __future__ import annotations

import json
from typing import Any

import json_repair
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FixConfig, Response, repair
from toolfix._config import Limits
from toolfix._messages import FailureKind
from toolfix._stream.api import accumulate, repair_stream

SAVE = {
    "type": "function",
    "function": {
        "name": "save",
        "parameters": {
            "type": "object",
            "properties": {"data": {"type": "object"}, "note": {"type": "string"}},
            "required": ["data"],
        },
    },
}
TOOLS = [SAVE]


@pytest.fixture
def repair_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text handed to json-repair."""
    seen: list[int] = []
    real = json_repair.loads

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json_repair, "loads", counting)
    return seen


def _config(**limits: int) -> FixConfig:
    return FixConfig(limits=Limits(**limits))


def _native(arguments: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "save", "arguments": arguments}}
        ],
    }


def _double_encoded(size: int) -> dict[str, Any]:
    """A call whose ``data`` object was written as a broken JSON string of about ``size``
    characters (a trailing comma and a missing quote: only json-repair reads it)."""
    broken = '{"k": "' + "v" * size + '", "n": [1, 2,}'
    return _native(json.dumps({"data": broken}))


def test_max_repair_chars_bounds_double_encoded_values(repair_calls: list[int]) -> None:
    msg = _double_encoded(5000)
    [ok] = repair(msg, TOOLS, config=_config(max_repair_chars=65_536)).tool_calls
    assert isinstance(ok.arguments["data"], dict)
    assert repair_calls
    assert max(repair_calls) > 5000
    repair_calls.clear()
    out = repair(msg, TOOLS, config=_config(max_repair_chars=1000))
    assert repair_calls == []  # the user's limit, not a hard-coded one
    [bad] = out.invalid_tool_calls
    assert out.tool_calls == []
    assert "data" in bad.error


@settings(max_examples=30, deadline=None)
@given(size=st.integers(10, 3000), limit=st.integers(50, 3000))
def test_json_repair_never_sees_more_than_the_limit(size: int, limit: int) -> None:
    seen: list[int] = []
    real = json_repair.loads

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(len(text))
        return real(text, *args, **kwargs)

    json_repair.loads = counting
    try:
        broken_args = '{"data": {"k": "' + "v" * size + '" "n": 1}}'  # a missing comma
        for value in (_native(broken_args), _double_encoded(size), broken_args):
            out = repair(value, TOOLS, config=_config(max_repair_chars=limit))
            assert len(out.tool_calls) + len(out.invalid_tool_calls) <= 1
    finally:
        json_repair.loads = real
    assert all(n <= limit for n in seen), (seen, limit)


def test_max_repair_chars_on_native_arguments_is_reported() -> None:
    broken = '{"data": {"k": "' + "v" * 3000 + '" "n": 1}}'
    out = repair(_native(broken), TOOLS, config=_config(max_repair_chars=1000))
    [bad] = out.invalid_tool_calls
    assert bad.kind == FailureKind.LIMIT_EXCEEDED
    assert "max_repair_chars" in bad.error


def test_max_repair_chars_on_text_is_reported() -> None:
    text = '{"name": "save", "arguments": {"data": {"k": "' + "v" * 3000 + '" "n": 1}}}'
    out = repair(text, TOOLS, config=_config(max_repair_chars=1000))
    [bad] = out.invalid_tool_calls
    assert bad.kind == FailureKind.LIMIT_EXCEEDED
    assert bad.raw == text  # nothing dropped: the raw text rides on the invalid call


def test_a_huge_broken_bare_call_under_default_limits_is_reported() -> None:
    """1 MB of broken bare JSON naming a tool: reported, not left silently in the text."""
    text = '{"name": "save", "arguments": {"data": {"k": "' + "v" * 1_000_000 + '",}}}'
    out = repair(text, TOOLS)
    [bad] = out.invalid_tool_calls
    assert bad.kind == FailureKind.LIMIT_EXCEEDED
    assert out.tool_calls == []


def test_a_huge_broken_span_that_names_no_tool_stays_text() -> None:
    text = 'Here: {"k": "' + "v" * 200_000 + '",}'
    out = repair(text, TOOLS, config=_config(max_repair_chars=1000))
    assert out.text == text
    assert out.invalid_tool_calls == []


def test_max_depth_bounds_double_encoded_values() -> None:
    nested = "[" * 20 + "]" * 20
    msg = _native(json.dumps({"data": {"k": 1}, "note": "x"}))
    assert repair(msg, TOOLS, config=_config(max_depth=8)).tool_calls
    deep = _native(json.dumps({"data": nested}))
    out = repair(deep, TOOLS, config=_config(max_depth=8))
    assert out.tool_calls == []  # a string nested deeper than the limit is not decoded
    assert out.invalid_tool_calls


def test_max_span_chars_on_native_arguments() -> None:
    args = json.dumps({"data": {"k": "v" * 5000}})
    out = repair(_native(args[:-1] + ",}"), TOOLS, config=_config(max_span_chars=1000))
    [bad] = out.invalid_tool_calls
    assert bad.kind == FailureKind.LIMIT_EXCEEDED


def test_max_input_chars_on_text() -> None:
    text = '<tool_call>{"name": "save", "arguments": {"data": {}}}</tool_call>' + " " * 5000
    assert repair(text, TOOLS).tool_calls
    out = repair(text, TOOLS, config=_config(max_input_chars=1000))
    assert out.tool_calls == []
    assert out.text == text  # kept as it was, and the response says why
    assert [r.kind for r in out.repairs] == [FailureKind.LIMIT_EXCEEDED]
    assert "max_input_chars=1000" in out.repairs[0].detail


def test_max_calls_on_text_and_native() -> None:
    call = '<tool_call>{"name": "save", "arguments": {"data": {}}}</tool_call>'
    out = repair(call * 5, TOOLS, config=_config(max_calls=2))
    assert len(out.tool_calls) == 2
    [over] = out.invalid_tool_calls
    assert over.kind == FailureKind.LIMIT_EXCEEDED


def _stream(text: str) -> list[dict[str, Any]]:
    return [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text[i : i + 500]}}]}
        for i in range(0, len(text), 500)
    ] + [{"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def test_the_stream_uses_the_same_limits() -> None:
    text = '{"name": "save", "arguments": {"data": {"k": "' + "v" * 3000 + '" "n": 1}}}'
    config = _config(max_repair_chars=1000)
    whole: Response = repair(text, TOOLS, config=config)
    streamed = accumulate(repair_stream(_stream(text), TOOLS, config=config))
    assert [p.kind for p in streamed.invalid_tool_calls] == [FailureKind.LIMIT_EXCEEDED]
    assert [p.kind for p in streamed.invalid_tool_calls] == [
        p.kind for p in whole.invalid_tool_calls
    ]
