"""Rule G3 (docs/design.md#the-admission-gate): a key written twice with the *same*
value is read once, with a ``duplicate_argument`` repair record; two different values
are still refused (``duplicate_argument``, both values in the error).

G3's reason is that a second value must not silently win: with one value written twice
no value wins over another. Sources: llama3.2:1b on Ollama, a leaked call with
``"title"`` written twice (MikeVeerman/tool-calling-benchmark, recorded run; in the
spent eighth split), and Qwen3.8-27B writing one parameter twice with byte-identical
values, which ninfer's parser refused for the same reason (Neroued/ninfer issue 244)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_gate import FAMILIES, PROPS, TOOLS
from toolfix import FailureKind, InvalidToolCallPart, ToolCallPart, repair
from toolfix._repair.gate import differing

_VALUE = st.from_regex(r"[a-z][a-z0-9@. ]{0,12}[a-z0-9]", fullmatch=True)


def _calls(out: Any) -> list[ToolCallPart | InvalidToolCallPart]:
    return [p for p in out.parts if isinstance(p, ToolCallPart | InvalidToolCallPart)]


def _pairs(values: list[str], twice: str, first: int, second: int, again: str):
    keys = [k for k in sorted(PROPS) if k != twice][:2]
    pairs = list(zip(keys, values[:2], strict=True))
    pairs.insert(first, (twice, values[2]))
    pairs.insert(max(second, first + 1), (twice, again))
    return pairs


@settings(max_examples=150, deadline=None)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    values=st.lists(_VALUE, min_size=3, max_size=3),
    twice=st.sampled_from(sorted(PROPS)),
    first=st.integers(0, 2),
    second=st.integers(0, 3),
)
def test_a_key_written_twice_with_one_value_is_read_once(
    family: str, values: list[str], twice: str, first: int, second: int
) -> None:
    """Every family, a key written twice with the same drawn value anywhere among the
    others: the call is valid, every value read back exactly, and the record names it."""
    pairs = _pairs(values, twice, first, second, values[2])
    (call,) = _calls(repair(FAMILIES[family](pairs), TOOLS))
    assert isinstance(call, ToolCallPart), (family, call)
    assert call.arguments == dict(pairs)
    notes = [r for r in call.repairs if r.kind == FailureKind.DUPLICATE_ARGUMENT]
    assert len(notes) == 1
    assert repr(twice) in notes[0].detail


@settings(max_examples=150, deadline=None)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    values=st.lists(_VALUE, min_size=4, max_size=4, unique=True),
    twice=st.sampled_from(sorted(PROPS)),
    first=st.integers(0, 2),
    second=st.integers(0, 3),
)
def test_a_key_written_twice_with_two_values_is_still_refused(
    family: str, values: list[str], twice: str, first: int, second: int
) -> None:
    """Two different drawn values for one key: invalid, both values in the error."""
    pairs = _pairs(values, twice, first, second, values[3])
    (call,) = _calls(repair(FAMILIES[family](pairs), TOOLS))
    assert isinstance(call, InvalidToolCallPart), family
    assert call.kind == FailureKind.DUPLICATE_ARGUMENT
    assert json.dumps(values[2]) in call.error
    assert json.dumps(values[3]) in call.error


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("1", "1.0"),
        ("1", "true"),
        ('"1"', "1"),
        ("0", "false"),
        ("null", '""'),
        ("[1, 2]", "[2, 1]"),
        ('{"a": 1}', '{"a": 1.0}'),
        ('"a"', '"A"'),
    ],
)
def test_values_that_only_look_alike_differ(first: str, second: str) -> None:
    """Equal for Python (``1 == 1.0 == True``) is not the same value: refused."""
    text = f'{{"name": "f", "arguments": {{"x": {first}, "x": {second}}}}}'
    (call,) = _calls(repair(f"<tool_call>\n{text}\n</tool_call>", TOOLS))
    assert isinstance(call, InvalidToolCallPart)
    assert call.kind == FailureKind.DUPLICATE_ARGUMENT


@settings(max_examples=200, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
        ),
        max_leaves=8,
    ),
    other=st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
)
def test_differing_keeps_every_pair_that_is_not_the_same_json(value: Any, other: Any) -> None:
    """``differing`` is the JSON text's equality: a value and its own copy are the same
    (unless it holds a NaN or an infinity, which JSON cannot write); any two values
    whose sorted JSON differs are kept for the refusal."""
    try:
        written = json.dumps(value, sort_keys=True, allow_nan=False)
    except ValueError:
        written = None  # (a NaN or an infinity: JSON cannot write it)
    if written is not None:
        assert differing((("k", value, json.loads(written)),)) == ()
    if written is None or written != json.dumps(other, sort_keys=True):
        assert differing((("k", value, other),)) == (("k", value, other),)


def test_the_recorded_llama_call_is_read_once() -> None:
    """The recorded llama3.2:1b output: ``"title"`` again, with the same value."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": "schedule_meeting",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string"},
                        "time": {"type": "string"},
                        "attendees": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["title", "time"],
                },
            },
        }
    ]
    text = (
        '{\n "name": "schedule_meeting",\n "parameters": {\n "title": "Quarterly Report",\n'
        ' "time": "2023-03-14T14:00:00+01:00",\n "attendees": ["j@x.com"],\n'
        ' "title": "Quarterly Report"\n }\n}'
    )
    (call,) = _calls(repair(text, tools))
    assert isinstance(call, ToolCallPart)
    assert call.arguments == {
        "title": "Quarterly Report",
        "time": "2023-03-14T14:00:00+01:00",
        "attendees": ["j@x.com"],
    }
    changed = text.replace('"title": "Quarterly Report"\n', '"title": "Q4 Report"\n')
    (call,) = _calls(repair(changed, tools))
    assert isinstance(call, InvalidToolCallPart)
    assert call.kind == FailureKind.DUPLICATE_ARGUMENT


NESTED = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"a": {"type": "object"}}},
        },
    }
]
_LEAF = st.integers(-5, 5) | st.booleans() | st.none() | _VALUE


@settings(max_examples=150, deadline=None)
@given(
    one=_LEAF,
    two=_LEAF,
    deep=st.booleans(),
    shape=st.sampled_from(["[{call}]", "{call}", "```python\n{call}\n```"]),
)
def test_a_pythonic_dict_key_written_twice_never_lets_the_second_win(
    one: Any, two: Any, deep: bool, shape: str
) -> None:
    """Inside a pythonic call's dict value (before: the second value silently won, where
    the same JSON is refused): two different values make the call invalid, raw text
    kept; the same value twice is read once."""
    inner = f'{{"x": {_py(one)}, "x": {_py(two)}}}'
    value = f'{{"y": {inner}}}' if deep else inner
    text = shape.format(call=f"f(a={value})")
    (call,) = _calls(repair(text, NESTED))
    same = json.dumps(one) == json.dumps(two)
    if same:
        assert isinstance(call, ToolCallPart)
        assert call.arguments == {"a": {"y": {"x": one}} if deep else {"x": one}}
    else:
        assert isinstance(call, InvalidToolCallPart), text
        assert "written twice" in call.error
        assert call.raw in text


def _py(value: Any) -> str:
    return json.dumps(value) if isinstance(value, str) else repr(value)
