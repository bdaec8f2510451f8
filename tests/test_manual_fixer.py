"""End-to-end tests of the manual fixer: one case per failure class and per format.

Every case goes through the public entry points (``toolfix.repair`` and
``ManualToolCallFixProcessor.fix``) and checks the exact calls recovered (name and
arguments), the exact repair record kinds, the remaining content, and the fields
of invalid calls.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import BASIC_TOOLS, openai_tool

from toolfix import (
    FixConfig,
    InvalidToolCallPart,
    ManualToolCallFixProcessor,
    Response,
    ToolCallPart,
    ToolRegistry,
    repair,
)
from toolfix.config import ToolCallJsonConfig
from toolfix.messages import ReasoningPart, TextPart

CIC = "call_in_content"
NM = "native_markup"

EVENT = openai_tool(
    "create_event",
    {
        "title": {"type": "string"},
        "loc": {"$ref": "#/$defs/Loc"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "count": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    ["title", "loc"],
    **{
        "$defs": {
            "Loc": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                "required": ["lat", "lon"],
            }
        }
    },
)
ALL_TOOLS = [*BASIC_TOOLS, EVENT]


def calls(r: Response) -> list[tuple[str, dict[str, Any] | None]]:
    return [(c.name, c.arguments) for c in r.tool_calls]


def kinds(part: ToolCallPart | InvalidToolCallPart) -> list[str]:
    return [rec.kind for rec in part.repairs]


def only_call(r: Response) -> ToolCallPart:
    assert r.invalid_tool_calls == []
    assert len(r.tool_calls) == 1, r.parts
    return r.tool_calls[0]


def only_invalid(r: Response) -> InvalidToolCallPart:
    assert r.tool_calls == [], r.parts
    assert len(r.invalid_tool_calls) == 1, r.parts
    return r.invalid_tool_calls[0]


def native(
    name: str, arguments: str, call_id: str = "c0", content: str | None = None
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }


PARIS = {"city": "Paris"}
CALL_JSON = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


# ---- call_in_content / code_fence -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (CALL_JSON, ""),
        (f"Sure, let me check. {CALL_JSON}", "Sure, let me check."),
        (f"{CALL_JSON}\nI called the tool.", "I called the tool."),
        (f"Checking. {CALL_JSON} Done.", "Checking.\nDone."),
    ],
)
def test_call_in_content_bare_json(text: str, content: str) -> None:
    r = repair(text, BASIC_TOOLS)
    c = only_call(r)
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC]
    assert c.arguments_raw == '{"city":"Paris"}'
    assert r.text == content


def test_code_fence() -> None:
    r = repair(f"Here:\n```json\n{CALL_JSON}\n```\nok", BASIC_TOOLS)
    c = only_call(r)
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, "code_fence"]
    assert r.text == "Here:\nok"


# ---- native markup ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"<tool_call>{CALL_JSON}</tool_call>",
        f"<tool_call>\n{CALL_JSON}\n</tool_call>",
        f"<tool_call>\n{CALL_JSON}",  # no close tag
        f"[TOOL_CALLS][{CALL_JSON}]",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
    ],
    ids=["hermes", "hermes-newlines", "hermes-unclosed", "mistral", "llama-python-tag"],
)
def test_native_markup_formats(text: str) -> None:
    r = repair(text, BASIC_TOOLS)
    c = only_call(r)
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, NM]
    assert r.text == ""


def test_hermes_keeps_prose_around_tags() -> None:
    r = repair(f"Let me look.\n<tool_call>{CALL_JSON}</tool_call>\nThanks", BASIC_TOOLS)
    assert calls(r) == [("get_weather", PARIS)]
    assert r.text == "Let me look.\nThanks"


def test_qwen_xml_parameters_typed_by_schema() -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n5\n</parameter>\n</function>\n</tool_call>"
    )
    r = repair(text, BASIC_TOOLS)
    c = only_call(r)
    assert (c.name, c.arguments) == ("get_weather", {"city": "Paris", "days": 5})
    assert kinds(c)[:2] == [CIC, NM]
    assert r.text == ""


def test_qwen_xml_object_and_ref_parameter() -> None:
    text = (
        "<function=create_event>\n<parameter=title>\nMeet\n</parameter>\n"
        '<parameter=loc>\n{"lat": 1, "lon": 2}\n</parameter>\n'
        "<parameter=count>\n7\n</parameter>\n</function>"
    )
    c = only_call(repair(text, ALL_TOOLS))
    assert (c.name, c.arguments) == (
        "create_event",
        {"title": "Meet", "loc": {"lat": 1, "lon": 2}, "count": 7},
    )


def test_pythonic_list() -> None:
    r = repair('[get_weather(city="Paris", days=3), search_web(query="x")]', BASIC_TOOLS)
    assert calls(r) == [
        ("get_weather", {"city": "Paris", "days": 3}),
        ("search_web", {"query": "x"}),
    ]
    assert [kinds(c) for c in r.tool_calls] == [[CIC, "pythonic"], [CIC, "pythonic"]]
    assert r.text == ""
    assert r.tool_calls[0].id != r.tool_calls[1].id


# ---- reasoning --------------------------------------------------------------------------

HERMES_CALL = f"<tool_call>{CALL_JSON}</tool_call>"


def test_think_block_moved_to_reasoning() -> None:
    r = repair(f"<think>I should call get_weather</think>{CALL_JSON}", BASIC_TOOLS)
    assert r.reasoning == "I should call get_weather"
    assert calls(r) == [("get_weather", PARIS)]
    assert [rec.kind for rec in r.repairs] == ["in_reasoning"]
    assert r.text == ""
    assert isinstance(r.parts[0], ReasoningPart)


def test_call_only_in_reasoning_is_ignored_by_default() -> None:
    r = repair(f"<think>{HERMES_CALL}</think>The answer is 42.", BASIC_TOOLS)
    assert r.tool_calls == []
    assert r.invalid_tool_calls == []
    assert r.reasoning == HERMES_CALL
    assert r.text == "The answer is 42."


def test_reasoning_part_call_ignored_by_default_returns_same_object() -> None:
    resp = Response(parts=(ReasoningPart(text=HERMES_CALL), TextPart(text="Done.")))
    assert repair(resp, BASIC_TOOLS) is resp


def test_call_only_in_reasoning_promoted() -> None:
    cfg = FixConfig(reasoning_calls="promote")
    r = repair(f"<think>{HERMES_CALL}</think>The answer", BASIC_TOOLS, config=cfg)
    c = only_call(r)
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == ["in_reasoning", CIC, NM]
    assert r.text == "The answer"
    assert r.reasoning == HERMES_CALL


def test_call_in_reasoning_and_content_not_duplicated() -> None:
    cfg = FixConfig(reasoning_calls="promote")
    r = repair(f"<think>{HERMES_CALL}</think>{HERMES_CALL}", BASIC_TOOLS, config=cfg)
    c = only_call(r)
    assert kinds(c) == [CIC, NM]  # the content call, not a promoted copy
    resp = Response(parts=(ReasoningPart(text=HERMES_CALL), TextPart(text=HERMES_CALL)))
    assert calls(repair(resp, BASIC_TOOLS, config=cfg)) == [("get_weather", PARIS)]


# ---- invalid JSON ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("{'name': 'get_weather', 'arguments': {'city': 'Paris',},}", ("get_weather", PARIS)),
        ('{"name": "get_weather", "arguments": {"city": "Paris",}}', ("get_weather", PARIS)),
        (
            '{name: "get_weather", arguments: {city: "Paris", days: 3}}',
            ("get_weather", {"city": "Paris", "days": 3}),
        ),
        (
            '{"name": "search_web", "arguments": {"query": "x", "strict": True}}',
            ("search_web", {"query": "x", "strict": True}),
        ),
        (
            '{"name": "get_weather", "arguments": {"city": "Paris", "unit": None}}',
            ("get_weather", PARIS),  # null for an optional key is dropped (recorded)
        ),
        (
            '{"name": "search_web", "arguments": {"query": "line1\nline2"}}',
            ("search_web", {"query": "line1\nline2"}),
        ),
        (
            '{"name": "search_web", "arguments": {"query": "a\\qb"}}',
            ("search_web", {"query": "a\\qb"}),
        ),
    ],
    ids=[
        "single-quotes",
        "trailing-comma",
        "unquoted-keys",
        "python-true",
        "python-none",
        "raw-newline",
        "bad-escape",
    ],
)
def test_invalid_json_in_hermes(body: str, expected: tuple[str, dict[str, Any]] | None) -> None:
    r = repair(f"<tool_call>{body}</tool_call>", BASIC_TOOLS)
    if expected is None:
        bad = only_invalid(r)
        assert bad.name == "get_weather"
        assert bad.raw == f"<tool_call>{body}</tool_call>"
        assert bad.error
        return
    c = only_call(r)
    assert (c.name, c.arguments) == expected
    assert kinds(c)[:2] == [CIC, NM]
    assert "invalid_json" in kinds(c)
    assert r.text == ""


def test_missing_brace_at_end_of_bare_json() -> None:
    # the arguments closed, the call object did not: the output was cut before the
    # call's closer, so the call is not run (issue 11); the arguments ride along
    text = '{"name": "get_weather", "arguments": {"city": "Paris"}'
    bad = only_invalid(repair(text, BASIC_TOOLS))
    assert (bad.name, bad.kind, bad.arguments) == ("get_weather", "truncated", PARIS)
    keep = FixConfig(truncated="keep_complete_members")
    c = only_call(repair(text, BASIC_TOOLS, config=keep))
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, "invalid_json", "truncated"]


def test_missing_brace_inside_closed_hermes_tag() -> None:
    r = repair(
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}</tool_call>', BASIC_TOOLS
    )
    c = only_call(r)
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert "invalid_json" in kinds(c)


# ---- truncated ----------------------------------------------------------------------------


def test_truncated_with_required_argument_complete() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "unit": "cel'
    )
    bad = only_invalid(repair(text, BASIC_TOOLS))
    assert (bad.name, bad.kind, bad.raw) == ("get_weather", "truncated", text)
    assert bad.arguments == {"city": "Paris", "days": 3}
    r = repair(text, BASIC_TOOLS, config=FixConfig(truncated="keep_complete_members"))
    c = only_call(r)
    # the cut-off "unit" is dropped, never guessed
    assert (c.name, c.arguments) == ("get_weather", {"city": "Paris", "days": 3})
    assert kinds(c) == [CIC, NM, "invalid_json", "truncated"]


def test_truncated_with_required_argument_cut() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"days": 3, "city": "Par'
    bad = only_invalid(repair(text, BASIC_TOOLS))
    assert bad.name == "get_weather"
    assert bad.kind == "truncated"
    assert bad.raw == text
    assert bad.arguments == {"days": 3}
    assert "cut off" in bad.error
    keep = FixConfig(truncated="keep_complete_members")
    old = only_invalid(repair(text, BASIC_TOOLS, config=keep))
    assert old.kind == "truncated"
    assert "'city' is a required property" in old.error


def test_native_truncated_arguments_not_guessed() -> None:
    r = repair(native("get_weather", '{"city": "Par'), BASIC_TOOLS)
    bad = only_invalid(r)
    assert bad.kind == "truncated"


# ---- concatenated / parallel ------------------------------------------------------------


def test_concatenated_objects() -> None:
    text = CALL_JSON + '{"name": "search_web", "arguments": {"query": "x"}}'
    r = repair(text, BASIC_TOOLS)
    assert calls(r) == [("get_weather", PARIS), ("search_web", {"query": "x"})]
    assert [kinds(c) for c in r.tool_calls] == [[CIC, "concatenated"], [CIC, "concatenated"]]
    assert r.text == ""


def test_parallel_json_list() -> None:
    text = f'[{CALL_JSON}, {{"name": "search_web", "arguments": {{"query": "x"}}}}]'
    r = repair(text, BASIC_TOOLS)
    assert calls(r) == [("get_weather", PARIS), ("search_web", {"query": "x"})]
    assert len({c.id for c in r.tool_calls}) == 2


def test_parallel_hermes_tags() -> None:
    text = (
        f"{HERMES_CALL}\n"
        '<tool_call>{"name": "search_web", "arguments": {"query": "y"}}</tool_call>'
    )
    r = repair(text, BASIC_TOOLS)
    assert calls(r) == [("get_weather", PARIS), ("search_web", {"query": "y"})]
    assert [kinds(c) for c in r.tool_calls] == [[CIC, NM], [CIC, NM]]


def test_parallel_native_calls_all_valid_same_object() -> None:
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"A"}'},
            },
            {
                "id": "b",
                "type": "function",
                "function": {"name": "search_web", "arguments": '{"query":"q"}'},
            },
        ],
    }
    from toolfix.convert import response_from_openai

    resp = response_from_openai(msg)
    assert repair(resp, BASIC_TOOLS) is resp


# ---- key aliases and wrappers -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name_key", "args_key", "expected_kinds"),
    [
        ("function", "params", ["key_alias", "key_alias"]),
        ("tool", "args", ["key_alias", "key_alias"]),
        ("tool_name", "input", ["key_alias", "key_alias"]),
        ("name", "parameters", ["key_alias"]),
        ("name", "arguments", []),
    ],
)
def test_key_alias(name_key: str, args_key: str, expected_kinds: list[str]) -> None:
    body = f'{{"{name_key}": "get_weather", "{args_key}": {{"city": "Paris"}}}}'
    c = only_call(repair(f"<tool_call>{body}</tool_call>", BASIC_TOOLS))
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, NM, *expected_kinds]
    details = [rec.detail for rec in c.repairs if rec.kind == "key_alias"]
    if name_key != "name":
        assert f"read the tool name from {name_key!r}" in details
    if args_key != "arguments":
        assert f"read the arguments from {args_key!r}" in details


def test_flat_arguments_beside_name() -> None:
    c = only_call(repair('{"name": "get_weather", "city": "Paris"}', BASIC_TOOLS))
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, "key_alias"]


def test_custom_alias_via_extend() -> None:
    cfg = FixConfig(
        json_keys=ToolCallJsonConfig().extend(name_keys=["command"], argument_keys=["payload"])
    )
    text = '<tool_call>{"command": "get_weather", "payload": {"city": "Paris"}}</tool_call>'
    c = only_call(repair(text, BASIC_TOOLS, config=cfg))
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, NM, "key_alias", "key_alias"]
    # without the extension, "command" is no name key: nothing becomes a call
    r = repair(text, BASIC_TOOLS)
    assert r.tool_calls == []


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        (
            f'<tool_call>{{"function": {CALL_JSON}}}</tool_call>',
            "unwrapped the call from 'function'",
        ),
        (
            f'{{"type": "function", "function": {CALL_JSON}}}',
            "unwrapped {'type': 'function', 'function': ...}",
        ),
    ],
)
def test_wrapper(text: str, detail: str) -> None:
    c = only_call(repair(text, BASIC_TOOLS))
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert [rec.detail for rec in c.repairs if rec.kind == "wrapper"] == [detail]


# ---- double encoding ---------------------------------------------------------------------


def test_double_encoded_arguments_in_text() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}</tool_call>'
    )
    c = only_call(repair(text, BASIC_TOOLS))
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, NM, "double_encoded"]


def test_double_encoded_native_whole_arguments() -> None:
    c = only_call(repair(native("get_weather", '"{\\"city\\": \\"Paris\\"}"'), BASIC_TOOLS))
    assert (c.id, c.name, c.arguments) == ("c0", "get_weather", PARIS)
    assert kinds(c) == ["double_encoded"]


def test_double_encoded_per_field_with_ref_and_nullable() -> None:
    args = '{"title": "x", "loc": "{\\"lat\\": 1.5, \\"lon\\": 2}", "count": "3", "note": null}'
    c = only_call(repair(native("create_event", args), ALL_TOOLS))
    assert c.arguments == {"title": "x", "loc": {"lat": 1.5, "lon": 2}, "count": 3, "note": None}
    assert kinds(c) == ["double_encoded", "type_mismatch"]
    assert c.arguments_raw == '{"title":"x","loc":{"lat":1.5,"lon":2},"count":3,"note":null}'


def test_double_encoded_array_field() -> None:
    args = '{"title": "x", "loc": {"lat": "1.5", "lon": 2}, "tags": "[\\"a\\", \\"b\\"]"}'
    c = only_call(repair(native("create_event", args), ALL_TOOLS))
    assert c.arguments == {"title": "x", "loc": {"lat": 1.5, "lon": 2}, "tags": ["a", "b"]}
    assert sorted(kinds(c)) == ["double_encoded", "type_mismatch"]


def test_valid_ref_and_nullable_schema_fast_path() -> None:
    from toolfix.convert import response_from_openai

    resp = response_from_openai(
        native("create_event", '{"title": "x", "loc": {"lat": 1.5, "lon": 2}, "count": null}')
    )
    assert repair(resp, ALL_TOOLS) is resp


# ---- names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["Get_Weather", "get-weather", "getWeather", "functions.get_weather"]
)
def test_unknown_name_repaired(name: str) -> None:
    c = only_call(repair(f'{{"name": "{name}", "arguments": {{"city": "Paris"}}}}', BASIC_TOOLS))
    assert (c.name, c.arguments) == ("get_weather", PARIS)
    assert kinds(c) == [CIC, "unknown_name"]
    assert name in c.repairs[-1].detail


def test_misspelled_name_is_not_repaired() -> None:
    text = '{"name": "get_wether", "arguments": {"city": "Paris"}}'
    parts = [p for p in repair(text, BASIC_TOOLS).parts if p.type != "text"]
    assert [(p.type, getattr(p, "kind", None)) for p in parts] == [
        ("invalid_tool_call", "unknown_name")
    ]


def test_unknown_name_native() -> None:
    c = only_call(repair(native("getWeather", '{"city": "Paris"}'), BASIC_TOOLS))
    assert (c.id, c.name, c.arguments) == ("c0", "get_weather", PARIS)
    assert kinds(c) == ["unknown_name"]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "delete_files", "arguments": {"path": "/"}}',
        '<tool_call>{"name": "delete_files", "arguments": {"path": "/"}}</tool_call>',
    ],
)
def test_hallucinated_name_is_invalid(text: str) -> None:
    bad = only_invalid(repair(text, BASIC_TOOLS))
    assert bad.kind == "unknown_name"
    assert bad.name == "delete_files"
    assert bad.raw == text
    assert bad.error.startswith("unknown tool 'delete_files'")
    assert "available: get_weather, search_web" in bad.error


def test_hallucinated_name_native_keeps_id_and_raw() -> None:
    bad = only_invalid(repair(native("rm_rf", '{"path": "/"}', call_id="x1"), BASIC_TOOLS))
    assert (bad.id, bad.name, bad.kind, bad.raw) == ("x1", "rm_rf", "unknown_name", '{"path": "/"}')


# ---- argument validation --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_weather", "arguments": {}}',
        '<tool_call>{"name": "get_weather", "arguments": {"days": 2}}</tool_call>',
    ],
)
def test_missing_required_is_invalid(text: str) -> None:
    bad = only_invalid(repair(text, BASIC_TOOLS))
    assert bad.kind == "missing_required"
    assert bad.name == "get_weather"
    assert bad.raw == text
    assert bad.error == "invalid arguments: 'city' is a required property"
    assert bad.arguments is not None
    assert "city" not in bad.arguments


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ('{"city": "Paris", "days": "5"}', ("get_weather", {"city": "Paris", "days": 5})),
        ('{"query": "x", "strict": "true"}', ("search_web", {"query": "x", "strict": True})),
        ('{"query": 5}', ("search_web", {"query": "5"})),
    ],
)
def test_type_mismatch_coerced(args: str, expected: tuple[str, dict[str, Any]]) -> None:
    name = expected[0]
    c = only_call(repair(f'{{"name": "{name}", "arguments": {args}}}', BASIC_TOOLS))
    assert (c.name, c.arguments) == expected
    assert kinds(c) == [CIC, "type_mismatch"]
    c2 = only_call(repair(native(name, args), BASIC_TOOLS))
    assert (c2.name, c2.arguments, kinds(c2)) == (*expected, ["type_mismatch"])


def test_type_mismatch_uncoercible_is_invalid() -> None:
    bad = only_invalid(
        repair(native("get_weather", '{"city": "Paris", "days": "soon"}'), BASIC_TOOLS)
    )
    assert bad.kind == "type_mismatch"
    assert bad.id == "c0"
    assert bad.raw == '{"city": "Paris", "days": "soon"}'
    assert "days" in bad.error


def test_enum_case() -> None:
    c = only_call(
        repair(native("get_weather", '{"city": "Paris", "unit": "Celsius"}'), BASIC_TOOLS)
    )
    assert c.arguments == {"city": "Paris", "unit": "celsius"}
    assert kinds(c) == ["enum_case"]


def test_extra_keys_dropped_only_when_forbidden() -> None:
    c = only_call(repair(native("search_web", '{"query": "x", "foo": 1}'), BASIC_TOOLS))
    assert c.arguments == {"query": "x"}
    assert kinds(c) == ["extra_keys"]
    # get_weather allows additional properties: the extra key stays, nothing is repaired
    resp = repair(native("get_weather", '{"city": "Paris", "foo": 1}'), BASIC_TOOLS)
    assert only_call(resp).arguments == {"city": "Paris", "foo": 1}
    assert kinds(only_call(resp)) == []


def test_extra_keys_never_policy_keeps_call_invalid() -> None:
    cfg = FixConfig(drop_extra_keys="never")
    bad = only_invalid(
        repair(native("search_web", '{"query": "x", "foo": 1}'), BASIC_TOOLS, config=cfg)
    )
    assert bad.name == "search_web"
    assert bad.arguments == {"query": "x", "foo": 1}


# ---- broken native calls -----------------------------------------------------------------


def test_broken_native_arguments_string() -> None:
    r = repair(native("get_weather", "{'city': 'Paris',}", content="ok"), BASIC_TOOLS)
    c = only_call(r)
    assert (c.id, c.name, c.arguments) == ("c0", "get_weather", PARIS)
    assert c.arguments_raw == '{"city":"Paris"}'
    assert kinds(c) == ["invalid_json"]
    assert r.text == "ok"


def test_native_call_without_name_reads_call_from_arguments() -> None:
    c = only_call(repair(native("", CALL_JSON), BASIC_TOOLS))
    assert (c.id, c.name, c.arguments) == ("c0", "get_weather", PARIS)
    assert kinds(c) == ["wrapper"]


def test_native_empty_arguments_with_required_is_invalid() -> None:
    bad = only_invalid(repair(native("get_weather", ""), BASIC_TOOLS))
    assert (bad.id, bad.name, bad.kind) == ("c0", "get_weather", "missing_required")


# ---- no call / fast path ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The weather in Paris is sunny.",
        'The weather is nice today. {"temp": 5}',
        "Use `[1, 2, 3]` as the list, and {braces} in prose.",
        "",
    ],
)
def test_no_call_returns_same_object(text: str) -> None:
    resp = Response.text_only(text) if text else Response()
    assert repair(resp, BASIC_TOOLS) is resp


def test_no_call_from_text_keeps_text() -> None:
    r = repair("The weather in Paris is sunny.", BASIC_TOOLS)
    assert r.text == "The weather in Paris is sunny."
    assert r.tool_calls == []
    assert r.invalid_tool_calls == []
    assert r.all_repairs == []


def test_valid_native_call_fast_path_same_object() -> None:
    from toolfix.convert import response_from_openai

    resp = response_from_openai(native("get_weather", '{ "city" :"Paris" }', content="hi"))
    out = repair(resp, BASIC_TOOLS)
    assert out is resp
    assert out.tool_calls[0].arguments_raw == '{ "city" :"Paris" }'


def test_provider_executed_calls_pass_untouched() -> None:
    part = ToolCallPart(id="s1", name="web_search", arguments_raw="{", provider_executed=True)
    resp = Response(parts=(part,))
    assert repair(resp, BASIC_TOOLS) is resp


def test_fix_and_process_agree(tools: list[dict[str, Any]]) -> None:
    proc = ManualToolCallFixProcessor()
    resp = Response.text_only(HERMES_CALL)
    fixed = proc.fix(resp, tools)
    assert calls(fixed) == [("get_weather", PARIS)]
    assert proc.process_sync(None, __import__("toolfix").Prompt(), "m", tools, [resp]) == [fixed]


def test_processor_registry_used_when_no_tools_given() -> None:
    proc = ManualToolCallFixProcessor(registry=ToolRegistry.of(BASIC_TOOLS))
    assert calls(proc.fix(Response.text_only(HERMES_CALL))) == [("get_weather", PARIS)]


def test_no_tools_means_no_repair() -> None:
    """No tools offered: nothing is taken, but the markup is recorded (issue 29)."""
    resp = Response.text_only(HERMES_CALL)
    out = ManualToolCallFixProcessor().fix(resp, None)
    assert (out.parts, out.tool_calls, out.invalid_tool_calls) == (resp.parts, [], [])
    [note] = out.repairs
    assert note.kind == "unknown_name"
    assert "no tools were offered" in note.detail
    plain = Response.text_only("no markup here")
    assert ManualToolCallFixProcessor().fix(plain, None) is plain


def test_input_is_not_mutated() -> None:
    resp = Response.text_only(f"Intro {HERMES_CALL}")
    dumped = resp.model_dump()
    repair(resp, BASIC_TOOLS)
    assert resp.model_dump() == dumped


def test_native_call_without_name_or_arguments_is_invalid() -> None:
    """Fuzz regression (atheris, native target): empty name and empty arguments string."""
    bad = only_invalid(repair(native("", ""), BASIC_TOOLS))
    assert (bad.id, bad.name, bad.raw, bad.kind) == ("c0", None, "", "unknown_name")
    assert bad.error == "tool call without a name"


def test_mcp_tool_schema_with_defs_and_nullable() -> None:
    """An MCP server's tool (``inputSchema`` as FastMCP/pydantic emits it)."""
    mcp_tool = {
        "name": "query_db",
        "description": "Run a query",
        "inputSchema": {
            "type": "object",
            "$defs": {"Order": {"enum": ["asc", "desc"], "type": "string"}},
            "properties": {
                "table": {"type": "string"},
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
                "order": {"$ref": "#/$defs/Order", "default": "asc"},
            },
            "required": ["table"],
        },
    }
    args = '{"table": "users", "limit": "10", "order": "DESC"}'
    text = f'<tool_call>{{"name": "query_db", "arguments": {args}}}</tool_call>'
    c = only_call(repair(text, [mcp_tool]))
    assert (c.name, c.arguments) == ("query_db", {"table": "users", "limit": 10, "order": "desc"})
    assert kinds(c) == [CIC, NM, "type_mismatch", "enum_case"]
