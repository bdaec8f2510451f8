"""A pythonic call sharing its line with a model's wrapper tokens (formats/pythonic.py,
issue 28): ``<|begin_of_box|>do(action="Launch")<|end_of_box|>`` (GLM-4.6V, Open-AutoGLM
#59) and ``do(action="Launch", app="美团")</answer>`` (Qwen3.5-plus, Open-AutoGLM #376).
A special token or a bare tag glued around the call is the line's edge; HTML formatting
(``<code>``), tags with attributes, and any other text on the line keep it prose."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

DO = openai_tool(
    "do",
    {"action": {"type": "string"}, "app": {"type": "string"}, "count": {"type": "integer"}},
    ["action"],
)
TOOLS: list[dict[str, Any]] = [DO]


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, dict(c.arguments or {})) for c in repair(text, TOOLS).tool_calls]


_TAG_NAME = st.from_regex(r"[a-z_]{1,8}", fullmatch=True).filter(
    lambda t: (
        t not in {"a", "b", "i", "u", "s", "p", "q", "em", "tt", "li", "ul", "ol", "td"}
        and t not in {"th", "tr", "dd", "dt", "br", "hr", "pre", "var", "kbd", "sub", "sup"}
        and t not in {"del", "ins", "div", "code", "samp", "span", "mark", "cite", "small"}
    )
)
_EDGE = st.one_of(
    _TAG_NAME.map(lambda t: f"<|{t}|>"),
    _TAG_NAME.map(lambda t: f"<{t}>"),
    _TAG_NAME.map(lambda t: f"</{t}>"),
)
_VALUE = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(_EDGE, max_size=2),
    after=st.lists(_EDGE, max_size=2),
    action=_VALUE,
    app=_VALUE,
    count=st.integers(-(10**6), 10**6),
    lead=st.sampled_from(
        ["", "Thinking about it.\n", "<|begin_of_box|>I see a screen<|end_of_box|>\n"]
    ),
)
def test_a_call_between_wrapper_tokens_is_read_back_exactly(
    before: list[str], after: list[str], action: str, app: str, count: int, lead: str
) -> None:
    a, b = json.dumps(action, ensure_ascii=False), json.dumps(app, ensure_ascii=False)
    call = f"do(action={a}, app={b}, count={count})"
    text = lead + "".join(before) + call + "".join(after)
    assert _calls(text) == [("do", {"action": action, "app": app, "count": count})]


@pytest.mark.parametrize(
    "text",
    [
        '<|begin_of_box|>do(action="Launch", app="Settings")<|end_of_box|>',
        'do(action="Launch", app="美团")</answer>',
        '<answer>do(action="Launch", app="美团")</answer>',
        '</think> do(action="Launch", app="Settings");',
    ],
)
def test_the_reported_shapes(text: str) -> None:
    assert [n for n, _ in _calls(text)] == ["do"]


@settings(max_examples=100, deadline=None)
@given(
    tag=st.sampled_from(["code", "tt", "kbd", "samp", "pre", "b", "strong", "em", "li", "p"]),
    action=_VALUE,
)
def test_html_formatting_around_a_call_is_a_mention(tag: str, action: str) -> None:
    value = json.dumps(action, ensure_ascii=False)
    text = f"Example:\n<{tag}>do(action={value})</{tag}>\nThat is the syntax."
    assert _calls(text) == []


@pytest.mark.parametrize(
    "text",
    [
        'Use <|begin_of_box|>do(action="Launch")<|end_of_box|> to open an app.',
        '<|begin_of_box|>do(action="Launch")<|end_of_box|> is how it opens apps.',
        'I would call do(action="Launch")</answer>',
        '<parameter=cmd>do(action="Launch")</parameter>',
        '<span class="x">do(action="Launch")</span>',
        'do(action="Launch")</ans',
        'Then: <answer>do(action="Launch")</answer>',
    ],
)
def test_prose_around_a_tagged_call_keeps_it_text(text: str) -> None:
    assert _calls(text) == []
