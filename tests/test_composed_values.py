"""A value written as a call expression is a placeholder, not a value (issue 28).

ollama/ollama#8517: DeepSeek-R1-Distill composes nested calls, ``"first Date":
get_current_date (), "last_Date": birthdate ({user: "Oliver"})``; Meta's Llama 3.1/3.2
chat templates tell the model "Do not use variables." for that reason. json-repair read
the bare words as strings, and ``date_difference`` ran with ``"get_current_date ()"`` as
a date. ``elision.composed_at`` refuses such a text before repair, like a bare ``...``;
a quoted ``"f()"`` is a string like any other."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.elision import composed_at

TOOLS: list[dict[str, Any]] = [
    openai_tool(
        "date_difference",
        {"first_date": {"type": "string"}, "last_date": {"type": "string"}},
        ["first_date", "last_date"],
    )
]

_IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}(\.[a-z_]{1,6}){0,2}", fullmatch=True)
_ARGS = st.sampled_from(["", '{user: "Oliver"}', "'x', 2", '"2024-01-01"', "get_x()"])
_WRAPS = (
    '{{"name": "date_difference", "arguments": {{"first_date": {e}, "last_date": "2024-01-01"}}}}',
    '{{"name": "date_difference", "parameters": {{"first_date": "2024-01-01", "last_date": {e}}}}}',
    '<tool_call>\n{{"name": "date_difference", "arguments": {{"first_date": {e}, '
    '"last_date": {e}}}}}\n</tool_call>',
)


@settings(max_examples=300, deadline=None)
@given(_IDENT, _ARGS, st.sampled_from(["", " "]), st.sampled_from(_WRAPS))
def test_a_composed_value_gives_no_valid_call(fn: str, args: str, gap: str, wrap: str) -> None:
    expr = f"{fn}{gap}({args})"
    text = wrap.format(e=expr)
    fixed = repair({"content": text}, TOOLS)
    assert fixed.tool_calls == [], text
    for call in fixed.invalid_tool_calls:
        assert call.raw  # refused with its raw text, never dropped


@settings(max_examples=200, deadline=None)
@given(_IDENT, _ARGS, st.sampled_from(["", " "]))
def test_the_same_expression_quoted_is_a_string(fn: str, args: str, gap: str) -> None:
    expr = json.dumps(f"{fn}{gap}({args})")
    text = _WRAPS[0].format(e=expr).replace('"name"', "name")  # (broken: repaired)
    fixed = repair({"content": text}, TOOLS)
    assert [dict(c.arguments or {}) for c in fixed.tool_calls] == [
        {"first_date": json.loads(expr), "last_date": "2024-01-01"}
    ], text


@given(st.text(alphabet=st.sampled_from("ab (){}[]:,\"'\\. \n"), max_size=40))
def test_composed_at_points_at_an_opener_outside_strings(text: str) -> None:
    at = composed_at(text)
    assert at == -1 or (text[at] in "[:," and "(" in text[at:])


def test_the_ollama_8517_output_is_no_call() -> None:
    declared = {
        "birthdate": {"user": {"type": "string"}},
        "date_difference": {"first_date": {"type": "string"}, "last_date": {"type": "string"}},
        "get_current_date": {},
    }
    tools = [openai_tool(name, props, list(props)) for name, props in declared.items()]
    content = (
        '</think>\n\n{\n "name": "date_ difference",\n "parameters": {\n  "first Date": '
        'get_current_date (),\n  "last_Date": birthdate ({user: "Oliver"})\n }\n}'
    )
    fixed = repair({"content": content}, tools)
    assert fixed.tool_calls == []
