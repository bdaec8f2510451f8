"""Bounded work per schema × input (issue 26, item 9), by counting operations: enum case
repair is a hash lookup, an ``anyOf`` tries a bounded number of branches per value,
undeclared keys are read once each, and validation collects a bounded number of
issues. (benchmarks/perf_schema.py shows the same shapes growing linearly in time.)"""

from __future__ import annotations

from typing import Any

import pytest

from toolfix import FailureKind, InvalidToolCallPart, ToolRegistry, repair
from toolfix._repair import coerce, fastcheck, finish
from toolfix._repair.coerce import MAX_BRANCH_TRIALS, _Walker
from toolfix._tools import MAX_ISSUES


def _enum_schema(n: int) -> dict[str, Any]:
    members = [f"Member{i}" for i in range(n)]
    return {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "string", "enum": members}}},
    }


@pytest.mark.parametrize("n", [100, 400, 1600])
def test_enum_case_repair_is_linear(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = _enum_schema(n)
    compared = 0
    real = fastcheck._json_equal

    def counting(a: Any, b: Any) -> bool:
        nonlocal compared
        compared += 1
        return real(a, b)

    monkeypatch.setattr(fastcheck, "_json_equal", counting)
    coerce._CHECKERS.clear()
    walker = _Walker(schema, "when_forbidden")
    value = {"xs": [f"MEMBER{i}" for i in range(n)]}
    out = walker.walk(value, schema, "", 0)
    assert out == {"xs": [f"Member{i}" for i in range(n)]}
    assert compared == 0  # scalars against scalar members: hash lookups only
    assert walker.steps <= 4 * n + 10


def _anyof_schema(branches: int) -> dict[str, Any]:
    options = [
        {
            "type": "object",
            "properties": {f"k{b}": {"type": "integer"}},
            "required": [f"k{b}"],
            "additionalProperties": False,
        }
        for b in range(branches)
    ]
    return {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"anyOf": options}}},
    }


@pytest.mark.parametrize(("branches", "items"), [(20, 50), (200, 50), (200, 200)])
def test_anyof_tries_a_bounded_number_of_branches(branches: int, items: int) -> None:
    schema = _anyof_schema(branches)
    walker = _Walker(schema, "when_forbidden")
    walker.walk({"xs": [{"nope": "x"} for _ in range(items)]}, schema, "", 0)
    # per item: one fit check per branch, at most MAX_BRANCH_TRIALS walks (a few steps each)
    assert walker.steps <= items * (branches + 4 * MAX_BRANCH_TRIALS) + 10


def test_validation_collects_a_bounded_number_of_issues() -> None:
    registry = ToolRegistry.from_openai(
        [{"type": "function", "function": {"name": "f", "parameters": _anyof_schema(200)}}]
    )
    tool = registry.get("f")
    assert tool is not None
    issues = tool.validate_arguments({"xs": [{"nope": "x"} for _ in range(2000)]})
    assert 0 < len(issues) <= MAX_ISSUES


@pytest.mark.parametrize("n", [500, 2000, 8000])
def test_undeclared_keys_are_read_once_each(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    params = {
        "type": "object",
        "properties": {f"param_{i}": {"type": "string"} for i in range(300)},
        "required": ["param_0"],
        "additionalProperties": False,
    }
    tools = [{"type": "function", "function": {"name": "f", "parameters": params}}]
    calls = 0
    real = finish.normalise_name

    def counting(name: str, *, strip_prefix: bool = True) -> str:
        nonlocal calls
        calls += 1
        return real(name, strip_prefix=strip_prefix)

    monkeypatch.setattr(finish, "normalise_name", counting)
    args = ", ".join(f'"extra_key_{i}": {i}' for i in range(n))
    text = f'<tool_call>{{"name": "f", "arguments": {{{args}}}}}</tool_call>'
    (call,) = [p for p in repair(text, tools).parts if p.type != "text"]
    assert isinstance(call, InvalidToolCallPart)
    assert call.kind in (FailureKind.MISSING_REQUIRED, FailureKind.EXTRA_KEYS)
    assert calls <= n + 300  # each undeclared key and each parameter normalised once
    assert len(call.error) < 5000  # the record names a bounded number of keys
