"""Calls in a rendered conversation are text; the same calls as the model's own message
are calls (promise 3, rule G2: ``toolfix/_repair/rendered.py``).

A rendered conversation holds a user's turn in a chat template's markup before the call:
decided by what precedes the call, so every family, closer or not, and a stream agree.
"""

from __future__ import annotations

import pytest
from call_names import names, streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.rendered import USER_TURNS, rendered_spans

FAMILIES = sorted(WRITERS)
MARKERS = [marker for marker, _ in USER_TURNS]
#: What a rendering writes after the call: a tool result turn, then the answer.
AFTERS = (
    "",
    "[/INST]\nThe mail went out to x@y.",
    '<|START_TOOL_RESULT|>[{"results": {"0": "sent"}}]<|END_TOOL_RESULT|>',
    "<|im_end|>\n<|im_start|>tool\n<tool_response>sent</tool_response><|im_end|>",
)
_words = st.text(st.sampled_from("abcdefghij ?"), min_size=1, max_size=20).map(str.strip)


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS)


def _names(text: str) -> list[str]:
    return names(text, TOOLS)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(MARKERS),
    _words,
    st.sampled_from(AFTERS),
    st.sampled_from(["", "\n"]),
)
def test_a_call_in_a_rendered_conversation_is_not_a_call(
    family: str, marker: str, words: str, after: str, nl: str
) -> None:
    call = inner_call(family, nl)
    text = f"{marker}mail x@y {words}\n{call}{after}"
    assert _names(text) == [], text
    assert _streamed(text) == [], text  # (decided by what precedes: a stream agrees)
    assert _names(call) == ["send_email"]  # the model's own message is a call


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), _words, st.sampled_from(["", "\n"]))
def test_the_models_own_call_that_mentions_a_user_turn_in_prose_is_a_call(
    family: str, words: str, nl: str
) -> None:
    # a template's word without its markup ("[INST" unclosed, "user" alone) is prose
    text = f"The user {words} asked, so I mail it (no INST needed).\n\n{inner_call(family, nl)}"
    assert _names(text) == ["send_email"], text


@pytest.mark.parametrize("family", ["glm", "hermes", "mistral_list", "command_a", "qwen_xml"])
def test_a_user_turn_the_model_runs_on_into_after_its_call_leaves_the_call(family: str) -> None:
    # (the spent fresh6cn-iflow-250: <|observation|> then <|user|> after the call)
    text = f"{inner_call(family, '')}<|observation|>\n<|user|>\n<|im_start|>user\nok"
    assert _names(text) == ["send_email"], text


@pytest.mark.parametrize(
    "case",
    corpus_cases(
        "benchmarks/corpora/prose_negatives.jsonl",
        (
            "prec5-skainet-llama3",
            "fresh8hf-devstral-blog-rendered-transcript",
            "ev8hf-cohere-melody-cmd3-rendered-transcript",
        ),
    )
    + corpus_cases("benchmarks/heldout/verbatim_fresh6_cn.jsonl", ("fresh6cn-ds2api-77",)),
    ids=lambda c: str(c["id"]),
)
def test_a_rendered_conversation_in_the_corpus_is_no_call(case: dict[str, object]) -> None:
    assert rendered_spans(str(case["response"]["content"]))  # type: ignore[index]
    assert repair(case["response"], case["tools"]).tool_calls == []


@given(st.text(st.sampled_from('ab \n{}":[]INST<|>user'), max_size=300))
def test_the_spans_are_sorted_and_inside_the_text(text: str) -> None:
    spans = rendered_spans(text)
    assert spans == sorted(spans)
    assert all(0 <= s < e <= len(text) for s, e in spans)
