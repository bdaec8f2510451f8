"""Strategies return the documented shape and the baselines behave as documented."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_cases import tiny_lines, write_tiny

import toolfix
from toolfix import RepairRecord, Response, ToolCallPart
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
from toolfix.messages import Usage


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


def test_llm_strategy_without_litellm_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # as if the extra were not installed
    with pytest.raises(LLMUnavailableError, match=r'pip install "toolfix\[litellm\]"'):
        LLMStrategy("openai/gpt-4o-mini")


def test_baselines_are_not_scored_on_intent_only(tiny_corpus: Path) -> None:
    result = run_bench([tiny_corpus], default_strategies())
    by = {s.strategy: s for s in result.summaries}
    assert [by[n].scores_intent_only for n in by] == [False, False, True]
    assert by["strict"].as_dict()["intent_only_correct"] is None
    assert by["toolfix"].as_dict()["intent_only_correct"] == 1
    intent_scores = [s for s in result.scores["strict"] if s.kind == "intent_only"]
    assert [s.intent_correct for s in intent_scores] == [None]


def test_per_corpus_breakdown(tiny_corpus: Path) -> None:
    result = run_bench([tiny_corpus], [StrictStrategy()])
    assert list(result.summaries[0].by_corpus) == ["tiny"]
    assert result.summaries[0].by_corpus["tiny"].n_positive == 4


class _FakeLLMFixer:
    """Answers every response with one call after yielding to the event loop a few
    times, and records how many responses it was working on at once."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.most_in_flight = 0
        self.models: set[str] = set()

    async def process(
        self,
        executor: object,
        prompt: object,
        model: str,
        tools: object,
        responses: list[Response],
    ) -> list[Response]:
        self.models.add(model)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        for _ in range(5):
            await asyncio.sleep(0)
        self.in_flight -= 1
        record = RepairRecord(
            kind="llm_fix",
            detail="asked",
            llm_calls=2,
            usage=Usage(input_tokens=7, output_tokens=3),
        )
        call = ToolCallPart.create("get_weather", {"city": "Paris"}, id="c1", repairs=[record])
        return [Response(parts=(call,))]


@pytest.mark.parametrize("concurrency", [1, 3])
def test_llm_strategy_runs_cases_concurrently(tiny_corpus: Path, concurrency: int) -> None:
    """The LLM strategy has ``concurrency`` cases in flight, never more, and counts cost."""
    fixer = _FakeLLMFixer()
    strategy = LLMStrategy("openai/m", executor=object(), processor=fixer)
    result = run_bench([tiny_corpus], [strategy], concurrency=concurrency)
    assert fixer.most_in_flight == concurrency
    assert fixer.in_flight == 0
    assert fixer.models == {"openai/m"}
    s = result.summaries[0]
    assert s.uses_llm
    assert (s.llm_calls, s.tokens) == (14, 70)
    assert s.intent_correct == 1  # the LLM strategy is scored on recovering the named call
    assert s.false_calls == 2  # it made a call on both negatives


def test_llm_strategy_defaults_to_litellm_executor() -> None:
    pytest.importorskip("litellm")
    strategy = LLMStrategy("openai/m", api_base="http://127.0.0.1:9")
    assert isinstance(strategy.executor, toolfix.LiteLLMExecutor)
    assert strategy.executor.api_base == "http://127.0.0.1:9"
    assert isinstance(strategy.processor, toolfix.LLMBasedToolCallFixProcessor)
