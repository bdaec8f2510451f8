"""The schema-anchored reader on a tool's name written as an element (issue 28):

* inside a call wrapper, as the ``<function=NAME>`` opener misspelt ``<NAME>``
  (anomalyco/opencode #30061), closed by the wrapper's end tags;
* holding the one string argument of a one-parameter tool bare, with no key
  (``<read_file> rdt_engine.py </read_file>``: cline/cline #4839).

Examples pin the shapes and their boundaries; the hypothesis properties draw the
values, the prose around them and the cuts of a stream.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up

from toolfix import FailureKind, repair

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "cat_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_level",
            "parameters": {
                "type": "object",
                "properties": {"level": {"type": "integer"}},
                "required": ["level"],
            },
        },
    },
]


def _calls(text: str) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # opencode #30061 (Qwen 3.6): <read> where <function=read> belongs
        (
            "<tool_call>\n<read_file>\n<parameter=path>\n/tmp/a.md\n</parameter>\n"
            "</function>\n</tool_call>",
            ("read_file", {"path": "/tmp/a.md"}),
        ),
        (
            "<tool_call><read_file><parameter=path>/b</parameter><parameter=limit>3"
            "</parameter></tool_call>",
            ("read_file", {"path": "/b", "limit": 3}),
        ),
        # cline #4839 (Devstral Medium): the one argument bare in the name's element
        (
            "Let's start.\n\n<cat_file> rdt_engine.py </cat_file>",
            ("cat_file", {"path": "rdt_engine.py"}),
        ),
        ("<cat_file>\nsrc/a b.py\n</cat_file>", ("cat_file", {"path": "src/a b.py"})),
    ],
)
def test_a_name_written_as_an_element_is_read(text: str, expected: tuple[str, Any]) -> None:
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [expected]
    [call] = fixed.tool_calls
    assert FailureKind.SCHEMA_ANCHORED in [r.kind for r in call.repairs]
    assert fixed.invalid_tool_calls == []


@pytest.mark.parametrize(
    "text",
    [
        # cut before the wrapper's end tag: another argument may still come
        "<tool_call>\n<read_file>\n<parameter=path>\n/tmp/a.md\n</parameter>\n",
        # no wrapper before the element: its own end tag is still needed
        "<read_file>\n<parameter=path>\n/tmp/a.md\n</parameter>\n</function>",
        # a bare value for a tool that takes more than one parameter
        "<read_file> a.md </read_file>",
        # a tool whose one parameter is not a string
        "<set_level> 3 </set_level>",
        # another element in the value, no end tag, nothing in it
        "<cat_file> <b>a.md</b> </cat_file>",
        "<cat_file> a.md",
        "<cat_file></cat_file>",
        "<cat_file>   </cat_file>",
        # a mention in prose or in inline code
        "We wrap paths as <cat_file> a.md </cat_file> in the docs.",
        "Write `<cat_file> a.md </cat_file>` to read a file.",
        # an end tag of another element does not close it
        "<cat_file> a.md </read_file>",
    ],
)
def test_what_the_element_does_not_hold_stays_text(text: str) -> None:
    """No valid call; the text stays, or a family reader reports it as an invalid call
    with its raw text (``<b>`` read as an undeclared argument): never lost."""
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    if fixed.text != text:
        assert [c.raw for c in fixed.invalid_tool_calls] == [text]


#: (ASCII: a text whose lower case changes its length anchors no name at all)
_VALUE = st.text(
    alphabet=string.ascii_letters + string.digits + " ./_-", min_size=1, max_size=30
).filter(lambda v: v.strip() != "")
_PROSE = st.sampled_from(["", "Reading it now.\n\n", "I'll check.\n", "Done so far:\n- one\n\n"])


@settings(max_examples=150, deadline=None)
@given(before=_PROSE, value=_VALUE, pad=st.sampled_from(["", " ", "\n"]))
def test_the_bare_value_is_the_argument(before: str, value: str, pad: str) -> None:
    """Any string value written bare in the element of a one-parameter tool is its
    argument, stripped; the prose before it stays text."""
    text = f"{before}<cat_file>{pad}{value}{pad}</cat_file>"
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("cat_file", {"path": value.strip()})
    ]
    assert fixed.text.strip() == before.strip()


@settings(max_examples=150, deadline=None)
@given(value=_VALUE, words=st.sampled_from(["Use", "We write", "See the", "Then run"]))
def test_an_element_inside_a_sentence_is_never_a_call(value: str, words: str) -> None:
    """Words before the element on its line make it a mention: no call, the text kept."""
    text = f"{words} <cat_file>{value}</cat_file> when needed."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.text == text


@settings(max_examples=150, deadline=None)
@given(value=_VALUE, cut=st.integers(0, 200))
def test_a_wrapper_element_call_needs_its_closer(value: str, cut: int) -> None:
    """The call a wrapper opens is read once its end tag is there, never from a prefix
    cut before it (the rest may still hold arguments)."""
    whole = (
        f"<tool_call>\n<read_file>\n<parameter=path>\n{value}\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    assert _calls(whole) == [("read_file", {"path": value.strip()})]
    prefix = whole[: min(cut, whole.index("</function>"))]
    assert _calls(prefix) == []


@settings(max_examples=100, deadline=None)
@given(
    before=_PROSE,
    shape=st.sampled_from(
        [
            "<cat_file> {v} </cat_file>",
            "<tool_call>\n<read_file>\n<parameter=path>\n{v}\n</parameter>\n</function>\n</tool_call>",
            "<cat_file> {v}",
        ]
    ),
    value=_VALUE,
    cuts=st.lists(st.integers(0, 200), max_size=8),
)
def test_a_stream_adds_up_to_repair(before: str, shape: str, value: str, cuts: list[int]) -> None:
    """Streaming promise: any split of the message gives what repair() gives for the
    whole of it, and never sends the call's text."""
    assert_stream_adds_up(before + shape.format(v=value), TOOLS, cuts)
