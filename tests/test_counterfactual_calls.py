"""A call held up against what happened is text, not a call (issue 28, precision).

"Instead of returning {…}, the model writes…" (aitoolsguidebook.com), "I could click it
with {…} but that's destructive, so I will not." (webbrain-one/webbrain#2682), "it
should have output {…}", "The correct call would be: {…}": the call is one that was not
made, or one that should have been. ``toolfix/_repair/narration.py`` (class
*counterfactual*) reads the lead-in's tail; the first person does not make such a call
the model's own. The same calls after a lead-in that makes them are still calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from call_names import streamed_names
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair

NEGATIVES = Path(__file__).resolve().parents[1] / "benchmarks" / "corpora" / "prose_negatives.jsonl"
FAMILIES = sorted(WRITERS)

#: Lead-ins that end by naming a call not made, or one that should have been.
COUNTERFACTUAL = (
    "Instead of returning",
    "instead of emitting",
    "Rather than calling",
    "rather than simply outputting",
    "It should have output",
    "the model should have returned",
    "I could have called",
    "it was supposed to emit",
    "The correct call would be",
    "The expected tool call should be",
    "Expected output",
    "the right tool call would have been",
)
#: Lead-ins of the model's own that make the call (the positive control).
MADE = (
    "Here is the call:\n",
    "I'll call it instead of guessing:\n",
    "The correct call is made below.\n\n",
    "Rather than wait, I'll send it now:\n",
)


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(COUNTERFACTUAL),
    st.sampled_from([" ", ": ", ":\n", " something like "]),
    st.sampled_from(["It works like this. ", "", "Bug report.\n\n"]),
)
def test_a_call_not_made_or_owed_is_text(
    family: str, nl: str, lead: str, gap: str, before: str
) -> None:
    text = f"{before}{lead}{gap}{inner_call(family, nl)}, the model wrote prose."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["", "\n"]), st.sampled_from(MADE))
def test_the_same_call_made_is_a_call(family: str, nl: str, lead: str) -> None:
    text = lead + inner_call(family, nl)
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
    assert _streamed(text) == ["send_email"]


@pytest.mark.parametrize(
    "case_id",
    [
        "fresh3web-aitoolsguidebook-format-ignored-narration",
    ],
)
def test_the_sources_counterfactuals_stay_text(case_id: str) -> None:
    heldout = Path(__file__).resolve().parents[1] / "benchmarks" / "heldout"
    lines = (heldout / "verbatim_fresh3_web.jsonl").read_text(encoding="utf-8").splitlines()
    (case,) = [c for c in map(json.loads, lines) if c["id"] == case_id]
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []
    assert fixed.text == case["response"]["content"]


def _prose5() -> list[dict[str, object]]:
    lines = NEGATIVES.read_text(encoding="utf-8").splitlines()
    return [c for c in map(json.loads, lines) if str(c["id"]).startswith("prose5-")]


@pytest.mark.parametrize("case", _prose5(), ids=lambda c: str(c["id"]))
def test_the_fifth_harvest_tells_and_makes_no_call(case: dict[str, object]) -> None:
    """PR and issue texts narrating what a named model emits, reports quoting an output,
    calls after ``Example:``, echoed records: no call, the text as written."""
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []
    assert fixed.text == case["response"]["content"]  # type: ignore[index]
