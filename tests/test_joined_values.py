"""A JSON string value joined to more with ``+`` is an expression, not JSON
(jsonparse.py, ``_JOINED``): gpt-oss-20b on vLLM wrote
``{"name":"CERTIFICATE","value":"MIIF…ESG"+"A".repeat(1001)}`` (bbrowning/bfcl-vllm-results,
BFCL java_47), and the JSON repair read it as one string glued across the quotes:
``MIIF…ESG"+"A``, wrong data in a valid call. Now the call is invalid with its raw text
(promise 6); strings that hold ``+`` or an escaped ``" + "`` are read back exactly, in
broken JSON too.

A number joined to an operand by an operator is the same class (``"x": 10 - 5``:
Qwen2.5-7B, joerosh/BFCL-hardware-efficiency-study; the repair read ``10``): the call is
invalid, and numbers written inside strings (``"1-2"``, a date) are read back exactly.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "put",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
                "required": ["name"],
            },
        },
    }
]
_text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters='"\\'),
    min_size=1,
    max_size=16,
).filter(lambda v: not v.endswith((" ", "\t")))
_tails = st.sampled_from(['"A".repeat(1001)', '"B"', "suffix", "String(n)", '"x" + "y"'])


def _native(arguments: str) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "put", "arguments": arguments}}
    return {"content": None, "tool_calls": [call]}


@settings(max_examples=200, deadline=None)
@given(_text, _text, _tails, st.sampled_from(["+", " + ", "+ "]))
def test_a_joined_value_is_no_call(name: str, head: str, tail: str, plus: str) -> None:
    text = '{"name": ' + json.dumps(name) + ', "value": "' + head + '"' + plus + tail + "}"
    out = repair(_native(text), TOOLS)
    assert out.tool_calls == [], text
    [bad] = out.invalid_tool_calls
    assert text in bad.raw


@settings(max_examples=200, deadline=None)
@given(_text, st.sampled_from(["+", "a + b", 'say "x" + "y"', "c++", "1+1=2", '"+"']))
def test_a_string_that_holds_a_plus_is_read_back(name: str, value: str) -> None:
    args = {"name": name, "value": value}
    for text in (json.dumps(args), json.dumps(args)[:-1] + ",}"):  # valid, then repaired
        out = repair(_native(text), TOOLS)
        assert [(c.name, c.arguments) for c in out.tool_calls] == [("put", args)], text


COUNT = [
    {
        "type": "function",
        "function": {
            "name": "count",
            "parameters": {
                "type": "object",
                "properties": {"n": {"type": "number"}, "note": {"type": "string"}},
                "required": ["n"],
            },
        },
    }
]
_numbers = st.one_of(st.integers(-999, 999).map(str), st.sampled_from(["1.5", "-0.25", "10"]))


@settings(max_examples=200, deadline=None)
@given(
    _numbers,
    st.sampled_from(["-", "+", "*", "/"]),
    st.one_of(_numbers.filter(lambda n: not n.startswith("-")), st.just("x")),
    st.sampled_from(["", " "]),
    st.booleans(),
)
def test_a_number_joined_by_an_operator_is_no_call(
    left: str, op: str, right: str, gap: str, tagged: bool
) -> None:
    body = '{"name": "count", "arguments": {"n": ' + left + gap + op + gap + right + "}}"
    text = f"<tool_call>{body}</tool_call>" if tagged else body
    out = repair(text, COUNT)
    assert out.tool_calls == [], text
    if tagged:
        [bad] = out.invalid_tool_calls
        assert body in bad.raw


@settings(max_examples=200, deadline=None)
@given(_numbers, st.sampled_from(["1-2", "2024-01-05", "a: 3 - 4", "[1, -2]", "10/5"]))
def test_numbers_in_strings_are_read_back(n: str, note: str) -> None:
    args = {"n": json.loads(n), "note": note}
    for text in (json.dumps(args), json.dumps(args)[:-1] + ",}"):  # valid, then repaired
        call = {"id": "c1", "type": "function", "function": {"name": "count", "arguments": text}}
        out = repair({"content": None, "tool_calls": [call]}, COUNT)
        assert [(c.name, c.arguments) for c in out.tool_calls] == [("count", args)], text
