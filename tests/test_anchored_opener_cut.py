"""A Qwen-XML call whose ``<function=`` opener lost its ``>`` ends at its wrapper's end tag
(anchored.py ``_OPENER_BEFORE_NAME``; docs/design.md, promise 9).

The schema-anchored reader reads ``<function=write_file\\n<parameter=...>`` (gemma3 in
junjihashimoto/louter, xalgorix#243's scan logs). An output cut before the call's own
``</function>`` (``</parameter>\\n</``: the louter paste) is cut off, as the family reader
says of the same call written with its ``>``: never a valid call. Whole, it is the call.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

_VALUE = st.from_regex(r"[A-Za-z0-9/._][A-Za-z0-9/._ ]{0,20}", fullmatch=True).map(str.strip)
_TOOLS = [
    openai_tool(
        "write_file",
        {"absolute_path": {"type": "string"}, "content": {"type": "string"}},
        ["absolute_path", "content"],
    )
]


def _call(path: str, content: str) -> str:
    return (
        "<tool_call>\n<function=write_file\n"
        f"<parameter=absolute_path>\n{path}\n</parameter>\n"
        f"<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
    )


@settings(max_examples=80, deadline=None)
@given(_VALUE.filter(bool), _VALUE.filter(bool))
def test_the_whole_call_is_read(path: str, content: str) -> None:
    (call,) = repair({"content": _call(path, content)}, _TOOLS).tool_calls
    assert call.arguments == {"absolute_path": path, "content": content}


@settings(max_examples=120, deadline=None)
@given(_VALUE.filter(bool), _VALUE.filter(bool), st.data())
def test_a_cut_before_the_functions_end_tag_is_no_call(
    path: str, content: str, data: st.DataObject
) -> None:
    text = _call(path, content)
    own_closer = text.index("</function>") + len("</function>")
    cut = data.draw(st.integers(min_value=1, max_value=own_closer - 1))
    assert repair({"content": text[:cut]}, _TOOLS).tool_calls == [], text[:cut]


def test_the_found_example_is_no_call() -> None:
    text = (
        "<tool_call>\n<function=write_file\n<parameter=absolute_path>\n"
        "/Users/x/touch.yaml\n</parameter>\n<parameter=content>\n...\n</parameter>\n</"
    )
    assert repair({"content": text}, _TOOLS).tool_calls == []
