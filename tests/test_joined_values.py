"""A JSON string value joined to more with ``+`` is an expression, not JSON
(jsonparse.py, ``_JOINED``): gpt-oss-20b on vLLM wrote
``{"name":"CERTIFICATE","value":"MIIF…ESG"+"A".repeat(1001)}`` (bbrowning/bfcl-vllm-results,
BFCL java_47), and the JSON repair read it as one string glued across the quotes:
``MIIF…ESG"+"A``, wrong data in a valid call. Now the call is invalid with its raw text
(promise 6); strings that hold ``+`` or an escaped ``" + "`` are read back exactly, in
broken JSON too.
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
