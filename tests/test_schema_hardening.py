"""Hostile tool schemas (docs/design.md#promise-10, SECURITY.md "Tool schemas").

Schemas come from third parties (MCP servers), so each rule here is a refusal at
registry build, with a typed error naming the tool, or a bound that gives the same
answer however busy the machine is.
"""

from __future__ import annotations

import copy
import gc
import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from toolfix import ToolRegistry, repair
from toolfix._tools import TOOL_CACHE_BUDGET
from toolfix.errors import ToolDefinitionError
from toolfix.tools import ToolDescriptor


def _tool(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


class _Counter(http.server.BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self) -> None:
        type(self).hits += 1
        body = b'{"type": "string"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def schema_server() -> Iterator[str]:
    _Counter.hits = 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


def _remote_schemas(base: str) -> list[dict[str, Any]]:
    return [
        {"type": "object", "properties": {"a": {"$ref": f"{base}/s.json"}}},
        {"$ref": f"{base}/s.json"},
        {"$defs": {"x": {"$ref": f"{base}/s.json#/x"}}, "properties": {"a": {"$ref": "#/$defs/x"}}},
        # a relative reference under a remote $id would be fetched from that base
        {"$id": f"{base}/root.json", "properties": {"a": {"$ref": "s.json"}}},
        {"properties": {"a": {"$dynamicRef": f"{base}/s.json"}}},
        {"properties": {"a": {"$ref": "file:///etc/passwd"}}},
    ]


def test_no_schema_reaches_the_network_or_the_disk(schema_server: str) -> None:
    for i, params in enumerate(_remote_schemas(schema_server)):
        tools = [_tool(f"t{i}", params)]
        with pytest.raises(ToolDefinitionError, match="is not local") as err:
            repair('{"name": "t0", "arguments": {"a": "x"}}', tools)
        assert err.value.tool_name == f"t{i}"
        with pytest.raises(ToolDefinitionError, match="never reach the network or the disk"):
            ToolRegistry.of(tools)
    assert _Counter.hits == 0


def test_the_server_in_this_test_does_count(schema_server: str) -> None:
    import urllib.request

    with urllib.request.urlopen(f"{schema_server}/s.json") as resp:  # noqa: S310 - 127.0.0.1
        assert resp.read() == b'{"type": "string"}'
    assert _Counter.hits == 1


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"properties": {"a": {"$ref": "#/$defs/Missing"}}}, "points at nothing"),
        ({"properties": {"a": {"$ref": "#Nowhere"}}}, "points at nothing"),
        (
            {
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                "properties": {"x": {"$ref": "#/$defs/a"}},
            },
            "references loop",
        ),
        ({"allOf": [{"$ref": "#"}]}, "references loop"),
        ({"$defs": {"a": {"not": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}, "references loop"),
        (
            {"type": "object", "unevaluatedProperties": False, "patternProperties": {"^x": {}}},
            "unevaluatedProperties",
        ),
    ],
)
def test_broken_references_are_refused_at_build(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message) as err:
        ToolDescriptor(name="bad", parameters=params)
    assert err.value.tool_name == "bad"


def test_a_recursive_schema_through_properties_is_a_tree_and_is_fine() -> None:
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
        },
        "required": ["name"],
    }
    tool = ToolDescriptor(
        name="tree",
        parameters={"$defs": {"node": node}, "type": "object", "properties": {"root": node}},
    )
    good = {"root": {"name": "a", "kids": [{"name": "b", "kids": [{"name": "c"}]}]}}
    assert tool.is_valid(good)
    bad = {"root": {"name": "a", "kids": [{"kids": []}]}}
    [issue] = tool.validate_arguments(bad)
    assert issue.keyword == "required"
    assert issue.path == "$.root.kids[0]"


def _nested(kind: str, levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = (
            {"allOf": [node]}
            if kind == "allOf"
            else {"type": "object", "properties": {"a": node}, "required": ["a"]}
        )
    return {"type": "object", "properties": {"a": node}, "required": ["a"]}


@pytest.mark.parametrize(("kind", "levels"), [("allOf", 100), ("properties", 3000)])
def test_a_schema_nested_too_deep_is_refused_typed_not_recursion_error(
    kind: str, levels: int
) -> None:
    # 100 allOf levels used to raise RecursionError from jsonschema's check_schema
    with pytest.raises(ToolDefinitionError, match="deeper than 64 levels") as err:
        ToolDescriptor(name="deep", parameters=_nested(kind, levels))
    assert err.value.tool_name == "deep"


def test_a_schema_that_contains_itself_is_refused_typed() -> None:
    looped: dict[str, Any] = {"type": "object", "properties": {}}
    looped["properties"]["a"] = looped
    looped["properties"]["b"] = looped
    with pytest.raises(ToolDefinitionError, match="deeper than 64 levels"):
        ToolDescriptor(name="loop", parameters=looped)


def test_thirty_levels_of_properties_still_validate() -> None:
    tool = ToolDescriptor(name="ok", parameters=_nested("properties", 30))
    value: Any = "x"
    for _ in range(31):
        value = {"a": value}
    assert tool.is_valid(value)
    inner = value
    for _ in range(30):
        inner = inner["a"]
    inner["a"] = 1
    [issue] = tool.validate_arguments(value)
    assert issue.keyword == "type"


CATASTROPHIC = "^(a+)+$"
KEY = "a" * 41 + "!"


def test_every_keyword_that_runs_a_user_regex_is_bounded() -> None:
    tool = ToolDescriptor(
        name="re",
        parameters={
            "type": "object",
            "properties": {
                "s": {"type": "string", "pattern": CATASTROPHIC},
                "m": {
                    "type": "object",
                    "patternProperties": {CATASTROPHIC: {"type": "integer"}},
                    "additionalProperties": {"type": "string"},
                },
                "n": {"type": "object", "propertyNames": {"pattern": CATASTROPHIC}},
                "strict": {
                    "type": "object",
                    "patternProperties": {CATASTROPHIC: {}},
                    "additionalProperties": False,
                },
            },
        },
    )
    # Each of these backtracks for minutes in Python's re; here each answers at once.
    assert not tool.is_valid({"s": KEY})
    assert tool.is_valid({"m": {KEY: "text"}})  # not matched: additionalProperties applies
    assert not tool.is_valid({"m": {"aaaa": "text"}})  # matched: must be an integer
    assert not tool.is_valid({"n": {KEY: 1}})
    assert tool.is_valid({"n": {"aaa": 1}})
    [issue] = tool.validate_arguments({"strict": {KEY: 1}})
    assert "does not match any of the regexes" in issue.message
    assert tool.validate_arguments({"strict": {"aaa": 1}}) == []


def test_pattern_answers_are_the_same_from_many_threads() -> None:
    tool = ToolDescriptor(
        name="re",
        parameters={"type": "object", "properties": {"s": {"type": "string", "pattern": "^a+b$"}}},
    )
    values = [("a" * n + ("b" if n % 2 else "c")) for n in range(1, 200)]
    expected = [tool.is_valid({"s": v}) for v in values]
    results: list[list[bool]] = []

    def worker() -> None:
        results.append([tool.is_valid({"s": v}) for v in values])

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8
    assert all(r == expected for r in results)
    assert expected.count(True) == 100


@pytest.mark.parametrize("name", [None, 123, 1.5, True, "", ["x"]])
def test_tool_names_must_be_strings(name: Any) -> None:
    with pytest.raises(ToolDefinitionError, match="non-empty string name"):
        ToolRegistry.of([{"type": "function", "function": {"name": name, "parameters": {}}}])
    with pytest.raises(ToolDefinitionError, match="non-empty string name"):
        ToolRegistry.of([{"name": name, "input_schema": {"type": "object"}}])
    with pytest.raises(ToolDefinitionError, match="non-empty string name"):
        ToolRegistry.of([{"name": name, "inputSchema": {"type": "object"}}])


def test_equal_tool_dicts_share_one_registry() -> None:
    tools = [_tool("f", {"type": "object", "properties": {"a": {"type": "integer"}}})]
    first = ToolRegistry.of(tools)
    assert ToolRegistry.of(copy.deepcopy(tools)) is first
    other = [_tool("f", {"type": "object", "properties": {"a": {"type": "string"}}})]
    assert ToolRegistry.of(other) is not first
    fixed = repair('{"name": "f", "arguments": {"a": "5"}}', tools)
    assert fixed.tool_calls[0].arguments == {"a": 5}


def test_a_tool_list_edited_in_place_is_read_again() -> None:
    tools = [_tool("f", {"type": "object", "properties": {"a": {"type": "integer"}}})]
    assert repair('{"name": "f", "arguments": {"a": "5"}}', tools).tool_calls[0].arguments == {
        "a": 5
    }
    tools[0]["function"]["parameters"]["properties"]["a"] = {"type": "string"}
    fixed = repair('{"name": "f", "arguments": {"a": 5}}', tools)
    assert fixed.tool_calls[0].arguments == {"a": "5"}
    tools.append(_tool("g", {"type": "object"}))
    assert ToolRegistry.of(tools).names == ["f", "g"]


def test_caches_are_bounded_by_memory_not_count() -> None:
    """30 fresh tools with 100,000-value enums: the tools kept alive fit the caches' budgets.

    (benchmarks/schema_memory.py measures the retained bytes with tracemalloc.)"""
    from toolfix._repair.engine import INTERPRETER_CACHE_BUDGET
    from toolfix._tools import _REGISTRIES

    big: list[int] = []
    for i in range(30):
        enum = [f"value-{i}-{k}" for k in range(100_000)]
        tools = [_tool(f"t{i}", {"type": "object", "properties": {"v": {"enum": enum}}})]
        fixed = repair(f'{{"name": "t{i}", "arguments": {{"v": "value-{i}-7"}}}}', tools)
        assert fixed.tool_calls[0].arguments == {"v": f"value-{i}-7"}
        big.append(ToolRegistry.of(tools).weight)
        del enum, tools, fixed
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, ToolDescriptor) and o.weight > 10**6]
    assert _REGISTRIES.total_weight <= TOOL_CACHE_BUDGET
    # Without a memory bound all 30 stay alive (~250 MB); with it, what both caches hold.
    assert 0 < len(alive) <= (TOOL_CACHE_BUDGET + INTERPRETER_CACHE_BUDGET) // min(big)
    assert len(alive) < 30


def test_a_tool_weighs_its_schema_and_jsonschema_rs_copy() -> None:
    """The Rust copy of the schema is invisible to tracemalloc; the cache budget counts it."""
    from toolfix._cache import estimate_weight

    params = {"type": "object", "properties": {"v": {"enum": [f"v{k}" for k in range(1000)]}}}
    tool = ToolDescriptor(name="w", parameters=params)
    assert tool._compiled is not None
    assert tool.weight >= 2 * estimate_weight(tool.parameters)
