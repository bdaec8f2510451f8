"""The compiled validator (jsonschema-rs) answers "valid?" exactly as jsonschema does.

``ToolDescriptor.is_valid`` asks jsonschema-rs for schemas the hand-written checker
does not take; ``validate_arguments`` (the messages users see) asks jsonschema. The
two must agree, including on the keywords that run user regexes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix.tools import ToolDescriptor

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-20, max_value=20),
    st.floats(min_value=-20, max_value=20, allow_nan=False),
    st.sampled_from([0.0, 1.0, 2.5]),
    st.text(alphabet="ab1 @", max_size=6),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "ab", "x1"]), inner, max_size=3),
    ),
    max_leaves=8,
)
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])
PATTERNS = st.sampled_from(["^a+$", "b", "^[0-9]+$", "^(a|b)*$", r"\d", "^(?!a)"])


def _schemas() -> st.SearchStrategy[Any]:
    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(TYPES, st.lists(TYPES, min_size=1, max_size=2, unique=True)),
            "enum": st.lists(SCALARS, min_size=1, max_size=3),
            "minimum": st.integers(-5, 5),
            "exclusiveMaximum": st.integers(-5, 10),
            "multipleOf": st.sampled_from([1, 2, 0.5]),
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 5),
            "pattern": PATTERNS,
            "const": SCALARS,
        },
    )

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "type": st.sampled_from(["object", "array"]),
                    "properties": st.dictionaries(
                        st.sampled_from(["a", "b", "c"]), inner, max_size=3
                    ),
                    "patternProperties": st.dictionaries(PATTERNS, inner, max_size=2),
                    "propertyNames": st.fixed_dictionaries({"pattern": PATTERNS}),
                    "required": st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
                    "additionalProperties": st.one_of(st.booleans(), inner),
                    "items": inner,
                    "minItems": st.integers(0, 2),
                    "uniqueItems": st.booleans(),
                },
            ),
            st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"not": inner}),
        )

    return st.recursive(leaf, extend, max_leaves=6)


@settings(max_examples=500, deadline=None)
@given(schema=_schemas(), value=VALUES)
def test_compiled_answers_as_jsonschema(schema: dict[str, Any], value: Any) -> None:
    tool = ToolDescriptor(name="t", parameters={"type": "object", "properties": {"v": schema}})
    args = {"v": value}
    expected = tool.validate_arguments(args) == []
    assert tool.is_valid(args) is expected, (schema, value, tool.validate_arguments(args))


def test_the_compiled_path_is_the_one_answering() -> None:
    tool = ToolDescriptor(
        name="t",
        parameters={
            "type": "object",
            "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
        },
    )
    assert tool._compiled is not None
    assert tool._compiled.is_valid({"zip": "75001"})
    assert tool.is_valid({"zip": "75001"})
    assert not tool.is_valid({"zip": "7500"})


def test_common_schemas_answer_through_jsonschema_rs_too(monkeypatch: Any) -> None:
    """No hand-written checker in front: even a plain-types schema asks jsonschema-rs."""
    tool = ToolDescriptor(
        name="t", parameters={"type": "object", "properties": {"city": {"type": "string"}}}
    )

    class Spy:
        def __init__(self, real: Any) -> None:
            self.real, self.asked = real, 0

        def is_valid(self, value: Any) -> bool:
            self.asked += 1
            return bool(self.real.is_valid(value))

    spy = Spy(tool._compiled)
    object.__setattr__(tool, "_compiled", spy)
    assert tool.is_valid({"city": "Paris"})
    assert not tool.is_valid({"city": 3})
    assert spy.asked == 2
