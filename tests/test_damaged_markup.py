"""Damaged model-native markup, read by what the family registry declares.

Each class of damage comes with its sources (benchmarks/corpora/SOURCES.md, "Damaged
markup read by the registry"): a damaged call whose values are drawn by hypothesis is
read back exactly, and prose that only mentions the markup is not a call.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.streamcheck import assert_stream_adds_up
from tests.tooldefs import openai_tool
from toolfix import repair
from toolfix._repair.elision import is_placeholder
from toolfix._repair.families import markup_start, noise_markers
from toolfix._repair.specs import ALL_SPECS
from toolfix._repair.stripped import Restorer

WEATHER = openai_tool("get_weather", {"location": {"type": "string"}}, ["location"])
TERMINAL = openai_tool(
    "terminal",
    {"command": {"type": "string"}, "timeout": {"type": "integer"}},
    ["command"],
)
SHELL = openai_tool("send_command_to_shell", {"command": {"type": "string"}}, ["command"])
GLOB = openai_tool("glob", {"pattern": {"type": "string"}}, ["pattern"])
NO_ARGS = openai_tool("get_financial_overview", {}, [])
SPACED = openai_tool("Web Search", {"query": {"type": "string"}}, ["query"])
WEB = openai_tool(
    "aio-webcontent", {"url": {"type": "string"}, "diff": {"type": "boolean"}}, ["url"]
)

#: A value as a model writes one on a line: no markup, no line break, not blank, not a
#: placeholder (``...``, ``f(``: elision.py refuses those in a damaged call).
#: (ASCII and CJK: a letter whose case folding changes its length, "İ", trips the
#: anchored reader's offsets; reported, not this file's subject.)
VALUE = (
    st.text(
        st.sampled_from(string.ascii_letters + string.digits + " /._-:?=&%+,()'支持的平台"),
        min_size=1,
        max_size=40,
    )
    .map(str.strip)
    .filter(lambda v: v and not is_placeholder(v) and "  " not in v)
)


def _calls(text: str, tools: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    out = repair({"role": "assistant", "content": text}, tools)
    return [(c.name, c.arguments) for c in out.tool_calls]


# ---- a family's tags with their angle brackets stripped (stripped.py) -------------------


@settings(max_examples=150, deadline=None)
@given(VALUE, st.integers(0, 10**6))
def test_dsml_stripped_by_a_chat_ui_is_read_back(command: str, timeout: int) -> None:
    # hermes-agent#115475: DSML through Telegram, brackets and fullwidth bars gone
    text = (
        'DSML | tool_calls\nDSML | invoke name="terminal"\n'
        f'DSML | parameter name="command" string="true"\n{command}\n'
        f'DSML | parameter name="timeout" string="false"\n{timeout}\n'
        "DSML | /parameter\nDSML | /invoke\nDSML | /tool_calls"
    )
    assert _calls(text, [TERMINAL]) == [("terminal", {"command": command, "timeout": timeout})]


@settings(max_examples=150, deadline=None)
@given(VALUE.filter(lambda v: not v.endswith("parameter")))
def test_minimax_without_its_opening_brackets_is_read_back(city: str) -> None:
    # exo#1882: MiniMax with every "<" lost
    text = f'invoke name="get_weather">\nparameter name="location">{city}parameter>\ninvoke>'
    assert _calls(text, [WEATHER]) == [("get_weather", {"location": city})]


def test_a_stripped_call_needs_its_call_tag_closed_and_an_offered_name() -> None:
    cut = 'invoke name="get_weather">\nparameter name="location">Paris'
    assert _calls(cut, [WEATHER]) == []
    other = 'invoke name="get_time">\nparameter name="location">Parisparameter>\ninvoke>'
    assert _calls(other, [WEATHER]) == []


@pytest.mark.parametrize(
    "text",
    [
        'To call it, write invoke name="get_weather" and then parameter name="location".',
        'The template emits: invoke name="get_weather">\nparameter name="location">Paris',
        "DSML is the name of DeepSeek's markup; invoke and parameter are its tags.",
    ],
)
def test_prose_that_mentions_the_tag_words_is_not_a_call(text: str) -> None:
    assert _calls(text, [WEATHER]) == []
    assert repair({"role": "assistant", "content": text}, [WEATHER]).text == text


def test_the_stream_holds_where_a_stripped_call_may_begin() -> None:
    text = 'Checking.\ninvoke name="get_weather">\nparameter name="location">Oslo'
    text += "parameter>\ninvoke>\nDone."
    assert_stream_adds_up(text, [WEATHER], list(range(1, len(text))))
    head = markup_start().search(text)
    assert head is not None
    assert head.start() == text.index("invoke")


def test_the_restorer_reads_its_words_from_the_registry() -> None:
    r = Restorer(ALL_SPECS)
    assert any("invoke" in h for h in r.heads)
    assert any("DSML" in h for h in r.heads)
    assert r.restore("no markup here", lambda n: True) is None


# ---- a family's prefix on another family's elements (noise_markers) --------------------


@settings(max_examples=100, deadline=None)
@given(VALUE)
def test_dsml_prefix_on_tool_named_elements_is_noise(url: str) -> None:
    # pi-free#376: the tool's name as a DSML-prefixed tag, one child element per argument
    text = (
        f"<｜DSML｜aio-webcontent>\n <url>{url}</url>\n <diff>false</diff>\n"
        "</｜DSML｜aio-webcontent>"
    )
    assert _calls(text, [WEB]) == [("aio-webcontent", {"url": url, "diff": False})]


def test_noise_markers_are_the_registry_prefixes() -> None:
    noise = noise_markers()
    assert "｜DSML｜" in noise
    assert "steptml:" in noise
    assert not any(m.startswith("<") for m in noise)


# ---- a key/value family's opener left out or its call tokens gone (keyvalue, stripped) --


@settings(max_examples=150, deadline=None)
@given(VALUE)
def test_glm_key_glued_to_the_name_is_read_back(command: str) -> None:
    # vllm PR 47190: GLM-4.7 left out the first <arg_key>
    text = (
        "<tool_call>send_command_to_shellcommand</arg_key>"
        f"<arg_value>{command}</arg_value></tool_call>"
    )
    assert _calls(text, [SHELL]) == [("send_command_to_shell", {"command": command})]


def test_glm_glued_key_needs_an_offered_name_and_a_real_value() -> None:
    text = "<tool_call>run_shellcommand</arg_key><arg_value>ls</arg_value></tool_call>"
    assert _calls(text, [SHELL]) == []
    elided = (
        "<tool_call>send_command_to_shellcommand</arg_key><arg_value>...</arg_value></tool_call>"
    )
    assert _calls(elided, [SHELL]) == []


@settings(max_examples=150, deadline=None)
@given(VALUE, st.booleans())
def test_glm_body_without_its_call_tokens_is_read_back(pattern: str, newline: bool) -> None:
    # mlx-lm#607 (name on its own line), GLM-5#84 (name glued to the first key)
    sep = "\n" if newline else ""
    text = f"glob{sep}<arg_key>pattern</arg_key>{sep}<arg_value>{pattern}</arg_value>"
    assert _calls(text, [GLOB]) == [("glob", {"pattern": pattern})]
    assert_stream_adds_up(text, [GLOB], [3, 9, len(text) // 2])


def test_a_glm_body_inside_a_sentence_is_not_a_call() -> None:
    text = "The parser matches glob<arg_key>pattern</arg_key><arg_value>*.md</arg_value> pairs"
    assert _calls(text, [GLOB]) == []


# ---- a family's name slot holding an offered name with spaces ---------------------------


@settings(max_examples=100, deadline=None)
@given(VALUE.filter(lambda v: '"' not in v))
def test_harmony_recipient_with_a_space_in_the_name(query: str) -> None:
    # lmstudio-bug-tracker#876
    text = (
        "<|start|>assistant<|channel|>commentary to=functions.Web Search <|constrain|>json"
        f'<|message|>{{"query": "{query}"}}'
    )
    assert _calls(text, [SPACED]) == [("Web Search", {"query": query})]


def test_gemma_call_with_a_space_in_the_name() -> None:
    # vllm-mlx#577: Gemma 4 and an MCP tool named "Answer Tool"
    text = '<|tool_call>call:Web Search{query:<|"|>north xl<|"|>}<tool_call|>'
    assert _calls(text, [SPACED]) == [("Web Search", {"query": "north xl"})]
    assert _calls(text.replace("Web Search", "Web Lookup"), [SPACED]) == []


# ---- FunctionGemma's call: left out, its closer written as an XML end tag ---------------


@pytest.mark.parametrize("closer", ["<end_function_call>", "</end_function_call>"])
def test_functiongemma_without_call_word(closer: str) -> None:
    # flutter_gemma#238 (Gemma 4 E2B), tensai PR 217
    text = f"<start_function_call>get_financial_overview{{}}{closer}"
    assert _calls(text, [NO_ARGS]) == [("get_financial_overview", {})]
    assert_stream_adds_up(text, [NO_ARGS], list(range(1, len(text))))


def test_functiongemma_template_placeholder_is_not_a_call() -> None:
    text = "Reply with <start_function_call>tool_name{arguments}<end_function_call> exactly."
    assert _calls(text, [NO_ARGS]) == []
