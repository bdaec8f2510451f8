"""Functionary v3 ``>>>recipient`` segments."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx
from op_count import assert_linear

from toolfix._errors import NestingTooDeepError, TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.functionary import FunctionaryFormat, strip_all_recipients

FMT = FunctionaryFormat()
CTX = ScanContext(tool_names=frozenset({"get_weather", "get_time", "special_function"}))
MARKUP = ("call_in_content", "native_markup")
TRUNC = (*MARKUP, "truncated")


run = FormatRunner(FMT, CTX, "functionary", ("name", "arguments", "kinds", "truncated"))
"""Scan, check the invariants, return the compared fields and the text left."""


def test_all_text_then_call() -> None:
    text = '>>>all\nLet me check the weather.>>>get_weather\n{"city": "Paris"}'
    got, remaining = run(text)
    assert got == [("get_weather", '{"city": "Paris"}', MARKUP, False)]
    assert remaining == ">>>all\nLet me check the weather."
    assert strip_all_recipients(remaining) == "Let me check the weather."


def test_parallel_unicode_nested_empty() -> None:
    a1 = '{"city": "Zürich 東京", "opts": {"days": [1, 2], "x": {"y": null}}}'
    text = f">>>get_weather\n{a1}\n>>>get_time\n{{}}"
    assert run(text) == (
        [("get_weather", a1, MARKUP, False), ("get_time", "{}", MARKUP, False)],
        "\n",
    )


def test_first_segment_without_marker_when_the_name_is_a_tool() -> None:
    text = 'get_weather\n{"city": "Oslo"}>>>all\nDone.'
    got, remaining = run(text)
    assert got == [("get_weather", '{"city": "Oslo"}', MARKUP, False)]
    assert strip_all_recipients(remaining) == "Done."
    assert strip_all_recipients("all\nHello") == "Hello"


def test_truncated() -> None:
    assert run('>>>get_weather\n{"city": "Pa') == (
        [("get_weather", '{"city": "Pa', TRUNC, True)],
        "",
    )
    assert run("ok>>>get_time\n") == ([("get_time", "", TRUNC, True)], "ok")


def test_verbatim_llama_cpp_tests() -> None:
    # Verbatim outputs from llama.cpp's chat tests for meetkai-functionary-medium-v3.2:
    # https://github.com/ggml-org/llama.cpp/blob/master/tests/test-chat.cpp
    assert run('>>>special_function\n{"arg1": 1}') == (
        [("special_function", '{"arg1": 1}', MARKUP, False)],
        "",
    )
    content = ">>>all\nHello, world!\nWhat's up?"
    assert FMT.extract(content, CTX) == []
    assert strip_all_recipients(content) == "Hello, world!\nWhat's up?"


@pytest.mark.parametrize(
    "text",
    [
        ">>> print('hello')\nhello",  # a Python REPL transcript
        "```python\n>>> import json\n>>> json.loads('{}')\n{}\n```",
        ">>>python\nprint(1)",  # raw code, not a JSON call
        "Functionary answers with >>>all for plain text.",
        ">>>all\nJust an answer.",
        "Plain answer without markers.",
        'hello\n{"a": 1}>>>all\nx',  # first segment name is not a tool
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_too_many_calls_raises() -> None:
    with pytest.raises(TooManyCallsError):
        FMT.extract(">>>get_time\n{}" * 200, CTX)


def test_markers_and_calls_take_linear_work() -> None:
    ctx = many_calls_ctx(CTX.tool_names)
    with pytest.raises(NestingTooDeepError):  # checked before any recursive parser runs
        FMT.extract(">>>x\n{" * 170_000, ctx)
    assert_linear(lambda n: FMT.extract(">>>" * n, ctx))
    assert_linear(lambda n: FMT.extract(">>>x\n{}" * n, ctx))
    assert_many_calls_linear(FMT, ">>>get_time\n{}", ctx)
