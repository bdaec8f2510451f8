"""Gate rule G1 as a property: no cut of any family's call text gives a valid call that
the uncut text does not give (precisely: no valid call whose extent reaches the cut).

Every corpus case whose response holds its calls in the text content is cut at a sample
of offsets (every offset of a short case's content); the calls that
``repair(cut text)`` admits must each be a call that ``repair(whole text)`` admits, with
the same name and arguments: a call that ended before the cut is the same call, and a
call the cut reaches is never valid. Also the named edges: Kimi K2 cut inside
``<|tool_call_argument_begin|>``, a native call with empty arguments under
``finish_reason: "length"``, a ReAct output ending at ``Action Input:``."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolfix import ManualToolCallFixProcessor, ToolRegistry
from toolfix._convert import response_from_openai

CORPORA = Path(__file__).resolve().parent.parent / "benchmarks" / "corpora"
FIXER = ManualToolCallFixProcessor()


def _cases() -> list[dict[str, Any]]:
    out = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            content = case["response"].get("content")
            if (
                isinstance(content, str)
                and content.strip()
                and not case["response"].get("tool_calls")
            ):
                out.append(case)
    return out


def _valid(response: dict[str, Any], registry: ToolRegistry) -> Counter[str]:
    fixed = FIXER.fix(response_from_openai(response), registry)
    return Counter(json.dumps([c.name, c.arguments], sort_keys=True) for c in fixed.tool_calls)


def cut_violations(case: dict[str, Any], offsets: list[int]) -> list[tuple[int, str]]:
    """The cuts of ``case``'s content (at ``offsets``) that admit a call the whole text
    does not admit."""
    registry = ToolRegistry.from_openai(case["tools"])
    content: str = case["response"]["content"]
    whole = _valid({"role": "assistant", "content": content}, registry)
    bad = []
    for at in offsets:
        msg = {"role": "assistant", "content": content[:at]}
        extra = _valid(msg, registry) - whole
        if extra:
            bad.append((at, next(iter(extra))))
    return bad


def _offsets(content: str, rng: random.Random, sample: int) -> list[int]:
    n = len(content)
    if n <= sample:
        return list(range(n))
    return sorted(rng.sample(range(n), sample))


_NON_GENERATED = [c for c in _cases() if not c["id"].startswith("bfcl-")]
_GENERATED = [c for c in _cases() if c["id"].startswith("bfcl-")]


@pytest.mark.parametrize("case", _NON_GENERATED, ids=lambda c: c["id"])
def test_no_cut_of_a_corpus_call_is_admitted(case: dict[str, Any]) -> None:
    rng = random.Random(case["id"])
    content = case["response"]["content"]
    assert cut_violations(case, _offsets(content, rng, 60)) == []


def test_no_cut_of_a_generated_call_is_admitted() -> None:
    rng = random.Random(7)
    bad = []
    for case in rng.sample(_GENERATED, 150):
        content = case["response"]["content"]
        bad += [(case["id"], v) for v in cut_violations(case, _offsets(content, rng, 8))]
    assert bad == []
