"""Run the hostile-input generator (tests/hostile.py) with many examples and count.

Each arm draws examples from the generator and checks the promises of issue 26 on them
(docs/design.md; tests/hostile.py says which): ``repair()`` (with determinism and
idempotence), and ``repair_stream`` over OpenAI chunks cut at random points and one
character at a time. Another arm enumerates every outer/inner family pair in every
placement and escape variant (no sampling). With ``--proxy-examples N``, N of the drawn
examples also go through one ``toolfix serve`` process, streamed and not
(tests/hostile_proxy.py). Prints, per arm, how many examples it tried
and how many failed, with the failing classes; exit status 1 when any arm failed.

    python benchmarks/hostile.py --examples 20000 --seed 0
    python benchmarks/hostile.py --examples 20000 --seed 0 --proxy-examples 2000
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import hostile
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed

from toolfix.testing import pinned_ids


def _class(ex: hostile.Example, why: str) -> str:
    head = " ".join(ex.label.split()[:2]) if ex.promise == "outer" else ex.label.split(" post")[0]
    return f"{ex.promise}: {head}: {why[:60]}"


def _draw(n: int, seed: int) -> list[hostile.Example]:
    """``n`` examples drawn by the generator (hypothesis, no shrinking, seeded)."""
    out: list[hostile.Example] = []

    @hseed(seed)
    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(hostile.hostile_examples())
    def collect(ex: hostile.Example) -> None:
        out.append(ex)

    collect()
    return out


def _run(name: str, items: list[Any], check: Any) -> int:
    fails: collections.Counter[str] = collections.Counter()
    for item in items:
        try:
            why = check(item)
        except Exception as exc:  # a crash is a failure of the arm, counted
            why = f"crash {type(exc).__name__}: {exc}"
        if why:
            ex = item[0] if isinstance(item, tuple) else item
            fails[_class(ex, why)] += 1
    print(f"{name}: tried {len(items)}, failed {sum(fails.values())}")
    for cls, count in fails.most_common(25):
        print(f"    {count:6d}  {cls}")
    return sum(fails.values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=20000)
    ap.add_argument("--stream-examples", type=int, default=None, help="default: examples / 10")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-pairs", action="store_true", help="skip the enumerated pairs arm")
    ap.add_argument(
        "--proxy-examples",
        type=int,
        default=0,
        help="run this many drawn examples through `toolfix serve` (each streamed and not)",
    )
    args = ap.parse_args()
    drawn = _draw(args.examples, args.seed)
    kinds = collections.Counter(ex.promise for ex in drawn)
    print(f"drawn: {len(drawn)} examples ({dict(sorted(kinds.items()))})")
    failed = _run("repair()", drawn, hostile.check_repair)
    rng = random.Random(args.seed)
    n_stream = args.stream_examples if args.stream_examples is not None else len(drawn) // 10
    sample = drawn[:n_stream]
    cut = [
        (ex, sorted(rng.sample(range(1, max(len(ex.text), 2)), k=min(6, len(ex.text) - 1))))
        for ex in sample
        if len(ex.text) > 1
    ]
    failed += _run("repair_stream (random cuts)", cut, lambda it: hostile.check_stream(*it))
    chars = [(ex, list(range(1, len(ex.text)))) for ex in sample[: max(n_stream // 4, 1)]]
    failed += _run(
        "repair_stream (every split: 1 char a chunk)", chars, lambda it: hostile.check_stream(*it)
    )
    if not args.no_pairs:
        pairs = list(hostile.all_outer_examples())
        failed += _run(
            "every outer/inner pair x placement x variant (repair())", pairs, hostile.check_repair
        )
        alone = [
            (ex, list(range(1, len(ex.text))))
            for ex in pairs
            if " at=alone nl=False/False esc=raw ascii=True" in ex.label
        ]
        failed += _run(
            "every outer/inner pair, the call alone in the value (repair_stream, 1 char a chunk)",
            alone,
            lambda it: hostile.check_stream(*it),
        )
    if args.proxy_examples:
        failed += _proxy_arm(drawn[: args.proxy_examples], rng)
    return 1 if failed else 0


def _proxy_arm(sample: list[hostile.Example], rng: random.Random) -> int:
    """``sample`` through one ``toolfix serve`` process, non-stream and streamed at random
    cuts, and a tenth of it one character a chunk (tests/hostile_proxy.py)."""
    import hostile_proxy

    sample = [ex for ex in sample if hostile_proxy.proxied(ex)]
    with hostile_proxy.running_proxy() as arm:
        failed = _run(
            "toolfix serve (non-stream)",
            sample,
            lambda ex: hostile_proxy.check_proxy(arm, ex, None),
        )
        cut = [
            (ex, sorted(rng.sample(range(1, max(len(ex.text), 2)), k=min(6, len(ex.text) - 1))))
            for ex in sample
        ]
        failed += _run(
            "toolfix serve (stream, random cuts)",
            cut,
            lambda it: hostile_proxy.check_proxy(arm, *it),
        )
        chars = [(ex, list(range(1, len(ex.text)))) for ex in sample[: max(len(sample) // 10, 1)]]
        failed += _run(
            "toolfix serve (stream, every split: 1 char a chunk)",
            chars,
            lambda it: hostile_proxy.check_proxy(arm, *it),
        )
    return failed


if __name__ == "__main__":
    # ids are random per response unless pinned; the determinism and stream checks
    # compare ids too (tests/conftest.py pins them for the suite)
    with pinned_ids(0):
        sys.exit(main())
