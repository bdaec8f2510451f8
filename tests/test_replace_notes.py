"""Replace notes (issue 28, branch fix10c; promise 3, precision).

A call whose string value the text right after the call asks the user to replace with
their own (``Replace "CityName" with the actual name of the city``) is the model's
template, not its call: no valid call, an invalid call with the raw text
(``toolfix/_repair/replacenote.py``, hooked where the scanner reads each candidate).

Counter-properties: the same call with a note naming a different string, with no note,
or with the note before the call, is read back exactly; a note that offers another
value (``You can replace London with any other city``) leaves the call as written.
"""

from __future__ import annotations

import pytest
from conftest import openai_tool
from corpus_texts import corpus_cases
from hostile import WRITERS, write
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolfix import FixConfig, accumulate, repair, repair_stream
from toolfix._repair.replacenote import REPLACED, replaced_key

FAMILIES = sorted(WRITERS)
CITY_TOOLS = [openai_tool("get_weather", {"city": {"type": "string"}}, ["city"])]

#: How the notes of the recorded cases (and close spellings) ask for the replacement.
NOTES = (
    'Replace "{}" with the actual name of the city.',
    "Please replace '{}' with your actual city's name to get accurate information.",
    "Replace `{}` with the actual city name you're interested in.",
    ' Note: Replace "{}" with your actual city.',
    "Substitute {} with the correct city before running it.",
    "You will need to change {} with your own city.",
    "请将 {} 替换为实际的城市名称。",
)
#: Notes that offer another value or say something else of it: the call stays.
OTHER_NOTES = (
    "You can replace {} with any other city.",
    "The weather in {} for your trip looks fine.",
    "I used {} as you asked.",
)

_values = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{2,20}", fullmatch=True)
#: Values shaped like a stand-in (replacenote.may_stand_in): one word that says "your"
#: or holds the parameter's name (``your_location``, ``CityName``).
_stand_ins = st.builds(
    lambda head, word, tail: head + word + tail,
    st.sampled_from(["", "your_", "Your", "YOUR_", "my"]),
    st.sampled_from(["city", "City", "CITY", "your_city", "yourTown"]),
    st.from_regex(r"[A-Za-z0-9_]{0,8}", fullmatch=True),
)


def _calls(text: str) -> list[dict[str, object]]:
    return [c.arguments or {} for c in repair(text, CITY_TOOLS).tool_calls]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(FAMILIES), _stand_ins, st.sampled_from(NOTES), st.sampled_from(["\n\n", " "])
)
def test_a_value_the_note_after_asks_to_replace_is_no_call(
    family: str, value: str, note: str, gap: str
) -> None:
    text = write(family, "get_weather", "city", value, "") + gap + note.format(value)
    result = repair(text, CITY_TOOLS)
    assert result.tool_calls == [], text
    # never dropped: an invalid call with the raw text, or the text itself
    invalid = result.invalid_tool_calls
    assert invalid or value in (result.text or ""), text
    assert all(REPLACED in c.error for c in invalid if c.error.startswith("a value is a stand")), (
        text
    )


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    _values,
    _values,
    st.sampled_from(NOTES),
    st.sampled_from(["other", "none", "before"]),
)
def test_a_note_on_another_string_or_before_the_call_leaves_the_call(
    family: str, value: str, other: str, note: str, where: str
) -> None:
    assume(value.casefold() not in other.casefold())
    call = write(family, "get_weather", "city", value, "")
    if where == "other":
        text = f"{call}\n\n{note.format(other)}"
    elif where == "none":
        text = f"{call}\n\nThis gets the weather."
    else:
        text = f"{note.format(value)}\n\n{call}"
    assert _calls(text) == [{"city": value}], text


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(OTHER_NOTES))
def test_a_note_offering_another_value_leaves_the_call(family: str, note: str) -> None:
    text = write(family, "get_weather", "city", "London", "") + "\n\n" + note.format("London")
    assert _calls(text) == [{"city": "London"}], text


@given(st.text(max_size=200), st.integers(0, 200), st.text(max_size=30))
def test_the_rule_is_total_and_needs_the_value_in_the_note(text: str, end: int, value: str) -> None:
    key = replaced_key(text, end, {"city": value})
    if key is not None:
        assert value.strip()
        assert value.strip() in text[end:]


_PHI4_CASE = "fresh9rec2-mvtcb-phi4-mini-3-8b-r3p6-call-with-placeholder"


@pytest.mark.parametrize(
    "case",
    corpus_cases("benchmarks/corpora/prose_negatives.jsonl", "fresh9rec2-mvtcb-smollm3-3b-r2p6")
    + corpus_cases("benchmarks/corpora/verbatim_anchored.jsonl", "ev10rec2-bfclresult-2024-deep")
    + corpus_cases("benchmarks/corpora/verbatim_anchored.jsonl", "ev10rec2-bfclresult-2024-herm")
    + corpus_cases(
        "benchmarks/heldout/verbatim_fresh9_rec2.jsonl", "fresh9rec2-mvtcb-phi4-mini-3-8b-r3p6"
    ),
    ids=lambda c: str(c["id"]),
)
def test_the_recorded_replace_notes_are_no_calls(case: dict[str, object]) -> None:
    response = case["response"]
    assert isinstance(response, dict)
    result = repair(str(response["content"]), case["tools"])  # type: ignore[arg-type]
    assert result.tool_calls == []
    assert any(REPLACED in c.error for c in result.invalid_tool_calls)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["Paris", "London", "Tokyo", "A00"]))
def test_a_value_not_shaped_like_a_stand_in_is_kept(family: str, value: str) -> None:
    # the rule reads only stand-in-shaped values, the ones a stream holds to its end
    text = write(family, "get_weather", "city", value, "") + "\n\n" + NOTES[0].format(value)
    assert _calls(text) == [{"city": value}], text


def _chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "r", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    _stand_ins,
    st.sampled_from(NOTES),
    st.integers(1, 12),
    st.sampled_from([True, False, None]),
)
def test_a_stream_never_sends_a_call_the_note_takes_back(
    family: str, value: str, note: str, size: int, prefilled: bool | None
) -> None:
    # promise 12: a call whose value may be a stand-in is held to the stream's end, so
    # the note after it cannot take back a call already sent (even after a think block,
    # where calls are otherwise released at their closer)
    text = "<think>\n</think>\n" + write(family, "get_weather", "city", value, "")
    text += "\n\n" + note.format(value)
    config = FixConfig(reasoning_prefilled=prefilled)
    pieces = [_chunk({"content": text[i : i + size]}) for i in range(0, len(text), size)]
    chunks = [_chunk({"role": "assistant", "content": ""}), *pieces, _chunk({}, "stop")]
    sent = []
    for out in repair_stream(chunks, CITY_TOOLS, config=config):
        choices = out.get("choices") or [{}]
        delta = choices[0].get("delta") or {}
        finish = choices[0].get("finish_reason")
        if delta.get("tool_calls") and finish is None:
            sent.extend(delta["tool_calls"])
    whole = repair(text, CITY_TOOLS, config=config)
    streamed = accumulate(repair_stream(chunks, CITY_TOOLS, config=config))
    assert [c.arguments for c in streamed.tool_calls] == [c.arguments for c in whole.tool_calls]
    assert not any(
        (c.get("function") or {}).get("arguments") for c in sent if whole.tool_calls == []
    ), text
