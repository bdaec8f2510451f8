"""Schema regex answers on a busy machine: 0 flipped outcomes (SECURITY.md, "Tool schemas").

An idle run answers every (pattern, value) pair once; then 16 threads repeat all of
them while CPU-burning processes keep every core busy, and every answer is compared
with the idle one. Before toolfix moved schema regexes to a step-bounded engine, a
wall-clock timeout turned 17 of 12,800 answers into "no match" under this load.

    python benchmarks/load_determinism.py [--threads 16] [--burners N] [--rounds 50]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import threading
import time

from toolfix.tools import ToolDescriptor

PATTERNS = {
    "trivial": "^[a-z]+$",
    "email-ish": r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$",
    "nested": "^(a+)+$",
    "alternation": "^(a|a?)+$",
    "lookahead": r"^(?=.*\d)(?=.*[a-z]).{8,}$",
    "backref": r"^(\w+)-\1$",
}
VALUES = [
    "abc",
    "a" * 30,
    "a" * 41 + "!",
    "user@example.com",
    "no-at-sign.com",
    "abcdefg1",
    "word-word",
    "word-other",
    "x" * 5000,
]


def _burn(stop_at: float) -> None:
    n = 0
    while time.time() < stop_at:
        n = (n * 31 + 7) % 1_000_003


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--rounds", type=int, default=50)
    args = parser.parse_args()

    tools = {
        name: ToolDescriptor(
            name=name.replace("-", "_"),
            parameters={"type": "object", "properties": {"s": {"type": "string", "pattern": p}}},
        )
        for name, p in PATTERNS.items()
    }
    pairs = [(name, v) for name in tools for v in VALUES]
    idle = {(n, v): tools[n].is_valid({"s": v}) for n, v in pairs}

    flips = 0
    checks = 0
    lock = threading.Lock()
    per_check: list[float] = []

    def worker() -> None:
        nonlocal flips, checks
        local_flips = local_checks = 0
        times: list[float] = []
        for _ in range(args.rounds):
            for n, v in pairs:
                t0 = time.perf_counter()
                got = tools[n].is_valid({"s": v})
                times.append(time.perf_counter() - t0)
                local_checks += 1
                local_flips += got != idle[(n, v)]
        with lock:
            flips += local_flips
            checks += local_checks
            per_check.extend(times)

    stop_at = time.time() + 600
    burners = [
        multiprocessing.Process(target=_burn, args=(stop_at,), daemon=True)
        for _ in range(args.burners)
    ]
    for b in burners:
        b.start()
    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    for b in burners:
        b.terminate()

    per_check.sort()
    print(f"cpus: {os.cpu_count()}, threads: {args.threads}, CPU burners: {args.burners}")
    print(f"patterns: {len(PATTERNS)} (incl. nested quantifiers, lookaround, backreference)")
    print(f"checks under load: {checks:,}; flipped outcomes vs idle: {flips}")
    print(
        f"per check under load: median {statistics.median(per_check) * 1e6:.1f} µs, "
        f"p99 {per_check[int(len(per_check) * 0.99)] * 1e6:.1f} µs, "
        f"max {per_check[-1] * 1e3:.2f} ms; wall {elapsed:.1f} s"
    )
    if flips:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
