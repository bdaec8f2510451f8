"""What the schema-anchored reader costs on the real-output corpora (issue 28).

Run from the repository root::

    python benchmarks/perf_anchored.py            # 15 repeats
    python benchmarks/perf_anchored.py --repeat 5 --profile
    python benchmarks/perf_anchored.py --cold    # a new registry of the same tools each time

For every case of ``benchmarks/corpora/verbatim_*.jsonl`` the manual fixer repairs the
same response with the reader on (the default ``FixConfig``) and off
(``FixConfig(schema_anchored=False)``), A and B interleaved in one process (each going
first in half the repeats), each case's time the minimum of the repeats. It prints the
median and the total of those minima for each side and their ratio (the budget: the
median within 1.2x). Each fixer keeps its reader across cases, as an application does,
and sees every registry once before the timed repeats (an agent loop repairs many
responses with one registry); ``--cold`` gives each repeat a new registry of the same
tools instead (a server reads them per request).

``--profile`` also counts, with cProfile, the function calls each side makes over one
pass of the corpora (operations, which a noisy machine does not blur).
"""

from __future__ import annotations

import cProfile
import json
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from toolfix import FixConfig, ManualToolCallFixProcessor, ToolRegistry
from toolfix._convert import response_from_openai

ROOT = Path(__file__).resolve().parent


def cases() -> list[tuple[Any, ToolRegistry, list[Any]]]:
    out = []
    for path in sorted(ROOT.glob("corpora/verbatim_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            tools = case["tools"]
            out.append(
                (response_from_openai(case["response"]), ToolRegistry.from_openai(tools), tools)
            )
    return out


def timed(repeat: int, cold: bool) -> tuple[list[float], list[float]]:
    on = ManualToolCallFixProcessor(config=FixConfig())
    off = ManualToolCallFixProcessor(config=FixConfig(schema_anchored=False))
    best_on: list[float] = []
    best_off: list[float] = []
    for response, registry, tools in cases():
        on.fix(response, registry)  # (warm: the registry seen once)
        off.fix(response, registry)
        best = {on: float("inf"), off: float("inf")}
        for i in range(repeat):
            # cold: a new registry of the same tools each time, as a server gets them
            for fixer in (on, off) if i % 2 == 0 else (off, on):  # (each goes first half
                # the time: the first of a pair pays for what the second then finds warm)
                reg = ToolRegistry.from_openai(tools) if cold else registry
                t = time.perf_counter_ns()
                fixer.fix(response, reg)
                best[fixer] = min(best[fixer], time.perf_counter_ns() - t)
        a, b = best[on], best[off]
        best_on.append(a / 1000)
        best_off.append(b / 1000)
    return best_on, best_off


def calls_made(config: FixConfig) -> int:
    fixer = ManualToolCallFixProcessor(config=config)
    pairs = cases()
    prof = cProfile.Profile()
    for response, registry, _ in pairs:
        fixer.fix(response, registry)  # (warm, as above)
        prof.enable()
        fixer.fix(response, registry)
        prof.disable()
    return int(pstats.Stats(prof).total_calls)  # type: ignore[attr-defined]


def main(argv: list[str]) -> int:
    repeat = int(argv[argv.index("--repeat") + 1]) if "--repeat" in argv else 15
    cold = "--cold" in argv
    on, off = timed(repeat, cold)
    m_on, m_off = statistics.median(on), statistics.median(off)
    how = "a new registry per repeat" if cold else "the registry kept"
    print(f"{len(on)} cases, min of {repeat} repeats each, A/B interleaved, {how}")
    print(f"median  reader on {m_on:8.1f} us   off {m_off:8.1f} us   ratio {m_on / m_off:.3f}")
    print(
        f"total   reader on {sum(on):8.0f} us   off {sum(off):8.0f} us   "
        f"ratio {sum(on) / sum(off):.3f}"
    )
    if "--profile" in argv:
        a, b = calls_made(FixConfig()), calls_made(FixConfig(schema_anchored=False))
        print(f"function calls, one pass: reader on {a}   off {b}   ratio {a / b:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
