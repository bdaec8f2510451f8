"""``kind`` fields are typed: a FailureKind for every failure class, strings accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolfix import FailureKind, InvalidToolCallPart, RepairRecord, Response, repair
from toolfix._bench.corpus import load_corpus

CORPORA = Path(__file__).resolve().parents[1] / "benchmarks" / "corpora"


@pytest.mark.parametrize("kind", list(FailureKind))
def test_a_string_naming_a_failure_class_becomes_the_member(kind: FailureKind) -> None:
    record = RepairRecord(kind=kind.value, detail="d")
    assert record.kind is kind
    part = InvalidToolCallPart(raw="x", error="e", kind=kind.value)
    assert part.kind is kind


def test_a_custom_kind_stays_a_plain_string() -> None:
    record = RepairRecord(kind="blocked", detail="d")
    assert record.kind == "blocked"
    assert type(record.kind) is str


def test_the_default_kind_of_an_invalid_call_is_a_member() -> None:
    assert InvalidToolCallPart(raw="x", error="e").kind is FailureKind.INVALID_JSON


def test_strings_compare_and_serialise_as_before() -> None:
    record = RepairRecord(kind=FailureKind.TRUNCATED, detail="cut")
    assert record.kind == "truncated"
    assert record.as_dict() == {"kind": "truncated", "detail": "cut"}
    assert type(record.as_dict()["kind"]) is str
    response = Response(repairs=(record,), parts=(InvalidToolCallPart(raw="x", error="e"),))
    dumped = json.loads(response.model_dump_json())
    assert dumped["repairs"][0]["kind"] == "truncated"
    assert dumped["parts"][0]["kind"] == "invalid_json"
    again = Response.model_validate_json(response.model_dump_json())
    assert again == response
    assert again.repairs[0].kind is FailureKind.TRUNCATED


def test_a_kind_must_be_a_string() -> None:
    with pytest.raises(ValueError, match="kind"):
        RepairRecord(kind=3, detail="d")


def test_every_kind_the_manual_fixer_records_is_a_member() -> None:
    """Over the bundled corpora, no repair record or invalid call carries a bare string."""
    kinds: list[object] = []
    for path in (CORPORA / "curated.jsonl", CORPORA / "verbatim_public.jsonl"):
        for case in load_corpus(path):
            out = repair(case.response.as_openai(), case.tools)
            kinds += [r.kind for r in out.all_repairs]
            kinds += [p.kind for p in out.invalid_tool_calls]
    assert len(set(kinds)) >= 10
    assert all(isinstance(k, FailureKind) for k in kinds), {
        k for k in kinds if not isinstance(k, FailureKind)
    }


def test_a_tool_error_type_is_one_of_the_documented_ones() -> None:
    from typing import get_args

    from toolfix._loop.tools import ToolErrorType
    from toolfix.loop import ToolRun

    assert set(get_args(ToolErrorType)) == {
        "invalid_call",
        "unknown_tool",
        "invalid_arguments",
        "no_handler",
        "timeout",
        "exception",
        "stopped",
    }
    ok = ToolRun(call_id="c", name="f", content="x", is_error=True, error_type="timeout")
    assert ok.error_type == "timeout"
    with pytest.raises(ValueError, match="error_type"):
        ToolRun(call_id="c", name="f", content="x", error_type="oops")
