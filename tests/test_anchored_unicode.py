"""The schema-anchored reader with text in any script (issue 28, branch json6).

- A value holding ``İ`` (U+0130, whose ``str.lower`` is two characters) no longer hides
  the names around it: the names' prefilter lowers with one character per character
  (``names.lower_keeping_offsets``), so its offsets are the text's.
- A word before a name on its line is a word in any script: ``调用 [get_weather] ...``
  is a sentence naming the tool, as ``Call [get_weather] ...`` is, not markup. A
  finished sentence followed by a family's call marker (``好的。<tool_call>exec ...``,
  ``Let me check.<tool_call>exec ...``) is a call after the model's sentence, in any
  script (openclaw issue 33258; opencodex issue 5499; vLLM's hermes and qwen3-coder
  parser tests with prose before ``<tool_call>``).
- Parameter names may be any identifier (``城市: Paris``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.names import lower_keeping_offsets

WEATHER = openai_tool("get_weather", {"city": {"type": "string"}}, ["city"])
EXEC = openai_tool("exec", {"command": {"type": "string"}}, ["command"])

#: Letters of several scripts, ``İ`` among them (the one ``str.lower`` lengthens).
_LETTERS = st.sampled_from(list("aZéÉßİıiIöÖçÇ城市调用ёЁ"))
_VALUE = st.lists(_LETTERS | st.sampled_from([" ", "-"]), min_size=1, max_size=12).map("".join)


def _calls(content: str, tools: list[dict[str, Any]]) -> list[Any]:
    return [(c.name, c.arguments) for c in repair({"content": content}, tools).tool_calls]


@given(st.text(max_size=40))
def test_the_lowering_keeps_offsets(text: str) -> None:
    low = lower_keeping_offsets(text)
    assert low is not None
    assert len(low) == len(text)
    for ch, lo in zip(text, low, strict=True):
        assert lo == (ch if ch == "\u0130" else ch.lower())


@settings(max_examples=80, deadline=None)
@given(
    value=_VALUE.map(str.strip).filter(bool),
    shape=st.sampled_from(["[{n}] city: {v}", '{n} city="{v}"']),
)
def test_a_value_in_any_script_is_read_back_exactly(value: str, shape: str) -> None:
    text = shape.replace("{n}", "get_weather").replace("{v}", value)
    assert _calls(text, [WEATHER]) == [("get_weather", {"city": value})], text


@settings(max_examples=60, deadline=None)
@given(word=st.lists(_LETTERS.filter(lambda c: c.isalpha()), min_size=2, max_size=6).map("".join))
def test_a_sentence_in_any_script_before_a_name_is_no_call(word: str) -> None:
    for text in (word + " [get_weather] city: Paris", word + " get_weather city=Paris"):
        assert _calls(text, [WEATHER]) == [], text


@settings(max_examples=60, deadline=None)
@given(
    sentence=st.sampled_from(["好的，我来排查。", "Let me check.", "¿Listo?", "Voilà!"]),
    command=st.from_regex(r"[a-z][a-z ./-]{0,20}", fullmatch=True),
)
def test_a_call_marker_after_a_finished_sentence_opens_a_call(sentence: str, command: str) -> None:
    text = sentence + '<tool_call>exec command="' + command + '" />'
    assert _calls(text, [EXEC]) == [("exec", {"command": command})], text


@settings(max_examples=40, deadline=None)
@given(lead=st.sampled_from(["I will write ", "Use the tag like ", "好的 "]))
def test_a_call_marker_inside_a_sentence_is_no_call(lead: str) -> None:
    text = lead + '<tool_call>exec command="ls" /> next'
    assert _calls(text, [EXEC]) == [], text


@settings(max_examples=40, deadline=None)
@given(
    sentence=st.sampled_from(["Try this.", "好的。", "Done!"]),
    mark=st.sampled_from([">>> ", "call: "]),
)
def test_a_prompt_or_word_marker_after_a_sentence_is_no_call(sentence: str, mark: str) -> None:
    # (a REPL's ``>>>`` or a ``call:`` after a sentence is prose's as often as a family's)
    assert _calls(sentence + " " + mark + 'exec command="ls"', [EXEC]) == []


def test_a_parameter_named_in_another_script_is_read() -> None:
    tool = openai_tool("buscar", {"城市": {"type": "string"}}, ["城市"])
    assert _calls("[buscar] 城市: Paris", [tool]) == [("buscar", {"城市": "Paris"})]
