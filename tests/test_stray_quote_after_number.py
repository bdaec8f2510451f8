"""A stray ``"`` after a call's last number, with only closing brackets after it
(``{"a": 1, "b": 2"}``): the brackets close the value, so the quote is dropped and the
call read (quickfix.py). Two sources: gpt-oss-20b on vLLM (bbrowning/bfcl-vllm-results,
BFCL ``multiple_33``) and functionary-small-v3.2 (the BFCL result dump of 2024-08-11),
both in ``benchmarks/corpora/verbatim_anchored.jsonl``.

Before, the quote was read as a string opened and never closed: the call was refused as
cut off. A text that ends at the quote, before any closer, still is (promise 9).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair

_KEYS = ["a", "b", "c", "period_in_years", "func"]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calc",
            "parameters": {
                "type": "object",
                "properties": {k: {"type": "string" if k == "func" else "number"} for k in _KEYS},
            },
        },
    }
]
_numbers = st.one_of(
    st.integers(-(10**6), 10**6), st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: round(f, 3))
)


@st.composite
def arguments(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """Arguments whose last member is a number, written with a stray quote after it."""
    keys = draw(st.lists(st.sampled_from(_KEYS[:4]), min_size=1, max_size=4, unique=True))
    args: dict[str, Any] = {k: draw(_numbers) for k in keys}
    if draw(st.booleans()):
        args = {"func": draw(st.text("x*+-23 ", min_size=1, max_size=8)), **args}
    sep = draw(st.sampled_from([",", ", "]))
    body = sep.join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in args.items())
    gap = draw(st.sampled_from(["", " ", "\n"]))
    return args, "{" + body + '"' + gap + "}"


def _native(arguments_text: str) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": ""}}
    call["function"]["arguments"] = arguments_text
    return {"content": None, "tool_calls": [call]}


@settings(max_examples=200, deadline=None)
@given(arguments())
def test_the_call_is_read_back_exactly(drawn: tuple[dict[str, Any], str]) -> None:
    args, text = drawn
    for response in (
        _native(text),
        '<tool_call>{"name": "calc", "arguments": ' + text + "}</tool_call>",
    ):
        out = repair(response, TOOLS)
        assert [(c.name, c.arguments) for c in out.tool_calls] == [("calc", args)], text
        assert out.invalid_tool_calls == []


@settings(max_examples=200, deadline=None)
@given(arguments())
def test_a_text_that_ends_at_the_quote_is_no_call(drawn: tuple[dict[str, Any], str]) -> None:
    _, text = drawn
    cut = text[: text.rindex('"') + 1]  # ``{"a": 1, "b": 2"``: no closer came
    out = repair(_native(cut), TOOLS)
    assert out.tool_calls == []
    [bad] = out.invalid_tool_calls
    assert cut in bad.raw  # (the raw text is kept)
    assert bad.kind == "truncated"
