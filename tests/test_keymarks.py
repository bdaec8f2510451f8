"""Quotes and punctuation glued to an argument key (issue 28, rule G4).

llama3.2:3b wrote ``{"name":"complex", "parameters": {"data':[1, "hello", 3.14, true]"}}``
(llama-stack test recording, ``fresh5tail-llamastack-llama32-complex-array-for-object``):
json-repair reads the key as ``data'``, and a schema that admits other keys let
``complex({"data'": [...]})`` through. The key is ``data`` written differently: read as
``data``, its value fails the schema and no call is admitted.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.keymarks import unglue_keys
from toolfix._tools import ToolRegistry


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return openai_tool(name, props, [])


COMPLEX = _tool(
    "complex",
    {"data": {"type": "object", "properties": {"nested": {"type": "array"}}}},
)


def test_the_recorded_key_with_a_glued_quote_is_no_call() -> None:
    content = '{"name":"complex", "parameters": {"data\':[1, "hello", 3.14, true]"}}'
    out = repair({"content": content}, [COMPLEX])
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert bad.name == "complex"
    assert "not of type 'object'" in bad.error
    assert any("glued quotes" in r.detail for r in bad.repairs)


def test_a_glued_quote_on_a_string_key_is_read_as_the_parameter() -> None:
    tool = _tool("get_weather", {"city": {"type": "string"}})
    content = '{"name": "get_weather", "arguments": {"city\'": "Paris"}}'
    (call,) = repair({"content": content}, [tool]).tool_calls
    assert call.arguments == {"city": "Paris"}


def test_other_letters_and_a_taken_parameter_are_left_alone() -> None:
    tool = ToolRegistry.from_openai([_tool("t", {"city": {"type": "string"}})])["t"]
    repairs: list[Any] = []
    args = {"cities'": "a", "x:": 1}
    assert unglue_keys(args, tool, repairs) is args
    both = {"city": "a", "city'": "b"}
    assert unglue_keys(both, tool, repairs) is both
    two = {"'city": "a", "city:": "b"}
    assert unglue_keys(two, tool, repairs) is two
    assert repairs == []


_IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
_GLUE = st.text(alphabet="\"'`:= ", min_size=1, max_size=3)


@settings(max_examples=150, deadline=None)
@given(
    params=st.lists(_IDENT, min_size=1, max_size=4, unique=True),
    pick=st.integers(min_value=0, max_value=3),
    before=st.sampled_from(["", "'", "`", " "]),
    after=_GLUE,
    value=st.one_of(st.integers(), st.text(max_size=8), st.booleans()),
)
def test_a_declared_key_with_glued_marks_never_becomes_an_undeclared_key(
    params: list[str], pick: int, before: str, after: str, value: Any
) -> None:
    key = params[pick % len(params)]
    tool = _tool("tool_x", {p: {} for p in params})
    args_text = json.dumps({before + key + after: value})
    content = json.dumps({"name": "tool_x", "arguments": json.loads(args_text)})
    out = repair({"content": content}, [tool])
    for call in out.tool_calls:
        assert set(call.arguments or {}) <= set(params)
        assert call.arguments == {key: value}
