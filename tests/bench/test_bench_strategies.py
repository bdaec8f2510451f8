"""Strategies return the documented shape and the baselines behave as documented."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bench_cases import tiny_lines, write_tiny

import toolfix
from toolfix._bench.corpus import load_corpus
from toolfix._bench.runner import run_bench, run_strategy
from toolfix._bench.score import Outcome
from toolfix._bench.strategies import (
    JsonRepairStrategy,
    LLMStrategy,
    LLMUnavailableError,
    ManualStrategy,
    StrictStrategy,
    default_strategies,
)


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    return write_tiny(tmp_path)


@pytest.fixture(name="tiny_lines")
def _tiny_lines() -> list[dict[str, Any]]:
    return tiny_lines()


def _outcomes(strategy: object, corpus: Path) -> dict[str, Outcome]:
    out = {}
    for case in load_corpus(corpus).cases:
        prepared = strategy.prepare(case)  # type: ignore[attr-defined]
        outcome = strategy.run(prepared)  # type: ignore[attr-defined]
        assert isinstance(outcome, Outcome)
        assert all(isinstance(n, str) and isinstance(a, dict) for n, a in outcome.calls)
        out[case.id] = outcome
    return out


def test_strict(tiny_corpus: Path) -> None:
    o = _outcomes(StrictStrategy(), tiny_corpus)
    assert o["native-ok"].calls == [("get_weather", {"city": "Paris"})]
    assert o["native-quotes"].calls == []
    assert o["native-quotes"].invalid == 1
    assert o["content-json"].calls == [("get_weather", {"city": "Rome", "days": 2})]
    assert o["hermes-parallel"].calls == []
    assert o["hallucinated"].calls == []
    assert o["hallucinated"].invalid == 1
    assert o["plain"].calls == []
    assert o["plain"].invalid == 0


def test_json_repair(tiny_corpus: Path) -> None:
    o = _outcomes(JsonRepairStrategy(), tiny_corpus)
    assert o["native-quotes"].calls == [("get_weather", {"city": "Paris"})]
    assert o["content-json"].calls == [("get_weather", {"city": "Rome", "days": 2})]
    assert o["hallucinated"].calls == []
    assert o["plain"].calls == []


def test_manual(tiny_corpus: Path) -> None:
    o = _outcomes(ManualStrategy(), tiny_corpus)
    assert o["native-ok"].calls == [("get_weather", {"city": "Paris"})]
    assert o["native-ok"].repairs == []
    assert o["native-quotes"].calls == [("get_weather", {"city": "Paris"})]
    assert "invalid_json" in o["native-quotes"].repairs
    assert sorted(o["hermes-parallel"].calls, key=str) == [
        ("get_weather", {"city": "Bern"}),
        ("get_weather", {"city": "Oslo"}),
    ]
    assert o["plain"].calls == []
    assert o["hallucinated"].calls == []
    assert o["hallucinated"].invalid == 1
    assert o["intent"].calls == []
    assert all(x.llm_calls == 0 and x.tokens == 0 for x in o.values())


def test_run_bench_side_by_side(tiny_corpus: Path) -> None:
    result = run_bench([tiny_corpus], default_strategies())
    by = {s.strategy: s for s in result.summaries}
    assert list(by) == ["strict", "json-repair", "toolfix"]
    assert result.n_cases == 7
    assert (by["strict"].exact, by["toolfix"].exact) == (2, 4)
    assert by["toolfix"].false_calls == 0
    assert all(len(v) == 7 for v in result.scores.values())


def test_strategy_errors_are_scored_not_raised(tiny_corpus: Path) -> None:
    class Boom(StrictStrategy):
        name = "boom"

        def run(self, prepared: object) -> Outcome:
            raise ValueError("kaput")

    scores = run_strategy(Boom(), load_corpus(tiny_corpus).cases)
    assert all(s.error == "ValueError: kaput" for s in scores)
    assert [s.exact for s in scores if s.kind == "positive"] == [False] * 4


def test_llm_strategy_needs_the_llm_fixer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(toolfix, "LLMBasedToolCallFixProcessor", raising=False)
    with pytest.raises(LLMUnavailableError, match="LLMBasedToolCallFixProcessor"):
        LLMStrategy("openai/gpt-4o-mini")


def test_per_corpus_breakdown(tiny_corpus: Path) -> None:
    result = run_bench([tiny_corpus], [StrictStrategy()])
    assert list(result.summaries[0].by_corpus) == ["tiny"]
    assert result.summaries[0].by_corpus["tiny"].n_positive == 4


def test_llm_strategy_hook_runs_concurrently(
    tiny_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With both names present, the hook builds the executor and processor and counts cost."""
    from toolfix import RepairRecord, Response, ToolCallPart, Usage

    built: dict[str, object] = {}

    class FakeExecutor:
        def __init__(self, api_base: str | None = None) -> None:
            built["api_base"] = api_base

    class FakeLLMFixer:
        async def process(
            self,
            executor: object,
            prompt: object,
            model: str,
            tools: object,
            responses: list[Response],
        ) -> list[Response]:
            built["model"] = model
            record = RepairRecord(
                kind="llm_fix",
                detail="asked",
                llm_calls=2,
                usage=Usage(input_tokens=7, output_tokens=3),
            )
            call = ToolCallPart.create("get_weather", {"city": "Paris"}, id="c1", repairs=[record])
            return [Response(parts=(call,))]

    monkeypatch.setattr(toolfix, "LLMBasedToolCallFixProcessor", FakeLLMFixer, raising=False)
    monkeypatch.setattr(toolfix, "LiteLLMExecutor", FakeExecutor, raising=False)
    strategy = LLMStrategy("openai/m", api_base="http://127.0.0.1:9")
    result = run_bench([tiny_corpus], [strategy], concurrency=3)
    assert built == {"api_base": "http://127.0.0.1:9", "model": "openai/m"}
    s = result.summaries[0]
    assert s.uses_llm
    assert (s.llm_calls, s.tokens) == (14, 70)
    assert s.intent_correct == 1  # the LLM strategy is scored on recovering the named call
    assert s.false_calls == 2  # it made a call on both negatives
