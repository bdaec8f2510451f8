"""json-repair may keep a call object's name and drop everything after it
(``{"name":"get_weather","parameters{"key"]="Tokyo"}}`` comes back
``{"name": "get_weather"}``: llama3.2:3b in llama-stack's test recordings). The call
would then pass as one without arguments, every argument dropped: promise 11 says such a
call is never admitted as ``{}``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

_WORD = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True)
_VALUE = st.from_regex(r"[A-Za-z][A-Za-z ]{0,15}", fullmatch=True)
_JUNK = st.sampled_from(['{"{k}"]="{v}"}}', '{{"{k}"]="{v}"}}', '{"{k}"]=["{v}"]}}'])


def _tools(name: str, key: str) -> list[dict[str, Any]]:
    return [openai_tool(name, {key: {"type": "string"}}, [])]


def test_the_recorded_output_is_no_call_without_arguments() -> None:
    text = '{"name":"get_weather","parameters{"key"]="Tokyo"}}'
    out = repair({"content": text}, _tools("get_weather", "city"))
    assert out.tool_calls == []
    assert out.text == text  # kept as written, for the LLM fixer


@given(_WORD, _WORD, _VALUE, _JUNK)
def test_a_call_whose_arguments_the_repair_dropped_is_never_admitted_empty(
    name: str, key: str, value: str, junk: str
) -> None:
    text = '{"name":"' + name + '","parameters' + junk.replace("{k}", key).replace("{v}", value)
    out = repair({"content": text}, _tools(name, key))
    assert all(c.arguments for c in out.tool_calls), text


@given(_WORD, _WORD)
def test_a_call_written_with_its_name_alone_is_still_read(name: str, key: str) -> None:
    # a tool whose parameters are all optional, called with none: no argument was dropped
    for text in (json.dumps({"name": name}), '{"name": "' + name + '",}'):
        out = repair({"content": text}, _tools(name, key))
        assert [(c.name, c.arguments) for c in out.tool_calls] == [(name, {})], text
