"""Native arguments that are bare Qwen3-Coder argument elements (toolfix/_repair/native.py).

A serving stack that read the call's name out of the model's ``<function=name>`` tag
handed the rest over as the arguments string: ``<parameter=key>value</parameter>``
elements with no call around them, not JSON (opencode #1585 and qwen-code #783, both
Qwen3-Coder behind LM Studio). The engine knew the name, so the elements are read as
that tool's arguments; nothing else is: another tool's wrapper, prose, a run that does
not open with an argument element, or elements that do not make a valid call.
"""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st
from test_native_calls import _native, _tool

from toolfix import repair

GLOB = _tool("glob", {"pattern": {"type": "string"}, "path": {"type": "string"}}, ["pattern"])
READ = _tool("read", {"filePath": {"type": "string"}, "limit": {"type": "integer"}}, ["filePath"])


def test_the_reported_arguments_are_read_under_the_engines_name() -> None:
    # https://github.com/anomalyco/opencode/issues/1585 (Qwen3 Coder 30B MLX, LM Studio)
    raw = "<parameter=pattern>**</parameter>"
    (call,) = repair(_native("glob", raw), [GLOB, READ]).tool_calls
    assert (call.id, call.name, call.arguments) == ("call_0", "glob", {"pattern": "**"})
    assert call.repairs[0].detail == "read tool-call markup that leaked into the arguments string"


def test_several_elements_are_typed_by_the_schema() -> None:
    raw = "<parameter=filePath>\n/src/app.py\n</parameter>\n<parameter=limit>\n40\n</parameter>\n"
    (call,) = repair(_native("read", raw), [GLOB, READ]).tool_calls
    assert call.arguments == {"filePath": "/src/app.py", "limit": 40}


def test_another_tools_wrapper_is_still_not_taken() -> None:
    raw = "<function=glob>\n<parameter=pattern>*.py</parameter>\n</function>"
    out = repair(_native("read", raw), [GLOB, READ])
    assert out.tool_calls == []
    assert [b.raw for b in out.invalid_tool_calls] == [raw]


def test_elements_missing_a_required_argument_stay_invalid() -> None:
    raw = "<parameter=path>src</parameter>"
    out = repair(_native("glob", raw), [GLOB, READ])
    assert out.tool_calls == []
    assert [(b.name, b.raw) for b in out.invalid_tool_calls] == [("glob", raw)]


def test_text_that_does_not_open_with_an_element_is_not_wrapped() -> None:
    raw = "see <parameter=pattern>**</parameter>"
    out = repair(_native("glob", raw), [GLOB, READ])
    assert out.tool_calls == []
    assert [b.raw for b in out.invalid_tool_calls] == [raw]


_KEY = st.sampled_from(["pattern", "path"])
_VALUE = st.text(
    alphabet=string.ascii_letters + string.digits + " ./*_-", min_size=1, max_size=40
).filter(lambda v: v.strip() == v)


@settings(max_examples=150, deadline=None)
@given(
    values=st.dictionaries(_KEY, _VALUE, min_size=1, max_size=2),
    newlines=st.booleans(),
    blanks=st.sampled_from(["", " ", "\n", "\n  "]),
)
def test_drawn_bare_elements_read_back_exactly(
    values: dict[str, str], newlines: bool, blanks: str
) -> None:
    """Any run of argument elements is the call the engine named, value for value; a
    run without the required key is never a valid call (promise: nothing made up)."""
    nl = "\n" if newlines else ""
    raw = blanks + "".join(f"<parameter={k}>{nl}{v}{nl}</parameter>\n" for k, v in values.items())
    out = repair(_native("glob", raw), [GLOB, READ])
    if "pattern" in values:
        (call,) = out.tool_calls
        assert (call.name, call.arguments) == ("glob", values)
        assert out.invalid_tool_calls == []
    else:
        assert out.tool_calls == []
        assert [b.raw for b in out.invalid_tool_calls] == [raw]
