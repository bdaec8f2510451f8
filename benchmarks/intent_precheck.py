"""Recall and question rate of the LLM fixer's intent pre-check (issue 30).

The pre-check (``toolfix.processors.IntentPrecheck``) decides, with no LLM call, whether
a message that carries no tool call may announce one; only then does the fixer ask the
model "did you mean to call a tool?". Two numbers matter:

- **recall on intents**: of the messages that announce a step ("Let me read the
  file now.", "Computing the sum now."), how many get the question;
- **question rate on final answers**: of the final answers and questions to the user,
  how many get the question anyway, as false questions per 20 final answers (each
  costs one needless LLM call).

The sets (one JSON object a line, see ``benchmarks/intent/SOURCES.md``):

- ``tuned``: ``benchmarks/intent/labelled.jsonl``, two thirds of the public harvest,
  the part the rules were tuned on;
- ``fresh``: ``benchmarks/intent/fresh.jsonl``, the third put aside before tuning;
- ``hand``: ``tests/data/intent_precheck.jsonl``, the older hand-written set.

Run from the repository root::

    python benchmarks/intent_precheck.py                     # every set
    python benchmarks/intent_precheck.py --sets tuned hand   # some sets
    python benchmarks/intent_precheck.py --misses            # list what each set gets wrong
    python benchmarks/intent_precheck.py --write benchmarks/results/intent_precheck.md

A line whose source names no tools is checked with one neutral tool name, so that
only its phrasing decides (the pre-check asks nothing when no tool is offered).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from toolfix.processors import IntentPrecheck

ROOT = Path(__file__).resolve().parent.parent
SETS = {
    "tuned": ROOT / "benchmarks" / "intent" / "labelled.jsonl",
    "fresh": ROOT / "benchmarks" / "intent" / "fresh.jsonl",
    "hand": ROOT / "tests" / "data" / "intent_precheck.jsonl",
}
#: the tools tests/test_intent_precheck.py checks the hand-written set with
HAND_TOOLS: list[str] = json.loads(
    (ROOT / "tests" / "data" / "intent_precheck_tools.json").read_text()
)
NEUTRAL_TOOLS = ["unnamed_tool"]


@dataclass(frozen=True)
class Score:
    """What the pre-check did on one set."""

    name: str
    intents: int
    caught: int
    finals: int
    asked: int
    missed: tuple[str, ...]
    false_questions: tuple[str, ...]

    @property
    def recall(self) -> float:
        return self.caught / self.intents if self.intents else 1.0

    @property
    def per_20(self) -> float:
        """False questions per 20 final answers."""
        return 20 * self.asked / self.finals if self.finals else 0.0


def load(path: Path) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def tools_of(row: dict[str, object], name: str) -> list[str]:
    if name == "hand":
        return HAND_TOOLS
    tools = row.get("tools")
    return [str(t) for t in tools] if isinstance(tools, list) and tools else NEUTRAL_TOOLS


def score(name: str, check: IntentPrecheck | None = None) -> Score:
    check = check or IntentPrecheck()
    missed: list[str] = []
    false_questions: list[str] = []
    intents = finals = 0
    for row in load(SETS[name]):
        text = str(row["text"])
        asked = check(text, tools_of(row, name))
        if row["intended"]:
            intents += 1
            if not asked:
                missed.append(text)
        else:
            finals += 1
            if asked:
                false_questions.append(text)
    return Score(
        name,
        intents,
        intents - len(missed),
        finals,
        len(false_questions),
        tuple(missed),
        tuple(false_questions),
    )


def table(scores: list[Score]) -> str:
    rows = [
        "| set | intents | recall on intents | final answers | questions asked "
        "| per 20 final answers |",
        "|---|---|---|---|---|---|",
    ]
    for s in scores:
        rows.append(
            f"| {s.name} | {s.intents} | {s.caught}/{s.intents} = {s.recall:.1%} "
            f"| {s.finals} | {s.asked} | {s.per_20:.2f} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=list(SETS), default=list(SETS))
    parser.add_argument("--misses", action="store_true", help="list each set's errors")
    parser.add_argument("--write", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    scores = [score(name) for name in args.sets]
    out = table(scores)
    print(out)
    if args.misses:
        for s in scores:
            for text in s.missed:
                print(f"[{s.name}] missed intent: {text!r}")
            for text in s.false_questions:
                print(f"[{s.name}] asked on a final answer: {text!r}")
    if args.write:
        command = "python benchmarks/intent_precheck.py --sets " + " ".join(args.sets)
        args.write.write_text(f"{out}\n\nMade by `{command}`.\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
