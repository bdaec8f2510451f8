"""Tags broken by a terminal's line wrap (``toolfix/_repair/termwrap.py``): a GLM call
copied from a CLI's wrapped output (iflow-cli issue 283) reads back exactly where the
break falls in a key or value opener or a key closer, and elsewhere never gives a
value holding the broken tag."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.termwrap import breaks_a_tag, wrapped_at

TOOLS: list[dict[str, Any]] = [
    openai_tool("ReadTextFile", {"path": {"type": "string"}}, ["path"]),
    openai_tool("RoleInfo", {}, []),
]
#: The tags a reader finds through a break, and those it does not.
READ_THROUGH = ("<arg_key>", "</arg_key>", "<arg_value>")
NOT_READ = ("</arg_value>", "</tool_call>")

_VALUE = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="<>"),
    min_size=1,
    max_size=40,
).filter(lambda v: v.strip() == v)
_BREAK = st.builds(lambda nl, n: nl + " " * n, st.sampled_from(["\n", "\r\n"]), st.integers(0, 8))


def _call(path: str, tag: str | None = None, at: int = 1, brk: str = "\n  ") -> str:
    text = (
        f"<tool_call>ReadTextFile<arg_key>path</arg_key><arg_value>{path}</arg_value></tool_call>"
    )
    if tag is None:
        return text
    k = text.index(tag)
    return text[: k + at] + brk + text[k + at :]


@settings(max_examples=200, deadline=None)
@given(path=_VALUE, tag=st.sampled_from(READ_THROUGH), data=st.data(), brk=_BREAK)
def test_a_wrapped_tag_reads_back_exactly(path: str, tag: str, data: Any, brk: str) -> None:
    at = data.draw(st.integers(1, len(tag) - 1))
    fixed = repair("我来读取文件。" + _call(path, tag, at, brk), TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("ReadTextFile", {"path": path})]
    records = [r.detail for r in fixed.tool_calls[0].repairs]
    assert "read tags broken by a terminal's line wrap" in records


@settings(max_examples=200, deadline=None)
@given(path=_VALUE, tag=st.sampled_from(NOT_READ), data=st.data(), brk=_BREAK)
def test_a_broken_tag_is_never_data(path: str, tag: str, data: Any, brk: str) -> None:
    at = data.draw(st.integers(1, len(tag) - 1))
    fixed = repair(_call(path, tag, at, brk), TOOLS)
    for c in fixed.tool_calls:
        assert c.arguments == {"path": path}  # the exact value, or no valid call
        assert not breaks_a_tag(c.arguments["path"], (tag,))


@settings(max_examples=100, deadline=None)
@given(path=_VALUE)
def test_an_unbroken_call_has_no_wrap_record(path: str) -> None:
    fixed = repair(_call(path), TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("ReadTextFile", {"path": path})]
    assert all("line wrap" not in r.detail for r in fixed.tool_calls[0].repairs)


@settings(max_examples=100, deadline=None)
@given(tag=st.sampled_from(READ_THROUGH), brk=_BREAK)
def test_prose_with_a_broken_tag_is_no_call(tag: str, brk: str) -> None:
    text = f"GLM wraps each key in {tag[:3]}{brk}{tag[3:]} and ReadTextFile takes a path."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []


def test_wrapped_at_needs_the_break_inside_the_tag() -> None:
    assert wrapped_at("<arg_\n  value>", 0, "<arg_value>") == len("<arg_\n  value>")
    assert wrapped_at("\n<arg_value>", 0, "<arg_value>") == -1
    assert wrapped_at("<arg_value\n>", 0, "<arg_value>") != -1
    assert wrapped_at("<arg_value>\n", 0, "<arg_value>") == -1
    assert wrapped_at("<arg_ value>", 0, "<arg_value>") == -1


def test_iflow_three_calls() -> None:
    text = (
        "<tool_call>RoleInfo</tool_call>"
        "<tool_call>ReadTextFile<arg_key>path</arg_key><arg_\n  value>a.md</arg_value></tool_call>"
        "<tool_call>ReadTextFile<arg_key>path</arg_k\n  ey><arg_value>b.md</arg_value></tool_call>"
    )
    assert [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls] == [
        ("RoleInfo", {}),
        ("ReadTextFile", {"path": "a.md"}),
        ("ReadTextFile", {"path": "b.md"}),
    ]
    for step in (1, 5):
        assert_stream_adds_up(text, TOOLS, list(range(step, len(text), step)))
