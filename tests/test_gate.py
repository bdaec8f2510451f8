"""The admission gate's rules (docs/design.md#the-admission-gate): duplicated parameters
(G3), emptied calls (G6), non-finite numbers (G7), quoted calls (G2), and native calls
admitted as they came (byte-identical)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import (
    FailureKind,
    InvalidToolCallPart,
    ManualToolCallFixProcessor,
    ToolCallPart,
    ToolRegistry,
    repair,
)
from toolfix._config import FixConfig
from toolfix._convert import response_from_openai
from toolfix._repair.formats import Candidate
from toolfix._repair.gate import ReadArguments, duplicate_keys, has_non_finite
from toolfix._repair.interpret import Interpreter

FIXER = ManualToolCallFixProcessor()
PROPS = {"to": {"type": "string"}, "body": {"type": "string"}, "cc": {"type": "string"}}
TOOLS = [
    {
        "type": "function",
        "function": {"name": "send_email", "parameters": {"type": "object", "properties": PROPS}},
    },
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"x": {"type": "number"}}},
        },
    },
]


def _calls(out: Any) -> list[ToolCallPart | InvalidToolCallPart]:
    return [p for p in out.parts if isinstance(p, ToolCallPart | InvalidToolCallPart)]


# ---- G3: duplicated parameters ----------------------------------------------------------


def _qwen_xml(pairs: list[tuple[str, str]]) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in pairs)
    return f"<tool_call>\n<function=send_email>\n{body}</function>\n</tool_call>"


def _glm(pairs: list[tuple[str, str]]) -> str:
    body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in pairs)
    return f"<tool_call>send_email\n{body}</tool_call>"


def _minimax(pairs: list[tuple[str, str]]) -> str:
    body = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in pairs)
    return f'<minimax:tool_call>\n<invoke name="send_email">\n{body}</invoke>\n</minimax:tool_call>'


def _hermes(pairs: list[tuple[str, str]]) -> str:
    members = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs)
    return f'<tool_call>\n{{"name": "send_email", "arguments": {{{members}}}}}\n</tool_call>'


def _pythonic(pairs: list[tuple[str, str]]) -> str:
    return "[send_email(" + ", ".join(f"{k}={v!r}" for k, v in pairs) + ")]"


def _native(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    members = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs)
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "send_email", "arguments": "{" + members + "}"},
            }
        ],
    }


FAMILIES = {
    "qwen_xml": _qwen_xml,
    "glm": _glm,
    "minimax": _minimax,
    "hermes": _hermes,
    "pythonic": _pythonic,
    "native": _native,
}
_VALUE = st.from_regex(r"[a-z][a-z0-9@. ]{0,12}[a-z0-9]", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    values=st.lists(_VALUE, min_size=3, max_size=3),
    twice=st.sampled_from(sorted(PROPS)),
    first=st.integers(0, 2),
    second=st.integers(0, 3),
)
def test_a_parameter_written_twice_is_never_admitted(
    family: str, values: list[str], twice: str, first: int, second: int
) -> None:
    """Every family, a key written twice anywhere among the others: the call is invalid
    (``duplicate_argument``) and its error holds both values."""
    keys = [k for k in sorted(PROPS) if k != twice][:2]
    pairs = list(zip(keys, values[:2], strict=True))
    pairs.insert(first, (twice, values[2]))
    smuggled = values[2][::-1] + "x"
    pairs.insert(max(second, first + 1), (twice, smuggled))
    out = repair(FAMILIES[family](pairs), TOOLS)
    (call,) = _calls(out)
    assert isinstance(call, InvalidToolCallPart), family
    assert call.kind == FailureKind.DUPLICATE_ARGUMENT
    assert json.dumps(values[2]) in call.error
    assert json.dumps(smuggled) in call.error


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_same_call_without_the_second_key_is_a_call(family: str) -> None:
    out = repair(FAMILIES[family]([("to", "a@x"), ("body", "hi")]), TOOLS)
    (call,) = _calls(out)
    assert isinstance(call, ToolCallPart)
    assert call.arguments == {"to": "a@x", "body": "hi"}


def test_duplicate_keys_finds_nested_objects_and_escaped_keys() -> None:
    text = '{"a": {"b": 1, "b": 2}, "t\\u006f": 1, "to": 2}'
    found = duplicate_keys(text, json.loads(text))
    assert ("b", 1, 2) in found
    assert ("to", 1, 2) in found
    assert duplicate_keys('{"a": "x:y:z"}', {"a": "x:y:z"}) == ()


_KEYS = st.sampled_from(["a", "b", "t\\u006f", "to", "x:y"])
_LEAVES = st.sampled_from(['"12:30:00"', '"http://x"', '"\\":"', '":"', "1", "null", '"v"'])
_BLANKS = st.sampled_from(["", " ", "\n", "\t ", " \r\n"])


@st.composite
def _json_texts(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON object texts, sometimes with a key written twice (escaped or not), with
    colons in string values and white space around every colon."""
    members = []
    for key in draw(st.lists(_KEYS, max_size=4)):
        value = draw(_json_texts(depth + 1)) if depth < 2 and draw(st.booleans()) else draw(_LEAVES)
        members.append(f'"{key}"{draw(_BLANKS)}:{draw(_BLANKS)}{value}')
    return "{" + ", ".join(members) + "}"


@settings(max_examples=300, deadline=None)
@given(_json_texts())
def test_duplicate_keys_finds_every_key_written_twice(text: str) -> None:
    """The counting shortcuts (colons, quote-colons) never hide a key written twice."""
    twice = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal twice
        keys = [k for k, _ in pairs]
        twice |= len(set(keys)) != len(keys)
        return dict(pairs)

    json.loads(text, object_pairs_hook=pairs_hook)
    assert bool(duplicate_keys(text, json.loads(text))) is twice


def test_read_arguments_keeps_both_values() -> None:
    args = ReadArguments()
    args["to"] = "a"
    args["to"] = "b"
    assert args == {"to": "b"}
    assert args.duplicates == (("to", "a", "b"),)


# ---- G7: numbers ------------------------------------------------------------------------


def _native_f(raw: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}
        ],
    }


@pytest.mark.parametrize("raw", ['{"x": 1e999}', '{"x":-1E400}', '{"x": 2}', '{ "x" : 0.5 }'])
def test_a_valid_native_call_passes_byte_identical(raw: str) -> None:
    response = response_from_openai(_native_f(raw))
    out = FIXER.fix(response, ToolRegistry.from_openai(TOOLS))
    assert out is response  # nothing rewritten: no Infinity
    assert out.tool_calls[0].arguments_raw == raw


@pytest.mark.parametrize(
    "raw", ['{"x": NaN}', '{"x": Infinity}', '{"x": -Infinity}', '{"x": 1, "y": [NaN]}']
)
def test_nan_and_infinity_in_a_native_call_are_invalid(raw: str) -> None:
    (call,) = _calls(repair(_native_f(raw), TOOLS))
    assert isinstance(call, InvalidToolCallPart)
    assert call.kind == FailureKind.INVALID_JSON
    assert call.raw == raw


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "1" * 320])
@pytest.mark.parametrize("family", ["hermes", "json", "pythonic", "qwen_xml"])
def test_non_finite_numbers_in_model_text_are_never_written(number: str, family: str) -> None:
    text = {
        "hermes": f'<tool_call>{{"name": "f", "arguments": {{"x": {number}}}}}</tool_call>',
        "json": f'{{"name": "f", "arguments": {{"x": {number}}}}}',
        "pythonic": f"[f(x={number})]",
        "qwen_xml": f"<tool_call>\n<function=f>\n<parameter=x>\n{number}\n</parameter>\n"
        "</function>\n</tool_call>",
    }[family]
    for call in _calls(repair(text, TOOLS)):
        if isinstance(call, ToolCallPart):
            # admitted only with a finite number (a text read that stays JSON)
            assert not has_non_finite(call.arguments)
            json.loads(call.arguments_raw, parse_constant=_refuse)


def _refuse(name: str) -> Any:
    raise AssertionError(f"{name} written as JSON")


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
        ),
        max_leaves=12,
    )
)
def test_has_non_finite_matches_a_walk(value: Any) -> None:
    def walk(v: Any) -> bool:
        if isinstance(v, float):
            return not math.isfinite(v)
        if isinstance(v, dict):
            return any(walk(x) for x in v.values())
        if isinstance(v, list):
            return any(walk(x) for x in v)
        return False

    assert has_non_finite(value) == walk(value)


# ---- G6: a call whose every argument was dropped -----------------------------------------


def test_every_key_dropped_is_invalid_never_empty() -> None:
    closed = {
        "type": "function",
        "function": {
            "name": "g",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    }
    text = '<tool_call>{"name": "g", "arguments": {"pth": "/etc", "mode": "rm"}}</tool_call>'
    (call,) = _calls(repair(text, [closed]))
    assert isinstance(call, InvalidToolCallPart)
    assert call.kind == FailureKind.EXTRA_KEYS
    # an empty call stays a call: nothing was dropped
    (empty,) = _calls(repair('<tool_call>{"name": "g", "arguments": {}}</tool_call>', [closed]))
    assert isinstance(empty, ToolCallPart)


# ---- G2: quoted ---------------------------------------------------------------------------


def test_a_quoted_candidate_is_never_admitted() -> None:
    registry = ToolRegistry.from_openai(TOOLS)
    interp = Interpreter(registry, FixConfig())
    raw = '<tool_call>{"name": "send_email", "arguments": {"to": "a"}}</tool_call>'
    cand = Candidate(start=0, end=len(raw), format="hermes", raw=raw, name="send_email")
    cand.arguments = {"to": "a"}
    (ok,) = interp.from_candidate(cand, "s") or []
    assert isinstance(ok, ToolCallPart)
    cand.quoted = "inside an HTML comment"
    (bad,) = interp.from_candidate(cand, "s") or []
    assert isinstance(bad, InvalidToolCallPart)
    assert bad.kind == FailureKind.QUOTED_CALL
    assert "HTML comment" in bad.error
