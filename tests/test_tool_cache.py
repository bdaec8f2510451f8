"""Tools given as dicts: one cached registry per content, never a stale one.

``repair(msg, tools)`` looks tools up by the list's identity, then by each dict's identity,
then by canonical JSON; every identity hit is checked against a private snapshot, so an
edit anywhere in the user's dicts is seen on the next call.
"""

from __future__ import annotations

import copy
import enum
import threading
from typing import Any

import pytest

from toolfix import ToolRegistry, as_tools, repair
from toolfix._cache import WeightedLRU
from toolfix._tools import _UNSNAPPABLE, _snapshot
from toolfix.errors import ToolDefinitionError


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "parameters": {"type": "object", "properties": props}},
    }


def _call(name: str, args: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": name, "arguments": args}}
        ],
    }


def test_the_same_list_and_the_same_dicts_in_a_new_list_share_one_registry() -> None:
    a, b = _tool("a", {"x": {"type": "integer"}}), _tool("b", {})
    tools = [a, b]
    reg = ToolRegistry.of(tools)
    assert ToolRegistry.of(tools) is reg
    assert ToolRegistry.of([a, b]) is reg  # a new list of the same dicts
    assert ToolRegistry.of(copy.deepcopy(tools)) is reg  # equal dicts, other objects
    assert ToolRegistry.of([b, a]) is not reg  # order matters: it is the registry's order
    assert ToolRegistry.of([b, a]).names == ["b", "a"]


def test_as_tools_passes_a_list_of_dicts_on_as_is() -> None:
    tools = [_tool("a", {})]
    assert as_tools(tools) is tools


def test_a_deep_edit_of_a_dict_in_a_new_list_is_seen() -> None:
    a = _tool("a", {"x": {"type": "integer"}})
    assert repair(_call("a", '{"x": "5"}'), [a]).tool_calls[0].arguments == {"x": 5}
    a["function"]["parameters"]["properties"]["x"]["type"] = "string"
    fixed = repair(_call("a", '{"x": 5}'), [a])  # another list, same dict object
    assert fixed.tool_calls[0].arguments == {"x": "5"}
    assert [r.kind for r in fixed.all_repairs] == ["type_mismatch"]


def test_a_cached_registry_never_sees_a_later_edit_of_the_users_dicts() -> None:
    tools = [_tool("a", {"x": {"type": "integer"}})]
    reg = ToolRegistry.of(tools)
    tools[0]["function"]["parameters"]["properties"]["x"]["type"] = "string"
    assert reg["a"].properties["x"] == {"type": "integer"}
    assert reg["a"].is_valid({"x": 5})
    assert ToolRegistry.of(tools)["a"].properties["x"] == {"type": "string"}
    tools[0]["function"]["parameters"]["properties"]["x"]["type"] = "integer"
    assert ToolRegistry.of(tools) is reg  # back to the first content: the first registry


def test_a_leaf_replaced_by_an_equal_but_other_value_is_still_equal() -> None:
    tools = [_tool("a", {"x": {"type": "integer", "maximum": 10}})]
    reg = ToolRegistry.of(tools)
    tools[0]["function"]["parameters"]["properties"]["x"]["maximum"] = 10.0  # == 10 in JSON
    assert ToolRegistry.of(tools)["a"].is_valid({"x": 10})
    tools[0]["function"]["parameters"]["properties"]["x"]["maximum"] = 5
    assert not ToolRegistry.of(tools)["a"].is_valid({"x": 10})
    assert reg["a"].is_valid({"x": 10})


class Unit(str, enum.Enum):  # a str enum as written on every Python (StrEnum is 3.11+)
    C = "c"
    F = "f"


def test_tuples_and_str_enums_in_schemas_are_cached_too() -> None:
    tools = [_tool("a", {"u": {"enum": [Unit.C, Unit.F]}, "n": {"type": ["integer", "null"]}})]
    tools[0]["x-tags"] = ("weather", "units")  # an extra key the registry ignores
    reg = ToolRegistry.of(tools)
    assert ToolRegistry.of(tools) is reg
    assert ToolRegistry.of(list(tools)) is reg
    assert reg["a"].is_valid({"u": "c", "n": None})
    assert not reg["a"].is_valid({"u": "k"})


def test_a_cyclic_tool_dict_is_a_definition_error_not_a_hang() -> None:
    tool = _tool("a", {})
    tool["function"]["parameters"]["properties"]["self"] = tool
    with pytest.raises(ToolDefinitionError, match="deeper than"):
        ToolRegistry.of([tool])


def test_snapshot_copies_containers_and_shares_leaves() -> None:
    leaf = "x" * 50
    value = {"a": [leaf, {"b": (1, 2.5, None, True)}]}
    snap = _snapshot(value)
    assert snap == value
    assert snap is not value
    assert snap["a"] is not value["a"]
    assert snap["a"][1]["b"] is not value["a"][1]["b"]
    assert snap["a"][0] is leaf
    assert _snapshot({"a": object()}) is _UNSNAPPABLE
    assert _snapshot({("k",): 1}) is _UNSNAPPABLE
    assert _snapshot({"a": {"b": b"bytes"}}) is _UNSNAPPABLE


def test_the_weighted_lru_keeps_its_books_under_threads() -> None:
    """Readers (lock-free under the GIL) and writers at once: no error, the summed weight
    is the entries' own and within the budget, and every hit is the value put."""
    lru: WeightedLRU[int, int] = WeightedLRU(budget=500)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for i in range(20_000):
                key = (i * 7 + seed) % 97
                if i % 3:
                    got = lru.get(key)
                    assert got is None or got == key * 2
                else:
                    lru.put(key, key * 2, 10 + key % 13)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    weights = [w for _, w in lru._entries.values()]
    assert lru.total_weight == sum(weights) <= lru.budget
    assert len(lru) == len(weights) > 0
