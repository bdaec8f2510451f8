"""Score the manual fixer on one corpus file, with the schema-anchored reader on and off.

Run from the repository root::

    python benchmarks/heldout/score.py benchmarks/heldout/verbatim_anchored_fresh2.jsonl
    python benchmarks/heldout/score.py FILE --misses   # also list the cases it gets wrong
    python benchmarks/heldout/score.py FILE --finish=stop   # as a server reports the end

Prints exact recovery over the cases with expected calls and false calls over the
cases with none (the scoring of ``toolfix bench``), once with the reader on (the
default ``FixConfig``) and once with ``FixConfig(schema_anchored=False)``. A held-out
split is run once, at the end of the work it checks: ``--misses`` is for that run.

Most pasted outputs carry no finish reason (a line's ``response.finish_reason`` gives
the one its source shows), and a call left open at the end of one is cut off (promise 9).
``--finish=stop`` scores each output as a server that saw the model end it would report
it (``finish_reason: "stop"``): the figure for responses served with a finish reason,
where such a call is closed by the end.
"""

from __future__ import annotations

import sys
from pathlib import Path

from toolfix import FixConfig, ManualToolCallFixProcessor, ToolRegistry
from toolfix._bench.corpus import CaseKind, load_corpus
from toolfix._bench.score import calls_match
from toolfix._convert import response_from_openai


def score(path: Path, config: FixConfig, *, misses: bool, finish: str | None = None) -> str:
    fixer = ManualToolCallFixProcessor(config=config)
    exact = positives = false_calls = negatives = 0
    wrong: list[str] = []
    for case in load_corpus(path).cases:
        registry = ToolRegistry.from_openai(case.tools)
        reported = finish or case.response.finish_reason
        response = response_from_openai(case.response.as_openai(), finish_reason=reported)
        out = fixer.fix(response, registry)
        calls = [(c.name, dict(c.arguments or {})) for c in out.tool_calls]
        if case.kind is CaseKind.POSITIVE:
            positives += 1
            expected = [(c.name, c.arguments) for c in case.expected_calls]
            if calls_match(calls, expected):
                exact += 1
            else:
                wrong.append(f"  miss  {case.id} [{case.format or '-'}] got {calls}")
        else:
            negatives += 1
            false_calls += len(calls)
            if calls:
                wrong.append(f"  FALSE {case.id} got {calls}")
    rate = 100.0 * exact / positives if positives else 0.0
    head = f"{exact}/{positives} exact ({rate:.1f}%), {false_calls} false calls on {negatives}"
    return "\n".join([head, *wrong]) if misses else head


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__)
        return 2
    path, misses = Path(args[0]), "--misses" in argv
    finish = next((a.split("=", 1)[1] for a in argv if a.startswith("--finish=")), None)
    on, off = FixConfig(), FixConfig(schema_anchored=False)
    print("reader on :", score(path, on, misses=misses, finish=finish))
    print("reader off:", score(path, off, misses=misses, finish=finish))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
