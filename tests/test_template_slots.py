"""Template slots and conditional lead-ins (issue 28, branch fix8b; promise 3, rules G2/G5).

- a value that is a template slot, a wrapped phrase naming its parameter or a placeholder
  (``"<specific_city>"``, ``"**insert_any_reason_here**"``, ``"[MEETING_TIME]"``) or a
  bare ``your_city_here``, is no value: the call is invalid with its raw text
  (``toolfix/_repair/slots.py``, through ``elision.elided_value``);
- a call under a conditional lead-in ("if this query requires a tool call, here's how
  you can proceed:", "Here is a call to a hypothetical tool if you needed real-time
  data:") is shown, not made (``leadins.CONDITIONAL_RE``).

Each with its counter-property: any other value is read back exactly, and the same call
after a lead-in with a condition on the world ("if the file exists") is a call.
"""

from __future__ import annotations

import json

import pytest
from call_names import names, streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call, write
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.elision import names_own_slot
from toolfix._repair.slots import template_slot

FAMILIES = sorted(WRITERS)
CITY_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]

_wraps = st.sampled_from(["<{}>", "[{}]", "{{{{{}}}}}", "**{}**", "${{{}}}", "{{{}}}"])
_joins = st.sampled_from(["_", " ", "-"])
_cases = st.sampled_from([str.lower, str.upper, str.title])
_placeholder_words = st.sampled_from(["your", "insert", "specific", "placeholder", "replace"])
_other_words = st.lists(
    st.sampled_from(["name", "here", "any", "the", "value", "desired"]), max_size=4
)


@st.composite
def slots(draw: st.DrawFn) -> str:
    """A wrapped phrase of two words or more naming ``city`` or a placeholder word."""
    head = draw(st.one_of(_placeholder_words, st.just("city")))
    words = [head, *draw(_other_words)]
    if head == "city" or draw(st.booleans()):
        words.append("city")
    if len(words) < 2:
        words.append("name")
    words = draw(st.permutations(words))
    phrase = draw(_cases)(draw(_joins).join(words))
    return str(draw(_wraps).format(phrase))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FAMILIES), slots())
def test_a_template_slot_is_no_value(family: str, slot: str) -> None:
    text = write(family, "get_weather", "city", slot, "")
    result = repair(text, CITY_TOOLS)
    assert result.tool_calls == [], text
    # never dropped: an invalid call with the raw text, or the text itself
    assert result.invalid_tool_calls or slot in (result.text or ""), text


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["next Thursday at", "in", "near", "Dear"]),
    st.sampled_from(["[{}]", "<{}>", "{{{{{}}}}}", "${{{}}}"]),
    st.sampled_from(["specific time", "Your Name", "insert date", "placeholder city"]),
)
def test_a_placeholder_phrase_inside_a_short_value_is_no_value(
    family: str, before: str, wrap: str, phrase: str
) -> None:
    value = f"{before} {wrap.format(phrase)}"
    text = write(family, "get_weather", "city", value, "")
    result = repair(text, CITY_TOOLS)
    assert result.tool_calls == [], text
    assert result.invalid_tool_calls or value in (result.text or ""), text


@pytest.mark.parametrize(
    "value", ["your_city_here", "YOUR_CITY_HERE", "insert-city-here", "city_placeholder_value"]
)
def test_a_bare_slot_phrase_is_no_value(value: str) -> None:
    text = f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "{value}"}}}}</tool_call>'
    result = repair(text, CITY_TOOLS)
    assert result.tool_calls == [], text
    assert result.invalid_tool_calls, text


# values that look slot-ish and are data: one word, markup, a generic, a glob, a bare
# name a user may give (BFCL simple_python_106's dataset ``your_dataset_name``), a phrase
# that names neither the parameter nor a placeholder
DATA = [
    "<Enter>",
    "<div>",
    "<T>",
    "<br>",
    "[q]uarterly report",
    "**Paris**",
    "**New York**",
    "[Bruges]",
    "<html>...</html>",
    "your_dataset_name",
    "your_city",
    "YOUR_API_KEY",
    "<reply text>",
    "[Draft notes]",
    "{not json",
    "here_and_there_now",
    "check **your order** now",
    "See [your account](https://example.com)",
    "a {your thing} b",
    "Dear [Recipient], hi",
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(DATA))
def test_a_slot_looking_value_that_is_data_is_read_back_exactly(family: str, value: str) -> None:
    text = write(family, "get_weather", "city", value, "")
    if value in ("<div>", "<T>", "<br>", "<Enter>", "<html>...</html>", "<reply text>") and (
        "<" in WRITERS[family]("n", "k", "", "", True)
    ):
        return  # (markup inside markup: what a tag family reads there is its own grammar)
    calls = repair(text, CITY_TOOLS).tool_calls
    assert [c.arguments for c in calls] == [{"city": value}], text


@given(st.text(max_size=40), st.text(max_size=80))
def test_the_rule_is_total_and_needs_two_words(key: str, value: str) -> None:
    if template_slot(key, value):
        assert len(value) >= 5
        inner = value.strip("<>[]{}$*")
        assert any(sep in inner for sep in "_- &") or any(c.isupper() for c in inner[1:])


# -- conditional lead-ins ---------------------------------------------------------------

CONDITIONAL = (
    "In the meantime, if this query requires a tool call, here's how you can proceed:",
    "Here is a call to a hypothetical tool if you needed real-time data:",
    "If you want, I could call it like this:",
    "If you need a mail sent, you would call:",
    "Use the following command if I had access to a mail tool:",
)
ON_THE_WORLD = (
    "If the address is valid, I'll send it now.",
    "Here is the call to check if the mail went out:",
    "I'll check if the server is up first.",
)


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS)


def _names(text: str) -> list[str]:
    return names(text, TOOLS)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(CONDITIONAL), st.sampled_from(["\n\n", "\n"]))
def test_a_call_under_a_conditional_lead_in_is_not_a_call(family: str, lead: str, gap: str) -> None:
    text = f"Which address should I use?\n\n{lead}{gap}{inner_call(family, '')}"
    assert _names(text) == [], text
    assert _streamed(text) == [], text


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(ON_THE_WORLD))
def test_a_call_after_a_condition_on_the_world_is_a_call(family: str, lead: str) -> None:
    text = f"{lead}\n\n{inner_call(family, '')}"
    assert _names(text) == ["send_email"], text


@pytest.mark.parametrize(
    "case",
    corpus_cases("benchmarks/corpora/prose_negatives.jsonl", "prec8-")
    + corpus_cases("benchmarks/corpora/verbatim_anchored.jsonl", "fresh5fw-llamaindex-19187")
    + corpus_cases("benchmarks/heldout/verbatim_fresh7_rec.jsonl", "fresh7rec-mvbench-smollm3-asks")
    + corpus_cases(
        "benchmarks/corpora/prose_negatives.jsonl", "fresh8rec-chimera-lfm25-thinking-p10"
    ),
    ids=lambda c: str(c["id"]),
)
def test_the_sources_are_no_call(case: dict[str, object]) -> None:
    assert repair(case["response"], case["tools"]).tool_calls == []


@settings(max_examples=300, deadline=None)
@given(
    st.text(st.sampled_from("abcity_ -<>[]*{}yourhe"), min_size=1, max_size=30).filter(
        lambda v: v.strip() == v and v.strip("._-") != ""
    )
)
def test_a_value_the_rule_does_not_take_is_read_back_exactly(value: str) -> None:
    text = json.dumps({"name": "get_weather", "arguments": {"city": value}})
    calls = repair(text, CITY_TOOLS).tool_calls
    if template_slot("city", value):
        assert calls == [], text
    elif not names_own_slot("city", value):
        assert [c.arguments for c in calls] == [{"city": value}], text
