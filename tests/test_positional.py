"""Values written by position (toolfix/_repair/positional.py): bound to a parameter only
where the tool's declaration leaves one reading, recorded as ``positional_arguments``;
anything else is an invalid call or text, never a guess (promise 4's spirit: no argument
is invented or moved by guess)."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.tooldefs import openai_tool
from toolfix import repair
from toolfix._messages import InvalidToolCallPart, ToolCallPart
from toolfix._repair.elision import is_placeholder

READ = openai_tool("read_file", {"path": {"type": "string"}}, ["path"])
SLEEP = openai_tool("sleep_for", {"seconds": {"type": "integer"}}, ["seconds"])
#: one required parameter beside an optional one (Continue's run_terminal_command)
RUN = openai_tool(
    "run_terminal_command",
    {"command": {"type": "string"}, "waitForCompletion": {"type": "boolean"}},
    ["command"],
)
#: two parameters, neither required: a lone value could be either
FIND = openai_tool("find", {"pattern": {"type": "string"}, "path": {"type": "string"}}, [])
#: two required parameters: their order is not declared by a JSON schema
WRITE = openai_tool(
    "write_file", {"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"]
)
TOOLS = [READ, SLEEP, RUN, FIND, WRITE]

#: The shapes of a call by position in each family whose grammar allows positions.
SHAPES = (
    "[{call}]",  # pythonic list (Llama 3.2 / 4)
    "{call}",  # pythonic call on its own line
    "```python\n{call}\n```",  # pythonic fence
    "<|tool_call>call:{call}<tool_call|>",  # Gemma 4, Python-style (vllm-mlx #622)
    "<tool_calls>\ninvoke {call}\n</tool_calls>",  # DeepSeek (DevoxxGenie issue 1288)
)

_TEXT = st.text(min_size=1, max_size=40).filter(
    lambda s: s.strip() == s and s and not is_placeholder(s) and "\n" not in s
)


def _calls(content: str, tools: list[dict[str, Any]] = TOOLS) -> list[Any]:
    return [
        p
        for p in repair({"content": content, "tool_calls": []}, tools).parts
        if isinstance(p, ToolCallPart | InvalidToolCallPart)
    ]


def _one_valid(content: str) -> ToolCallPart:
    calls = _calls(content)
    assert len(calls) == 1, (content, calls)
    assert isinstance(calls[0], ToolCallPart), (content, calls)
    assert any(r.kind == "positional_arguments" for r in calls[0].repairs)
    return calls[0]


@settings(max_examples=60, deadline=None)
@given(value=_TEXT, shape=st.sampled_from(SHAPES))
@example(value="A:", shape="<tool_calls>\ninvoke {call}\n</tool_calls>")  # (read as a key once)
def test_a_one_parameter_tools_string_by_position_is_read_back_exactly(
    value: str, shape: str
) -> None:
    call = _one_valid(shape.format(call=f"read_file({value!r})"))
    assert call.name == "read_file"
    assert call.arguments == {"path": value}


@settings(max_examples=40, deadline=None)
@given(value=st.integers(-(10**9), 10**9), shape=st.sampled_from(SHAPES))
def test_a_one_parameter_tools_number_by_position_is_read_back_exactly(
    value: int, shape: str
) -> None:
    call = _one_valid(shape.format(call=f"sleep_for({value})"))
    assert call.arguments == {"seconds": value}


@settings(max_examples=40, deadline=None)
@given(value=_TEXT, shape=st.sampled_from(SHAPES))
def test_a_lone_value_binds_to_the_only_required_parameter(value: str, shape: str) -> None:
    call = _one_valid(shape.format(call=f"run_terminal_command({value!r})"))
    assert call.arguments == {"command": value}


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(_TEXT, min_size=2, max_size=3),
    tool=st.sampled_from(["read_file", "write_file", "find", "run_terminal_command"]),
    shape=st.sampled_from(SHAPES),
)
def test_several_values_by_position_are_never_a_valid_call(
    values: list[str], tool: str, shape: str
) -> None:
    args = ", ".join(repr(v) for v in values)
    calls = _calls(shape.format(call=f"{tool}({args})"))
    assert not any(isinstance(c, ToolCallPart) for c in calls), calls


@settings(max_examples=40, deadline=None)
@given(value=_TEXT, shape=st.sampled_from(SHAPES))
def test_a_lone_value_where_two_optional_parameters_could_take_it_is_no_valid_call(
    value: str, shape: str
) -> None:
    calls = _calls(shape.format(call=f"find({value!r})"))
    assert not any(isinstance(c, ToolCallPart) for c in calls), calls


@settings(max_examples=40, deadline=None)
@given(value=_TEXT, shape=st.sampled_from(SHAPES))
def test_a_value_by_position_beside_keywords_is_no_valid_call(value: str, shape: str) -> None:
    calls = _calls(shape.format(call=f"run_terminal_command({value!r}, waitForCompletion=True)"))
    assert not any(isinstance(c, ToolCallPart) for c in calls), calls


@settings(max_examples=40, deadline=None)
@given(
    value=_TEXT,
    lead=st.sampled_from(
        [
            "I'll call {call} next.",
            "The model decides to call {call}, the runtime runs it.",
            "For example, {call} reads the file.",
            "Examples: {call}, or another tool.",
            "« J'ai besoin d'appeler {call} avant de pouvoir répondre. »",
        ]
    ),
)
def test_prose_that_mentions_a_call_by_position_is_not_a_call(value: str, lead: str) -> None:
    content = lead.format(call=f"read_file({value!r})")
    assert _calls(content) == []


def test_a_name_or_an_expression_by_position_stays_invalid() -> None:
    for call in ("read_file(path)", "read_file(*paths)", "read_file('a' + 'b')"):
        calls = _calls(f"[{call}]")
        assert len(calls) == 1, calls
        assert isinstance(calls[0], InvalidToolCallPart), calls
        assert "positional arguments are not supported" in calls[0].error


def test_a_dict_or_list_by_position_is_not_bound() -> None:
    for call in ("read_file(['a'])", "sleep_for([1])"):
        calls = _calls(f"[{call}]")
        assert not any(isinstance(c, ToolCallPart) for c in calls), calls
