"""The declared families: the docs table, custom specs, and the one-pass scanner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tooldefs import WEATHER_CITY_DAYS

from toolfix import FixConfig, repair
from toolfix._repair.formats import ScanContext
from toolfix._repair.scanner import SpecScanner
from toolfix._repair.specs import ALL_SPECS
from toolfix._repair.table import markdown_table
from toolfix.errors import ConfigurationError
from toolfix.formats import (
    FormatSpec,
    JsonSection,
    KeyValueCalls,
    TaggedCalls,
    TagSyntax,
    available_formats,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "formats.md"

TOOLS: list[dict[str, Any]] = [WEATHER_CITY_DAYS]


def test_the_docs_table_is_the_generated_one() -> None:
    text = DOCS.read_text(encoding="utf-8")
    body = text.split("<!-- formats-table -->\n", 1)[1].split("\n<!-- /formats-table -->", 1)[0]
    assert body == markdown_table()
    for name in available_formats():
        assert f"| `{name}` |" in body


def test_every_spec_cites_a_public_source_and_has_a_unique_name() -> None:
    names = [s.name for s in ALL_SPECS]
    assert len(names) == len(set(names))
    for spec in ALL_SPECS:
        assert spec.source.startswith("https://"), spec.name


ACME = FormatSpec(
    name="acme",
    grammar=KeyValueCalls(call=("<acme>", "</acme>"), key=("<k>", "</k>"), value=("<v>", "</v>")),
    source="https://example.org/acme",
)


def test_a_custom_family_is_read_in_the_same_pass_as_the_built_in_ones() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n'
        "<acme>get_weather<k>city</k><v>Paris</v><k>days</k><v>2</v></acme>"
    )
    fixed = repair(text, TOOLS, config=FixConfig(custom_formats=(ACME,)))
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("get_weather", {"city": "Oslo"}),
        ("get_weather", {"city": "Paris", "days": 2}),
    ]
    assert fixed.text == ""
    # without the spec, the markup is text
    assert [c.arguments for c in repair(text, TOOLS).tool_calls] == [{"city": "Oslo"}]


def test_a_custom_family_can_be_pinned_alone() -> None:
    text = "<acme>get_weather<k>city</k><v>Paris</v></acme>"
    config = FixConfig(custom_formats=(ACME,), formats=("acme",))
    [call] = repair(text, TOOLS, config=config).tool_calls
    assert call.arguments == {"city": "Paris"}


def test_a_custom_name_that_clashes_is_refused() -> None:
    clash = FormatSpec(name="hermes", grammar=TaggedCalls(), source="https://example.org")
    with pytest.raises(ConfigurationError, match="hermes"):
        repair("text", TOOLS, config=FixConfig(custom_formats=(clash,)))


@pytest.mark.parametrize(
    ("grammar", "text"),
    [
        (TaggedCalls(syntax=TagSyntax(open="[[", close="[[/", end="]]")), '[[invoke name="x"]]'),
        (JsonSection(open=("<<calls>>",), close=("<</calls>>",)), "<<calls>>[{"),
        (KeyValueCalls(call=("<c>", "</c>"), key=("<k>", "</k>"), value=("<v>", "</v>")), "<c>f"),
    ],
)
def test_a_cut_off_custom_call_is_never_valid(grammar: Any, text: str) -> None:
    spec = FormatSpec(name="cut", grammar=grammar, source="https://example.org")
    fixed = repair(text, TOOLS, config=FixConfig(custom_formats=(spec,)))
    assert fixed.tool_calls == []


def test_one_pass_over_a_megabyte_of_openers_that_are_no_calls() -> None:
    # every opener of every family, none of them followed by a call: the scan moves on
    # from each one, never back (linear); no candidate comes out
    junk = "".join(t + " x " for s in ALL_SPECS for t in _openers(s))
    text = (junk * (1_000_000 // len(junk) + 1))[:1_000_000]
    ctx = ScanContext(tool_names=frozenset({"get_weather"}))
    cands = SpecScanner(ALL_SPECS).extract(text, ctx)
    assert all(c.truncated or c.error for c in cands)


def _openers(spec: FormatSpec) -> tuple[str, ...]:
    from toolfix._repair.scanner import openers

    return openers(spec)


def test_deepseek_v41_spacing_and_self_closing_invokes() -> None:
    # issue 13: V4.1 writes a space after the DSML prefix and zero-argument invokes
    # self-closing (no public sample found; built from the description)
    tools = [*TOOLS, {"type": "function", "function": {"name": "status", "parameters": {}}}]
    text = (
        "<｜DSML｜ calls>\n"
        '<｜DSML｜ invoke name="status"/>\n'
        '<｜DSML｜ invoke name="get_weather">\n'
        '<｜DSML｜ parameter name="city" string="true">Paris</｜DSML｜ parameter>\n'
        '<｜DSML｜ parameter name="days" string="false">2</｜DSML｜ parameter>\n'
        "</｜DSML｜ invoke>\n"
        "</｜DSML｜ calls>"
    )
    fixed = repair(text, tools)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("status", {}),
        ("get_weather", {"city": "Paris", "days": 2}),
    ]
    assert fixed.text == ""


def test_qwen_output_that_switches_between_xml_and_hermes_json() -> None:
    # issue 13: Qwen3.5/3.6 write Hermes JSON and Qwen3-Coder XML in one output
    text = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n'
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    fixed = repair(text, TOOLS)
    assert [c.arguments for c in fixed.tool_calls] == [{"city": "Oslo"}, {"city": "Paris"}]
    assert fixed.text == ""


def test_kimi_k3_response_channel_is_the_answer() -> None:
    text = (
        "Checking the weather.<|close|>response<|sep|><|open|>tools<|sep|>"
        '<|open|>call tool="get_weather" index="1"<|sep|>'
        '<|open|>argument key="city" type="string"<|sep|>São Paulo<|close|>argument<|sep|>'
        '<|open|>argument key="days" type="integer"<|sep|>3<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>"
    )
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("get_weather", {"city": "São Paulo", "days": 3})
    ]
    assert fixed.text == "Checking the weather."


def test_function_with_a_space_inside_a_tool_call_wrapper() -> None:
    # sglang #38894: ``<function bash>`` where the template writes ``<function=bash>``
    tools = [
        {
            "type": "function",
            "function": {
                "name": "bash",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
            },
        }
    ]
    text = (
        "inspect<tool_call><function bash><parameter=command>pwd</parameter></function></tool_call>"
    )
    fixed = repair(text, tools)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("bash", {"command": "pwd"})]
    assert fixed.text == "inspect"
    # without the wrapper, <function ...> is HTML or prose
    prose = "In JS, <function bash> is not valid.<parameter=command>x</parameter></function>"
    assert repair(prose, tools).tool_calls == []


def test_a_tool_name_on_its_own_line_then_its_arguments() -> None:
    # GLM-4-0414 writes no markup: the name on a line, the JSON arguments below it
    # (mlx-swift-lm #491)
    [call] = repair('get_weather\n{"city": "Paris", "days": 2}', TOOLS).tool_calls
    assert (call.name, call.arguments) == ("get_weather", {"city": "Paris", "days": 2})
    # a word that is not a tool's name is prose, and so is a name inside a sentence
    assert repair('forecast\n{"city": "Paris"}', TOOLS).tool_calls == []
    # (the family's reading: the schema-anchored reader takes a tool named in the last
    # line of prose, then its arguments object ending the message: odysseus #4085)
    family_only = FixConfig(schema_anchored=False)
    assert repair('call get_weather\n{"city": "Paris"}', TOOLS, config=family_only).tool_calls == []


@pytest.mark.parametrize("text", ["functools", "functools\n", "from functools import partial\n"])
def test_a_word_opener_with_nothing_after_it_is_text(text: str) -> None:
    # Phi-4-mini opens its calls with the word "functools": the word alone is prose
    # (found by hypothesis: "functools" came back as a cut-off call)
    from toolfix import Response

    resp = Response.text_only(text)
    assert repair(resp, TOOLS) is resp


def test_a_token_opener_with_nothing_after_it_is_a_cut_off_call() -> None:
    out = repair("<|tool_call_start|>", TOOLS)
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert bad.kind == "truncated"
    assert bad.raw == "<|tool_call_start|>"
