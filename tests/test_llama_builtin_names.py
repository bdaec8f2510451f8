"""Llama's built-in tool calls name the tool before ``.call``.

Llama 3.1-3.3 invoke a built-in tool as ``<|python_tag|>brave_search.call(query="...")``
(Meta's prompt format; meta-llama/llama-models' prompt_format.md records it, and the
llama-cookbook notebook records Llama 3.3 70B on Groq writing it). The ``.call`` method is
how the tool is invoked, not part of its name: the call is the offered ``brave_search``.
The name is still matched as every name is (promise 4): a tool that is not offered is not
made up, and a tool offered under the whole dotted name keeps it.
"""

from __future__ import annotations

import json

from conftest import openai_tool
from hypothesis import given
from hypothesis import strategies as st

from toolfix import repair

QUERY = {"query": {"type": "string"}}

names = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True).filter(
    lambda n: n not in {"call", "other_tool"}
)
queries = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40
)
ends = st.sampled_from(["<|eom_id|>", "<|eot_id|>", ""])


def _text(name: str, query: str, end: str) -> str:
    # a double-quoted Python string literal (JSON escapes are valid Python escapes here)
    return f"<|python_tag|>{name}.call(query={json.dumps(query, ensure_ascii=False)}){end}"


@given(names, queries, ends)
def test_builtin_call_names_the_offered_tool(name: str, query: str, end: str) -> None:
    tools = [openai_tool(name, QUERY, ["query"]), openai_tool("other_tool", QUERY, ["query"])]
    r = repair(_text(name, query, end), tools)
    assert [(c.name, c.arguments) for c in r.tool_calls] == [(name, {"query": query})]
    assert not r.invalid_tool_calls


@given(names, queries)
def test_a_tool_offered_under_the_dotted_name_keeps_it(name: str, query: str) -> None:
    dotted = f"{name}.call"
    tools = [openai_tool(dotted, QUERY, ["query"]), openai_tool(name, QUERY, ["query"])]
    r = repair(_text(name, query, "<|eom_id|>"), tools)
    assert [(c.name, c.arguments) for c in r.tool_calls] == [(dotted, {"query": query})]


@given(names, queries)
def test_an_unoffered_builtin_is_not_made_up(name: str, query: str) -> None:
    # promise 4: the name is matched, never renamed to another tool
    r = repair(_text(name, query, "<|eom_id|>"), [openai_tool("other_tool", QUERY, ["query"])])
    assert r.tool_calls == []
