"""The fast reading of a plain OpenAI message gives exactly what the general reader gives.

``plain_openai_message`` builds its parts without pydantic's re-validation and decodes
``{...}`` arguments with json's C scanner directly; these tests hold both to the slow,
validating path (values, field order, fields set, dumps) on generated messages.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfix import _api, _convert, as_response
from toolfix._convert import _parse_object, plain_openai_message, response_from_openai
from toolfix._messages import ToolCallPart
from toolfix._tools import _has_long_string

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_objects = st.dictionaries(st.text(max_size=8), _json_values, max_size=5)
_raw_arguments = st.one_of(
    _objects.map(json.dumps),
    _objects.map(lambda o: json.dumps(o, indent=1)),
    _objects.map(lambda o: " " + json.dumps(o) + "\n"),
    _json_values.map(json.dumps),  # arrays, strings, numbers: not objects
    _objects.map(lambda o: json.dumps(o)[:-1]),  # truncated
    _objects.map(lambda o: json.dumps(o) + "}"),  # extra data
    _objects.map(lambda o: json.dumps(o) + json.dumps(o)),  # two objects
    st.text(max_size=30),
    st.sampled_from(["", "{", "}", "{}", "{}}", "{ }", '{"a": NaN}', '{"a": 1e999}', "{" * 5000]),
)


def _reference_object(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, with NaN equal to itself."""
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


@given(_raw_arguments)
def test_parse_object_answers_what_json_loads_answers(raw: str) -> None:
    assert _same(_parse_object(raw), _reference_object(raw))


def test_parse_object_edge_cases() -> None:
    assert _parse_object('{"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}
    assert _parse_object(' {"a": 1} ') == {"a": 1}  # whitespace: json.loads's own path
    assert _parse_object('{"a": 1}}') is None
    assert _parse_object('{"a": 1}{"b": 2}') is None
    assert _parse_object("{" * 100_000 + "}" * 100_000) is None  # too deep: no crash
    nan = _parse_object('{"a": NaN}')
    assert nan is not None
    assert math.isnan(nan["a"])


_messages = st.builds(
    lambda content, calls: {"role": "assistant", "content": content, "tool_calls": calls},
    st.none() | st.text(max_size=10),
    st.lists(
        st.builds(
            lambda i, name, raw: {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": raw},
            },
            st.integers(0, 99),
            st.text(min_size=1, max_size=8),
            _raw_arguments,
        ),
        max_size=3,
    ),
)


_extras = st.dictionaries(
    st.sampled_from(
        [
            "refusal",
            "annotations",
            "audio",
            "function_call",
            "reasoning_content",
            "reasoning",
            "thinking_blocks",
            "provider_specific_fields",
            "name",
            "type",
        ]
    ),
    st.one_of(
        st.none(),
        st.just(""),
        st.just("think"),
        st.just([]),
        st.just({"name": "f", "arguments": "{}"}),
        st.just([{"type": "thinking", "thinking": "t", "signature": "s"}]),
    ),
    max_size=4,
)


def _model_state(model: Any) -> tuple[Any, ...]:
    return (
        type(model),
        list(model.__dict__.items()),
        model.model_fields_set,
        model.__pydantic_extra__,
        model.__pydantic_private__,
        repr(model),
        json.dumps(model.model_dump()),
    )


@given(_messages)
def test_plain_message_gives_the_general_readers_response(message: dict[str, Any]) -> None:
    fast = plain_openai_message(message)
    slow = response_from_openai(message)
    assert fast is not None
    assert fast == slow
    assert _model_state(fast) == _model_state(slow)
    for a, b in zip(fast.parts, slow.parts, strict=True):
        assert _model_state(a) == _model_state(b)


def test_the_trusted_builders_are_in_use_with_this_pydantic() -> None:
    assert _convert._TRUSTED
    message = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '{"a": 1}'}}] * 2,
    }
    first, second = plain_openai_message(message).parts  # type: ignore[union-attr]
    assert isinstance(first, ToolCallPart)
    assert isinstance(second, ToolCallPart)
    assert first == second
    assert first.arguments is not second.arguments  # each call its own dict
    assert first.model_fields_set is not second.model_fields_set
    with pytest.raises(Exception, match="frozen"):
        first.name = "g"


def test_the_check_refuses_a_builder_that_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _convert._trusted_agrees()
    defaults = dict(_convert.CALL_DEFAULTS)
    monkeypatch.setitem(_convert.CALL_DEFAULTS, "repairs", [])  # a shared mutable default
    assert not _convert._trusted_agrees()
    monkeypatch.setattr(_convert, "CALL_DEFAULTS", {**defaults, "provider_executed": True})
    assert not _convert._trusted_agrees()
    monkeypatch.setattr(_convert, "CALL_DEFAULTS", defaults)
    monkeypatch.setattr(_convert, "_RESPONSE_DEFAULTS", {"parts": ()})  # fields missing
    assert not _convert._trusted_agrees()


def test_long_strings_are_found_anywhere() -> None:
    cap = 10
    assert not _has_long_string({"a": "x" * 10, "b": [1, 2.5, None, True]}, cap)
    assert _has_long_string({"a": "x" * 11}, cap)
    assert _has_long_string({"k" * 11: 1}, cap)  # a key
    assert _has_long_string({"a": [{"b": ["y" * 11]}]}, cap)
    assert not _has_long_string({1: "short"}, cap)  # a non-string key (Python arguments)
    deep: Any = "z" * 11
    for _ in range(100_000):
        deep = [deep]
    assert _has_long_string({"d": deep}, cap)  # iterative: no recursion limit


def test_without_the_trusted_builders_the_answer_is_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    message = {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "[1]"}},
        ],
    }
    trusted = plain_openai_message(message)
    monkeypatch.setattr(_convert, "_TRUSTED", False)
    checked = plain_openai_message(message)
    assert checked is not None
    assert trusted is not None
    assert (
        _model_state(checked)
        == _model_state(trusted)
        == _model_state(response_from_openai(message))
    )


@given(_messages, _extras)
def test_a_message_with_more_keys_reads_as_the_general_reader_reads_it(
    message: dict[str, Any], extras: dict[str, Any]
) -> None:
    message = {**message, **extras}
    fast = plain_openai_message(message)
    slow = _api._from_mapping(message, None)
    assert _model_state(as_response(message)) == _model_state(slow)
    if fast is not None:
        assert _model_state(fast) == _model_state(slow)
    if all(extras.get(k) is None for k in _convert._READ_UNLESS_NULL):
        assert fast is not None  # keys the general reader ignores keep the fast path


def test_sdk_messages_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    chat = pytest.importorskip("openai.types.chat")
    sdk = chat.ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    seen: list[object] = []
    monkeypatch.setattr(_api, "_from_mapping", lambda value, limits: seen.append(value))
    fixed = as_response(sdk)
    assert seen == []  # read by the fast path
    assert _model_state(fixed) == _model_state(response_from_openai(sdk.model_dump()))
    assert [(c.id, c.name, c.arguments) for c in fixed.tool_calls] == [("c1", "f", {})]
