"""The broken-tool-call corpus line format (see docs/benchmarks.md).

One JSON object per line: the tools, the model's response, and either the
calls the model meant (``expected``) or ``expected_error`` when nothing valid
can be recovered. :class:`CorpusCase` is the pydantic model of one line;
:func:`load_corpus` reads a file and reports the lines it cannot read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .._strenum import StrEnum

__all__ = [
    "CaseKind",
    "CorpusCase",
    "CorpusError",
    "Expected",
    "ExpectedCall",
    "ExpectedError",
    "LoadedCorpus",
    "ResponseLine",
    "dump_line",
    "dump_lines",
    "load_corpus",
    "parse_line",
]


class CaseKind(StrEnum):
    """How a case is scored."""

    POSITIVE = "positive"
    """``expected.tool_calls`` is non-empty: scored on recovery."""
    NEGATIVE = "negative"
    """No call was meant (empty ``expected.tool_calls`` or ``expected_error``): scored on
    abstention."""
    INTENT_ONLY = "intent_only"
    """The text only announces a call: an LLM strategy should recover it, a manual one
    should produce no call."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExpectedCall(_Model):
    """A call the model meant: the name and the arguments as a JSON object."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Expected(_Model):
    """The calls the model meant (order ignored); empty for a plain answer."""

    tool_calls: list[ExpectedCall] = Field(default_factory=list)
    content: str | None = None


class ExpectedError(_Model):
    """Nothing valid can be recovered; ``reason`` says why."""

    reason: str


class ResponseLine(_Model):
    """What the model returned, in the OpenAI chat message shape."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    reasoning_content: str | None = None
    #: The finish reason the server reported, when the source shows it (a log, the
    #: response JSON): a call left open at the end is closed by ``"stop"`` and cut off
    #: by ``"length"`` or no reason at all (promise 9).
    finish_reason: str | None = None

    def as_openai(self) -> dict[str, Any]:
        """The ``{"content", "tool_calls", "reasoning_content"}`` dict."""
        return {
            "content": self.content,
            "tool_calls": self.tool_calls,
            "reasoning_content": self.reasoning_content,
        }


class CorpusCase(_Model):
    """One corpus line."""

    id: str = Field(min_length=1)
    tools: list[dict[str, Any]]
    response: ResponseLine
    expected: Expected | None = None
    expected_error: ExpectedError | None = None
    tags: list[str] = Field(default_factory=list)
    format: str | None = None
    source: str | None = None
    notes: str | None = None

    @model_validator(mode="after")
    def _one_expectation(self) -> CorpusCase:
        if (self.expected is None) == (self.expected_error is None):
            raise ValueError("a case carries exactly one of 'expected' and 'expected_error'")
        if "intent_only" in self.tags and not (self.expected and self.expected.tool_calls):
            raise ValueError("an intent_only case names its call in expected.tool_calls")
        return self

    @property
    def kind(self) -> CaseKind:
        """How this case is scored."""
        if self.expected is None or not self.expected.tool_calls:
            return CaseKind.NEGATIVE
        if "intent_only" in self.tags:
            return CaseKind.INTENT_ONLY
        return CaseKind.POSITIVE

    @property
    def expected_calls(self) -> list[ExpectedCall]:
        return list(self.expected.tool_calls) if self.expected else []

    @property
    def tool_names(self) -> list[str]:
        names: list[str] = []
        for tool in self.tools:
            fn = tool.get("function", tool)
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                names.append(fn["name"])
        return names


class CorpusError(ValueError):
    """A corpus file that cannot be read at all."""


@dataclass
class LoadedCorpus:
    """The cases of one corpus file plus the lines that could not be read."""

    path: str
    cases: list[CorpusCase] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)

    def __iter__(self) -> Iterator[CorpusCase]:
        return iter(self.cases)

    def __len__(self) -> int:
        return len(self.cases)


def parse_line(line: str) -> CorpusCase:
    """One corpus line as a :class:`CorpusCase` (raises ``ValueError`` when malformed)."""
    try:
        return CorpusCase.model_validate_json(line)
    except ValidationError as exc:
        raise ValueError(str(exc)) from exc


def load_corpus(path: str | Path) -> LoadedCorpus:
    """Read a JSONL corpus; unreadable lines are collected in ``errors`` (line number, why)."""
    p = Path(path)
    if not p.is_file():
        raise CorpusError(f"corpus file not found: {p}")
    loaded = LoadedCorpus(path=str(p))
    seen: set[str] = set()
    with p.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                case = parse_line(line)
            except ValueError as exc:
                loaded.errors.append((lineno, str(exc).splitlines()[0][:300]))
                continue
            if case.id in seen:
                loaded.errors.append((lineno, f"duplicate id {case.id!r}"))
                continue
            seen.add(case.id)
            loaded.cases.append(case)
    return loaded


def dump_line(case: dict[str, Any] | CorpusCase) -> str:
    """A case as one JSON line (no trailing newline); ``None`` fields are left out."""
    data = case.model_dump(exclude_none=True) if isinstance(case, CorpusCase) else case
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def dump_lines(cases: Iterable[dict[str, Any] | CorpusCase]) -> str:
    """Cases as JSON Lines text (each line ends with a newline)."""
    return "".join(dump_line(c) + "\n" for c in cases)
