"""Kimi call ids written without their separators (toolfix/_repair/formats/kimi_ids.py).

The template writes ``functions.NAME:N``; Kimi K2.5/K2.7 are seen writing
``functions_NAME_N`` (llama.cpp #24658, exo #2281) and ``functionsNAMEN`` (sglang
#21377). Such an id names a tool only in the spellings docs/design.md#promise-4 allows
(the ``functions`` prefix, separators, case, the counter); an id that names no offered
tool, or two, is never read as a call of one.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.formats.kimi_ids import damaged_id_name

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"

NAMES = st.from_regex(r"[A-Za-z][a-z]{1,8}(_[a-z]{1,6}){0,2}", fullmatch=True)
SEPARATORS = st.sampled_from(["", "_", ".", ":", "-"])
VALUES = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="<|"), max_size=30
)


def _tools(*names: str) -> list[dict[str, Any]]:
    return [openai_tool(n, {"command": {"type": "string"}}, ["command"]) for n in names]


def _section(*calls: tuple[str, dict[str, Any]]) -> str:
    body = "".join(f"{CB}{cid}{AB}{json.dumps(args)}{CE}" for cid, args in calls)
    return f"{SB}{body}{SE}"


@settings(max_examples=150, deadline=None)
@given(NAMES, SEPARATORS, SEPARATORS, st.integers(0, 99), VALUES, st.booleans())
def test_a_damaged_id_of_an_offered_tool_is_read_back_exactly(
    name: str, before: str, after: str, counter: int, value: str, upper: bool
) -> None:
    assume(name.lower().replace("_", "") != "othertool")
    prefix = "Functions" if upper else "functions"
    call_id = f"{prefix}{before}{name}{after}{counter}"
    fixed = repair(_section((call_id, {"command": value})), _tools(name, "other_tool"))
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [(name, {"command": value})]
    assert [p.type for p in fixed.parts] == ["tool_call"]


@settings(max_examples=100, deadline=None)
@given(NAMES, SEPARATORS, SEPARATORS, st.integers(0, 99))
def test_an_id_naming_an_unoffered_tool_stays_invalid(
    name: str, before: str, after: str, counter: int
) -> None:
    call_id = f"functions{before}{name}x{after}{counter}"  # not a way of writing ``name``
    fixed = repair(_section((call_id, {"command": "ls"})), _tools(name))
    assert fixed.tool_calls == []
    assert [p.type for p in fixed.parts] == ["invalid_tool_call"]


def test_parallel_underscore_ids_as_llamacpp_24658_shows_them() -> None:
    calls = [(f"functions_Bash_{k}", {"command": f"echo {k}", "cwd": "/w"}) for k in (2, 3)]
    tools = [openai_tool("Bash", {"command": {}, "cwd": {}}, ["command"]), *_tools("Read")]
    fixed = repair(_section(*calls), tools)
    assert [(c.name, c.arguments, c.id) for c in fixed.tool_calls] == [
        ("Bash", args, cid) for cid, args in calls
    ]


def test_a_counter_that_could_belong_to_the_name_of_two_tools_is_no_guess() -> None:
    # functionsget_v20: get_v2 with counter 0, or get_v with counter 20
    assert damaged_id_name("functionsget_v20", ["get_v", "get_v2"]) is None
    assert damaged_id_name("functions.get_v2_0", ["get_v", "get_v2"]) == "get_v2"
    fixed = repair(_section(("functionsget_v20", {"command": "ls"})), _tools("get_v", "get_v2"))
    assert fixed.tool_calls == []


def test_two_tools_with_one_normal_form_are_no_guess() -> None:
    assert damaged_id_name("functions_get_weather_0", ["get-weather", "get_weather"]) is None


def test_letters_are_never_changed() -> None:
    assert damaged_id_name("functions_uninstall_0", ["install"]) is None
    assert damaged_id_name("functions_Bash_", ["Bash"]) == "Bash"
    assert damaged_id_name("functions_bash_2", ["Bash"]) == "Bash"
    assert damaged_id_name("function_Bash_2", ["Bash"]) is None
    assert damaged_id_name("functions Bash 2", ["Bash"]) is None
    assert damaged_id_name("", ["Bash"]) is None


def test_a_tool_named_like_the_prefix_keeps_its_name() -> None:
    assert damaged_id_name("functions_list_0", ["functions_list"]) == "functions_list"


@settings(max_examples=60, deadline=None)
@given(NAMES, st.integers(0, 9))
def test_prose_that_mentions_a_damaged_id_is_not_a_call(name: str, counter: int) -> None:
    text = f"The parser left functions_{name}_{counter} in the content, as {name}{counter} too."
    fixed = repair(text, _tools(name))
    assert fixed.tool_calls == []
    assert [p.type for p in fixed.parts] == ["text"]
