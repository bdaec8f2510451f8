"""Documentation of the tool-call format, echoed back, is not a call (issue 28's negatives).

Cline's and Roo Code's prompts explain their tool format with placeholders
(``<tool_name>``, ``<actual_tool_name>``, ``<parameter1_name>``), Qwen's template with
``<function-name>`` and ``<args-json-object>``; a model (or a user's rules file) that
echoes them then shows examples named after real tools. From the first placeholder on,
the text shows the format: no element there is a call, for the family readers and the
schema-anchored reader alike. A call before the documentation is still a call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile import QUOTED_FAMILIES, TOOLS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import accumulate, repair, repair_stream

CORPORA = Path(__file__).resolve().parents[1] / "benchmarks"


def _case(path: str, case_id: str) -> dict[str, object]:
    for line in (CORPORA / path).read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            return dict(case)
    raise LookupError(case_id)


@pytest.mark.parametrize(
    ("path", "case_id"),
    [
        ("corpora/prose_negatives.jsonl", "fresh2-cline-13008-clinerules-format-doc"),
        ("heldout/verbatim_anchored_fresh2.jsonl", "fresh2-roo-4900-reminder-example"),
    ],
)
def test_echoed_format_documentation_is_text(path: str, case_id: str) -> None:
    case = _case(path, case_id)
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == case["response"]["content"]  # type: ignore[index]


DOC = (
    "Tool uses are formatted like this:\n<tool_name>\n<parameter1_name>value1"
    "</parameter1_name>\n</tool_name>\n\nFor example:\n"
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(QUOTED_FAMILIES), st.sampled_from(["", "\n"]), st.booleans())
def test_a_call_after_the_documentation_is_an_example_one_before_it_a_call(
    family: str, nl: str, before: bool
) -> None:
    call = inner_call(family, nl)
    text = f"{call}\n\n{DOC}{call}" if before else DOC + call
    fixed = repair(text, TOOLS)
    assert [c.name for c in fixed.tool_calls] == (["send_email"] if before else [])
    assert fixed.invalid_tool_calls == []
    chunks = [
        {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": text[i : i + 7]}}]}
        for i in range(0, len(text), 7)
    ]
    streamed = accumulate(list(repair_stream(chunks, TOOLS)))
    assert [c.name for c in streamed.tool_calls] == [c.name for c in fixed.tool_calls]
    assert streamed.text == fixed.text
