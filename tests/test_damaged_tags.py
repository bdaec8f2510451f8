"""Damaged tag families, read by what the family and the tools declare (issue 28).

Three classes, each with the public outputs it comes from:

- an argument element's word misspelt by one edit (MiniMax ``<paramete name="urls">``,
  hermes-agent issue 28647): read as the grammar's word, with a record saying so; a
  word two edits away, or one outside an ``<invoke>``, is not;
- a GLM value whose ``<arg_value>`` opener was left out (GLM-5.2, vllm issue 49248):
  the value runs to its ``</arg_value>``; it used to be read as ``""``, a valid call
  with an empty query;
- a Qwen3-Coder call whose one parameter's opener was left out
  (``<function=exec>code</parameter></function>``: mimo-v2.6, lidge-jun/opencodex
  issue 5499): the value goes to the tool's only parameter when that is a required
  string, and to nothing otherwise.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import Response, repair

_URLS = {
    "type": "function",
    "function": {
        "name": "web_extract",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
        },
    },
}


_SEARCH = openai_tool("search", {"query": {"type": "string"}}, ["query"])
_EXEC = openai_tool("exec", {"input": {"type": "string"}}, ["input"])
_TWO = openai_tool("exec", {"input": {"type": "string"}, "cwd": {"type": "string"}}, ["input"])
_INT = openai_tool("exec", {"input": {"type": "integer"}}, ["input"])


def _calls(text: str, tools: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    out = repair({"role": "assistant", "content": text}, tools)
    return [(p.name, dict(p.arguments or {})) for p in out.parts if p.type == "tool_call"]


def _response(text: str, tools: list[dict[str, Any]]) -> Response:
    return repair({"role": "assistant", "content": text}, tools)


#: Values with no markup in them, not blank (the element readers strip values).
_VALUES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<>&"),
    min_size=1,
    max_size=40,
).filter(lambda v: v.strip() == v and v != "" and "..." not in v)


def _one_edit(word: str, data: st.DataObject) -> str:
    """``word`` with one edit past its first letter: a deletion, a substitution, an
    insertion or two neighbours swapped."""
    i = data.draw(st.integers(1, len(word) - 1))
    kind = data.draw(st.sampled_from(["del", "sub", "ins", "swap"]))
    letter = data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    if kind == "del":
        out = word[:i] + word[i + 1 :]
    elif kind == "sub":
        out = word[:i] + letter + word[i + 1 :]
    elif kind == "ins":
        out = word[:i] + letter + word[i:]
    else:
        j = min(i, len(word) - 2)
        out = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
    return out


# ---- misspelt argument elements ------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(data=st.data(), value=_VALUES, close_right=st.booleans())
def test_a_misspelt_parameter_element_is_read_back_exactly(
    data: st.DataObject, value: str, close_right: bool
) -> None:
    word = _one_edit("parameter", data)
    if word == "parameter":
        return
    closer = "parameter" if close_right else word
    text = (
        f'<invoke name="web_extract">\n<{word} name="query">{value}</{closer}>\n'
        f'<parameter name="limit">3</parameter>\n</invoke>'
    )
    out = _response(text, [_URLS])
    calls = [p for p in out.parts if p.type == "tool_call"]
    assert [(c.name, c.arguments) for c in calls] == [("web_extract", {"query": value, "limit": 3})]
    details = [r.detail for r in calls[0].repairs]
    assert f"read the element <{word}> as <parameter>" in details


def test_the_minimax_paste_is_read() -> None:
    tools = [
        openai_tool(
            "web_extract", {"urls": {"type": "array", "items": {"type": "string"}}}, ["urls"]
        )
    ]
    text = (
        '<invoke name="web_extract">\n'
        '<paramete name="urls">["https://arxiv.org/abs/2106.09685"]</paramete>\n'
        "</invoke>\n<minimax:tool_call>"
    )
    assert _calls(text, tools) == [("web_extract", {"urls": ["https://arxiv.org/abs/2106.09685"]})]


def test_two_edits_or_no_key_is_no_argument() -> None:
    for head in ('<parame name="query">', "<paramete>", '<paramete key="query">'):
        text = f'<invoke name="web_extract">\n{head}x</paramete>\n</invoke>'
        assert _calls(text, [_URLS]) == [], head


def test_prose_that_names_a_misspelt_element_is_no_call() -> None:
    text = 'The model wrote <paramete name="query">cats</paramete> instead of the real tag.'
    assert _calls(text, [_URLS]) == []


def test_a_misspelt_element_inside_a_value_is_text() -> None:
    text = (
        '<invoke name="web_extract">\n<parameter name="query">a <paramete name="limit">'
        "3</paramete> b</parameter>\n</invoke>"
    )
    assert _calls(text, [_URLS]) == [
        ("web_extract", {"query": 'a <paramete name="limit">3</paramete> b'})
    ]


# ---- a GLM value without its opener ----------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(value=_VALUES, glued=st.booleans())
def test_a_glm_value_without_its_opener_runs_to_its_closer(value: str, glued: bool) -> None:
    nl = "" if glued else "\n"
    text = f"<tool_call>search{nl}<arg_key>query</arg_key>{nl}{value}</arg_value>{nl}</tool_call>"
    assert _calls(text, [_SEARCH]) == [("search", {"query": value})]


def test_the_glm_paste_is_read_and_not_emptied() -> None:
    text = (
        "<tool_call>search<arg_key>query</arg_key>how many vacation days left"
        "</arg_value></tool_call>"
    )
    assert _calls(text, [_SEARCH]) == [("search", {"query": "how many vacation days left"})]


def test_a_glm_key_without_any_value_is_still_empty() -> None:
    """A key followed by the next key: no value at all (the closer after belongs to the
    next key's value), so the first key keeps the empty value it had."""
    tools = [openai_tool("f", {"a": {"type": "string"}, "b": {"type": "string"}}, ["a", "b"])]
    text = (
        "<tool_call>f<arg_key>a</arg_key><arg_key>b</arg_key><arg_value>x</arg_value></tool_call>"
    )
    assert _calls(text, tools) == [("f", {"a": "", "b": "x"})]


# ---- a one-string tool's value without its parameter opener ---------------------------


@settings(max_examples=80, deadline=None)
@given(value=_VALUES, wrapped=st.booleans())
def test_a_one_string_value_without_its_opener_is_read_back(value: str, wrapped: bool) -> None:
    body = f"<function=exec>\n{value}\n</parameter>\n</function>"
    text = f"<tool_call>{body}</tool_call>" if wrapped else body
    assert _calls(text, [_EXEC]) == [("exec", {"input": value})]


def test_a_bare_value_goes_to_no_parameter_of_a_wider_tool() -> None:
    text = "<tool_call><function=exec>ls -la</parameter></function></tool_call>"
    assert _calls(text, [_TWO]) == []
    assert _calls(text, [_INT]) == []


def test_a_bare_value_with_no_closer_is_cut_off() -> None:
    text = "<tool_call><function=exec>ls -la"
    assert _calls(text, [_EXEC]) == []


# ---- a MiniMax-M3 element without its opener ------------------------------------------

_M3 = "]<]minimax[>["
_SAVE = openai_tool(
    "save_file", {"filename": {"type": "string"}, "content": {"type": "string"}}, ["filename"]
)


@settings(max_examples=80, deadline=None)
@given(first=_VALUES, second=_VALUES)
def test_an_m3_element_without_its_opener_reads_to_the_closer_naming_it(
    first: str, second: str
) -> None:
    text = (
        f'{_M3}<tool_call>{_M3}<invoke name="save_file">{_M3}{first}{_M3}</filename>'
        f"{_M3}<content>{second}{_M3}</content>{_M3}</invoke>{_M3}</tool_call>"
    )
    out = _response(text, [_SAVE])
    calls = [p for p in out.parts if p.type == "tool_call"]
    assert [(c.name, c.arguments) for c in calls] == [
        ("save_file", {"filename": first, "content": second})
    ]
    assert "read the value of 'filename', its opener left out" in [
        r.detail for r in calls[0].repairs
    ]


def test_an_m3_value_with_no_closer_naming_it_is_no_argument() -> None:
    """Text after the namespace token that no closer ends (the output cut off) names no
    argument: the call is not read as complete."""
    text = f'{_M3}<tool_call>{_M3}<invoke name="save_file">{_M3}offerta.docx'
    assert _calls(text, [_SAVE]) == []


# ---- calls and values whose closers were left out, closed by what follows -------------

_LS = openai_tool("ls", {"path": {"type": "string"}}, ["path"])
_Q = openai_tool("search", {"query": {"type": "string"}}, ["query"])


@settings(max_examples=60, deadline=None)
@given(first=_VALUES, second=_VALUES, wrapped=st.booleans())
def test_two_minimax_invokes_the_first_unclosed_are_two_calls(
    first: str, second: str, wrapped: bool
) -> None:
    body = (
        f'<invoke name="search"><parameter name="query">{first}</parameter>\n'
        f'<invoke name="ls"><parameter name="path">{second}</parameter></invoke>'
    )
    text = f"<minimax:tool_call>{body}</minimax:tool_call>" if wrapped else body
    assert _calls(text, [_Q, _LS]) == [("search", {"query": first}), ("ls", {"path": second})]


@settings(max_examples=60, deadline=None)
@given(value=_VALUES, damage=st.sampled_from(["no_param_close", "no_invoke_close", "misspelt"]))
def test_a_minimax_closer_left_out_is_closed_by_what_follows(value: str, damage: str) -> None:
    param_close = {"no_param_close": "", "misspelt": "</paramter>"}.get(damage, "</parameter>")
    invoke_close = "" if damage == "no_invoke_close" else "</invoke>"
    text = (
        f'<minimax:tool_call><invoke name="search"><parameter name="query">{value}'
        f"{param_close}{invoke_close}</minimax:tool_call>"
    )
    assert _calls(text, [_Q]) == [("search", {"query": value})]


def test_end_tags_inside_a_value_stay_text() -> None:
    """A value whose argument closer never comes runs to the call's closer; end tags
    of other elements before it are the value's text, not its end."""
    text = '<invoke name="search"><parameter name="query">a <b>bold</b> word</invoke>'
    assert _calls(text, [_Q]) == [("search", {"query": "a <b>bold</b> word"})]


def test_a_minimax_call_cut_off_is_still_cut_off() -> None:
    for text in (
        '<invoke name="search"><parameter name="query">cats',
        '<invoke name="search"><parameter name="query">cats</parameter>',
        '<invoke name="search"><parameter name="query">cats</b>',
    ):
        assert _calls(text, [_Q]) == [], text


@settings(max_examples=60, deadline=None)
@given(first=_VALUES, second=_VALUES)
def test_two_glm_calls_the_first_unclosed_are_two_calls(first: str, second: str) -> None:
    text = (
        f"<tool_call>search<arg_key>query</arg_key><arg_value>{first}</arg_value>\n"
        f"<tool_call>ls<arg_key>path</arg_key><arg_value>{second}</arg_value></tool_call>"
    )
    assert _calls(text, [_Q, _LS]) == [("search", {"query": first}), ("ls", {"path": second})]
