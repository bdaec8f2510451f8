"""An assistant message record quoted whole is text, wherever its role key stands.

API references and recorded responses show the assistant's message object with its
calls (``toolfix/_repair/narration.py``, class *recorded*): the role key first
(``{"role": "assistant", ...}``) or after other keys (``{"id": "msg_01", "type":
"message", "role": "assistant", "content": [{"type": "tool_use", ...}]}``: the kindo.ai
Messages API page, the laminate crate's ``anthropic_tool_use.json``). The same call
outside the record, as the model's own message, stays a call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.narration import told_spans

ROOT = Path(__file__).resolve().parents[1]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
_keys = st.sampled_from(["id", "type", "model", "stop_reason", "usage", "status", "index"])
_values = st.one_of(
    st.text(st.characters(codec="ascii", exclude_characters='"\\'), max_size=12),
    st.integers(),
    st.none(),
)
_cities = st.text(st.characters(codec="ascii", categories=["L"]), min_size=1, max_size=12)


def _calls(city: str) -> dict[str, object]:
    return {
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": city}}
        ]
    }


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(_keys, _values, max_size=5),
    st.integers(0, 5),
    _cities,
    st.sampled_from([None, 2]),
    st.booleans(),
)
def test_an_assistant_record_with_its_role_anywhere_is_no_call(
    others: dict[str, object], at: int, city: str, indent: int | None, anthropic: bool
) -> None:
    items = list(others.items())
    items.insert(min(at, len(items)), ("role", "assistant"))
    if anthropic:
        items.extend(_calls(city).items())
    else:
        call = {"function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}
        items.append(("tool_calls", [{"id": "c1", "type": "function", **call}]))
    text = json.dumps(dict(items), indent=indent)
    assert repair(text, TOOLS).tool_calls == [], text
    # the same call as the model's own message is a call
    own = json.dumps({"name": "get_weather", "arguments": {"city": city}})
    assert [c.arguments for c in repair(own, TOOLS).tool_calls] == [{"city": city}]


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_keys, _values, max_size=4), _cities)
def test_a_call_after_a_closed_record_is_a_call(others: dict[str, object], city: str) -> None:
    record = json.dumps({**others, "role": "assistant", "content": "Checking."})
    own = json.dumps({"name": "get_weather", "arguments": {"city": city}})
    text = f"{record}\n\n{own}"
    assert [c.arguments for c in repair(text, TOOLS).tool_calls] == [{"city": city}]


@pytest.mark.parametrize(
    "text",
    [
        '["role": "assistant", {"name": "get_weather", "arguments": {"city": "x"}}]',
        'The "role": "assistant" key names the speaker.\n'
        '{"name": "get_weather", "arguments": {"city": "x"}}',
    ],
)
def test_a_role_key_outside_an_object_makes_no_record(text: str) -> None:
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["get_weather"]


def test_the_work_is_bounded_per_role_key() -> None:
    # past the first role keys only the role-first form is tried: no 600-char look-back each
    text = '"role": "assistant"} ' * 50_000
    assert told_spans(text) == []
    text = '{"role": "assistant", "a": {"x": 1}, "b": ' * 20_000
    assert len(told_spans(text)) == 1


def _negatives() -> list[dict[str, object]]:
    path = ROOT / "benchmarks" / "corpora" / "prose_negatives.jsonl"
    cases = map(json.loads, path.read_text(encoding="utf-8").splitlines())
    return [c for c in cases if str(c["id"]).startswith("prec6-") and "record" in str(c["id"])]


@pytest.mark.parametrize("case", _negatives(), ids=lambda c: str(c["id"]))
def test_an_api_record_in_the_corpus_is_no_call(case: dict[str, object]) -> None:
    assert repair(case["response"], case["tools"]).tool_calls == []
