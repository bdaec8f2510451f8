"""Kimi K2 tool-call sections."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx
from op_count import assert_linear

from toolfix._errors import TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.kimi import KimiFormat, kimi_name

FMT = KimiFormat()
CTX = ScanContext(tool_names=frozenset({"get_weather", "get_time"}))
MARKUP = ("call_in_content", "native_markup")
TRUNC = (*MARKUP, "truncated")

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, AB, CE = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"


def call(call_id: str, args: str) -> str:
    """One call as the Kimi K2 chat template renders it."""
    return f"{CB}{call_id}{AB}{args}{CE}"


run = FormatRunner(FMT, CTX, "kimi", ("name", "arguments", "id", "kinds", "truncated", "explicit"))
"""Scan, check the invariants, return the compared fields and the text left."""


def test_single_call_with_text_before_and_after() -> None:
    text = "I'll check. " + SB + call("functions.get_weather:0", '{"city": "Paris"}') + SE + " ok"
    assert run(text) == (
        [("get_weather", '{"city": "Paris"}', "functions.get_weather:0", MARKUP, False, True)],
        "I'll check.  ok",
    )


def test_parallel_calls_on_separate_lines() -> None:
    text = (
        SB
        + "\n"
        + call("functions.get_weather:0", '{"city": "Paris"}')
        + "\n"
        + call("functions.get_time:1", "{}")
        + "\n"
        + SE
    )
    assert run(text) == (
        [
            ("get_weather", '{"city": "Paris"}', "functions.get_weather:0", MARKUP, False, True),
            ("get_time", "{}", "functions.get_time:1", MARKUP, False, True),
        ],
        "",
    )


def test_unicode_nested_and_space_before_argument_marker() -> None:
    args = '{"city": "Zürich 北京", "filter": {"days": [1, 2], "extra": {"x": null}}}'
    text = SB + f"{CB}functions.get_weather:3 {AB}{args}{CE}" + SE + "。"
    assert run(text) == (
        [("get_weather", args, "functions.get_weather:3", MARKUP, False, True)],
        "。",
    )


def test_empty_arguments_and_no_argument_marker() -> None:
    text = SB + call("functions.get_time:0", "{}") + f"{CB}functions.get_time:1{CE}" + SE
    assert run(text) == (
        [
            ("get_time", "{}", "functions.get_time:0", MARKUP, False, True),
            ("get_time", {}, "functions.get_time:1", MARKUP, False, True),
        ],
        "",
    )


def test_truncated_output() -> None:
    text = "Checking. " + SB + CB + "functions.get_weather:0" + AB + '{"city": "Pa'
    assert run(text) == (
        [("get_weather", '{"city": "Pa', "functions.get_weather:0", TRUNC, True, True)],
        "Checking. ",
    )
    cut = SB + CB + "functions.get_wea"
    assert run(cut) == ([("get_wea", "", "functions.get_wea", TRUNC, True, True)], "")


def test_names_from_ids() -> None:
    assert kimi_name("functions.get_weather:0") == "get_weather"
    assert kimi_name("get_weather:12") == "get_weather"
    assert kimi_name(" functions.a.b:1 ") == "a.b"
    assert kimi_name("0") == "0"  # a bare counter carries no name


def test_verbatim_ik_llama_cpp_example() -> None:
    # Verbatim example of the Kimi-K2 native format, ik_llama.cpp docs:
    # https://github.com/ikawrakow/ik_llama.cpp/blob/main/examples/server/function_calls.md
    text = (
        "<|tool_calls_section_begin|>\n<|tool_call_begin|>\n"
        "functions.get_weather:0<|tool_call_argument_begin|>\n"
        '{"location": "Tokyo"}\n<|tool_call_end|>\n<|tool_calls_section_end|>'
    )
    assert run(text) == (
        [("get_weather", '{"location": "Tokyo"}', "functions.get_weather:0", MARKUP, False, True)],
        "",
    )


def test_verbatim_vllm_parser_test() -> None:
    # From vLLM's parser tests (the "single_tool_call" case, helpers expanded):
    # https://github.com/vllm-project/vllm/blob/main/tests/tool_parsers/test_kimi_k2_tool_parser.py
    text = (
        "I'll check. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
        '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|>'
        "<|tool_calls_section_end|>"
    )
    assert run(text) == (
        [("get_weather", '{"city": "Beijing"}', "functions.get_weather:0", MARKUP, False, True)],
        "I'll check. ",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Kimi marks calls with <|tool_calls_section_begin|> and <|tool_calls_section_end|>.",
        "```\n<|tool_call_begin|><|tool_call_end|>\n```",
        "The token <|tool_call_begin|> then " + "x" * 600,
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_plain_answer_not_detected() -> None:
    assert not FMT.detect("It is sunny in Paris.".__contains__)


def test_too_many_calls_raises() -> None:
    with pytest.raises(TooManyCallsError):
        FMT.extract(SB + call("functions.get_time:0", "{}") * 200 + SE, CTX)


def test_markers_alone_take_linear_work() -> None:
    ctx = many_calls_ctx()
    assert_linear(lambda n: FMT.extract((CB + SB + AB) * n, ctx))


def test_many_calls_take_linear_work() -> None:
    one = call("functions.get_time:0", "{}")
    assert_many_calls_linear(FMT, one, many_calls_ctx(), before=SB, after=SE)
