"""Schema × input: repair time grows linearly with the input (issue 26, item 9).

Three shapes that were super-linear before (plain script, not a test):

- ``enum``: an enum of n values against an array of n items, each a case variant of
  a member (enum case repair looks members up by a folded key: a hash lookup);
- ``anyof``: an ``anyOf`` of b object branches against an array of n items none of
  which fits as written (a bounded number of branches is tried per item, and the
  validation errors of a failed ``anyOf`` are bounded);
- ``keys``: n undeclared keys against a closed schema of 300 parameters (the call comes
  back invalid: every key dropped is never ``{}``).

Run from the repository root::

    python benchmarks/perf_schema.py            # every shape, every size
    python benchmarks/perf_schema.py --quick    # the smaller sizes only

Each row gives the time of one ``repair()`` (best of 3) and the time per input element;
linear growth keeps the latter flat as n grows. ``tests/test_schema_bounds.py`` bounds
the same shapes by counting operations.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from toolfix import ToolRegistry, repair


def _tool(params: dict[str, Any]) -> ToolRegistry:
    return ToolRegistry.from_openai(
        [{"type": "function", "function": {"name": "f", "parameters": params}}]
    )


def _call(args: dict[str, Any]) -> dict[str, Any]:
    raw = json.dumps(args)
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}
        ],
    }


def enum_case(n: int) -> tuple[ToolRegistry, dict[str, Any]]:
    members = [f"Member{i}" for i in range(n)]
    params = {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"type": "string", "enum": members}}},
    }
    return _tool(params), _call({"xs": [m.upper() for m in members]})


def anyof_case(n: int, branches: int = 200) -> tuple[ToolRegistry, dict[str, Any]]:
    options = [
        {
            "type": "object",
            "properties": {f"k{b}": {"type": "integer"}},
            "required": [f"k{b}"],
            "additionalProperties": False,
        }
        for b in range(branches)
    ]
    params = {
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"anyOf": options}}},
    }
    return _tool(params), _call({"xs": [{"nope": "x"} for _ in range(n)]})


def keys_case(n: int) -> tuple[ToolRegistry, dict[str, Any]]:
    params = {
        "type": "object",
        "properties": {f"param_{i}": {"type": "string"} for i in range(300)},
        "additionalProperties": False,
    }
    return _tool(params), _call({f"extra_key_{i}": i for i in range(n)})


SHAPES: dict[str, tuple[Callable[[int], tuple[ToolRegistry, dict[str, Any]]], list[int]]] = {
    "enum": (enum_case, [625, 1250, 2500, 5000, 10_000]),
    "anyof": (anyof_case, [125, 250, 500, 1000, 2000]),
    "keys": (keys_case, [1250, 2500, 5000, 10_000, 20_000]),
}


def measure(
    build: Callable[[int], tuple[ToolRegistry, dict[str, Any]]], n: int
) -> tuple[float, str]:
    registry, msg = build(n)
    best = float("inf")
    outcome = ""
    for _ in range(3):
        t0 = time.perf_counter()
        out = repair(msg, registry)
        best = min(best, time.perf_counter() - t0)
        (part,) = [p for p in out.parts if p.type in ("tool_call", "invalid_tool_call")]
        outcome = part.type if part.type == "tool_call" else f"invalid ({part.kind})"
    return best, outcome


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the three smaller sizes")
    args = ap.parse_args()
    print("| shape | n | repair() | per element | outcome |")
    print("| --- | --- | --- | --- | --- |")
    for name, (build, sizes) in SHAPES.items():
        for n in sizes[:3] if args.quick else sizes:
            seconds, outcome = measure(build, n)
            extra = " (200 branches)" if name == "anyof" else ""
            print(
                f"| {name}{extra} | {n} | {seconds * 1e3:.1f} ms | "
                f"{seconds / n * 1e6:.2f} µs | {outcome} |"
            )


if __name__ == "__main__":
    main()
