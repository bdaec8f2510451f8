"""DeepSeek V3.2 DSML: ``<｜DSML｜invoke name="..."><｜DSML｜parameter ...>``."""

from __future__ import annotations

from typing import Any

import pytest
from op_count import assert_linear
from tooldefs import WEATHER_CITY_DAYS, openai_tool

from toolfix import FixConfig, repair
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.scanner import SpecScanner
from toolfix._repair.specs.dsml import DSML

FMT = SpecScanner([DSML])  # the declared family, read by the one scanner
CTX = ScanContext(tool_names=frozenset({"get_weather", "search"}))
TOOLS: list[dict[str, Any]] = [
    WEATHER_CITY_DAYS,
    openai_tool("search", {"q": {"type": "string"}}, []),
]

# Rendered the way the V3.2 template writes calls (and SGLang's detector documents).
CANONICAL = (
    "Let me check.\n\n<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="get_weather">\n'
    '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>"
)


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls]


def test_canonical_call_and_remaining_text() -> None:
    [c] = FMT.extract(CANONICAL, CTX)
    assert (c.name, c.arguments, c.truncated) == (
        "get_weather",
        {"city": "Paris", "days": 3},
        False,
    )
    assert CANONICAL[: c.start].strip() == "Let me check."
    assert c.end == len(CANONICAL)
    fixed = repair(CANONICAL, TOOLS)
    assert [(x.name, x.arguments) for x in fixed.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
    assert fixed.text == "Let me check."


def test_parallel_calls_in_one_section() -> None:
    text = (
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
        '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
        '</｜DSML｜invoke>\n<｜DSML｜invoke name="search">\n'
        '<｜DSML｜parameter name="q" string="true">météo</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    )
    assert _calls(text) == [("get_weather", {"city": "Paris"}), ("search", {"q": "météo"})]
    assert repair(text, TOOLS).text == ""


@pytest.mark.parametrize(
    "text",
    [
        # without the DSML prefix (SGLang's "simplified" shape), JSON body
        '<function_calls>\n<invoke name="get_weather">\n{"city": "Paris", "days": 3}\n'
        "</invoke>\n</function_calls>",
        # double-bar prefix and mixed closers, as engines print them
        '<｜｜DSML｜｜invoke name="get_weather">\n'
        '<parameter name="city" string="true">Paris</｜｜DSML｜｜parameter>\n'
        '<｜｜DSML｜｜parameter name="days" string="false">3</parameter>\n'
        "</｜｜DSML｜｜invoke>",
    ],
)
def test_prefix_variants(text: str) -> None:
    assert _calls(text) == [("get_weather", {"city": "Paris", "days": 3})]


def test_truncated_call_keeps_complete_parameters_only() -> None:
    text = (
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
        '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="days" string="false">1'
    )
    [c] = FMT.extract(text, CTX)
    assert c.truncated
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert (bad.name, bad.kind, bad.arguments) == ("get_weather", "truncated", {"city": "Paris"})
    keep = FixConfig(truncated="keep_complete_members")
    [call] = repair(text, TOOLS, config=keep).tool_calls
    assert call.arguments == {"city": "Paris"}
    assert "truncated" in [r.kind for r in call.repairs]


@pytest.mark.parametrize(
    "text",
    [
        "Plain answer about the weather in Paris.",
        'In HTML you would write <a name="x"> but invoke name=" alone is not a call.',
        'The attribute is written invoke name="get_weather" in the docs.',
    ],
)
def test_negatives(text: str) -> None:
    assert FMT.extract(text, CTX) == []
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.text == text


def test_unclosed_openers_take_linear_work() -> None:
    def run(n: int) -> None:
        assert FMT.extract('<invoke name="x' * n, CTX) == []

    assert_linear(run, small=500)
