"""Qwen3-Coder's tags written without their ``<`` (``function=terminal>`` ...
``parameter>`` ``function>``: Qwen3.5 through exo, exo issue 1876), read as written back
(``toolfix/_repair/stripped.py`` ``restore_equals_tags``): the class of the tagged
families' stripped tags (exo issue 1882, hermes-agent 115475) for the family whose tags
carry their name after ``=``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up
from tooldefs import openai_tool

from toolfix import repair

TOOLS: list[dict[str, Any]] = [
    openai_tool(
        "terminal", {"command": {"type": "string"}, "timeout": {"type": "integer"}}, ["command"]
    ),
    openai_tool("read_file", {"path": {"type": "string"}}, ["path"]),
]
NOTE = "read tags whose angle brackets were stripped"

_LINE = st.text(
    st.characters(
        codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters="<>=`"
    ),
    min_size=1,
    max_size=30,
).filter(lambda v: v.strip() == v and v not in ("function", "parameter"))


def _call(name: str, command: str, timeout: int | None = None) -> str:
    more = "" if timeout is None else f"parameter=timeout>\n{timeout}\nparameter>\n"
    return (
        f"<tool_call>\nfunction={name}>\nparameter=command>\n{command}\nparameter>\n"
        f"{more}function>\n</tool_call>"
    )


@settings(max_examples=200, deadline=None)
@given(
    command=_LINE,
    timeout=st.none() | st.integers(0, 10**6),
    lead=st.sampled_from(["", "Running it.\n", "好的。\n\n"]),
)
def test_reads_back_exactly(command: str, timeout: int | None, lead: str) -> None:
    fixed = repair(lead + _call("terminal", command, timeout), TOOLS)
    args: dict[str, Any] = {"command": command}
    if timeout is not None:
        args["timeout"] = timeout
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("terminal", args)]
    assert NOTE in [r.detail for r in fixed.tool_calls[0].repairs]
    assert (fixed.text or "") == lead.strip()


@settings(max_examples=100, deadline=None)
@given(command=_LINE)
def test_a_name_no_tool_has_is_no_call(command: str) -> None:
    fixed = repair(_call("rm_everything", command), TOOLS)
    assert fixed.tool_calls == []


@settings(max_examples=100, deadline=None)
@given(command=_LINE)
def test_without_its_wrapper_line_is_no_call(command: str) -> None:
    # the tag words in prose or a config file: only a ``<tool_call>`` line opens the call
    text = _call("terminal", command).replace("<tool_call>\n", "Set it like this:\n")
    assert repair(text, TOOLS).tool_calls == []


@pytest.mark.parametrize("cut", [30, 45, 58, 62])
def test_a_cut_call_is_never_valid(cut: int) -> None:
    text = _call("terminal", "echo hello")
    assert len(text) > 62
    assert repair(text[:cut], TOOLS).tool_calls == []


def test_stream_agrees() -> None:
    text = "Running it.\n" + _call("terminal", "echo hello", 30)
    for step in (1, 4, 9):
        assert_stream_adds_up(text, TOOLS, list(range(step, len(text), step)))
