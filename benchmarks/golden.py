"""Outputs of every corpus case, to check that a change (a speed change) moves none.

Run from the repository root, before and after the change::

    python benchmarks/golden.py write /tmp/before.jsonl
    python benchmarks/golden.py check /tmp/before.jsonl   # "0 diffs of N" or the diffs

Each line holds a case's repaired response (parts, repairs, ids and details, as JSON)
and whether repairing that response again returns it unchanged (promise 7).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))  # the tree this file is in, whatever is installed

from toolfix import FixConfig, ManualToolCallFixProcessor, ToolRegistry  # noqa: E402
from toolfix._convert import response_from_openai  # noqa: E402


def outputs() -> Iterator[tuple[str, str, bool]]:
    """``(file:id, repaired response as JSON, repairing it again changes nothing)``."""
    # a pinned id seed: ids are a function of the input, so the check compares them too
    fixer = ManualToolCallFixProcessor(config=FixConfig(id_seed=0))
    paths = sorted(ROOT.glob("corpora/*.jsonl")) + sorted(ROOT.glob("heldout/*.jsonl"))
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            registry = ToolRegistry.from_openai(case["tools"])
            message = dict(case["response"])
            finish = message.pop("finish_reason", None)
            out = fixer.fix(response_from_openai(message, finish_reason=finish), registry)
            again = fixer.fix(out, registry)
            yield f"{path.name}:{case['id']}", out.model_dump_json(), again == out


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("write", "check"):
        print(__doc__)
        return 2
    mode, target = argv[0], Path(argv[1])
    if mode == "write":
        with target.open("w", encoding="utf-8") as f:
            for key, value, stable in outputs():
                f.write(json.dumps([key, value, stable]) + "\n")
        return 0
    recorded = {}
    for line in target.read_text(encoding="utf-8").splitlines():
        key, value, stable = json.loads(line)
        recorded[key] = (value, stable)
    diffs = 0
    for key, value, stable in outputs():
        if recorded.get(key) != (value, stable):
            diffs += 1
            if diffs <= 10:
                before = recorded.get(key, ("(new case)", True))[0]
                print(f"DIFF {key}\n  before {before[:600]}\n  after  {value[:600]}")
    print(f"{diffs} diffs of {len(recorded)}")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
