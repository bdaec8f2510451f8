"""Memory kept alive by tool schemas: bounded by the caches' budgets, not by a count.

Repairs one call against each of N fresh tools whose schema holds a 100,000-value
enum (tools given as dicts, a fresh list each time, as an agent that reloads MCP
tools does), then measures with tracemalloc what stays allocated once the caller
has dropped everything. Two ways: ``repair()`` on valid calls, and one long-lived
processor on calls that need coercion (the enum value in the wrong case).

    python benchmarks/schema_memory.py [--tools 30] [--enum 100000]
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc

from toolfix import ManualToolCallFixProcessor, as_response, repair


def _run(tools_count: int, enum_size: int, shared: bool) -> tuple[float, float, float]:
    processor = ManualToolCallFixProcessor()
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    one_schema = 0.0
    for i in range(tools_count):
        enum = [f"value-{i}-{k}" for k in range(enum_size)]
        tools = [
            {
                "type": "function",
                "function": {
                    "name": f"t{i}",
                    "parameters": {"type": "object", "properties": {"v": {"enum": enum}}},
                },
            }
        ]
        if i == 0:
            one_schema = (tracemalloc.get_traced_memory()[0] - base) / 2**20
        if shared:
            text = f'{{"name": "t{i}", "arguments": {{"v": "VALUE-{i}-7"}}}}'
            fixed = processor.fix(as_response(text), tools)
        else:
            fixed = repair(f'{{"name": "t{i}", "arguments": {{"v": "value-{i}-7"}}}}', tools)
        assert fixed.tool_calls[0].arguments == {"v": f"value-{i}-7"}, fixed
        del enum, tools, fixed
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del processor
    return one_schema, (kept - base) / 2**20, (peak - base) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=30)
    parser.add_argument("--enum", type=int, default=100_000)
    args = parser.parse_args()
    print(f"{args.tools} fresh tools, {args.enum:,}-value enums")
    for label, shared in (("repair(), valid calls", False), ("one processor, coerced", True)):
        one, kept, peak = _run(args.tools, args.enum, shared)
        print(
            f"{label:24} one schema {one:.1f} MB; kept alive after the last repair "
            f"{kept:.1f} MB (processor still held: {shared}); peak {peak:.1f} MB"
        )


if __name__ == "__main__":
    main()
