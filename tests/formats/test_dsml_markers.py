"""The damaged DSML marker: the word DSML with bar runs and blanks around it, or left
out between doubled full-width bars (toolfix/_repair/specs/dsml.py ``_markers``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_count import assert_linear
from streamcheck import assert_stream_adds_up
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.specs.dsml import PREFIXES

TOOLS: list[dict[str, Any]] = [
    openai_tool("search", {"q": {"type": "string"}, "n": {"type": "integer"}}, ["q"]),
    openai_tool("read_file", {"q": {"type": "string"}, "n": {"type": "integer"}}, ["q"]),
]
MARKERS = [m for m in PREFIXES if m]


def _call(m: str, name: str, q: str, n: int, section: str = "tool_calls") -> str:
    return (
        f'<{m}{section}>\n<{m}invoke name="{name}">\n'
        f'<{m}parameter name="q" string="true">{q}</{m}parameter>\n'
        f'<{m}parameter name="n" string="false">{n}</{m}parameter>\n'
        f"</{m}invoke>\n</{m}{section}>"
    )


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls]


@pytest.mark.parametrize(
    "text",
    [
        # the spaced marker (Cherry Studio issue 14714, DeepSeek V4 Pro)
        '< | DSML | tool_calls>\n< | DSML | invoke name="search">\n'
        '< | DSML | parameter name="q" string="true">DeepSeek V4 发布</ | DSML | parameter>\n'
        "</ | DSML | invoke>\n</ | DSML | tool_calls>",
        # the opening bar dropped (ds2api fixtures), CDATA values
        '<DSML｜tool_calls>\n  <DSML｜invoke name="search">\n'
        '    <DSML｜parameter name="q"><![CDATA[DeepSeek V4 发布]]></DSML｜parameter>\n'
        "  </DSML｜invoke>\n</DSML｜tool_calls>",
        # no bar at all (ds2api fixture)
        '<DSMLtool_calls>\n<DSMLinvoke name="search">\n'
        '<DSMLparameter name="q"><![CDATA[DeepSeek V4 发布]]></DSMLparameter>\n'
        "</DSMLinvoke>\n</DSMLtool_calls>",
        # the word left out between doubled bars (hermes-agent 113737, V4.1 Flash)
        '<｜｜DSML｜｜ calls>\n<｜｜invoke name="search">\n'
        '<｜｜parameter name="q" string="true">DeepSeek V4 发布</｜｜parameter>\n'
        "</｜｜invoke>\n</｜｜DSML｜｜ calls>",
    ],
)
def test_corpus_shapes(text: str) -> None:
    assert _calls(text) == [("search", {"q": "DeepSeek V4 发布"})]
    assert repair(text, TOOLS).text in ("", None)


_VALUE = st.text(
    st.characters(
        codec="utf-8",
        exclude_categories=("Cs", "Cc"),
        exclude_characters="<>&`",
    ),
    min_size=1,
    max_size=30,
).filter(lambda v: v.strip() == v and bool(v))


@settings(max_examples=150, deadline=None)
@given(
    m=st.sampled_from(MARKERS),
    name=st.sampled_from(["search", "read_file"]),
    q=_VALUE,
    n=st.integers(-(10**6), 10**6),
    section=st.sampled_from(["tool_calls", "function_calls", "calls"]),
)
def test_damaged_call_reads_back_exactly(m: str, name: str, q: str, n: int, section: str) -> None:
    text = "Let me look.\n\n" + _call(m, name, q, n, section)
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [(name, {"q": q, "n": n})]
    assert fixed.text == "Let me look."


@settings(max_examples=150, deadline=None)
@given(m=st.sampled_from(MARKERS), q=_VALUE, n=st.integers(0, 99))
def test_damaged_call_in_inline_code_is_no_call(m: str, q: str, n: int) -> None:
    one = (
        f'<{m}invoke name="search"><{m}parameter name="q" string="true">{q}'
        f'</{m}parameter><{m}parameter name="n" string="false">{n}</{m}parameter></{m}invoke>'
    )
    text = f"DeepSeek writes a call as `{one}` in its DSML markup."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == text


@settings(max_examples=150, deadline=None)
@given(
    m=st.sampled_from(MARKERS),
    word=st.sampled_from(["invoke", "parameter", "tool_calls"]),
    quoted=st.booleans(),
)
def test_damaged_tag_named_in_a_sentence_is_no_call(m: str, word: str, quoted: bool) -> None:
    tag = f"<{m}{word}>"
    tag = f"`{tag}`" if quoted else tag
    text = f"In DSML the {tag} tag wraps it; search is one of the tools, and so is read_file."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == text


@pytest.mark.parametrize("m", ["DSML｜", "DSML", " | DSML | ", "｜｜", "｜DSML｜ "])
def test_stream_agrees(m: str) -> None:
    text = "Let me look.\n" + _call(m, "search", "a b", 3)
    for step in (1, 3, 7):
        assert_stream_adds_up(text, TOOLS, list(range(step, len(text), step)))


@pytest.mark.parametrize(
    "unit",
    [
        '<DSML｜invoke name="search"><DSML｜parameter name="q">x',
        "<｜｜<｜｜invoke <| DSML |",
        "</DSML></｜｜parameter</ | DSML | invoke",
        '<｜DSML｜ tool_calls><DSMLinvoke name="search">',
    ],
)
def test_damaged_openers_take_linear_work(unit: str) -> None:
    def run(n: int) -> None:
        repair(unit * n, TOOLS)

    assert_linear(run, small=200)
