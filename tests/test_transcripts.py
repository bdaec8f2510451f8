"""A call displayed in a session transcript is text; the same call as the model's own
message is a call (``toolfix/_repair/transcripts.py``, promise 3, rule G2).

An agent's session pasted as the message shows calls the client already ran: answered
by a result label right after the call's block (``Observation:``, ``Result:``, ``⎿``),
or between a user's turn (``you>``, ``User:``, a ``$``/``>`` prompt opening the text)
and the agent's prose. Both are decided by what follows the call, so they hold for the
calls that wait for the end of a stream (no family closer in them); a call that holds a
family's closer may leave a stream at it, and batch and stream then agree it is a call.
"""

from __future__ import annotations

import pytest
from call_names import names, streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.textscan import _CLOSER
from toolfix._repair.transcripts import result_spans, turn_spans

FAMILIES = sorted(WRITERS)
#: The families whose calls wait for the end of a stream (no family closer in them).
OPEN_FAMILIES = [f for f in FAMILIES if _CLOSER.search(inner_call(f, "")) is None]
CLOSED_FAMILIES = [f for f in FAMILIES if f not in OPEN_FAMILIES]

USER_TURNS = ("you> mail x@y please", "User: mail x@y please", "Human: mail x@y", "**User:** x@y")
FIRST_PROMPTS = ("$ agent", "> mail x@y and tell me", "\u276f mail x@y")
RESULTS = ("Result: sent", "Observation: sent", 'Tool result: {"ok": true}', "\u23bf  sent")
PROSE = ("Done! The mail went out to x@y.", "I sent the mail to x@y as you asked.")
_words = st.text(st.sampled_from("abcdefghij "), min_size=1, max_size=20).map(str.strip)


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS)


def _names(text: str) -> list[str]:
    return names(text, TOOLS)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(USER_TURNS + FIRST_PROMPTS),
    st.sampled_from(PROSE),
    st.booleans(),
)
def test_a_call_inside_a_transcript_is_not_a_call(
    family: str, nl: str, turn: str, prose: str, answered: bool
) -> None:
    call = inner_call(family, nl)
    result = "\nResult: sent" if answered else ""
    text = f"{turn}\n\n{call}{result}\n\n{prose}"
    expected = [] if family in OPEN_FAMILIES else ["send_email"]
    assert _names(text) == expected, text
    assert _streamed(text) == expected, text  # (a stream and the batch agree)
    assert _names(call) == ["send_email"]  # the model's own whole message is a call


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(OPEN_FAMILIES), st.sampled_from(RESULTS), st.sampled_from(["", "\n"]))
def test_a_call_answered_by_its_result_is_not_a_call(family: str, result: str, gap: str) -> None:
    call = inner_call(family, "")
    text = f"{call}\n{gap}{result}"
    assert _names(text) == [], text
    assert _streamed(text) == []


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["", "\n"]), _words, st.sampled_from(PROSE))
def test_the_models_own_call_with_prose_around_it_is_a_call(
    family: str, nl: str, words: str, prose: str
) -> None:
    # no user turn before it, no result after it: prose of the model's own
    text = f"I'll mail it now {words}.\n\n{inner_call(family, nl)}\n\n{prose}"
    assert _names(text) == ["send_email"], text


@pytest.mark.parametrize(
    "text",
    [
        "Tool call: send_email({'to': 'x@y'})",
        '[tool: send_email] {"to": "x@y"}',
        '[Calling tool: send_email] {"to": "x@y"}',
        'Thought: mail it.\nAction: send_email\nAction Input: {"to": "x@y"}',
        # a result label before the call answers an earlier block, not this call
        'Result: the last mail bounced.\n\n{"name": "send_email", "arguments": {"to": "x@y"}}',
        # a user turn with nothing of the agent's after the call
        'User: mail x@y\n{"name": "send_email", "arguments": {"to": "x@y"}}',
    ],
)
def test_a_display_format_that_is_the_models_own_call_stays_a_call(text: str) -> None:
    assert _names(text) == ["send_email"], text


@pytest.mark.parametrize(
    "text",
    [
        "> mail x@y\n\nTool call: send_email({'to': 'x@y'})\n  {\"ok\": 1}\n\nThe mail went out.",
        'you> mail x@y\n\n  [tool: send_email] {"to": "x@y"}\n\nDone! The mail is sent.',
        '\u25cf send_email(to: "x@y")\n  \u23bf  (No content)',
        "Tool call: send_email({'to': 'x@y'})\nResult: sent",
    ],
)
def test_the_transcripts_of_the_sources_are_text(text: str) -> None:
    assert _names(text) == []


@pytest.mark.parametrize(
    "case",
    corpus_cases("benchmarks/corpora/prose_negatives.jsonl", "prec6-")
    + corpus_cases("benchmarks/heldout/verbatim_fresh5_fw.jsonl", "fresh5fw-simonwllm-1095")
    + corpus_cases("benchmarks/heldout/verbatim_fresh5_mod.jsonl", "fresh5mod-whet-docs-demo"),
    ids=lambda c: str(c["id"]),
)
def test_a_transcript_in_the_corpus_is_no_call(case: dict[str, object]) -> None:
    assert repair(case["response"], case["tools"]).tool_calls == []


@given(st.text(st.sampled_from("ab \n:>$ResultObservationUser\u23bf"), max_size=300))
def test_the_spans_are_sorted_and_inside_the_text(text: str) -> None:
    for spans in (result_spans(text), turn_spans(text)):
        assert spans == sorted(spans)
        assert all(0 <= s < e <= len(text) for s, e in spans)


def test_the_span_work_is_bounded_per_label() -> None:
    # each label reads at most a block of lines above it, down to the previous label
    text = "x\n" * 50_000 + "Result: y\n" * 50_000
    spans = result_spans(text)
    assert len(spans) == 1
    assert spans[0][1] - spans[0][0] <= 2 * 24
