"""The schema-anchored reader on a call written as elements behind a family's prefix
(issue 28): the tool's name as the element's word (``<｜DSML｜read_file>`` for
``<｜DSML｜invoke name="read_file">``), each argument as an element named by its
parameter, with or without the prefix (``<｜DSML｜path>``, ``<timeout>``), and the call
closed by the family's call-element end tag (``</｜DSML｜invoke>``) rather than by
``</｜DSML｜read_file>``.

The class: a call element whose opener is written as the tool's name while its closer
keeps the family's call word. Sources: Qwen XML's ``<function=NAME>`` written ``<NAME>``
and closed by ``</function>`` (anomalyco/opencode #30061, read since round 8 inside a
``<tool_call>`` wrapper), and DeepSeek's DSML written the same way behind its prefix
(apmantza/pi-free #381 and #383, the Cline XML bridge). The family's prefix is the
markup that makes the element a call's: without it (and without a call wrapper) the
element's own end tag is still needed (tests/test_anchored_elements.py).
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
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "execute_command",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}},
                "required": ["command"],
            },
        },
    },
]

_BARS = ["｜DSML｜", "｜｜DSML｜｜", "|DSML|"]


def _calls(text: str) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # pi-free #381: the name and its argument as DSML elements, closed as an invoke
        (
            "<｜DSML｜read_file>\n <｜DSML｜path>C:/a/strategy-memory.ts</｜DSML｜path>\n"
            "</｜DSML｜invoke>",
            ("read_file", {"path": "C:/a/strategy-memory.ts"}),
        ),
        # pi-free #383: an argument closed as a parameter, and a plain element
        (
            "<｜DSML｜execute_command>\n <｜DSML｜command>npm test 2>&1 | tail -30"
            "</｜DSML｜parameter>\n <timeout>600</timeout>\n</｜DSML｜invoke>",
            ("execute_command", {"command": "npm test 2>&1 | tail -30", "timeout": 600}),
        ),
        # the same closed by the element's own end tag
        (
            "<｜DSML｜read_file>\n <｜DSML｜path>/tmp/a</｜DSML｜path>\n</｜DSML｜read_file>",
            ("read_file", {"path": "/tmp/a"}),
        ),
    ],
)
def test_a_prefixed_call_element_is_read(text: str, expected: tuple[str, Any]) -> None:
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [expected]
    [call] = fixed.tool_calls
    assert FailureKind.SCHEMA_ANCHORED in [r.kind for r in call.repairs]
    assert fixed.invalid_tool_calls == []
    assert fixed.text.strip() == ""


@pytest.mark.parametrize(
    "text",
    [
        # cut before any closer: another argument may still come
        "<｜DSML｜read_file>\n <｜DSML｜path>/tmp/a</｜DSML｜path>\n",
        # no prefix and no wrapper: the element's own end tag is needed
        "<read_file>\n <path>/tmp/a</path>\n</invoke>",
        # closed by an end tag that is no call word
        "<｜DSML｜read_file>\n <｜DSML｜path>/tmp/a</｜DSML｜path>\n</｜DSML｜tool_result>",
        # a required argument missing
        "<｜DSML｜execute_command>\n <timeout>600</timeout>\n</｜DSML｜invoke>",
        # a mention in a sentence
        "We write <｜DSML｜read_file><｜DSML｜path>a</｜DSML｜path></｜DSML｜invoke> there.",
    ],
)
def test_what_is_not_a_whole_prefixed_call_stays_text(text: str) -> None:
    """No valid call; the text stays, or a family reader reports an invalid call with
    its raw text: never lost."""
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    if fixed.text != text:
        assert [c.raw for c in fixed.invalid_tool_calls] == [text]


_VALUE = st.text(
    alphabet=string.ascii_letters + string.digits + " ./_-:|&", min_size=1, max_size=30
).filter(lambda v: v.strip() != "")
_PROSE = st.sampled_from(["", "Reading it now.\n\n", "I'll check.\n"])


@settings(max_examples=150, deadline=None)
@given(
    before=_PROSE,
    bar=st.sampled_from(_BARS),
    value=_VALUE,
    timeout=st.none() | st.integers(0, 10**6),
    arg_bar=st.booleans(),
    closer=st.sampled_from(["invoke", "parameter", "own"]),
)
def test_a_damaged_dsml_call_is_read_back_exactly(
    before: str,
    bar: str,
    value: str,
    timeout: int | None,
    arg_bar: bool,
    closer: str,
) -> None:
    """Any command and timeout written as a tool-named DSML element, arguments with or
    without the prefix, each closed as a parameter or by its own name, the call closed
    as an invoke: read back exactly, the prose before it kept."""
    p = bar if arg_bar else ""
    end = {"invoke": "parameter", "parameter": "parameter", "own": "command"}[closer]
    text = f"{before}<{bar}execute_command>\n <{p}command>{value}</{p}{end}>\n"
    if timeout is not None:
        text += f" <timeout>{timeout}</timeout>\n"
    text += f"</{bar}invoke>"
    expected: dict[str, Any] = {"command": value.strip()}
    if timeout is not None:
        expected["timeout"] = timeout
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("execute_command", expected)]
    assert fixed.text.strip() == before.strip()


@settings(max_examples=150, deadline=None)
@given(bar=st.sampled_from(_BARS), value=_VALUE, cut=st.integers(0, 200))
def test_a_prefixed_call_needs_its_closer(bar: str, value: str, cut: int) -> None:
    """Read once the call element's end tag is there, never from a prefix cut before
    it."""
    whole = f"<{bar}read_file>\n <{bar}path>{value}</{bar}path>\n</{bar}invoke>"
    assert _calls(whole) == [("read_file", {"path": value.strip()})]
    assert _calls(whole[: min(cut, whole.rindex("</"))]) == []


@settings(max_examples=100, deadline=None)
@given(
    before=_PROSE,
    bar=st.sampled_from(_BARS),
    value=_VALUE,
    cuts=st.lists(st.integers(0, 200), max_size=8),
)
def test_a_stream_adds_up_to_repair(before: str, bar: str, value: str, cuts: list[int]) -> None:
    """Streaming promise: any split of the message gives what repair() gives for the
    whole of it, and never sends the call's text."""
    text = f"{before}<{bar}read_file>\n <{bar}path>{value}</{bar}path>\n</{bar}invoke>"
    assert_stream_adds_up(text, TOOLS, cuts)
