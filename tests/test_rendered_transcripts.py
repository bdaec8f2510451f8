"""Calls in a rendered conversation, and calls answered by a restated result record, are
text; the same calls as the model's own message are calls (promise 3, rule G2:
``toolfix/_repair/rendered.py``, ``toolfix/_repair/restated.py``).

A rendered conversation holds a user's turn in a chat template's markup before the call:
decided by what precedes the call, so every family, closer or not, and a stream agree. A
call answered by a result record whose values the text after it restates is decided by
what follows it: only calls that wait for the end of a stream (no family closer).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import accumulate, repair, repair_stream
from toolfix._repair.rendered import USER_TURNS, rendered_spans
from toolfix._repair.restated import restated_spans

ROOT = Path(__file__).resolve().parents[1]
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
_value = st.text(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -"), min_size=5, max_size=20)


def _streamed(text: str) -> list[str]:
    chunks = [
        {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": text[i : i + 7]}}]}
        for i in range(0, len(text), 7)
    ]
    return [c.name for c in accumulate(list(repair_stream(chunks, TOOLS))).tool_calls]


def _names(text: str) -> list[str]:
    return [c.name for c in repair(text, TOOLS).tool_calls]


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


def _record(values: list[str]) -> str:
    return json.dumps({f"k{i}": v for i, v in enumerate(values)}, indent=1)


@settings(max_examples=150, deadline=None)
@given(st.lists(_value, min_size=1, max_size=3), _words)
def test_a_call_answered_by_a_record_it_restates_is_not_a_call(
    values: list[str], words: str
) -> None:
    call = '{\n"name": "send_email",\n"arguments": {"to": "x@y"}\n}'
    text = f"1\nWe ask for it.\n{call}\n2\nWe get back.\n{_record(values)}\n3\n"
    text += f"The answer {words}: {values[-1]}."
    assert _names(text) == [], text
    assert _streamed(text) == [], text


@settings(max_examples=150, deadline=None)
@given(st.lists(_value, min_size=1, max_size=3), _words)
def test_a_call_with_a_made_up_record_and_no_answer_is_a_call(
    values: list[str], words: str
) -> None:
    # (NextChat#6373: the model's call then a result it made up, nothing after)
    call = '{"name": "send_email", "arguments": {"to": "x@y"}}'
    text = f"I'll send it {words}.\n{call}\n\n{_record(values)}"
    assert _names(text) == ["send_email"], text
    # an answer that restates nothing of the record leaves it a call too
    assert _names(f"{text}\nDone, {words}.") == ["send_email"]


def test_a_second_call_after_the_first_is_no_record() -> None:
    # a record names no tool: a later call restated is not a result of the first
    first = '{"name": "send_email", "arguments": {"to": "x@y"}}'
    second = '{"name": "send_email", "arguments": {"to": "Paris Office"}}'
    text = f"{first}\n{second}\nI mailed x@y and Paris Office."
    assert restated_spans(text) == []


#: The harvest's sources (branch h8hf, prose_negatives.jsonl), verbatim: the Devstral
#: blog's rendered exchange, Cohere melody's Command A rendering, Agentic Academy's flow.
SOURCES = {
    "devstral-blog": (
        ["get_weather"],
        "[INST]What's the weather like in Paris?[/INST]I'll help you check the weather in "
        'Paris. Let me get that information for you.\n[TOOL_CALLS][{"name": "get_weather", '
        '"arguments": {"location": "Paris"}}][/INST]\nBased on the weather information for '
        "Paris:\n- **Temperature**: 18\u00b0C\n- **Condition**: Partly cloudy\n- **Humidity**: "
        "65%\n- **Wind**: 12 km/h from the west\nThe weather in Paris is quite pleasant today "
        "with partly cloudy skies and mild temperatures.[/INST]",
    ),
    "cohere-melody": (
        ["calculator"],
        "<BOS_TOKEN><|START_OF_TURN_TOKEN|><|USER_TOKEN|>What is 2 + 2?<|END_OF_TURN_TOKEN|>"
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>I will use the Calculator "
        'tool to calculate 2 + 2.<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": '
        '"0", "tool_name": "calculator", "parameters": {"expression": "2 + 2"}}\n]'
        "<|END_ACTION|><|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>"
        '<|START_TOOL_RESULT|>[\n    {\n        "tool_call_id": "0",\n        "results": {\n'
        '            "0": {"type": "text", "text": "some_text", "some_key": "some_value", '
        '"another_key": "another_value"}\n        },\n        "is_error": null\n    }\n]'
        "<|END_TOOL_RESULT|><|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    ),
    "agentic-academy": (
        ["get_order_status"],
        '1\nThe user asks a concrete question that requires real data.\n"Where is my order '
        '#ORD-4829? When will it arrive?"\n2\nThe model recognizes it needs external data and '
        'emits a structured tool-use request instead of generating text.\n{\n"tool": '
        '"get_order_status",\n"input": {\n"order_id": "ORD-4829"\n}\n}\n3\nThe host '
        "application intercepts the request, validates parameters, enforces auth, applies "
        "rate limits, and executes the call.\n\u2713 Schema valid \u2713 Auth OK \u2713 Rate "
        "limit OK \u2192 Execute\n4\nThe fulfillment system returns real-time order data.\n{\n"
        '"status": "in_transit",\n"carrier": "FedEx",\n"tracking": "7749 2810 3344",\n"eta": '
        '"2026-02-16"\n}\n5\nThe model incorporates the real data into a natural, helpful '
        'response.\n"Your order #ORD-4829 is in transit via FedEx\n(tracking: 7749 2810 3344). '
        'Expected delivery:\nFebruary 16, 2026."',
    ),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_transcripts_of_the_sources_are_text(source: str) -> None:
    names, text = SOURCES[source]
    tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in names]
    assert repair(text, tools).tool_calls == []


def _corpus(path: str, ids: tuple[str, ...]) -> list[dict[str, object]]:
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    return [c for c in map(json.loads, lines) if str(c["id"]).startswith(ids)]


@pytest.mark.parametrize(
    "case",
    _corpus("benchmarks/corpora/prose_negatives.jsonl", ("prec5-skainet-llama3",))
    + _corpus("benchmarks/heldout/verbatim_fresh6_cn.jsonl", ("fresh6cn-ds2api-77",)),
    ids=lambda c: str(c["id"]),
)
def test_a_rendered_conversation_in_the_corpus_is_no_call(case: dict[str, object]) -> None:
    assert rendered_spans(str(case["response"]["content"]))  # type: ignore[index]
    assert repair(case["response"], case["tools"]).tool_calls == []


@given(st.text(st.sampled_from('ab \n{}":[]INST<|>user'), max_size=300))
def test_the_spans_are_sorted_and_inside_the_text(text: str) -> None:
    for spans in (rendered_spans(text), restated_spans(text)):
        assert spans == sorted(spans)
        assert all(0 <= s < e <= len(text) for s, e in spans)


def test_the_record_work_is_bounded() -> None:
    # at most a fixed number of line-opening objects are read, however many there are
    text = '{"name": "a", "arguments": {}}\n{"k": "VALUE1"}\n' * 10_000 + "VALUE1"
    assert len(restated_spans(text)) <= 32
