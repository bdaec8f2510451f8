"""A call's id written between its name and its arguments, as a client displays a call
it made and a model copies the display (anchored.py, ``_CALL_ID``):

- ``[Tool Call: gateway (ID: gateway_1768372099304_19)] Arguments: { "action": … }``
  (gemini-3-flash in OpenClaw, openclaw/openclaw issue 893);
- ``[Tool Call] name=run-command id=3d4e… args={"command": …}`` (Ornith-1.5-9B in Onyx,
  onyx-dot-app/onyx issue 14931).

Before, the id stood where the schema-anchored reader looked for the arguments, and
neither was read. The id is skipped, never read as an argument, unless the tool declares
a parameter named ``id`` (then it is one). Every cut is no valid call (promise 9).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair


def _tool(name: str, *params: str) -> dict[str, Any]:
    props = {p: {"type": "string"} for p in params}
    schema = {"type": "object", "properties": props, "required": [params[0]]}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


TOOLS = [_tool("gateway", "action", "note"), _tool("run-command", "command", "profile")]
_ids = st.from_regex(r"[A-Za-z0-9][\w.:-]{0,29}", fullmatch=True)
_values = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
_DISPLAYS = [
    "[Tool Call: {name} (ID: {id})] Arguments: {args}",
    "[Tool Call: {name} (id: {id})] {args}",
    "[Tool Call] name={name} id={id} args={args}",
    "[Tool Call] name={name} call_id={id} args={args}",
]


@st.composite
def displays(draw: st.DrawFn) -> tuple[str, str, dict[str, str]]:
    tool = draw(st.sampled_from(TOOLS))["function"]
    params = list(tool["parameters"]["properties"])
    args = {params[0]: draw(_values)}
    if draw(st.booleans()):
        args[params[1]] = draw(_values)
    shape = draw(st.sampled_from(_DISPLAYS))
    text = shape.format(name=tool["name"], id=draw(_ids), args=json.dumps(args))
    return text, tool["name"], args


@settings(max_examples=300, deadline=None)
@given(displays())
def test_the_call_is_read_back_exactly(drawn: tuple[str, str, dict[str, str]]) -> None:
    text, name, args = drawn
    out = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in out.tool_calls] == [(name, args)], text


@settings(max_examples=300, deadline=None)
@given(displays(), st.data())
def test_no_cut_is_a_valid_call(
    drawn: tuple[str, str, dict[str, str]], data: st.DataObject
) -> None:
    text, _, _ = drawn
    cut = data.draw(st.integers(1, len(text) - 1))
    assert repair(text[:cut], TOOLS).tool_calls == [], text[:cut]


@settings(max_examples=100, deadline=None)
@given(_ids, _values)
def test_a_declared_id_parameter_is_never_skipped(call_id: str, value: str) -> None:
    tools = [_tool("lookup", "query", "id")]
    text = f"[Tool Call] name=lookup id={call_id} args={json.dumps({'query': value})}"
    for call in repair(text, tools).tool_calls:
        assert call.arguments.get("id") == call_id, text  # read as the argument, or no call
