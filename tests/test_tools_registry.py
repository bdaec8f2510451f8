"""ToolDescriptor / ToolRegistry: every definition shape, Python functions, errors, limits."""

from __future__ import annotations

import enum
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from toolfix import ToolRegistry, repair
from toolfix._patterns import PATTERN_INPUT_CAP
from toolfix.errors import ToolDefinitionError
from toolfix.tools import ToolDescriptor

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    street: str
    zip: int = 0


def book_hotel(
    city: str,
    nights: int = 1,
    pet: str | None = None,
    mode: Literal["fast", "cheap"] = "fast",
    color: Color = Color.RED,
    address: Address | None = None,
) -> str:
    """Book a hotel.

    Args:
        city: The city to book in.
        nights: How many nights,
            at least one.
        pet (str): Name of the pet.

    Returns:
        A booking id.
    """
    return f"{city}-{nights}"


def test_from_openai_wrapped_and_bare() -> None:
    wrapped = {
        "type": "function",
        "function": {"name": "w", "description": "d", "parameters": SCHEMA, "strict": True},
    }
    t = ToolDescriptor.from_openai(wrapped)
    assert (t.name, t.description, dict(t.parameters), t.strict) == ("w", "d", SCHEMA, True)
    bare = ToolDescriptor.from_openai({"name": "w", "parameters": SCHEMA})
    assert bare == ToolDescriptor(name="w", parameters=SCHEMA)
    assert t.to_openai() == {
        "type": "function",
        "function": {"name": "w", "description": "d", "parameters": SCHEMA},
    }


def test_from_anthropic_and_mcp_dicts() -> None:
    a = ToolDescriptor.from_anthropic({"name": "a", "description": "x", "input_schema": SCHEMA})
    assert (a.name, a.description, a.required) == ("a", "x", ("city",))
    assert a.to_anthropic() == {"name": "a", "description": "x", "input_schema": SCHEMA}
    m = ToolDescriptor.from_mcp({"name": "m", "inputSchema": SCHEMA})
    assert (m.name, dict(m.parameters)) == ("m", SCHEMA)


def test_from_mcp_object_with_model_dump() -> None:
    class McpTool(BaseModel):
        name: str
        description: str | None = None
        inputSchema: dict[str, Any]

    t = ToolDescriptor.from_mcp(McpTool(name="read_file", inputSchema=SCHEMA))
    assert (t.name, t.description, dict(t.parameters)) == ("read_file", "", SCHEMA)
    with pytest.raises(ToolDefinitionError):
        ToolDescriptor.from_mcp(object())


def test_registry_of_mixed_shapes() -> None:
    reg = ToolRegistry.of(
        [
            {"type": "function", "function": {"name": "o", "parameters": SCHEMA}},
            {"name": "a", "input_schema": SCHEMA},
            {"name": "m", "inputSchema": SCHEMA},
            book_hotel,
            ToolDescriptor(name="d"),
        ]
    )
    assert reg.names == ["o", "a", "m", "book_hotel", "d"]
    assert ToolRegistry.of(reg) is reg
    assert len(ToolRegistry.of(None)) == 0
    assert reg["d"].parameters == {"type": "object", "properties": {}}
    assert reg.with_tools(ToolDescriptor(name="e")).names[-1] == "e"


def test_registry_classmethods_and_round_trip() -> None:
    reg = ToolRegistry.from_openai(
        [{"type": "function", "function": {"name": "o", "parameters": SCHEMA}}]
    )
    assert ToolRegistry.from_openai(reg.to_openai()) == reg
    assert ToolRegistry.from_anthropic(reg.to_anthropic()) == reg
    assert ToolRegistry.from_mcp([{"name": "o", "inputSchema": SCHEMA}]) == reg
    assert ToolRegistry.from_functions(book_hotel).names == ["book_hotel"]


def test_duplicate_names_rejected() -> None:
    with pytest.raises(ToolDefinitionError, match="duplicate tool name 'x'"):
        ToolRegistry([ToolDescriptor(name="x"), ToolDescriptor(name="x")])
    with pytest.raises(ToolDefinitionError):
        ToolRegistry.of(
            [{"name": "x", "input_schema": SCHEMA}, {"type": "function", "function": {"name": "x"}}]
        )


@pytest.mark.parametrize(
    "make",
    [
        lambda: ToolDescriptor(name="bad", parameters={"type": "objekt"}),
        lambda: ToolDescriptor(name="bad", parameters={"type": "object", "required": "city"}),
        lambda: ToolDescriptor(name="", parameters=SCHEMA),
        lambda: ToolDescriptor(name="bad", parameters=[1, 2]),  # type: ignore[arg-type]
        lambda: ToolDescriptor.from_openai(
            {"type": "function", "function": {"description": "no name"}}
        ),
        lambda: ToolDescriptor.from_anthropic({"input_schema": SCHEMA}),
        lambda: ToolRegistry.of([42]),  # type: ignore[list-item]
    ],
    ids=[
        "bad-type",
        "bad-required",
        "empty-name",
        "not-a-mapping",
        "openai-no-name",
        "anthropic-no-name",
        "int",
    ],
)
def test_invalid_definitions_raise_tool_definition_error(make: Any) -> None:
    with pytest.raises(ToolDefinitionError):
        make()


def test_from_function_schema_from_type_hints() -> None:
    t = ToolDescriptor.from_function(book_hotel)
    assert t.name == "book_hotel"
    assert t.description == "Book a hotel."
    props = t.properties
    assert props["city"] == {"description": "The city to book in.", "type": "string"}
    assert props["nights"] == {
        "default": 1,
        "description": "How many nights, at least one.",
        "type": "integer",
    }
    assert props["pet"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
        "description": "Name of the pet.",
    }
    assert props["mode"] == {"default": "fast", "enum": ["fast", "cheap"], "type": "string"}
    assert props["color"] == {"$ref": "#/$defs/Color", "default": "red"}
    assert t.parameters["$defs"]["Color"]["enum"] == ["red", "blue"]
    assert t.parameters["$defs"]["Address"]["required"] == ["street"]
    assert t.required == ("city",)
    assert t.parameters["additionalProperties"] is False
    assert t.handler is book_hotel
    assert t.is_valid({"city": "Rome", "color": "blue", "address": {"street": "Via Roma"}})
    assert not t.is_valid({"city": "Rome", "color": "green"})
    assert not t.is_valid({"city": "Rome", "extra": 1})


def test_from_function_name_and_description_override() -> None:
    t = ToolDescriptor.from_function(book_hotel, name="book", description="Reserve.")
    assert (t.name, t.description) == ("book", "Reserve.")


def test_from_function_rejects_undescribable() -> None:
    def splat(*args: int) -> None:
        return None

    def kw(**kwargs: int) -> None:
        return None

    for fn in (splat, kw, lambda x: x):
        with pytest.raises(ToolDefinitionError):
            ToolDescriptor.from_function(fn)


def test_function_tool_repair_uses_generated_schema() -> None:
    text = (
        '<tool_call>{"name": "book_hotel", "arguments": {"city": "Rome", "nights": "2", '
        '"mode": "Cheap"}}</tool_call>'
    )
    [call] = repair(text, [book_hotel]).tool_calls
    assert call.arguments == {"city": "Rome", "nights": 2, "mode": "cheap"}
    assert [r.kind for r in call.repairs] == [
        "call_in_content",
        "native_markup",
        "type_mismatch",
        "enum_case",
    ]


def test_validate_arguments_issues() -> None:
    t = ToolDescriptor(
        name="t",
        parameters={**SCHEMA, "properties": {"city": {"type": "string"}, "n": {"type": "integer"}}},
    )
    issues = t.validate_arguments({"n": "x"})
    assert {(i.path, i.keyword) for i in issues} == {("", "required"), ("$.n", "type")}
    assert str(issues[0]) == "'city' is a required property"
    assert t.validate_arguments({"city": "x"}) == []


def test_pattern_cap_refuses_long_strings_without_running_the_regex() -> None:
    t = ToolDescriptor(
        name="p",
        parameters={
            "type": "object",
            "properties": {"s": {"type": "string", "pattern": "^a+$"}},
        },
    )
    long = "a" * (PATTERN_INPUT_CAP + 1)  # would match: only the cap can refuse it
    [issue] = t.validate_arguments({"s": long})
    assert issue.message.startswith(
        f"string of {len(long)} chars is too long to check against pattern"
    )
    assert not t.is_valid({"s": long})
    assert t.is_valid({"s": long}, max_pattern_chars=len(long))  # the cap is explicit
    assert t.is_valid({"s": "aaa"})
    assert not t.is_valid({"s": "aab"})


def test_invalid_pattern_is_a_definition_error_naming_the_tool() -> None:
    with pytest.raises(ToolDefinitionError, match=r"^tool 'p': .*'\(' is not a 'regex'") as err:
        ToolDescriptor(
            name="p",
            parameters={"type": "object", "properties": {"s": {"type": "string", "pattern": "("}}},
        )
    assert err.value.tool_name == "p"
