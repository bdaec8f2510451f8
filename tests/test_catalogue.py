"""A catalogue of tools is documentation (issue 28, ``toolfix/_repair/catalogue.py``).

The class: asked what tools it has, a model answers with a list introduced by a sentence
saying it has tools, and writes an example call under each item (qwen2.5:1.5b and
smollm3 in MikeVeerman/tool-calling-benchmark; the introductions of zed#41897, nanbeige
and bitnet). For every family, such a call is text, in ``repair()`` and in a stream;
the same calls under the items of a list the model introduces as what it will do, or
each after a sentence of its own, are calls.
"""

from __future__ import annotations

import json
from pathlib import Path

from call_names import streamed_names
from hostile import TOOLS, WRITERS, inner_call, write
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.catalogue import in_catalogue

FAMILIES = sorted(WRITERS)
NEGATIVES = Path(__file__).resolve().parents[1] / "benchmarks" / "corpora" / "prose_negatives.jsonl"

#: Introductions that say the writer has tools (as the recorded answers write them).
INTROS = (
    "I'm here to help! I currently have the following tools at my disposal:",
    "I can use several tools depending on your specific request:",
    "I have access to the following tools:",
    "The tools I have access to are:",
    "My available tools are:",
    "Here are the functions available to me:",
)
#: Introductions of the model's own calls: a plan, or what it does now.
OWN = (
    "Here is my plan:",
    "I'll use the following tools:",
    "Let me do both now:",
    "Doing the two steps:",
)
#: Item labels, as a catalogue or a plan writes them.
LABELS = ("Mail: Sends an email, like this:", "**note**: Takes a note.", "Step one -", "Email")
BULLETS = ("1.", "-", "*", "2)")


def _item(bullet: str, label: str, call: str, indent: str) -> str:
    return f"{bullet} {label}\n{indent}{call}"


def _text(intro: str, bullet: str, label: str, family: str, nl: str, indent: str) -> str:
    first = _item(bullet, label, inner_call(family, nl), indent)
    second = _item(bullet, label, write(family, "note", "text", "hi", nl), indent)
    return f"{intro}\n\n{first}\n\n{second}\n\nAsk me for any of these."


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS, 9)


@settings(max_examples=200, deadline=None)
@given(
    family=st.sampled_from(FAMILIES),
    nl=st.sampled_from(["", "\n"]),
    intro=st.sampled_from(INTROS),
    bullet=st.sampled_from(BULLETS),
    label=st.sampled_from(LABELS),
    indent=st.sampled_from(["   ", "\t", "  "]),
)
def test_any_family_call_in_a_catalogue_is_text(
    family: str, nl: str, intro: str, bullet: str, label: str, indent: str
) -> None:
    text = _text(intro, bullet, label, family, nl, indent)
    assert repair(text, TOOLS).tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=200, deadline=None)
@given(
    family=st.sampled_from(FAMILIES),
    nl=st.sampled_from(["", "\n"]),
    intro=st.sampled_from(OWN),
    bullet=st.sampled_from(BULLETS),
    label=st.sampled_from(LABELS),
    indent=st.sampled_from(["   ", "\t"]),
)
def test_the_same_calls_under_the_models_own_list_are_calls(
    family: str, nl: str, intro: str, bullet: str, label: str, indent: str
) -> None:
    text = _text(intro, bullet, label, family, nl, indent)
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email", "note"], text
    assert _streamed(text) == ["send_email", "note"]


@settings(max_examples=120, deadline=None)
@given(
    family=st.sampled_from(FAMILIES), nl=st.sampled_from(["", "\n"]), intro=st.sampled_from(INTROS)
)
def test_calls_after_sentences_of_the_models_own_are_calls(
    family: str, nl: str, intro: str
) -> None:
    """A catalogue's introduction, then calls that are no list items: the model's own."""
    text = (
        f"{intro} mail and notes.\n\nFirst I'll send the mail:\n{inner_call(family, nl)}\n\n"
        f"Then I'll take a note:\n{write(family, 'note', 'text', 'hi', nl)}"
    )
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email", "note"], text


def test_the_recorded_catalogue_is_no_call() -> None:
    lines = NEGATIVES.read_text(encoding="utf-8").splitlines()
    (case,) = [
        c
        for c in map(json.loads, lines)
        if c["id"] == "fresh7rec-mvbench-qwen25-1b5-tool-list-with-json-examples"
    ]
    assert repair(case["response"], case["tools"]).tool_calls == []


def test_an_item_ends_at_a_paragraph_of_its_own() -> None:
    text = "I have access to the following tools:\n\n1. Mail\n\nSending it now:\n{}"
    assert not in_catalogue(text, len(text) - 2)
    listed = "I have access to the following tools:\n\n1. Mail\n   {}"
    assert in_catalogue(listed, listed.index("{"))
