"""Property tests for this stop's repair rules (docs/failure-classes.md): argument
objects glued in a native call, Cline-style tool elements, and requoted Python strings.
Each keeps promises 3-7 of docs/design.md: nothing invented, nothing dropped, the same
answer every time, and a repaired response left as it is."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolfix import Response, ToolCallPart, repair
from toolfix._config import Limits
from toolfix._errors import InputTooLargeError
from toolfix._repair.formats.pythonic import parse_call

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _tool(name: str, param: str, kind: str = "string") -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {param: {"type": kind}}},
        },
    }


LOOKUP = [_tool("lookup", "q")]
READ = [_tool("read_file", "path")]

# text without markup characters: prose around a call, and argument values
_PROSE = st.text(st.characters(codec="utf-8", exclude_characters="<>&{}[]()`|\"'\\"), max_size=40)


@SETTINGS
@given(st.lists(st.text(max_size=12), min_size=1, max_size=5))
def test_glued_argument_objects_are_one_call_each_in_order(values: list[str]) -> None:
    raw = "".join(json.dumps({"q": v}) for v in values)
    resp = Response(parts=(ToolCallPart(id="c", name="lookup", arguments_raw=raw),))
    out = repair(resp, LOOKUP)
    distinct = list(dict.fromkeys(values))
    assert [c.arguments for c in out.tool_calls] == [{"q": v} for v in distinct]
    assert [c.id for c in out.tool_calls] == ["c"] + [f"c_{i}" for i in range(1, len(distinct))]
    assert out.invalid_tool_calls == []
    assert repair(out, LOOKUP) is out


@SETTINGS
@given(_PROSE, _PROSE, _PROSE)
def test_a_tool_element_is_one_call_and_the_prose_stays(
    before: str, value: str, after: str
) -> None:
    text = f"{before}\n<read_file>\n<path>{value}</path>\n</read_file>\n{after}"
    out = repair(text, READ)
    (call,) = out.tool_calls
    assert (call.name, call.arguments) == ("read_file", {"path": value.strip()})
    assert out.invalid_tool_calls == []
    assert repair(out, READ) is out


@SETTINGS
@given(st.lists(st.sampled_from(["<read_file>", "</read_file>", "<path>", "</path>", "x"])))
def test_tool_element_fragments_never_break_the_fixer(pieces: list[str]) -> None:
    text = "".join(pieces)
    once = repair(text, READ)
    assert repair(text, READ) == once
    assert repair(once, READ) == once
    for call in once.tool_calls:  # a call only where a whole element was written
        assert call.name == "read_file"
        assert "<read_file>" in text
        assert "</read_file>" in text


@SETTINGS
@given(st.text(st.characters(codec="utf-8", exclude_characters="'\\"), max_size=40))
def test_raw_line_breaks_in_a_python_string_are_read_back(value: str) -> None:
    # a single-quoted value holding anything but its quote and backslashes, line breaks
    # and other control characters included: read back exactly
    call = parse_call(f"f(a='{value}')", Limits())
    assert call is not None
    assert call.arguments == {"a": value}


@SETTINGS
@given(st.text(max_size=80))
def test_parse_call_answers_any_text(src: str) -> None:
    try:
        call = parse_call(src, Limits(max_pythonic_chars=60))
    except InputTooLargeError:
        assert len(src) > 60
        return
    assert call is None or isinstance(call.name, str)
