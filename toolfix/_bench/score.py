"""Scoring: compare what a strategy produced with what the corpus expects.

Metrics (see docs/benchmarks.md):

* exact recovery: over positive cases, the produced calls equal the expected
  ones as a multiset (names equal, arguments equal as JSON values, ``3 != "3"``,
  ``true != 1``), order ignored;
* lenient recovery: the same, but a numeric string equals the number and
  strings compare ignoring case and whitespace;
* schema-valid rate: over positive cases, the strategy produced at least one
  call and every call names a tool of the case and validates against its
  schema (checked here, independently of the strategy);
* abstention / false calls: over negative cases (``expected.tool_calls`` empty
  or ``expected_error``), every call produced is a false call;
* intent-only cases: a strategy without an LLM is correct when it produces no
  call; an LLM strategy when it recovers the call exactly.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from jsonschema import Draft202012Validator

from .._repair.aliases import resolve_format
from .._repair.formats import available_formats
from .corpus import CaseKind, CorpusCase

__all__ = [
    "CaseScore",
    "Outcome",
    "StrategySummary",
    "calls_match",
    "json_equal",
    "lenient_equal",
    "percentile",
    "score_case",
    "summarize",
]

Call = tuple[str, dict[str, Any]]


@dataclass
class Outcome:
    """What a strategy returned for one case."""

    calls: list[Call] = field(default_factory=list)
    invalid: int = 0
    llm_calls: int = 0
    tokens: int = 0
    repairs: list[str] = field(default_factory=list)
    error: str | None = None


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values where types matter (``3 != "3"``, ``True != 1``, ``1 == 1.0``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if a is None or b is None:
        return a is None and b is None
    return type(a) is type(b) and bool(a == b)


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _squash(s: str) -> str:
    return "".join(s.split()).casefold()


def lenient_equal(a: Any, b: Any) -> bool:
    """As :func:`json_equal`, but numeric strings equal numbers and strings ignore case/space."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(lenient_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(lenient_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str):
        return _squash(a) == _squash(b)
    if isinstance(a, str) or isinstance(b, str):
        na, nb = _as_number(a), _as_number(b)
        return na is not None and nb is not None and na == nb
    return json_equal(a, b)


def calls_match(
    produced: Sequence[Call],
    expected: Sequence[Call],
    equal: Callable[[Any, Any], bool] = json_equal,
) -> bool:
    """Whether ``produced`` equals ``expected`` as a multiset of calls."""
    if len(produced) != len(expected):
        return False
    unused = list(expected)
    for name, args in produced:
        for i, (ename, eargs) in enumerate(unused):
            if name == ename and equal(args, eargs):
                del unused[i]
                break
        else:
            return False
    return True


def _schemas(case: CorpusCase) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for tool in case.tools:
        fn = tool.get("function", tool)
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            out[fn["name"]] = fn.get("parameters") or {"type": "object"}
    return out


def schema_valid(case: CorpusCase, calls: Sequence[Call]) -> bool:
    """At least one call, and every call names a tool of the case and validates."""
    if not calls:
        return False
    schemas = _schemas(case)
    for name, args in calls:
        schema = schemas.get(name)
        if schema is None or not isinstance(args, dict):
            return False
        if not Draft202012Validator(schema).is_valid(args):
            return False
    return True


@dataclass
class CaseScore:
    """One strategy's result on one case."""

    case_id: str
    kind: CaseKind
    tags: list[str]
    format: str
    exact: bool | None = None
    lenient: bool | None = None
    schema_valid: bool | None = None
    false_calls: int = 0
    intent_correct: bool | None = None
    invalid_calls: int = 0
    llm_calls: int = 0
    tokens: int = 0
    elapsed_ns: int = 0
    error: str | None = None
    corpus: str = ""


def family_label(label: str | None) -> str:
    """A corpus case's format label as the family ``--format`` names it (a vLLM or SGLang
    parser name such as ``seed_oss`` becomes ``seed_attrs``); other labels stay."""
    if not label:
        return "unknown"
    known = available_formats()
    if label in known or label in _CORPUS_LABELS:
        return label
    return resolve_format(label, known) or label


#: Corpus labels with a meaning of their own: ``openai`` is a native OpenAI
#: ``tool_calls`` response there, not vLLM's ``openai`` parser (harmony).
_CORPUS_LABELS = frozenset({"openai"})


def score_case(
    case: CorpusCase,
    outcome: Outcome,
    elapsed_ns: int,
    *,
    uses_llm: bool = False,
    scores_intent_only: bool = True,
) -> CaseScore:
    """Score one outcome against one case (``intent_correct`` stays ``None`` on an
    intent-only case when the strategy is not scored on those)."""
    kind = case.kind
    s = CaseScore(
        case_id=case.id,
        kind=kind,
        tags=list(case.tags),
        format=family_label(case.format),
        invalid_calls=outcome.invalid,
        llm_calls=outcome.llm_calls,
        tokens=outcome.tokens,
        elapsed_ns=elapsed_ns,
        error=outcome.error,
    )
    expected = [(c.name, c.arguments) for c in case.expected_calls]
    if kind is CaseKind.POSITIVE:
        s.exact = calls_match(outcome.calls, expected)
        s.lenient = s.exact or calls_match(outcome.calls, expected, lenient_equal)
        s.schema_valid = schema_valid(case, outcome.calls)
    elif kind is CaseKind.NEGATIVE:
        s.false_calls = len(outcome.calls)
    elif scores_intent_only:
        s.intent_correct = calls_match(outcome.calls, expected) if uses_llm else not outcome.calls
    return s


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest-rank method; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return float(ordered[rank - 1])


def _rate(hits: int, n: int) -> float | None:
    return hits / n if n else None


@dataclass
class Breakdown:
    """Counts for one tag or one format."""

    n_positive: int = 0
    exact: int = 0
    lenient: int = 0
    n_negative: int = 0
    false_calls: int = 0
    abstained: int = 0
    n_intent_only: int = 0
    intent_correct: int = 0

    def add(self, s: CaseScore) -> None:
        if s.kind == CaseKind.POSITIVE:
            self.n_positive += 1
            self.exact += bool(s.exact)
            self.lenient += bool(s.lenient)
        elif s.kind == CaseKind.NEGATIVE:
            self.n_negative += 1
            self.false_calls += s.false_calls
            self.abstained += s.false_calls == 0
        else:
            self.n_intent_only += 1
            self.intent_correct += bool(s.intent_correct)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["exact_rate"] = _rate(self.exact, self.n_positive)
        d["lenient_rate"] = _rate(self.lenient, self.n_positive)
        d["abstention_rate"] = _rate(self.abstained, self.n_negative)
        return d


@dataclass
class StrategySummary:
    """Aggregate metrics of one strategy over a corpus."""

    strategy: str
    uses_llm: bool
    scores_intent_only: bool
    n_cases: int
    n_positive: int
    exact: int
    lenient: int
    schema_valid: int
    n_negative: int
    abstained: int
    false_calls: int
    n_intent_only: int
    intent_correct: int
    invalid_calls: int
    llm_calls: int
    tokens: int
    errors: int
    median_us: float
    p99_us: float
    by_tag: dict[str, Breakdown]
    by_format: dict[str, Breakdown]
    by_corpus: dict[str, Breakdown]
    failures: list[CaseScore]

    @property
    def exact_rate(self) -> float | None:
        return _rate(self.exact, self.n_positive)

    @property
    def lenient_rate(self) -> float | None:
        return _rate(self.lenient, self.n_positive)

    @property
    def schema_valid_rate(self) -> float | None:
        return _rate(self.schema_valid, self.n_positive)

    @property
    def abstention_rate(self) -> float | None:
        return _rate(self.abstained, self.n_negative)

    def as_dict(self, *, max_failures: int = 50) -> dict[str, Any]:
        """JSON-ready metrics (rates as fractions, times in microseconds)."""
        n = self.n_cases or 1
        return {
            "strategy": self.strategy,
            "uses_llm": self.uses_llm,
            "scores_intent_only": self.scores_intent_only,
            "cases": self.n_cases,
            "positive": self.n_positive,
            "exact_recovery": self.exact_rate,
            "lenient_recovery": self.lenient_rate,
            "schema_valid_rate": self.schema_valid_rate,
            "negative": self.n_negative,
            "abstention": self.abstention_rate,
            "false_calls": self.false_calls,
            "intent_only": self.n_intent_only,
            "intent_only_correct": self.intent_correct if self.scores_intent_only else None,
            "invalid_calls_reported": self.invalid_calls,
            "llm_calls_per_case": self.llm_calls / n,
            "tokens_per_case": self.tokens / n,
            "errors": self.errors,
            "median_us": self.median_us,
            "p99_us": self.p99_us,
            "by_tag": {k: v.as_dict() for k, v in sorted(self.by_tag.items())},
            "by_format": {k: v.as_dict() for k, v in sorted(self.by_format.items())},
            "by_corpus": {k: v.as_dict() for k, v in sorted(self.by_corpus.items())},
            "failures": [
                {"id": f.case_id, "kind": f.kind, "tags": f.tags, "error": f.error}
                for f in self.failures[:max_failures]
            ],
        }


def _failed(s: CaseScore) -> bool:
    if s.kind == CaseKind.POSITIVE:
        return not s.exact
    if s.kind == CaseKind.NEGATIVE:
        return s.false_calls > 0
    return s.intent_correct is False


def summarize(
    strategy: str,
    scores: Iterable[CaseScore],
    *,
    uses_llm: bool = False,
    scores_intent_only: bool = True,
) -> StrategySummary:
    """Aggregate per-case scores."""
    items = list(scores)
    by_tag: dict[str, Breakdown] = defaultdict(Breakdown)
    by_format: dict[str, Breakdown] = defaultdict(Breakdown)
    by_corpus: dict[str, Breakdown] = defaultdict(Breakdown)
    for s in items:
        for tag in s.tags or ["(none)"]:
            by_tag[tag].add(s)
        by_format[s.format].add(s)
        by_corpus[s.corpus or "(corpus)"].add(s)
    pos = [s for s in items if s.kind == CaseKind.POSITIVE]
    neg = [s for s in items if s.kind == CaseKind.NEGATIVE]
    intent = [s for s in items if s.kind == CaseKind.INTENT_ONLY]
    times = [s.elapsed_ns / 1000 for s in items]
    return StrategySummary(
        strategy=strategy,
        uses_llm=uses_llm,
        scores_intent_only=scores_intent_only,
        n_cases=len(items),
        n_positive=len(pos),
        exact=sum(bool(s.exact) for s in pos),
        lenient=sum(bool(s.lenient) for s in pos),
        schema_valid=sum(bool(s.schema_valid) for s in pos),
        n_negative=len(neg),
        abstained=sum(s.false_calls == 0 for s in neg),
        false_calls=sum(s.false_calls for s in neg),
        n_intent_only=len(intent),
        intent_correct=sum(bool(s.intent_correct) for s in intent),
        invalid_calls=sum(s.invalid_calls for s in items),
        llm_calls=sum(s.llm_calls for s in items),
        tokens=sum(s.tokens for s in items),
        errors=sum(s.error is not None for s in items),
        median_us=percentile(times, 0.5),
        p99_us=percentile(times, 0.99),
        by_tag=dict(by_tag),
        by_format=dict(by_format),
        by_corpus=dict(by_corpus),
        failures=[s for s in items if _failed(s)],
    )
