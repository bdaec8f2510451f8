"""A call written with its quotes escaped (``\\"``), read as the call it escapes
(issue 28).

The class: a call pasted out of a JSON string (a log, an API request, a client's
record) keeps that string's escaping. JSON bodies written so are read by
toolfix/_repair/escapedjson.py (gpt-oss on llama.cpp, ggml-org/llama.cpp pull 15091;
llama-stack's llama3.2 recording ``"parameters\\":{\\"timezone\\":\\"UTC\\"}``); the
schema-anchored reader now reads a value so quoted in any syntax it reads, e.g. Gemma's
keyed body ``<tool_call>search_files(pattern: \\"train\\")</tool_call>`` (gemma3:1b in
MikeVeerman/tool-calling-benchmark). The value ends at its escaped closer as the text
decodes once, and both decodes are ``json.loads``: nothing is guessed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up

from toolfix import FailureKind, repair
from toolfix._repair.quotes import escaped_quoted

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search_files",
            "parameters": {
                "type": "object",
                "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
                "required": ["pattern"],
            },
        },
    },
]


def _escaped(value: str) -> str:
    """``value`` as a JSON string literal, escaped once more (its quotes ``\\"``)."""
    return json.dumps(json.dumps(value))[1:-1]


def _calls(text: str) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # gemma3:1b (MikeVeerman/tool-calling-benchmark, runs[5][9], P10), verbatim
        ('<tool_call>search_files(pattern: \\"train\\")</tool_call>', {"pattern": "train"}),
        ('<tool_call>search_files(pattern=\\"a b\\")</tool_call>', {"pattern": "a b"}),
        (
            '<tool_call>search_files(pattern: \\"x\\", path: \\"/tmp\\")</tool_call>',
            {"pattern": "x", "path": "/tmp"},
        ),
        # a quote escaped inside the escaped string is the value's own
        ('<tool_call>search_files(pattern: \\"a\\\\\\"b\\")</tool_call>', {"pattern": 'a"b'}),
    ],
)
def test_a_value_with_escaped_quotes_is_read(text: str, expected: dict[str, Any]) -> None:
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("search_files", expected)]
    [call] = fixed.tool_calls
    assert FailureKind.SCHEMA_ANCHORED in [r.kind for r in call.repairs]
    assert fixed.text.strip() == ""


@pytest.mark.parametrize(
    "text",
    [
        # a mention in a sentence
        'You can run search_files(pattern: \\"train\\") to find it.',
        # cut off before the closer
        '<tool_call>search_files(pattern: \\"train',
        '<tool_call>search_files(pattern: \\"train\\"',
    ],
)
def test_what_is_not_a_whole_call_stays_text(text: str) -> None:
    """No valid call; the text stays, or a family reader reports an invalid call with
    its raw text: never lost."""
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    if fixed.text != text:
        assert [c.raw for c in fixed.invalid_tool_calls] == [text]


@pytest.mark.parametrize(
    "text",
    [
        'x \\"a"b\\"',  # a bare quote before the closer
        'x \\"a\nb\\"',  # a line break
        'x \\"abc',  # no closer
        'x "abc"',  # not escaped
        'x \\"\\u12\\"',  # an escape that does not decode
    ],
)
def test_escaped_quoted_refuses_what_is_not_one_escaped_string(text: str) -> None:
    assert escaped_quoted(text, 2, len(text)) is None


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(value=_TEXT, tail=st.sampled_from(["", ")", " rest", '"']))
def test_escaped_quoted_reads_back_any_string(value: str, tail: str) -> None:
    """Any string written as an escaped JSON string literal is read back exactly, and
    its end is the end of that literal, whatever follows."""
    lit = _escaped(value)
    text = "k: " + lit + tail
    assert escaped_quoted(text, 3, len(text)) == (value, 3 + len(lit))


_VALUE = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="<>`"
    ),
    min_size=1,
    max_size=30,
).filter(lambda v: v.strip() == v and v != "")


@settings(max_examples=150, deadline=None)
@given(
    value=_VALUE,
    sep=st.sampled_from([": ", "=", " = "]),
    before=st.sampled_from(["", "Searching.\n\n"]),
)
def test_a_damaged_keyed_call_is_read_back_exactly(value: str, sep: str, before: str) -> None:
    """A value drawn by hypothesis, written with escaped quotes in a call after a
    call opener, is read back exactly; the prose before it stays."""
    text = f"{before}<tool_call>search_files(pattern{sep}{_escaped(value)})</tool_call>"
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("search_files", {"pattern": value})
    ]
    assert fixed.text.strip() == before.strip()


@settings(max_examples=100, deadline=None)
@given(value=_VALUE, words=st.sampled_from(["Use", "We call", "Then run"]))
def test_prose_that_mentions_such_a_call_is_not_a_call(value: str, words: str) -> None:
    text = f"{words} search_files(pattern: {_escaped(value)}) when needed."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []


@settings(max_examples=100, deadline=None)
@given(value=_VALUE, cuts=st.lists(st.integers(0, 200), max_size=8))
def test_a_stream_adds_up_to_repair(value: str, cuts: list[int]) -> None:
    """Streaming promise: any split of the message gives what repair() gives for the
    whole of it."""
    text = f"<tool_call>search_files(pattern: {_escaped(value)})</tool_call>"
    assert_stream_adds_up(text, TOOLS, cuts)
