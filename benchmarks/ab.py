"""A/B timing of two toolfix trees on perf.md's figures (plain script, not a test).

Each round runs one worker process per tree, alternating A, B, B, A, ... so that machine
drift hits both alike; each figure is the minimum over the rounds (the least disturbed
run). A worker imports ``toolfix`` and ``benchmarks/perf.py`` from its tree
(``PYTHONPATH``), so each side measures its own code on its own fixtures::

    python benchmarks/ab.py /work/main . --rounds 5
    python benchmarks/ab.py /work/main . --only a,e

Figures (names as in ``benchmarks/results/perf.md``): ``a_*`` per message over the 12
fast-path messages (common schemas), ``a_ratio`` ``repair(msg, registry)`` over the
``json.loads`` + jsonschema reference; ``b_*`` the median per case of the broken corpus
cases and the total (real outputs and generated apart); ``c_*`` and ``e_*`` the 1 MB
inputs of (c) and (e).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

KB = 1024
#: The cases of (b): this script's tree's corpora, whichever tree is measured.
CORPORA = Path(__file__).resolve().parent / "corpora"


def _best_ns(fn: Callable[[], object], number: int, repeat: int) -> float:
    """The best of ``repeat`` batches of ``number`` calls, per call (the garbage collector
    off while timing, as in ``perf.py``)."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            for _ in range(number):
                fn()
            best = min(best, (time.perf_counter_ns() - t0) / number)
    finally:
        gc.enable()
    return best


def _fast_path(perf: Any, out: dict[str, float]) -> None:
    from jsonschema import Draft202012Validator

    from toolfix import ManualToolCallFixProcessor, ToolRegistry, as_response, repair

    tools = perf.FAST_TOOLS
    registry = ToolRegistry.from_openai(tools)
    messages = perf._fast_messages()
    responses = [as_response(m) for m in messages]
    fixer = ManualToolCallFixProcessor()
    validators = {
        t["function"]["name"]: Draft202012Validator(t["function"]["parameters"]) for t in tools
    }

    def reference() -> None:
        for m in messages:
            for tc in m["tool_calls"]:
                fn = tc["function"]
                validators[fn["name"]].is_valid(json.loads(fn["arguments"]))

    per = len(messages)
    runs = {
        "a_reference_us": reference,
        "a_repair_registry_us": lambda: [repair(m, registry) for m in messages],
        "a_repair_dicts_us": lambda: [repair(m, tools) for m in messages],
        "a_as_response_us": lambda: [as_response(m) for m in messages],
        "a_fix_us": lambda: [fixer.fix(r, registry) for r in responses],
    }
    for name, fn in runs.items():
        out[name] = _best_ns(fn, 50, 15) / per / 1e3
    out["a_ratio"] = out["a_repair_registry_us"] / out["a_reference_us"]


def _repair(perf: Any, out: dict[str, float]) -> None:
    from toolfix import ManualToolCallFixProcessor

    fixer = ManualToolCallFixProcessor()
    real: list[float] = []
    generated: list[float] = []
    for c in perf.load_broken_cases(CORPORA):  # (one set of cases for both trees)
        t = _best_ns(perf._fix_call(fixer, c.response, c.registry), 5, 3)
        (generated if c.file in perf._GENERATED else real).append(t / 1e3)
    out["b_real_median_us"] = statistics.median(real)
    out["b_generated_median_us"] = statistics.median(generated)
    out["b_all_median_us"] = statistics.median(real + generated)
    out["b_real_total_ms"] = sum(real) / 1e3
    out["b_generated_total_ms"] = sum(generated) / 1e3


def _big(perf: Any, out: dict[str, float]) -> None:
    from toolfix import Response, ToolRegistry

    fixer = perf._big_fixer()
    reg = ToolRegistry.from_openai(perf.SCALE_TOOLS)
    texts = {f"c_{i}_1MB_ms": make(KB * KB) for i, make in enumerate(perf.SHAPES.values())}
    texts["e_long_string_1MB_ms"] = perf._markup_string_call(KB * KB)
    for name, text in texts.items():
        resp = Response.text_only(text)
        out[name] = _best_ns(lambda r=resp: fixer.fix(r, reg), 1, 5) / 1e6


def worker(parts: list[str]) -> None:
    sys.path.insert(0, str(Path.cwd() / "benchmarks"))
    import perf

    out: dict[str, float] = {}
    if "a" in parts:
        _fast_path(perf, out)
    if "b" in parts:
        _repair(perf, out)
    if "ce" in parts:
        _big(perf, out)
    print(json.dumps(out))


def _run(tree: Path, parts: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", parts]
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", nargs="?", type=Path)
    ap.add_argument("b", nargs="?", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="a,b,ce", help="figure groups: a, b, ce")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.worker.split(","))
        return 0
    trees = [args.a.resolve(), args.b.resolve()]
    best: list[dict[str, float]] = [{}, {}]
    for r in range(args.rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for side in order:
            for k, v in _run(trees[side], args.only).items():
                best[side][k] = min(v, best[side].get(k, float("inf")))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"| figure (min of {args.rounds} rounds) | A: {trees[0]} | B: {trees[1]} | B/A |")
    print("| --- | --- | --- | --- |")
    for k in best[0]:
        a, b = best[0][k], best[1].get(k, float("nan"))
        print(f"| {k} | {a:.3f} | {b:.3f} | {b / a:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
