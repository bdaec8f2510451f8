"""DeepSeek V3/R1/V3.1 tool-call sections."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx
from op_count import assert_linear

from toolfix._errors import TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.deepseek import DeepSeekFormat

FMT = DeepSeekFormat()
CTX = ScanContext(tool_names=frozenset({"get_weather", "get_time", "get_current_weather"}))
MARKUP = ("call_in_content", "native_markup")
TRUNC = (*MARKUP, "truncated")

B, E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CB, CE, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def v3(name: str, args: str) -> str:
    """One call as the DeepSeek V3/R1 chat template renders it."""
    return f"{CB}function{SEP}{name}\n```json\n{args}\n```{CE}"


def v31(name: str, args: str) -> str:
    """One call as the DeepSeek V3.1 chat template renders it."""
    return f"{CB}{name}{SEP}{args}{CE}"


run = FormatRunner(
    FMT, CTX, "deepseek", ("name", "arguments", "id", "kinds", "truncated", "explicit")
)
"""Scan, check the invariants, return the compared fields and the text left."""


def test_v3_single_call_with_text_around() -> None:
    text = "Let me check." + B + v3("get_weather", '{"city": "Paris"}') + E + " Done."
    assert run(text) == (
        [("get_weather", '{"city": "Paris"}', None, MARKUP, False, True)],
        "Let me check. Done.",
    )


def test_v3_parallel_calls_newline_between() -> None:
    text = B + v3("get_weather", '{"city": "Paris"}') + "\n" + v3("get_time", "{}") + E
    assert run(text) == (
        [
            ("get_weather", '{"city": "Paris"}', None, MARKUP, False, True),
            ("get_time", "{}", None, MARKUP, False, True),
        ],
        "",
    )


def test_v31_single_and_parallel() -> None:
    text = "Sure. " + B + v31("get_weather", '{"city": "Paris"}') + v31("get_time", "{}") + E
    assert run(text) == (
        [
            ("get_weather", '{"city": "Paris"}', None, MARKUP, False, True),
            ("get_time", "{}", None, MARKUP, False, True),
        ],
        "Sure. ",
    )


def test_unicode_and_nested_arguments() -> None:
    args = '{"city": "Zürich 東京", "opts": {"units": ["c", "f"], "deep": {"a": [1, {"b": null}]}}}'
    text = B + v31("get_weather", args) + E + " 好的"
    assert run(text) == ([("get_weather", args, None, MARKUP, False, True)], " 好的")


def test_arguments_containing_a_token_word_stay_inside() -> None:
    args = '{"note": "the tool▁sep token"}'
    text = B + v31("get_weather", args) + E
    assert run(text) == ([("get_weather", args, None, MARKUP, False, True)], "")


def test_truncated_inside_json() -> None:
    text = "Checking." + B + CB + "get_weather" + SEP + '{"city": "Par'
    assert run(text) == ([("get_weather", '{"city": "Par', None, TRUNC, True, True)], "Checking.")


def test_truncated_after_separator_and_in_fence() -> None:
    assert run(B + CB + "get_weather" + SEP) == ([("get_weather", "", None, TRUNC, True, True)], "")
    text = B + CB + "function" + SEP + 'get_weather\n```json\n{"city": '
    assert run(text) == ([("get_weather", '{"city": ', None, TRUNC, True, True)], "")


def test_ascii_bars_and_stripped_tokens() -> None:
    text = 'function<|tool▁sep|>get_weather\n```json\n{"city": "Paris"}\n```<|tool▁call▁end|> ok'
    assert run(text) == ([("get_weather", '{"city": "Paris"}', None, MARKUP, False, True)], " ok")
    bare = "tool▁calls▁begin tool▁call▁begin get_time tool▁sep {} tool▁call▁end tool▁calls▁end"
    assert run(bare) == ([("get_time", "{}", None, MARKUP, False, True)], "")


def test_verbatim_model_card_output() -> None:
    # Verbatim "Generated text" of the function-calling example in DeepSeek's README:
    # https://github.com/deepseek-ai/DeepSeek-V2/blob/main/README.md (same section in the
    # DeepSeek-V2.5 model card; also the sglang DeepSeekV3Detector docstring).
    text = (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n"
        '```json\n{"location": "Tokyo"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function'
        '<｜tool▁sep｜>get_current_weather\n```json\n{"location": "Paris"}\n```<｜tool▁call▁end｜>'
        "<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
    )
    assert run(text) == (
        [
            ("get_current_weather", '{"location": "Tokyo"}', None, MARKUP, False, True),
            ("get_current_weather", '{"location": "Paris"}', None, MARKUP, False, True),
        ],
        "<｜end▁of▁sentence｜>",
    )


@pytest.mark.parametrize(
    "text",
    [
        "The weather in Paris is sunny.",
        "DeepSeek wraps calls in <｜tool▁calls▁begin｜> … <｜tool▁calls▁end｜> tokens.",
        "```\n<｜tool▁call▁begin｜> starts one call\n```",
        "Use tool▁sep between the name and the arguments.",
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_plain_answer_not_detected() -> None:
    assert not FMT.detect("Paris is 21°C today.".__contains__)


def test_too_many_calls_raises() -> None:
    text = B + v31("get_time", "{}") * 200 + E
    with pytest.raises(TooManyCallsError):
        FMT.extract(text, CTX)


def test_markers_alone_take_linear_work() -> None:
    assert_linear(lambda n: FMT.extract(("tool▁sep" + CB + "tool▁call▁end ") * n, CTX))


def test_many_calls_take_linear_work() -> None:
    ctx = many_calls_ctx(CTX.tool_names)
    assert_many_calls_linear(FMT, v31("get_time", "{}"), ctx, before=B, after=E)
