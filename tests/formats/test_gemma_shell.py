"""Gemma 4 calls with a damaged shell (toolfix/_repair/formats/gemma_shell.py).

Two classes, each from two independent threads: the opener's ``call`` left out, a bare
``:`` after ``<|tool_call>`` (vllm #53431; vllm PR 54778 names ``:`` and ``-``), and round
brackets for the braces around Gemma's ``key:value`` body (vllm #53642, hermes-agent
#7457). A damaged call drawn by hypothesis is read back exactly; prose that mentions the
shapes, and bodies that are no ``key:value`` object, are not read as such calls.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_count import assert_linear
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.gemma import GemmaFormat
from toolfix._repair.formats.gemma_shell import keyed_paren_span

Q = '<|"|>'
OPEN, CLOSE = "<|tool_call>", "<tool_call|>"
TOOLS = [
    openai_tool(
        "terminal",
        {"command": {"type": "string"}, "timeout": {"type": "integer"}, "bg": {"type": "boolean"}},
        ["command"],
    ),
    openai_tool("search_files", {"pattern": {"type": "string"}}, ["pattern"]),
]
#: String values as Gemma writes them between its delimiters (any text but the delimiter).
STRINGS = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda s: Q not in s and s.strip() == s and "<|" not in s and "<" not in s[-1:]
)
ARGS = st.fixed_dictionaries(
    {"command": STRINGS}, optional={"timeout": st.integers(0, 10**6), "bg": st.booleans()}
)


def _body(args: dict[str, Any]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v) if isinstance(v, int) else f"{Q}{v}{Q}"

    return ",".join(f"{k}:{value(v)}" for k, v in args.items())


def _read(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, dict(c.arguments or {})) for c in repair(text, TOOLS).tool_calls]


@settings(max_examples=150, deadline=None)
@given(ARGS, st.sampled_from(["", " "]))
def test_round_brackets_around_a_gemma_body_are_read_back_exactly(
    args: dict[str, Any], pad: str
) -> None:
    text = f"{OPEN}call:terminal({pad}{_body(args)}{pad}){CLOSE}"
    assert _read(text) == [("terminal", args)]
    assert [p.type for p in repair(text, TOOLS).parts] == ["tool_call"]


@settings(max_examples=150, deadline=None)
@given(ARGS, st.sampled_from([":", "-"]), st.sampled_from(["{}", "()"]))
def test_a_bare_mark_for_call_is_read_back_exactly(
    args: dict[str, Any], mark: str, brackets: str
) -> None:
    text = f"Checking.{OPEN}{mark}terminal{brackets[0]}{_body(args)}{brackets[1]}{CLOSE}"
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("terminal", args)]
    assert [p.type for p in fixed.parts] == ["text", "tool_call"]


def test_the_threads_outputs() -> None:
    assert _read(f"{OPEN}call:terminal(command:{Q}ls -a{Q}){CLOSE}") == [
        ("terminal", {"command": "ls -a"})
    ]
    assert _read(f"{OPEN}:search_files{{pattern:{Q}.env.example{Q}}}{CLOSE}") == [
        ("search_files", {"pattern": ".env.example"})
    ]
    assert _read(f'{OPEN}call:search_files(pattern: "*.py"){CLOSE}') == [
        ("search_files", {"pattern": "*.py"})
    ]


def test_parallel_round_bracket_calls_each_end_at_their_own_closer() -> None:
    first = f"{OPEN}call:terminal(command:{Q}a){Q}){CLOSE}"
    text = first + f"{OPEN}call:terminal(command:{Q}b{Q}){CLOSE}"
    assert _read(text) == [("terminal", {"command": "a)"}), ("terminal", {"command": "b"})]


def test_python_keywords_stay_the_pythonic_reading() -> None:
    assert _read(f'{OPEN}call:terminal(command="ls", timeout=3){CLOSE}') == [
        ("terminal", {"command": "ls", "timeout": 3})
    ]


@pytest.mark.parametrize(
    "body",
    # ('"x"', a value by position, is bound to the one parameter: tests/test_positional.py)
    ["command:[1,2)", "command:[1}", "command:1]", "x=1", "", ")"],
)
def test_a_body_that_is_no_key_value_object_is_not_read_as_one(body: str) -> None:
    text = f"call:terminal({body})"
    assert keyed_paren_span(text, text.index("(")) is None
    assert repair(f"{OPEN}{text}{CLOSE}", TOOLS).tool_calls == []


@settings(max_examples=60, deadline=None)
@given(STRINGS)
def test_prose_that_mentions_the_shapes_is_not_a_call(value: str) -> None:
    for text in (
        f"Gemma writes call:run(command:{Q}{value}{Q}) when it breaks.",
        f"The token {OPEN}: starts a call; {OPEN}- too.",
        f"call:terminal is the name, and (command: {value}) its body.",
    ):
        fixed = repair(text, TOOLS)
        assert fixed.tool_calls == []
        assert [p.type for p in fixed.parts] == ["text"]


def test_the_body_scan_and_the_heads_are_linear() -> None:
    fmt, ctx = GemmaFormat(), ScanContext(tool_names=frozenset({"terminal"}))
    assert_linear(lambda n: fmt.extract("call:terminal(a:[" + "(" * n, ctx))
    assert_linear(lambda n: fmt.extract("call:terminal(a:" + f"{Q}x{Q}," * n + ")", ctx))
    assert_linear(lambda n: fmt.extract(f"{OPEN}:" * n, ctx))
    assert_linear(lambda n: fmt.extract(f"call:x{OPEN}-" * n, ctx))


def test_an_unclosed_list_ends_at_the_brace_or_the_end_token() -> None:
    # (a list left open used to spin: _ArgReader.arr made no progress at the "}")
    for text in (
        f"{OPEN}call:terminal{{command:{Q}x{Q},bg:[1}}{CLOSE}",
        f"{OPEN}call:terminal(command:{Q}x{Q},bg:[1{CLOSE}",
    ):
        parts = repair(text, TOOLS).parts
        assert [(p.type, getattr(p, "name", None)) for p in parts] == [
            ("invalid_tool_call", "terminal")  # bg is a boolean, not [1]
        ]
