"""Strict-mode schemas (issue 29): an omitted property with a default takes it, one whose
type admits null takes null, recorded as a repair; nothing else changes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolfix import FailureKind, ToolCallPart, ToolRegistry
from toolfix.integrations._strict import complete_call, omittable, relaxed

_KINDS = st.sampled_from(["plain", "default", "nullable", "nullable_list", "default_null"])


def _prop(kind: str, value: int) -> dict[str, Any]:
    return {
        "plain": {"type": "integer"},
        "default": {"type": "integer", "default": value},
        "nullable": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "nullable_list": {"type": ["integer", "null"]},
        "default_null": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
    }[kind]


@given(
    st.dictionaries(st.sampled_from("abcdef"), st.tuples(_KINDS, st.integers()), min_size=1),
    st.data(),
)
def test_omitted_properties_are_filled_and_recorded(spec: dict[str, Any], data: Any) -> None:
    schema = {
        "type": "object",
        "properties": {k: _prop(kind, v) for k, (kind, v) in spec.items()},
        "required": sorted(spec),
        "additionalProperties": False,
    }
    given_args = data.draw(st.dictionaries(st.sampled_from(sorted(spec)), st.integers()))
    call = ToolCallPart(
        id="c", name="t", arguments_raw=json.dumps(given_args), arguments=given_args
    )
    out = complete_call(call, schema)
    expected = {
        k: (v if kind == "default" else None)
        for k, (kind, v) in spec.items()
        if k not in given_args and kind != "plain"
    }
    assert out.arguments == {**given_args, **expected}
    if expected:
        [record] = out.repairs
        assert record.kind == FailureKind.MISSING_REQUIRED
        assert all(f"{k}=" in record.detail for k in expected)
    else:
        assert out is call
    # what toolfix validates against: a call leaving out only omittable ones is valid
    tool = ToolRegistry.from_openai(
        [{"type": "function", "function": {"name": "t", "parameters": relaxed(schema)}}]
    ).get("t")
    assert tool is not None
    complete = all(k in given_args or spec[k][0] != "plain" for k in spec)
    assert tool.is_valid(given_args) == complete
    assert complete_call(out, schema) is out  # idempotent


def test_a_schema_that_is_not_strict_is_left_alone() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer", "default": 1}},
        "required": [],
    }
    assert omittable(schema) == {}
    assert relaxed(schema) == schema
    call = ToolCallPart(id="c", name="t", arguments_raw="{}", arguments={})
    assert complete_call(call, schema) is call
