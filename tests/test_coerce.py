"""Schema-driven argument coercion: one test per rule, plus properties."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from toolfix._repair.coerce import (
    CoerceResult,
    coerce_arguments,
    decode_double_encoded,
)


def obj(props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, **extra}


def run(
    args: dict[str, Any], schema: dict[str, Any], **kw: Any
) -> tuple[dict[str, Any], list[str]]:
    result = coerce_arguments(args, schema, **kw)
    assert isinstance(result, CoerceResult)
    return result.arguments, [r.kind for r in result.repairs]


def details(args: dict[str, Any], schema: dict[str, Any], **kw: Any) -> list[str]:
    return [r.detail for r in coerce_arguments(args, schema, **kw).repairs]


def same_json(a: Any, b: Any) -> bool:
    """Equality that tells 1, 1.0 and True apart."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}
STR = {"type": "string"}


# ---- numbers ---------------------------------------------------------------------------


def test_numeric_string_to_integer() -> None:
    out, kinds = run({"days": "5"}, obj({"days": INT}))
    assert same_json(out, {"days": 5})
    assert kinds == ["type_mismatch"]
    assert details({"days": "5"}, obj({"days": INT})) == ["'days': \"5\" → 5 (integer)"]


@pytest.mark.parametrize(
    ("text", "expected"), [(" 7 ", 7), ("-3", -3), ("5.0", 5), ("1e3", 1000), ("+2", 2)]
)
def test_integral_numeric_strings_to_integer(text: str, expected: int) -> None:
    out, kinds = run({"n": text}, obj({"n": INT}))
    assert same_json(out, {"n": expected})
    assert kinds == ["type_mismatch"]


@pytest.mark.parametrize("text", ["5.5", "inf", "nan", "1_000", "0x10", "five", "", "1" * 500])
def test_non_integral_or_odd_strings_stay_for_integer(text: str) -> None:
    out, kinds = run({"n": text}, obj({"n": INT}))
    assert out == {"n": text}
    assert kinds == []


def test_numeric_string_to_number() -> None:
    out, kinds = run({"t": "3.14", "u": "5"}, obj({"t": NUM, "u": NUM}))
    assert same_json(out, {"t": 3.14, "u": 5})
    assert kinds == ["type_mismatch", "type_mismatch"]


def test_decimal_string_stays_float_for_number() -> None:
    out, kinds = run({"t": "5.0", "u": "1e2"}, obj({"t": NUM, "u": NUM}))
    assert same_json(out, {"t": 5.0, "u": 100.0})
    assert kinds == ["type_mismatch", "type_mismatch"]


def test_ints_stay_ints_for_number_and_integral_floats_stay_for_integer() -> None:
    args = {"t": 5, "n": 5.0}
    out, kinds = run(args, obj({"t": NUM, "n": INT}))
    assert same_json(out, {"t": 5, "n": 5.0})  # both already validate
    assert kinds == []


def test_number_string_converted_even_when_a_bound_fails() -> None:
    out, kinds = run({"n": "3"}, obj({"n": {"type": "integer", "minimum": 10}}))
    assert same_json(out, {"n": 3})
    assert kinds == ["type_mismatch"]


# ---- booleans, null, strings -----------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [("true", True), ("False", False), (" TRUE ", True)])
def test_boolean_strings(text: str, expected: bool) -> None:
    out, kinds = run({"b": text}, obj({"b": BOOL}))
    assert out == {"b": expected}
    assert out["b"] is expected
    assert kinds == ["type_mismatch"]


@pytest.mark.parametrize("value", ["yes", "1", 1, 0])
def test_lossy_booleans_stay(value: Any) -> None:
    out, kinds = run({"b": value}, obj({"b": BOOL}))
    assert same_json(out, {"b": value})
    assert kinds == []


@pytest.mark.parametrize("text", ["null", "None", "NULL"])
def test_null_strings_where_null_allowed(text: str) -> None:
    schema = obj({"n": {"type": ["integer", "null"]}})
    out, kinds = run({"n": text}, schema)
    assert out == {"n": None}
    assert kinds == ["type_mismatch"]


def test_null_string_stays_when_string_allowed() -> None:
    out, kinds = run({"n": "null"}, obj({"n": {"type": ["string", "null"]}}))
    assert out == {"n": "null"}
    assert kinds == []


def test_numbers_and_booleans_to_string() -> None:
    schema = obj({"a": STR, "b": STR, "c": STR})
    out, kinds = run({"a": 5, "b": True, "c": 2.5}, schema)
    assert out == {"a": "5", "b": "true", "c": "2.5"}
    assert kinds == ["type_mismatch"] * 3
    assert details({"b": True}, schema) == ["'b': true → \"true\" (string)"]


# ---- double-encoded JSON ---------------------------------------------------------------


def test_stringified_object() -> None:
    schema = obj({"f": obj({"a": INT})})
    out, kinds = run({"f": '{"a": 1}'}, schema)
    assert same_json(out, {"f": {"a": 1}})
    assert kinds == ["double_encoded"]
    assert details({"f": '{"a": 1}'}, schema) == ["'f': decoded JSON string to object"]


def test_stringified_array_and_inner_coercion() -> None:
    schema = obj({"ids": {"type": "array", "items": INT}})
    out, kinds = run({"ids": '[1, "2"]'}, schema)
    assert same_json(out, {"ids": [1, 2]})
    assert kinds == ["double_encoded", "type_mismatch"]
    assert details({"ids": '[1, "2"]'}, schema)[1] == "'ids[1]': \"2\" → 2 (integer)"


def test_stringified_broken_json_goes_through_json_repair() -> None:
    out, kinds = run({"f": "{'a': 1,}"}, obj({"f": obj({"a": INT})}))
    assert same_json(out, {"f": {"a": 1}})
    assert kinds == ["double_encoded"]


def test_stringified_object_left_for_string_schema() -> None:
    out, kinds = run({"s": '{"a": 1}'}, obj({"s": STR}))
    assert out == {"s": '{"a": 1}'}
    assert kinds == []


def test_decode_double_encoded() -> None:
    assert decode_double_encoded('{"a": [1, 2]}') == ({"a": [1, 2]}, True)
    assert decode_double_encoded(" [1, 2] ") == ([1, 2], True)
    assert decode_double_encoded("{a: 1}") == ({"a": 1}, True)
    assert decode_double_encoded('"x"') == ('"x"', False)
    assert decode_double_encoded("42") == ("42", False)
    assert decode_double_encoded({"a": 1}) == ({"a": 1}, False)
    assert decode_double_encoded("") == ("", False)


def test_decode_double_encoded_refuses_deep_nesting() -> None:
    deep = "[" * 100 + "]" * 100
    assert decode_double_encoded(deep) == (deep, False)


def test_decode_double_encoded_skips_json_repair_on_huge_strings() -> None:
    huge = "{'a': '" + "x" * 200_000 + "'"
    assert decode_double_encoded(huge) == (huge, False)


# ---- arrays ----------------------------------------------------------------------------


def test_single_value_wrapped_in_array() -> None:
    schema = obj({"tags": {"type": "array", "items": STR}})
    out, kinds = run({"tags": "red"}, schema)
    assert out == {"tags": ["red"]}
    assert kinds == ["type_mismatch"]
    assert details({"tags": "red"}, schema) == ['\'tags\': "red" → ["red"] (array)']


def test_single_value_coerced_then_wrapped() -> None:
    out, kinds = run({"ids": "7"}, obj({"ids": {"type": "array", "items": INT}}))
    assert same_json(out, {"ids": [7]})
    assert kinds == ["type_mismatch"]


def test_single_object_wrapped() -> None:
    schema = obj({"rows": {"type": "array", "items": obj({"a": INT})}})
    out, kinds = run({"rows": {"a": 1}}, schema)
    assert out == {"rows": [{"a": 1}]}
    assert kinds == ["type_mismatch"]


def test_unwrappable_value_stays() -> None:
    schema = obj({"ids": {"type": "array", "items": INT, "minItems": 2}})
    out, kinds = run({"ids": 3}, schema)
    assert out == {"ids": 3}
    assert kinds == []


def test_no_wrapping_without_a_declared_array_type() -> None:
    out, kinds = run({"n": 3}, obj({"n": {"minimum": 5}}))
    assert out == {"n": 3}
    assert kinds == []


def test_prefix_items() -> None:
    schema = obj({"p": {"type": "array", "prefixItems": [INT, BOOL], "items": STR}})
    out, kinds = run({"p": ["1", "true", 3]}, schema)
    assert same_json(out, {"p": [1, True, "3"]})
    assert kinds == ["type_mismatch"] * 3


# ---- enums and const -------------------------------------------------------------------


def test_enum_case() -> None:
    schema = obj({"unit": {"type": "string", "enum": ["Celsius", "Fahrenheit"]}})
    out, kinds = run({"unit": " celsius"}, schema)
    assert out == {"unit": "Celsius"}
    assert kinds == ["enum_case"]
    assert details({"unit": "celsius"}, schema) == ['\'unit\': "celsius" → "Celsius" (enum)']


def test_enum_case_ambiguous_stays() -> None:
    out, kinds = run({"m": "AB"}, obj({"m": {"enum": ["ab", "Ab"]}}))
    assert out == {"m": "AB"}
    assert kinds == []


def test_numeric_enum_from_string_and_back() -> None:
    schema = obj({"a": {"enum": [1, 2, 3]}, "b": {"enum": ["1", "2"]}})
    out, kinds = run({"a": "2", "b": 2}, schema)
    assert same_json(out, {"a": 2, "b": "2"})
    assert kinds == ["type_mismatch", "type_mismatch"]


def test_enum_without_match_is_left_alone() -> None:
    schema = obj({"unit": {"type": "string", "enum": ["Celsius", "Fahrenheit"]}})
    out, kinds = run({"unit": 5}, schema)
    assert out == {"unit": 5}
    assert kinds == []


def test_const_case() -> None:
    out, kinds = run({"k": "SEARCH"}, obj({"k": {"const": "search"}}))
    assert out == {"k": "search"}
    assert kinds == ["enum_case"]


# ---- nulls and extra keys --------------------------------------------------------------


def test_null_for_optional_is_dropped() -> None:
    schema = obj({"q": STR, "limit": INT}, required=["q"])
    out, kinds = run({"q": "x", "limit": None}, schema)
    assert out == {"q": "x"}
    assert kinds == ["type_mismatch"]
    assert details({"q": "x", "limit": None}, schema) == ["dropped null for optional 'limit'"]


def test_null_for_required_is_left() -> None:
    out, kinds = run({"q": None}, obj({"q": STR}, required=["q"]))
    assert out == {"q": None}
    assert kinds == []


def test_extra_keys_dropped_when_forbidden() -> None:
    schema = obj({"q": STR}, additionalProperties=False)
    out, kinds = run({"q": "x", "foo": 1, "bar": 2}, schema)
    assert out == {"q": "x"}
    assert kinds == ["extra_keys"]
    assert details({"q": "x", "foo": 1, "bar": 2}, schema) == ["dropped extra keys 'foo', 'bar'"]


def test_extra_keys_kept_when_allowed() -> None:
    out, kinds = run({"q": 5, "foo": 1}, obj({"q": STR}))
    assert out == {"q": "5", "foo": 1}
    assert kinds == ["type_mismatch"]


def test_extra_keys_always() -> None:
    out, kinds = run({"q": "x", "foo": 1}, obj({"q": STR}), drop_extra_keys="always")
    assert out == {"q": "x"}
    assert kinds == ["extra_keys"]


def test_extra_keys_always_does_not_empty_free_form_objects() -> None:
    out, kinds = run({"a": 1}, {"type": "object"}, drop_extra_keys="always")
    assert out == {"a": 1}
    assert kinds == []


def test_extra_keys_never() -> None:
    schema = obj({"q": STR}, additionalProperties=False)
    out, kinds = run({"q": "x", "foo": 1}, schema, drop_extra_keys="never")
    assert out == {"q": "x", "foo": 1}
    assert kinds == []


def test_extra_keys_kept_with_pattern_properties() -> None:
    schema = obj({"q": STR}, patternProperties={"^x_": INT}, additionalProperties=False)
    out, kinds = run({"q": 1, "x_a": 1, "y": 2}, schema, drop_extra_keys="always")
    assert out == {"q": "1", "x_a": 1, "y": 2}
    assert kinds == ["type_mismatch"]


def test_extra_keys_coerced_to_additional_properties_schema() -> None:
    schema = obj({"q": STR}, additionalProperties=INT)
    out, kinds = run({"q": "x", "n": "4"}, schema, drop_extra_keys="always")
    assert same_json(out, {"q": "x", "n": 4})
    assert kinds == ["type_mismatch"]


def test_nested_extra_keys_detail_names_path() -> None:
    schema = obj({"f": obj({"a": INT}, additionalProperties=False)})
    assert details({"f": {"a": 1, "z": 0}}, schema) == ["'f': dropped extra keys 'z'"]


# ---- nesting, refs, combinators --------------------------------------------------------


def test_nested_objects_and_arrays() -> None:
    schema = obj({"items": {"type": "array", "items": obj({"qty": INT, "ok": BOOL})}})
    args = {"items": [{"qty": "2", "ok": "false"}, {"qty": 3, "ok": True}]}
    out, kinds = run(args, schema)
    assert kinds == ["type_mismatch", "type_mismatch"]
    assert same_json(out, {"items": [{"qty": 2, "ok": False}, {"qty": 3, "ok": True}]})
    assert details(args, schema) == [
        "'items[0].qty': \"2\" → 2 (integer)",
        "'items[0].ok': \"false\" → false (boolean)",
    ]


@pytest.mark.parametrize("defs", ["$defs", "definitions"])
def test_local_refs(defs: str) -> None:
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": f"#/{defs}/Point"}},
        defs: {"Point": obj({"x": INT, "y": INT})},
    }
    out, kinds = run({"p": {"x": "1", "y": 2}}, schema)
    assert same_json(out, {"p": {"x": 1, "y": 2}})
    assert kinds == ["type_mismatch"]


def test_recursive_ref_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": obj({"v": INT, "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})
        },
    }
    args = {"root": {"v": 1, "kids": [{"v": "2", "kids": [{"v": "3"}]}]}}
    out, kinds = run(args, schema)
    assert same_json(out, {"root": {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]}})
    assert kinds == ["type_mismatch", "type_mismatch"]


def test_ref_cycle_does_not_hang() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "n": INT},
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
    }
    out, _ = run({"a": "x", "n": "1"}, schema)
    assert out["a"] == "x"


def test_unresolvable_ref_leaves_value() -> None:
    schema = obj({"a": {"$ref": "#/$defs/Missing"}, "n": INT})
    out, _ = run({"a": "1", "n": 1.5}, schema)
    assert out == {"a": "1", "n": 1.5}


def test_pydantic_nullable_any_of() -> None:
    schema = obj({"n": {"anyOf": [INT, {"type": "null"}], "default": None}})
    assert run({"n": "4"}, schema) == ({"n": 4}, ["type_mismatch"])
    assert run({"n": None}, schema) == ({"n": None}, [])
    assert run({"n": "null"}, schema) == ({"n": None}, ["type_mismatch"])


def test_any_of_first_fitting_branch_wins() -> None:
    schema = obj({"v": {"anyOf": [INT, STR]}})
    assert run({"v": "3"}, schema) == ({"v": "3"}, [])


def test_any_of_first_coercible_branch() -> None:
    schema = obj({"v": {"anyOf": [BOOL, INT]}})
    out, kinds = run({"v": "3"}, schema)
    assert same_json(out, {"v": 3})
    assert kinds == ["type_mismatch"]


def test_one_of_with_objects() -> None:
    schema = obj(
        {
            "shape": {
                "oneOf": [
                    obj({"r": NUM}, required=["r"], additionalProperties=False),
                    obj({"w": NUM, "h": NUM}, required=["w", "h"], additionalProperties=False),
                ]
            }
        }
    )
    out, kinds = run({"shape": {"w": "2", "h": 3}}, schema)
    assert same_json(out, {"shape": {"w": 2, "h": 3}})
    assert kinds == ["type_mismatch"]


def test_any_of_partial_coercion_when_one_branch_admits_the_type() -> None:
    schema = obj({"f": {"anyOf": [obj({"a": INT, "b": STR}, required=["b"]), {"type": "null"}]}})
    out, kinds = run({"f": {"a": "1"}}, schema)
    assert same_json(out, {"f": {"a": 1}})  # 'b' still missing: validation reports it
    assert kinds == ["type_mismatch"]


def test_type_list() -> None:
    out, kinds = run({"v": "2.5"}, obj({"v": {"type": ["number", "null"]}}))
    assert same_json(out, {"v": 2.5})
    assert kinds == ["type_mismatch"]


def test_all_of() -> None:
    schema = obj({"v": {"allOf": [{"type": "integer"}, {"minimum": 0}]}})
    out, kinds = run({"v": "4"}, schema)
    assert same_json(out, {"v": 4})
    assert kinds == ["type_mismatch"]


def test_root_ref() -> None:
    schema = {"$ref": "#/$defs/Args", "$defs": {"Args": obj({"n": INT})}}
    out, kinds = run({"n": "1"}, schema)
    assert same_json(out, {"n": 1})
    assert kinds == ["type_mismatch"]


# ---- string_values ---------------------------------------------------------------------


def test_string_values_are_typed_without_repairs() -> None:
    schema = obj(
        {
            "days": INT,
            "t": NUM,
            "b": BOOL,
            "o": obj({"a": INT}),
            "l": {"type": "array", "items": INT},
            "n": {"anyOf": [INT, {"type": "null"}]},
            "s": STR,
            "j": STR,
        }
    )
    args = {
        "days": "3",
        "t": "0.5",
        "b": "false",
        "o": '{"a": 1}',
        "l": "[1, 2]",
        "n": "null",
        "s": " 42 ",
        "j": '{"x": 1}',
    }
    out, kinds = run(args, schema, string_values=True)
    assert same_json(
        out,
        {
            "days": 3,
            "t": 0.5,
            "b": False,
            "o": {"a": 1},
            "l": [1, 2],
            "n": None,
            "s": " 42 ",
            "j": '{"x": 1}',
        },
    )
    assert kinds == []


def test_string_values_keeps_string_for_string_first_union() -> None:
    out, kinds = run({"v": "3"}, obj({"v": {"anyOf": [STR, INT]}}), string_values=True)
    assert out == {"v": "3"}
    assert kinds == []


def test_string_values_then_real_repairs_are_recorded() -> None:
    schema = obj(
        {
            "unit": {"enum": ["Celsius", "Fahrenheit"]},
            "o": obj({"a": INT}),
        }
    )
    out, kinds = run({"unit": "celsius", "o": '{"a": "1"}'}, schema, string_values=True)
    assert same_json(out, {"unit": "Celsius", "o": {"a": 1}})
    assert kinds == ["enum_case", "type_mismatch"]


def test_string_values_numeric_enum_is_typed_quietly() -> None:
    out, kinds = run({"level": "2"}, obj({"level": {"enum": [1, 2, 3]}}), string_values=True)
    assert same_json(out, {"level": 2})
    assert kinds == []


def test_string_values_unknown_key_stays_text() -> None:
    out, kinds = run({"x": "5"}, obj({"q": STR}), string_values=True)
    assert out == {"x": "5"}
    assert kinds == []


# ---- safety ----------------------------------------------------------------------------


def test_pattern_is_never_run() -> None:
    evil = {"type": "string", "pattern": "^(a+)+$"}
    schema = obj({"s": evil, "n": INT})
    out, kinds = run({"s": "a" * 40 + "!", "n": "1"}, schema)
    assert same_json(out, {"s": "a" * 40 + "!", "n": 1})
    assert kinds == ["type_mismatch"]


def test_depth_cap() -> None:
    schema: dict[str, Any] = {"$defs": {"L": {"type": "array", "items": {"$ref": "#/$defs/L"}}}}
    schema.update(obj({"v": {"$ref": "#/$defs/L"}, "n": INT}))
    value: Any = []
    for _ in range(150):
        value = [value]
    out, kinds = run({"v": value, "n": "2"}, schema)
    assert kinds == ["type_mismatch"]
    assert same_json(out["n"], 2)
    assert out["v"] == value


def test_input_is_not_mutated() -> None:
    schema = obj({"f": obj({"a": INT}, additionalProperties=False), "opt": INT})
    args = {"f": {"a": "1", "z": 2}, "opt": None}
    before = copy.deepcopy(args)
    out, _ = run(args, schema)
    assert args == before
    assert same_json(out, {"f": {"a": 1}})
    assert out is not args


def test_valid_arguments_are_returned_unchanged() -> None:
    schema = obj({"q": STR, "n": INT, "f": NUM}, required=["q"], additionalProperties=False)
    args = {"q": "5", "n": 5, "f": 5}
    out, kinds = run(args, schema)
    assert same_json(out, args)
    assert kinds == []


# ---- properties ------------------------------------------------------------------------

_SCALARS: list[dict[str, Any]] = [
    STR,
    INT,
    NUM,
    BOOL,
    {"type": "null"},
    {"enum": ["Celsius", "fahrenheit", 1, "2"]},
    {"type": ["string", "null"]},
    {"anyOf": [INT, {"type": "null"}]},
    {"type": "string", "pattern": "^[a-z]*$"},
    {"const": "fixed"},
]

_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["5", "true", "null", '{"a": 1}', "[1]", "Celsius", "celsius", "2"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def _object_schema(props: dict[str, Any], required: list[str], closed: bool) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    if closed:
        schema["additionalProperties"] = False
    return schema


def _objects(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from("abcde"), children, max_size=4).flatmap(
        lambda props: st.builds(
            _object_schema,
            st.just(props),
            st.lists(st.sampled_from(sorted(props)), unique=True) if props else st.just([]),
            st.booleans(),
        )
    )


_schemas = st.recursive(
    st.sampled_from(_SCALARS),
    lambda inner: st.builds(lambda s: {"type": "array", "items": s}, inner) | _objects(inner),
    max_leaves=6,
)
_root_schemas = _objects(_schemas)


def _values_for(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    if "anyOf" in schema:
        return st.one_of([_values_for(s) for s in schema["anyOf"]])
    t = schema.get("type")
    if isinstance(t, list):
        return st.one_of([_values_for({"type": x}) for x in t])
    if t == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(max_size=6) | st.sampled_from(["5", "true", "null", "[1]", "{}"])
    if t == "integer":
        return st.integers(-1000, 1000)
    if t == "number":
        return st.integers(-1000, 1000) | st.floats(allow_nan=False, allow_infinity=False)
    if t == "boolean":
        return st.booleans()
    if t == "null":
        return st.none()
    if t == "array":
        return st.lists(_values_for(schema["items"]), max_size=3)
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, sub in props.items():
            if key in required or draw(st.booleans()):
                out[key] = draw(_values_for(sub))
        if schema.get("additionalProperties") is not False:
            extra = draw(st.dictionaries(st.sampled_from("xyz"), _json_values, max_size=2))
            out.update(extra)
        return out

    return build()


@st.composite
def _valid_cases(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = draw(_root_schemas)
    value = draw(_values_for(schema))
    return schema, value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_valid_cases())
def test_valid_values_are_never_changed(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    schema, value = case
    assume(Draft202012Validator(schema).is_valid(value))
    result = coerce_arguments(value, schema)
    assert same_json(result.arguments, value)
    assert result.repairs == ()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _root_schemas,
    st.dictionaries(st.sampled_from("abcdexyz"), _json_values, max_size=6),
    st.sampled_from(["when_forbidden", "always", "never"]),
    st.booleans(),
)
def test_coercion_never_invents_keys(
    schema: dict[str, Any], args: dict[str, Any], mode: Any, string_values: bool
) -> None:
    before = copy.deepcopy(args)
    result = coerce_arguments(args, schema, drop_extra_keys=mode, string_values=string_values)
    assert set(result.arguments) <= set(args)
    assert args == before
    again = coerce_arguments(args, schema, drop_extra_keys=mode, string_values=string_values)
    assert same_json(again.arguments, result.arguments)  # deterministic
    assert again.repairs == result.repairs
    if Draft202012Validator(schema).is_valid(result.arguments) and not string_values:
        assert coerce_arguments(result.arguments, schema, drop_extra_keys=mode).repairs == ()


def test_many_repairs_are_summed_up() -> None:
    schema = obj({"l": {"type": "array", "items": INT}})
    result = coerce_arguments({"l": [str(i) for i in range(60)]}, schema)
    assert same_json(result.arguments, {"l": list(range(60))})
    assert len(result.repairs) == 51
    assert result.repairs[49].detail == "'l[49]': \"49\" → 49 (integer)"
    assert result.repairs[50].kind == "type_mismatch"
    assert result.repairs[50].detail == "10 more type_mismatch repairs not listed"


def test_wrapped_item_drops_extra_keys_in_always_mode() -> None:
    # found by hypothesis: wrapping a value into [value] must also apply "always"
    schema = {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {}}}},
    }
    first = coerce_arguments({"a": {"": None}}, schema, drop_extra_keys="always")
    assert first.arguments == {"a": [{}]}
    again = coerce_arguments(first.arguments, schema, drop_extra_keys="always")
    assert again.repairs == ()


@pytest.mark.parametrize("depth", [1, 63, 64, 65, 66, 3000])
def test_decode_double_encoded_depth_limit(depth: int) -> None:
    """JSON decoded strictly is held to the same depth limit as text that needs repair."""
    from toolfix._repair.coerce import MAX_DEPTH

    wanted = depth <= MAX_DEPTH
    assert decode_double_encoded("[" * depth + "]" * depth)[1] is wanted
    assert decode_double_encoded('{"a":' * depth + '"[{"' + "}" * depth)[1] is wanted
    assert decode_double_encoded("[" * depth + "1," * 70 + "2" + "]" * depth)[1] is wanted
    # the repaired reading (missing closer) keeps the limit too
    assert decode_double_encoded("[" * depth + "1" + "]" * (depth - 1))[1] is wanted


_TEXT_SCHEMA = obj(
    {
        "plain": {"type": "string"},
        "described": {"type": "string", "description": "d", "title": "t"},
        "enum": {"type": "string", "enum": ["a", "b"]},
        "bounded": {"type": "string", "maxLength": 3},
        "count": {"type": "integer"},
        "flag": {"type": "boolean"},
        "either": {"type": ["string", "null"]},
        "anything": {},
    },
    required=["plain"],
    additionalProperties=False,
)


def test_text_keys_are_the_plain_string_parameters() -> None:
    from toolfix._repair.coerce import text_keys

    assert text_keys(_TEXT_SCHEMA, "when_forbidden") == {"plain", "described"}
    assert text_keys(_TEXT_SCHEMA, "never") == {"plain", "described"}
    assert text_keys(_TEXT_SCHEMA, "always") == frozenset()  # (extra keys may be dropped)
    assert text_keys({"type": "object", "anyOf": [{}]}, "when_forbidden") == frozenset()


@given(
    st.dictionaries(
        st.sampled_from(["plain", "described"]),
        st.text(max_size=12) | st.sampled_from([" 12 ", "true", "null", '{"a": 1}', "[1]"]),
    )
)
def test_text_of_text_keys_comes_out_of_coercion_unchanged(args: dict[str, str]) -> None:
    """What lets the finisher skip the coercion of such arguments (``found``)."""
    from toolfix._repair.coerce import schema_coercer

    for drop in ("when_forbidden", "never"):
        out, records = schema_coercer(_TEXT_SCHEMA, drop)(dict(args), True)
        assert records == ()
        assert list(out.items()) == list(args.items())
        assert all(type(v) is str for v in out.values())


_REF_ROOT: dict[str, Any] = {
    "type": "object",
    "$defs": {"n": INT, "flag": BOOL},
    "properties": {
        "r": {"$ref": "#/$defs/n"},
        "u": {"anyOf": [{"$ref": "#/$defs/flag"}, INT, {"type": "null"}]},
        "o": {"oneOf": [NUM, STR]},
        "gone": {"$ref": "#/$defs/missing"},
    },
}
_texts = st.text(max_size=6) | st.sampled_from(
    [" 12 ", "5", "2.5", "true", "False", "null", "None", "[1]", '{"a": 1}', "Celsius"]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _root_schemas | st.just(_REF_ROOT),
    st.lists(
        st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e", "r", "u", "o", "gone"]), _texts),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["when_forbidden", "always", "never"]),
)
def test_a_tools_coercer_answers_as_a_fresh_coercion(
    schema: dict[str, Any], calls: list[dict[str, str]], mode: Any
) -> None:
    """A tool's coercer keeps what typing a text by each parameter tries across its runs
    (the plans of ``type_text``): every run gives what a fresh coercion gives."""
    from toolfix._repair.coerce import schema_coercer

    coercer = schema_coercer(schema, mode)
    for args in calls * 2:  # (the second pass reads every plan from the first)
        for string_values in (True, False):
            out, records = coercer(dict(args), string_values)
            fresh = coerce_arguments(
                args, schema, drop_extra_keys=mode, string_values=string_values
            )
            assert same_json(out, fresh.arguments)
            assert [type(v) for v in out.values()] == [type(v) for v in fresh.arguments.values()]
            assert records == fresh.repairs
