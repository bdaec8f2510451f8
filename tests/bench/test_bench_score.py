"""Metrics on a tiny hand-written corpus with known answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bench_cases import tiny_lines, write_tiny

from toolfix._bench.corpus import CaseKind, CorpusCase, load_corpus
from toolfix._bench.score import (
    Outcome,
    calls_match,
    json_equal,
    lenient_equal,
    percentile,
    score_case,
    summarize,
)


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    return write_tiny(tmp_path)


@pytest.fixture(name="tiny_lines")
def _tiny_lines() -> list[dict[str, Any]]:
    return tiny_lines()


def _case(lines: list[dict[str, Any]], case_id: str) -> CorpusCase:
    return CorpusCase.model_validate(next(x for x in lines if x["id"] == case_id))


def test_json_equal_types_matter() -> None:
    assert json_equal({"a": 3}, {"a": 3.0})
    assert not json_equal({"a": 3}, {"a": "3"})
    assert not json_equal({"a": True}, {"a": 1})
    assert not json_equal({"a": None}, {"a": 0})
    assert not json_equal({"a": [1, 2]}, {"a": [2, 1]})
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


def test_lenient_equal() -> None:
    assert lenient_equal({"a": "3"}, {"a": 3})
    assert lenient_equal({"a": " 2.5"}, {"a": 2.5})
    assert lenient_equal({"c": "New  York"}, {"c": "new york"})
    assert not lenient_equal({"a": "x3"}, {"a": 3})
    assert not lenient_equal({"a": "true"}, {"a": True})
    assert not lenient_equal({"a": 1}, {"a": 2})


def test_calls_match_is_order_insensitive_multiset() -> None:
    a = ("f", {"x": 1})
    b = ("f", {"x": 2})
    assert calls_match([a, b], [b, a])
    assert not calls_match([a, a], [a, b])
    assert not calls_match([a], [a, a])
    assert not calls_match([("g", {"x": 1})], [a])


def test_kinds(tiny_lines: list[dict[str, Any]]) -> None:
    assert _case(tiny_lines, "native-ok").kind is CaseKind.POSITIVE
    assert _case(tiny_lines, "plain").kind is CaseKind.NEGATIVE
    assert _case(tiny_lines, "hallucinated").kind is CaseKind.NEGATIVE
    assert _case(tiny_lines, "intent").kind is CaseKind.INTENT_ONLY


def test_exact_vs_lenient(tiny_lines: list[dict[str, Any]]) -> None:
    case = _case(tiny_lines, "content-json")
    s = score_case(case, Outcome(calls=[("get_weather", {"city": "Rome", "days": "2"})]), 5000)
    assert (s.exact, s.lenient) == (False, True)
    assert s.schema_valid is False  # "2" is not an integer
    s = score_case(case, Outcome(calls=[("get_weather", {"city": "Rome", "days": 2})]), 5000)
    assert (s.exact, s.lenient, s.schema_valid) == (True, True, True)
    s = score_case(case, Outcome(), 0)
    assert (s.exact, s.lenient, s.schema_valid) == (False, False, False)


def test_parallel_order_ignored(tiny_lines: list[dict[str, Any]]) -> None:
    case = _case(tiny_lines, "hermes-parallel")
    produced = [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bern"})]
    assert score_case(case, Outcome(calls=produced), 0).exact is True
    assert score_case(case, Outcome(calls=produced[:1]), 0).exact is False


def test_negatives_count_false_calls(tiny_lines: list[dict[str, Any]]) -> None:
    plain = _case(tiny_lines, "plain")
    err = _case(tiny_lines, "hallucinated")
    assert score_case(plain, Outcome(invalid=1), 0).false_calls == 0
    bad = Outcome(calls=[("get_weather", {"city": "X"})])
    assert score_case(plain, bad, 0).false_calls == 1
    assert score_case(err, Outcome(invalid=1), 0).false_calls == 0
    assert score_case(err, bad, 0).false_calls == 1


def test_intent_only_manual_vs_llm(tiny_lines: list[dict[str, Any]]) -> None:
    case = _case(tiny_lines, "intent")
    call = Outcome(calls=[("get_weather", {"city": "Paris"})])
    assert score_case(case, Outcome(), 0).intent_correct is True
    assert score_case(case, call, 0).intent_correct is False
    assert score_case(case, call, 0, uses_llm=True).intent_correct is True
    assert score_case(case, Outcome(), 0, uses_llm=True).intent_correct is False


def test_summary_known_scores(tiny_corpus: Path) -> None:
    cases = load_corpus(tiny_corpus).cases
    # A strategy that gets native-ok, content-json right, hermes-parallel wrong,
    # native-quotes wrong, one false call on "plain", abstains on "hallucinated".
    answers: dict[str, Outcome] = {
        "native-ok": Outcome(calls=[("get_weather", {"city": "Paris"})]),
        "native-quotes": Outcome(invalid=1),
        "content-json": Outcome(calls=[("get_weather", {"city": "Rome", "days": 2})]),
        "hermes-parallel": Outcome(
            calls=[("get_weather", {"city": "OSLO"}), ("get_weather", {"city": "bern"})]
        ),
        "plain": Outcome(calls=[("get_weather", {"city": "X"}), ("get_weather", {"city": "Y"})]),
        "hallucinated": Outcome(invalid=1),
        "intent": Outcome(),
    }
    scores = [score_case(c, answers[c.id], 1000 * (i + 1)) for i, c in enumerate(cases)]
    s = summarize("fake", scores)
    assert (s.n_positive, s.exact, s.lenient, s.schema_valid) == (4, 2, 3, 3)
    assert s.exact_rate == pytest.approx(0.5)
    assert (s.n_negative, s.abstained, s.false_calls) == (2, 1, 2)
    assert (s.n_intent_only, s.intent_correct) == (1, 1)
    assert s.invalid_calls == 2
    assert s.median_us == pytest.approx(4.0)
    assert s.p99_us == pytest.approx(7.0)
    assert s.by_tag["parallel"].n_positive == 1
    assert s.by_tag["parallel"].exact == 0
    assert s.by_tag["no_call"].false_calls == 2
    assert s.by_format["openai"].exact == 1
    assert sorted(f.case_id for f in s.failures) == ["hermes-parallel", "native-quotes", "plain"]
    d = s.as_dict()
    assert d["exact_recovery"] == 0.5
    assert d["lenient_recovery"] == 0.75
    assert d["abstention"] == 0.5


def test_percentile() -> None:
    assert percentile([], 0.5) == 0.0
    assert percentile([3, 1, 2], 0.5) == 2
    assert percentile(list(range(1, 101)), 0.99) == 99
