"""Delimiters a model invented around ``name{json}`` (toolfix/_repair/delimiters.py).

The class: an offered name glued to (or set off by a symbol run from) a JSON object
whose keys are that tool's parameters, the pair set off from prose by non-word
delimiters no family declares. deepseek-v3.1:671b on Ollama Cloud
(adityonugrohoid/ollama-tool-calling-research) wrote ``{{#tool_call}}name{…}{{/tool_call}}``,
``⇬name⇬{…}⇬`` and ``{{name}}{{…}}``; bayesimpact/bayes-platform PR 731 saw a garbled
word glued to ``default_api:name{…}``; openclaw/openclaw issue 66178 ``[name]`` then the
object. Each property draws the values (and the delimiters) and reads the call back
exactly, in ``repair()`` and in the stream; the counter-properties keep the same
construct in prose, inline code, under an example label and cut off from being a call.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.streamcheck import assert_stream_adds_up
from tests.tooldefs import openai_tool
from toolfix import repair
from toolfix._messages import InvalidToolCallPart, ToolCallPart
from toolfix._repair.delimiters import brace_depth, past_closing, past_glyphs
from toolfix._repair.elision import is_placeholder

WEATHER = openai_tool(
    "get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}, ["city"]
)
TOOLS = [WEATHER]

#: A value on one line with no character JSON or the delimiters would read as syntax.
_VALUE = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "So", "Sm", "Sk"), blacklist_characters='"\\{}<>[]`'
    ),
    min_size=1,
    max_size=30,
).filter(lambda s: s.strip() == s and not is_placeholder(s))
#: Non-ASCII symbols a model may invent as a delimiter (``⇬``, arrows, stars, emoji).
_GLYPH = st.sampled_from(["⇬", "→", "✦", "⟶", "★", "🔧"])
_SECTION = st.sampled_from(["tool_call", "tool", "call", "function", "tool_use"])


def _calls(content: str) -> list[tuple[str, dict[str, Any]]]:
    parts = repair({"content": content, "tool_calls": []}, TOOLS).parts
    return [(p.name, p.arguments) for p in parts if isinstance(p, ToolCallPart)]


def _text(content: str) -> str:
    return repair({"content": content, "tool_calls": []}, TOOLS).text or ""


def _object(city: str, unit: str | None) -> str:
    body = f'"city":"{city}"' + ("" if unit is None else f', "unit":"{unit}"')
    return "{" + body + "}"


# ---- read back exactly ---------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    city=_VALUE,
    unit=st.none() | _VALUE,
    section=_SECTION,
    after=st.sampled_from(["", "Sunny, 25°C", "\nDone."]),
)
def test_a_call_in_template_section_tags_is_read_back_exactly(
    city: str, unit: str | None, section: str, after: str
) -> None:
    content = f"{{{{#{section}}}}}get_weather{_object(city, unit)}{{{{/{section}}}}}{after}"
    args = {"city": city, **({} if unit is None else {"unit": unit})}
    assert _calls(content) == [("get_weather", args)]
    assert _text(content) == after.strip()  # (the closing section goes with the call)


@settings(max_examples=60, deadline=None)
@given(city=_VALUE, unit=st.none() | _VALUE, glyph=_GLYPH, blank=st.sampled_from(["", " "]))
def test_a_name_set_off_by_a_symbol_run_is_read_back_exactly(
    city: str, unit: str | None, glyph: str, blank: str
) -> None:
    content = f"{glyph}get_weather{blank}{glyph}{blank}{_object(city, unit)}{glyph}"
    args = {"city": city, **({} if unit is None else {"unit": unit})}
    assert _calls(content) == [("get_weather", args)]
    assert _text(content) == ""


@settings(max_examples=30, deadline=None)
@given(
    city=_VALUE,
    glyph=_GLYPH,
    section=_SECTION,
    cuts=st.lists(st.integers(0, 80), max_size=4),
)
def test_invented_delimiters_stream_as_they_repair(
    city: str, glyph: str, section: str, cuts: list[int]
) -> None:
    for content in (
        f"{glyph}get_weather{glyph}{_object(city, None)}{glyph}",
        f"{{{{#{section}}}}}get_weather{_object(city, None)}{{{{/{section}}}}}Sunny",
    ):
        assert_stream_adds_up(content, TOOLS, cuts)


# ---- not a call -------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(city=_VALUE, glyph=_GLYPH)
def test_prose_that_writes_the_construct_is_not_a_call(city: str, glyph: str) -> None:
    call = f"{glyph}get_weather{glyph}{_object(city, None)}"
    for content in (
        f"You can call {call} to get the weather.",
        f"Use `{call}` in your prompt.",
        f"Example:\n\n{call}",
        f"The format is {{{{#tool_call}}}}get_weather{_object(city, None)}{{{{/tool_call}}}}.",
    ):
        assert _calls(content) == [], content


@settings(max_examples=40, deadline=None)
@given(city=_VALUE, glyph=_GLYPH)
def test_a_cut_or_undeclared_object_is_not_a_valid_call(city: str, glyph: str) -> None:
    whole = f"{glyph}get_weather{glyph}{_object(city, None)}"
    for cut in range(len(whole) - len(city) - 3, len(whole)):
        assert _calls(whole[:cut]) == [], whole[:cut]
    assert _calls(f'{glyph}get_weather{glyph}{{"town":"{city}"}}') == []


def test_a_symbol_run_needs_a_glyph_before_the_name_too() -> None:
    """Only a name set off on both sides starts its line's call (the stream holds there)."""
    assert _calls('get_weather⇬{"city":"London"}') == []
    assert _calls('⇬get_weather⇬{"city":"London"}⇬') == [("get_weather", {"city": "London"})]


@settings(max_examples=40, deadline=None)
@given(city=_VALUE)
def test_an_object_still_open_after_its_last_value_is_a_cut(city: str) -> None:
    """Braces a delimiter closes before the object opens are the delimiter's: the
    object cut after its last value is still open (promise 9; ``{{name}}{{…`` was read
    as a valid call on main)."""
    for content in (
        f'{{{{#tool_call}}}}get_weather{{"args": {{"city":"{city}"}}',
        f'{{{{get_weather}}}}{{{{"city":"{city}"',
        f'{{{{get_weather}}}}{{{{"city":"{city}"}}',
    ):
        parts = repair({"content": content, "tool_calls": []}, TOOLS).parts
        assert not any(isinstance(p, ToolCallPart) for p in parts), content
        assert not any(isinstance(p, InvalidToolCallPart) and p.arguments for p in parts)
    whole = f'{{{{get_weather}}}}{{{{"city":"{city}"}}}}'
    assert _calls(whole) == [("get_weather", {"city": city})]


# ---- the pieces -------------------------------------------------------------------------


def test_the_pieces_read_only_their_spelling() -> None:
    text = 'get_weather ⇬ {"city":"x"}'
    assert past_glyphs(text, len("get_weather"), len(text)) == text.index("{")
    assert past_glyphs("get_weather = {", 11, 15) == 11  # (ASCII: the reader's own syntax)
    assert past_glyphs("get_weather§{", 11, 13) == 11  # (punctuation, not a symbol)
    assert past_glyphs("get_weather⇬ city", 11, 17) == 11  # (no object after the run)
    assert brace_depth("}{{/tool_call}}", 0, 15, 1, more=False) == 0
    assert brace_depth("}{{", 0, 3, 1, more=True) == 2
    assert brace_depth("}}{{", 0, 4, 0, more=True) == 2  # (``{{name}}{{``: the name's own)
    s = "}{{/tool_call}}⇬ rest"
    assert past_closing(s, 1, len(s)) == s.index(" ")
