"""Run strategies side by side on the same corpus cases.

Offline strategies run sequentially in-process; each case's repair is timed
alone with :func:`time.perf_counter_ns` (preparation such as building the
tool registry is not timed). LLM strategies run concurrently (``concurrency``
cases at a time), and their time includes the LLM round trips.
"""

from __future__ import annotations

import asyncio
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .corpus import CorpusCase, LoadedCorpus, load_corpus
from .score import CaseScore, Outcome, StrategySummary, score_case, summarize
from .strategies import Strategy

__all__ = [
    "PACKAGED_CORPORA",
    "SOURCE_CORPORA",
    "BenchResult",
    "default_corpora",
    "machine_info",
    "run_bench",
    "run_strategy",
]

Progress = Callable[[str, int], None]
"""Called with the strategy name and the number of cases just finished."""


@dataclass
class BenchResult:
    """Everything a report needs."""

    corpora: list[str]
    n_cases: int
    summaries: list[StrategySummary]
    scores: dict[str, list[CaseScore]] = field(default_factory=dict)
    load_errors: list[tuple[str, int, str]] = field(default_factory=list)
    command: str = ""
    machine: dict[str, str | int | None] = field(default_factory=lambda: machine_info())


def machine_info() -> dict[str, str | int | None]:
    """What the timings depend on: logical CPUs, Python, OS and architecture."""
    return {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "system": platform.system(),
        "machine": platform.machine(),
    }


PACKAGED_CORPORA = Path(__file__).resolve().parent / "corpora"
"""Where an installed wheel keeps the corpora (copied there from ``benchmarks/corpora/``
at build time; see ``[tool.hatch.build.targets.wheel.force-include]``)."""
SOURCE_CORPORA = Path(__file__).resolve().parents[2] / "benchmarks" / "corpora"
"""The one committed copy, in a source checkout or an editable install."""


def default_corpora() -> list[Path]:
    """The bundled corpora (``*.jsonl``): in a source checkout (or an editable install) the
    committed ``benchmarks/corpora/``, so a stray copy inside the package never wins; in an
    installed wheel its package data. The working directory plays no part."""
    for folder in (SOURCE_CORPORA, PACKAGED_CORPORA):
        found = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
        if found:
            return found
    return []


def _how(strategy: Strategy) -> dict[str, bool]:
    """How a strategy's outcomes are scored."""
    return {"uses_llm": strategy.uses_llm, "scores_intent_only": strategy.scores_intent_only}


def _error_outcome(exc: BaseException) -> Outcome:
    return Outcome(error=f"{type(exc).__name__}: {exc}"[:300])


def run_strategy(
    strategy: Strategy, cases: Sequence[CorpusCase], progress: Progress | None = None
) -> list[CaseScore]:
    """Run one offline strategy on every case, sequentially."""
    scores: list[CaseScore] = []
    for case in cases:
        try:
            prepared = strategy.prepare(case)
        except Exception as exc:
            scores.append(score_case(case, _error_outcome(exc), 0, **_how(strategy)))
            continue
        start = time.perf_counter_ns()
        try:
            outcome = strategy.run(prepared)
        except Exception as exc:
            outcome = _error_outcome(exc)
        elapsed = time.perf_counter_ns() - start
        scores.append(score_case(case, outcome, elapsed, **_how(strategy)))
        if progress is not None:
            progress(strategy.name, 1)
    return scores


async def run_strategy_async(
    strategy: Strategy,
    cases: Sequence[CorpusCase],
    concurrency: int = 8,
    progress: Progress | None = None,
) -> list[CaseScore]:
    """Run a (typically LLM) strategy on every case, ``concurrency`` at a time."""
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(case: CorpusCase) -> CaseScore:
        async with semaphore:
            try:
                prepared = strategy.prepare(case)
            except Exception as exc:
                return score_case(case, _error_outcome(exc), 0, **_how(strategy))
            start = time.perf_counter_ns()
            try:
                outcome = await strategy.arun(prepared)
            except Exception as exc:
                outcome = _error_outcome(exc)
            elapsed = time.perf_counter_ns() - start
            if progress is not None:
                progress(strategy.name, 1)
            return score_case(case, outcome, elapsed, **_how(strategy))

    return list(await asyncio.gather(*(one(c) for c in cases)))


def load_all(paths: Sequence[Path | str]) -> tuple[list[CorpusCase], list[tuple[str, int, str]]]:
    """Cases of every corpus, in file order (duplicate ids across files are kept)."""
    cases: list[CorpusCase] = []
    errors: list[tuple[str, int, str]] = []
    for p in paths:
        loaded: LoadedCorpus = load_corpus(p)
        cases.extend(loaded.cases)
        errors.extend((loaded.path, line, why) for line, why in loaded.errors)
    return cases, errors


def _corpus_names(paths: Sequence[Path | str]) -> list[tuple[str, int]]:
    """(corpus file stem, number of cases) per path, for the per-corpus breakdown."""
    return [(Path(p).stem, len(load_corpus(p))) for p in paths]


def run_bench(
    paths: Sequence[Path | str],
    strategies: Sequence[Strategy],
    *,
    concurrency: int = 8,
    progress: Progress | None = None,
    limit: int | None = None,
) -> BenchResult:
    """Load the corpora and run every strategy on the same cases."""
    cases, errors = load_all(paths)
    origin = [name for name, n in _corpus_names(paths) for _ in range(n)]
    if limit is not None:
        cases = cases[:limit]
    summaries: list[StrategySummary] = []
    all_scores: dict[str, list[CaseScore]] = {}
    for strategy in strategies:
        if strategy.uses_llm:
            scores = asyncio.run(run_strategy_async(strategy, cases, concurrency, progress))
        else:
            scores = run_strategy(strategy, cases, progress)
        for score, name in zip(scores, origin, strict=False):
            score.corpus = name
        all_scores[strategy.name] = scores
        summaries.append(summarize(strategy.name, scores, **_how(strategy)))
    return BenchResult(
        corpora=[str(p) for p in paths],
        n_cases=len(cases),
        summaries=summaries,
        scores=all_scores,
        load_errors=errors,
    )
