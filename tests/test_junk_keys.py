"""A key that holds JSON punctuation is broken structure, never an argument
(junkkeys.py; docs/design.md, promises 4 and 11).

json-repair read ``{"name":"f","parameters{"a"]=["A"]}}`` as
``{"name": "f", 'parameters{"a"]=["A': ''}``, and a schema admitting undeclared keys let
the fragment through as the call's argument. The generator that found it
(tests/test_repair_drops_arguments.py: a call object whose ``"parameters":`` is replaced
by junk around a key and a value) is asserted here against every schema kind: no call
admitted carries an undeclared key holding ``{}[]"``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.junkkeys import JUNK_MARKS, junk_key

_WORD = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)
_VALUE = st.from_regex(r"[A-Za-z][A-Za-z ]{0,15}", fullmatch=True)
_JUNK = st.sampled_from(
    [
        '{"{k}"]="{v}"}}',
        '{{"{k}"]="{v}"}}',
        '{"{k}"]=["{v}"]}}',
        '["{k}"}=["{v}"]}}',
        '{"{k}"]=["{v}"],"{k}2":"{v}"}}',
        '"{"{k}"]=["{v}"]}',
    ]
)
#: How the tool's schema treats keys it does not declare.
_SCHEMAS = st.sampled_from(["open", "closed", "no_properties"])


def _tool(name: str, key: str, schema: str) -> dict[str, Any]:
    if schema == "no_properties":
        return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    extra = {"additionalProperties": False} if schema == "closed" else {}
    return openai_tool(name, {key: {"type": "string"}}, [], **extra)


def test_the_found_example_is_no_call() -> None:
    text = '{"name":"f","parameters{"a"]=["A"]}}'
    out = repair({"content": text}, [_tool("f", "a", "open")])
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert bad.raw == text  # kept, for the LLM fixer (promise 6)


@settings(max_examples=200, deadline=None)
@given(_WORD, _WORD, _VALUE, _JUNK, _SCHEMAS)
def test_no_admitted_call_carries_a_junk_key(
    name: str, key: str, value: str, junk: str, schema: str
) -> None:
    text = '{"name":"' + name + '","parameters' + junk.replace("{k}", key).replace("{v}", value)
    tool = _tool(name, key, schema)
    declared = tool["function"]["parameters"].get("properties", {})
    for call in repair({"content": text}, [tool]).tool_calls:
        assert call.arguments, text
        assert all(k in declared or JUNK_MARKS.isdisjoint(k) for k in call.arguments), text


@given(
    st.dictionaries(st.text(max_size=8), st.integers(), max_size=4), st.sets(st.text(max_size=8))
)
def test_junk_key_names_exactly_the_undeclared_keys_with_json_punctuation(
    args: dict[str, int], declared: set[str]
) -> None:
    found = junk_key(args, dict.fromkeys(declared))
    bad = [k for k in args if k not in declared and not JUNK_MARKS.isdisjoint(k)]
    assert found == (bad[0] if bad else None)


@settings(max_examples=60, deadline=None)
@given(_WORD, _VALUE)
def test_a_declared_key_with_punctuation_is_an_argument(name: str, value: str) -> None:
    key = "items[0]"  # a schema may declare such a key: it is then a name
    tool = openai_tool(name, {key: {"type": "string"}}, [])
    text = '{"name": "' + name + '", "arguments": {"' + key + '": "' + value + '"}}'
    out = repair({"content": text}, [tool])
    assert [(c.name, c.arguments) for c in out.tool_calls] == [(name, {key: value})]
