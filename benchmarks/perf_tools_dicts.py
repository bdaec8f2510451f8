"""``repair(msg, tools)`` with tools as dicts against ``repair(msg, registry)``.

The README's form passes OpenAI tool dicts on every call. Equal dicts share one cached
registry (found by the list's identity, each dict's identity or their canonical JSON,
every identity hit checked against a snapshot; bounded by memory), so the dict form
should cost what a prebuilt registry costs, and so should a new list of the same dicts.
All are measured interleaved in one run, with ``json.loads`` + a compiled jsonschema
validator as the reference (single calls timed one by one: the reference's figure
includes the timer's own cost).

    python benchmarks/perf_tools_dicts.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

from toolfix import ToolRegistry, repair

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1, "maxLength": 100},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14},
                    "unit": {"anyOf": [{"enum": ["c", "f"]}, {"type": "null"}]},
                    "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["q"],
            },
        },
    },
]
ARGS = '{"city": "Paris", "days": 3, "unit": "c", "zip": "75001"}'
MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": ARGS}}
    ],
}


def _median_us(fn: Callable[[], Any], rounds: int, out: list[float]) -> None:
    t0 = time.perf_counter()
    fn()
    out.append((time.perf_counter() - t0) * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    registry = ToolRegistry.of(TOOLS)
    validator = Draft202012Validator(TOOLS[0]["function"]["parameters"])  # type: ignore[index]

    def reference() -> None:
        assert validator.is_valid(json.loads(ARGS))

    def with_registry() -> None:
        assert repair(MESSAGE, registry).tool_calls

    def with_dicts() -> None:
        assert repair(MESSAGE, TOOLS).tool_calls

    def with_fresh_list() -> None:
        assert repair(MESSAGE, list(fresh)).tool_calls  # a new list object every call

    fresh = copy.deepcopy(TOOLS)
    systems = {
        "json.loads + compiled jsonschema": reference,
        "repair(msg, registry)": with_registry,
        "repair(msg, tool dicts)": with_dicts,
        "repair(msg, a new list each call)": with_fresh_list,
    }
    times: dict[str, list[float]] = {k: [] for k in systems}
    for fn in systems.values():
        fn()  # warm
    for _ in range(args.rounds):
        for name, fn in systems.items():
            _median_us(fn, 1, times[name])
    ref = statistics.median(times["json.loads + compiled jsonschema"])
    reg = statistics.median(times["repair(msg, registry)"])
    print("valid native call, schema with bounds, lengths, a pattern, anyOf [T, null]")
    print(f"{'system':40} {'median µs':>10} {'vs reference':>13} {'vs registry':>12}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:40} {med:10.1f} {med / ref:12.2f}x {med / reg:11.2f}x")


if __name__ == "__main__":
    main()
