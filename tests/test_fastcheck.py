"""The compiled checker answers exactly as jsonschema does, on the schemas it accepts."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from toolfix._repair.fastcheck import compile_checker

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=5),
    st.floats(min_value=-5, max_value=5, allow_nan=False),
    st.sampled_from([0.0, 1.0, 2.0]),
    st.text(max_size=3),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=3),
    ),
    max_leaves=8,
)
BOUNDS = st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False) | st.sampled_from([0.5, 2.0])
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])


def _schemas() -> st.SearchStrategy[Any]:
    base = st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(TYPES, st.lists(TYPES, min_size=1, max_size=3, unique=True)),
            "enum": st.lists(SCALARS, min_size=1, max_size=3),
            "const": SCALARS,
            "description": st.text(max_size=5),
            "minimum": BOUNDS,
            "exclusiveMaximum": BOUNDS,
            "maxLength": st.integers(0, 3),
            "minItems": st.integers(0, 2),
        },
    )

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(["object", "array"]),
                "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
                "required": st.lists(
                    st.sampled_from(["a", "b", "c", "d"]), max_size=2, unique=True
                ),
                "additionalProperties": st.one_of(st.booleans(), inner),
                "items": inner,
                "anyOf": st.lists(inner, min_size=1, max_size=3),
                "oneOf": st.lists(inner, min_size=1, max_size=3),
                "maximum": BOUNDS,
                "exclusiveMinimum": BOUNDS,
                "minLength": st.integers(0, 3),
                "maxItems": st.integers(0, 2),
            },
        )

    return st.recursive(base, extend, max_leaves=6)


@settings(max_examples=600, deadline=None)
@given(schema=_schemas(), value=VALUES)
def test_same_answer_as_jsonschema(schema: dict[str, Any], value: Any) -> None:
    check = compile_checker(schema)
    assert check is not None  # every generated schema uses supported keywords only
    assert check(value) == Draft202012Validator(schema).is_valid(value)


def test_unsupported_keywords_fall_back() -> None:
    for schema in (
        {"type": "string", "pattern": "^a"},
        {"type": "integer", "multipleOf": 2},
        {"anyOf": [{"type": "string", "pattern": "^a"}]},
        {"$ref": "#/$defs/x", "$defs": {"x": {}}},
        {"properties": {"a": {"type": "string", "format": "date", "not": {}}}},
    ):
        assert compile_checker(schema) is None


def test_bool_is_not_an_integer_and_one_is_not_true() -> None:
    check = compile_checker({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert check is not None
    assert check({"n": 3})
    assert check({"n": 3.0})
    assert not check({"n": True})
    enum = compile_checker({"enum": [1]})
    assert enum is not None
    assert enum(1.0)
    assert not enum(True)
