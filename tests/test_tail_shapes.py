"""Four classes of the recall tail, each read by what the registry or the format
declares (docs/finding-calls.md), each with its hypothesis generators:

* Gemma's keyed body ``name(key: value)`` written right after a family's call opener
  (``<tool_call>get_weather(city: Antwerp)</tool_call>``: gemma3:1b in
  MikeVeerman/tool-calling-benchmark; Gemma 4's round-bracket body, hermes-agent pull
  7449; bare tokens as raw strings, lablup/mlxcel issue 769): bare words are values;
  a type's name is a signature, and prose is no call;
* MiniMax M3's namespace token ``]<]minimax[>[`` is a registry marker: a value the
  anchored reader reads never holds part of it (llama.cpp pull 24523);
* a key/value call whose opener alone is gone, its closer left
  (``bash<arg_key>…</arg_value></tool_call><tool_call>…``: anomalyco/opencode issue
  14842, THUDM/GLM issue 224), read before the calls read as written;
* a list's ``]`` right after the last member of an object in it closes both (vllm
  issue 19056, ranxianglei/billion-context-pi issue 253), never read as a cut.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.streamcheck import assert_stream_adds_up
from tests.tooldefs import openai_tool
from toolfix import Limits, repair
from toolfix._messages import InvalidToolCallPart, ToolCallPart
from toolfix._repair.elision import is_placeholder
from toolfix._repair.jsonparse import parse_lenient

WEATHER = openai_tool("get_weather", {"city": {"type": "string"}}, ["city"])
FILES = openai_tool("search_files", {"pattern": {"type": "string"}}, ["pattern"])
BASH = openai_tool(
    "bash",
    {"command": {"type": "string"}, "description": {"type": "string"}},
    ["command", "description"],
)
TOOLS = [WEATHER, FILES, BASH]
M3 = "]<]minimax[>["

#: A bare word a model writes as a value: letters, digits and a few marks, no
#: character that ends a keyed value (``,``, ``)``, ``}``) or opens markup.
#: Bare words a keyed body reads as no value: booleans, nulls, and a type's name
#: (``get_weather(city: boolean)`` is a signature, not a call).
_NOT_VALUES = frozenset(
    [
        "true",
        "false",
        "null",
        "none",
        "string",
        "str",
        "number",
        "integer",
        "int",
        "float",
        "boolean",
        "bool",
        "object",
        "array",
        "list",
        "dict",
        "any",
    ]
)
_BARE = st.text(
    alphabet=st.characters(
        whitelist_categories=("L", "Nd"), whitelist_characters="._-/*", max_codepoint=0x2FFF
    ),
    min_size=1,
    max_size=24,
).filter(lambda s: not is_placeholder(s) and s.casefold() not in _NOT_VALUES)
#: A value of an element or a pair: any text on one line, no markup character.
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<>&[]"),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip() == s and not is_placeholder(s))


def _parts(content: str, tools: list[dict[str, Any]] = TOOLS) -> list[Any]:
    return [
        p
        for p in repair({"content": content, "tool_calls": []}, tools).parts
        if isinstance(p, ToolCallPart | InvalidToolCallPart)
    ]


def _valid(content: str) -> list[tuple[str, dict[str, Any]]]:
    return [(p.name, p.arguments) for p in _parts(content) if isinstance(p, ToolCallPart)]


# ---- Gemma's keyed body after a call opener ---------------------------------------------


@settings(max_examples=60, deadline=None)
@given(value=_BARE, opener=st.sampled_from(["<tool_call>", "<tool_call>\n"]))
def test_a_keyed_body_with_a_bare_value_after_a_call_opener_is_read_back_exactly(
    value: str, opener: str
) -> None:
    content = f"{opener}get_weather(city: {value})</tool_call>"
    assert _valid(content) == [("get_weather", {"city": value})]


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["string", "str", "String", "any"]),
    shape=st.sampled_from(["<tool_call>{c}</tool_call>", "{c}", "1. {c}", "Use `{c}`."]),
)
def test_a_signature_or_prose_that_writes_a_keyed_body_is_not_a_call(kind: str, shape: str) -> None:
    assert _valid(shape.format(c=f"get_weather(city: {kind})")) == []


@settings(max_examples=40, deadline=None)
@given(value=_BARE)
def test_a_keyed_body_with_no_call_opener_before_it_is_not_a_call(value: str) -> None:
    for content in (
        f"get_weather(city: {value})",
        f"I would call get_weather(city: {value}) next.",
    ):
        assert _valid(content) == []


def test_a_python_keyword_with_a_bare_name_stays_code_after_an_opener() -> None:
    """``city=Antwerp`` is a name in code (the pythonic rule), only ``:`` is keyed."""
    assert _valid("<tool_call>get_weather(city=Antwerp)</tool_call>") == []


# ---- MiniMax M3's namespace token --------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(value=_TEXT, cut=st.sampled_from([0, 1, len(M3)]))
def test_an_m3_call_whose_first_token_is_cut_is_read_without_the_token(
    value: str, cut: int
) -> None:
    """The namespace token before ``<tool_call>`` whole, cut to its ``<]minimax[>[`` (a
    quote that starts at its ``<``: llama.cpp pull 24523), or left out: the value never
    keeps the token's ``]``. (A cut that leaves ``]minimax[>[`` on the wrapper's line
    leaves the family reader's invalid call: the line is no markup the anchored reader
    may take into its span.)"""
    content = (
        f'{M3[cut:]}<tool_call>\n{M3}<invoke name="bash">{M3}<command>{value}{M3}</command>'
        f"{M3}<description>d{M3}</description>{M3}</invoke>\n{M3}</tool_call>"
    )
    assert _valid(content) == [("bash", {"command": value, "description": "d"})]


# ---- a key/value call whose opener alone is gone --------------------------------------


def _glm(name: str, pairs: dict[str, str]) -> str:
    body = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in pairs.items())
    return f"{name}{body}"


@settings(max_examples=60, deadline=None)
@given(command=_TEXT, description=_TEXT, second=_TEXT)
def test_a_glm_call_whose_opener_alone_is_gone_is_read_back_exactly(
    command: str, description: str, second: str
) -> None:
    first = _glm("bash", {"command": command, "description": description})
    content = f"{first}</tool_call><tool_call>{_glm('bash', {'command': second})}</tool_call>"
    parts = _parts(content)
    assert [(p.name, p.arguments) for p in parts if isinstance(p, ToolCallPart)] == [
        ("bash", {"command": command, "description": description})
    ]
    # the second call lacks a required argument: reported invalid, never dropped
    assert [type(p) for p in parts] == [ToolCallPart, InvalidToolCallPart]


@settings(max_examples=30, deadline=None)
@given(command=_TEXT, cuts=st.lists(st.integers(0, 200), max_size=4))
def test_a_glm_call_whose_opener_alone_is_gone_streams_as_it_repairs(
    command: str, cuts: list[int]
) -> None:
    first = _glm("bash", {"command": command, "description": "d"})
    content = f"{first}</tool_call><tool_call>{_glm('bash', {'command': 'x'})}</tool_call>"
    assert_stream_adds_up(content, TOOLS, cuts)


def test_a_key_tag_after_a_call_opener_is_the_familys_own_call() -> None:
    """An opener before the key: the family reader reads it as written (no restore)."""
    content = "<tool_call>" + _glm("bash", {"command": "ls", "description": "d"}) + "</tool_call>"
    assert _valid(content) == [("bash", {"command": "ls", "description": "d"})]


def test_a_key_tag_whose_name_is_no_tool_stays_text() -> None:
    content = _glm("rm_everything", {"command": "ls"}) + "</tool_call>"
    assert _valid(content) == []


# ---- a list's closer for an object left open ----------------------------------------------


_ITEMS = st.lists(st.fixed_dictionaries({"h2": _TEXT, "guideline": _TEXT}), min_size=1, max_size=4)


@settings(max_examples=80, deadline=None)
@given(items=_ITEMS, after=st.sampled_from(["", ', "n": 1']))
def test_a_lists_closer_after_an_object_left_open_is_read_back_exactly(
    items: list[dict[str, str]], after: str
) -> None:
    whole = json.dumps({"outline": items}, ensure_ascii=False)
    damaged = whole[: -len("}]}")] + "]" + after + "}"  # the last object's } left out
    parsed = parse_lenient(damaged, Limits(), cut=False)
    want = {"outline": items, **({"n": 1} if after else {})}
    assert parsed.value == want
    assert not parsed.truncated
    assert "left open before its list's closer" in (parsed.note or "")


@settings(max_examples=40, deadline=None)
@given(value=st.integers(-1000, 1000))
def test_a_miswritten_closer_after_a_number_stays_a_cut(value: int) -> None:
    """``{"a": [1, 2}``: a list's ``]`` miswritten as ``}`` and the object's own ``}``
    missing reads the same as a cut: still truncated (promise 9)."""
    parsed = parse_lenient(f'{{"a": [1, {value}}}', Limits(), cut=False)
    assert parsed.truncated


@settings(max_examples=30, deadline=None)
@given(
    value=_BARE,
    cuts=st.lists(st.integers(0, 80), max_size=4),
    shape=st.sampled_from(
        [
            "<tool_call>get_weather(city: {v})</tool_call>",
            "<]minimax[>[<tool_call>\n" + M3 + '<invoke name="get_weather">' + M3 + "<city>{v}"
            f"{M3}</city>{M3}</invoke>\n{M3}</tool_call>",
        ]
    ),
)
def test_the_keyed_body_and_the_m3_token_stream_as_they_repair(
    value: str, cuts: list[int], shape: str
) -> None:
    assert_stream_adds_up(shape.replace("{v}", value), TOOLS, cuts)
