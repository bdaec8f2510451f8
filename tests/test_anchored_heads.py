"""The schema-anchored reader's name search looks at the heads of a text's lines first
(toolfix/_repair/anchored.py, ``_line_heads``): before any call is read, a name is placed
only near its line's start, so when no head holds a name, nothing is read. That is a
shortcut only: every text repairs exactly as with every line searched whole."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import BASIC_TOOLS
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FixConfig, Limits, repair
from toolfix._repair import anchored
from toolfix._repair.nametable import name_table, names_in

TOOLS: list[dict[str, Any]] = list(BASIC_TOOLS)
CONFIG = FixConfig(limits=Limits(max_input_chars=400_000, max_span_chars=400_000))

_WORDS = st.sampled_from(["the", "weather", "report", "get_weather", "Search", "a,", "tides."])
_CALLS = st.sampled_from(
    [
        'get_weather(city="Paris")',
        "get_weather city: Lima",
        '{"tool_name": "get_weather", "inputs": {"city": "Rome"}}',
        'functions.search_web(query="tides")',
        '<tool_call>get_weather city="Oslo"/>',
        '[Tool call: get_weather({"city":"Kyiv"})]',
    ]
)


@st.composite
def _texts(draw: st.DrawFn) -> str:
    """Prose on long and short lines, with calls and names at line starts, deep inside
    long lines, and right after an earlier call."""
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        pieces = []
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                pieces.append(draw(_CALLS))
            else:
                pieces.append(" ".join([draw(_WORDS)] * draw(st.integers(1, 600))))
        lines.append(" ".join(pieces))
    return "\n".join(lines)


def _calls(text: str) -> list[tuple[str, Any, str]]:
    fixed = repair(text, TOOLS, config=CONFIG)
    return [(type(p).__name__, getattr(p, "arguments", None), p.type) for p in fixed.parts] + [
        ("text", fixed.text, "")
    ]


@settings(max_examples=150, deadline=None)
@given(_texts())
def test_the_heads_shortcut_changes_no_repair(text: str) -> None:
    with_heads = _calls(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(anchored, "_line_heads", lambda text, ranges: None)
        whole = _calls(text)
    assert with_heads == whole


def test_a_name_deep_in_a_long_line_costs_no_search_per_name() -> None:
    """A megabyte of prose on one line with no name near a line start: only its head is
    searched (the heads' length), not the line, and nothing is read."""
    text = ("The quarterly report covers revenue and the weather. " * 20_000)[:1_000_000]
    ranges = [(0, len(text))]
    heads = anchored._line_heads(text, ranges)
    assert heads is not None
    assert sum(b - a for a, b in heads) < 1_000
    assert names_in(text, name_table(("get_weather",)), heads) == []
    assert repair("\n" + text + "\n" + text, TOOLS, config=CONFIG).tool_calls == []
