"""DSML under a web bridge's marker word (ds2api's ``<|EPSE|tool_calls>``,
``specs/dsml.py`` ``BRIDGE_WORDS``), mixed with the trained ``｜DSML｜`` marker, and a
CDATA section whose ``]]>`` was left out (``tags._typed``)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up
from tooldefs import openai_tool

from toolfix import repair

TOOLS: list[dict[str, Any]] = [
    openai_tool("read", {"file_path": {"type": "string"}}, ["file_path"]),
    openai_tool(
        "pwsh", {"command": {"type": "string"}, "description": {"type": "string"}}, ["command"]
    ),
]
#: The trained marker the leak samples open with, then the bridge's.
TRAINED = ("｜｜DSML｜｜ ", "｜DSML｜", "|DSML|")
BRIDGE = ("|EPSE|", "｜EPSE｜")

_VALUE = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="<>&]`"),
    min_size=1,
    max_size=30,
).filter(lambda v: v.strip() == v and bool(v))


def _read(opener: str, closer: str, path: str) -> str:
    """One ``read`` call whose openers carry ``opener`` and closers ``closer``."""
    return (
        f'<{opener}invoke name="read">\n<{opener}parameter name="file_path">'
        f"<![CDATA[{path}]]></{closer}parameter>\n</{closer}invoke>"
    )


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls]


@settings(max_examples=150, deadline=None)
@given(
    trained=st.sampled_from(TRAINED),
    bridge=st.sampled_from(BRIDGE),
    paths=st.lists(_VALUE, min_size=1, max_size=3),
)
def test_openers_trained_then_bridge_marker_read_back_exactly(
    trained: str, bridge: str, paths: list[str]
) -> None:
    # the first call opens with the trained marker, every closer and later call in the
    # bridge's (ds2api's verbatimLeakedHybridEPSECloseSample)
    parts = [_read(trained if i == 0 else bridge, bridge, p) for i, p in enumerate(paths)]
    text = f"<{trained}calls>\n" + "\n".join(parts) + f"\n</{bridge}tool_calls>"
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("read", {"file_path": p}) for p in paths
    ]
    assert fixed.text in ("", None)


@settings(max_examples=100, deadline=None)
@given(bridge=st.sampled_from(BRIDGE), path=_VALUE)
def test_bridge_call_in_inline_code_is_no_call(bridge: str, path: str) -> None:
    text = f"ds2api asks for `{_read(bridge, bridge, path)}` in its prompt."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == text


@settings(max_examples=100, deadline=None)
@given(bridge=st.sampled_from(BRIDGE))
def test_bridge_tag_named_in_a_sentence_is_no_call(bridge: str) -> None:
    text = f"The <{bridge}invoke> tag wraps a call to read; <{bridge}parameter> holds file_path."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == text


@settings(max_examples=150, deadline=None)
@given(
    m=st.sampled_from((*BRIDGE, "｜DSML｜")),
    command=_VALUE,
    description=_VALUE,
    closed=st.booleans(),
)
def test_cdata_left_open_ends_at_its_closer(
    m: str, command: str, description: str, closed: bool
) -> None:
    # the live session ds2api's TestUnclosedCDATADoesNotSwallowNextParameter records:
    # the first value's ``]]>`` left out; its opener is never the value's text
    end = "]]>" if closed else ""
    text = (
        f'<{m}tool_calls>\n<{m}invoke name="pwsh">\n'
        f'<{m}parameter name="command"><![CDATA[{command}{end}</{m}parameter>\n'
        f'<{m}parameter name="description"><![CDATA[{description}]]></{m}parameter>\n'
        f"</{m}invoke>\n</{m}tool_calls>"
    )
    assert _calls(text) == [("pwsh", {"command": command, "description": description})]


@pytest.mark.parametrize("cut", [20, 60, 90, 100, 125])  # (all before </invoke> ends)
def test_cut_bridge_call_is_never_valid(cut: int) -> None:
    text = "<|EPSE|tool_calls>\n" + _read("|EPSE|", "|EPSE|", "a/b.go") + "\n</|EPSE|tool_calls>"
    assert repair(text[:cut], TOOLS).tool_calls == []


def test_stream_agrees() -> None:
    text = (
        "Reading.\n<｜｜DSML｜｜ calls>\n"
        + _read("｜｜DSML｜｜ ", "|EPSE|", "x.go")
        + "\n</|EPSE|tool_calls>"
    )
    for step in (1, 3, 7):
        assert_stream_adds_up(text, TOOLS, list(range(step, len(text), step)))
