"""IBM Granite 3.x ``<|tool_call|>[...]``."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx, megabyte_of
from op_count import assert_linear

from toolfix._errors import NestingTooDeepError, TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.granite import GraniteFormat

FMT = GraniteFormat()
CTX = ScanContext(tool_names=frozenset({"get_current_weather", "get_time"}))
MARKUP = ("call_in_content", "native_markup")
TRUNC = (*MARKUP, "truncated")


run = FormatRunner(
    FMT,
    CTX,
    "granite",
    ("payload", "kinds", "truncated"),
    where=lambda c: c.name is None and c.explicit,
)
"""Scan, check the invariants, return the compared fields and the text left."""


def test_single_call_with_text_around() -> None:
    payload = '[{"name": "get_time", "arguments": {}}]'
    assert run(f"Let me see. <|tool_call|>{payload} Thanks.") == (
        [(payload, MARKUP, False)],
        "Let me see.  Thanks.",
    )


def test_parallel_unicode_nested() -> None:
    payload = (
        '[{"name": "get_current_weather", "arguments": {"city": "Zürich", '
        '"opts": {"d": [1, {"x": "東京"}]}}}, '
        '{"name": "get_time", "arguments": {}}]'
    )
    assert run("<|tool_call|>" + payload) == ([(payload, MARKUP, False)], "")


def test_single_object_and_truncation() -> None:
    assert run('<|tool_call|>{"name": "get_time", "arguments": {}}') == (
        [('{"name": "get_time", "arguments": {}}', MARKUP, False)],
        "",
    )
    cut = '<|tool_call|>[{"name": "get_current_weather", "arguments": {"city": "Bos'
    assert run(cut) == ([(cut[len("<|tool_call|>") :], TRUNC, True)], "")
    assert run("Calling <|tool_call|>") == ([("", TRUNC, True)], "Calling ")


def test_token_followed_by_non_json_is_reported() -> None:
    assert run("<|tool_call|>get_time()") == ([("get_time()", MARKUP, False)], "")


def test_granite_30_unclosed_tool_call_tag() -> None:
    payload = '[{"name": "get_time", "arguments": {}}]'
    assert run(f"<tool_call>{payload}") == ([(payload, MARKUP, False)], "")


def test_verbatim_granite_output() -> None:
    # Verbatim model output quoted in the vLLM granite parser discussion and tests
    # (vllm-project/vllm tests/tool_parsers/test_granite_tool_parser.py; format of
    # https://huggingface.co/ibm-granite/granite-3.1-8b-instruct):
    text = (
        '<|tool_call|>[{"name": "get_current_weather", "arguments": {"city": "Dallas", '
        '"state": "TX", "unit": "fahrenheit"}}]'
    )
    assert run(text) == ([(text[len("<|tool_call|>") :], MARKUP, False)], "")


@pytest.mark.parametrize(
    "text",
    [
        "Granite 3 starts calls with the <|tool_call|> token",  # explicit token, see below
    ],
)
def test_token_in_prose_is_inherently_ambiguous(text: str) -> None:
    # The special token itself is never prose for a Granite model: what follows it is
    # reported as a (probably invalid) call rather than silently kept as text.
    assert run(text)[0] == [("token", MARKUP, False)]


@pytest.mark.parametrize(
    "text",
    [
        "The weather in Boston is 72 °F.",
        '<tool_call>[{"name": "get_time", "arguments": {}}]</tool_call>',  # closed: Hermes'
        '<tool_call>\n{"name": "get_time"}\n</tool_call>',
        "Granite 3.0 wrote <tool_call> then a list.",
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_too_many_blocks_raises() -> None:
    with pytest.raises(TooManyCallsError):
        FMT.extract('<|tool_call|>[{"name": "get_time"}]' * 200, CTX)


def test_markers_and_calls_take_linear_work() -> None:
    ctx = many_calls_ctx()
    with pytest.raises(NestingTooDeepError):  # checked before any recursive parser runs
        FMT.extract(megabyte_of("<|tool_call|>["), ctx)
    assert_linear(lambda n: FMT.extract("<|tool_call|>[] x " * n, ctx))
    assert_linear(lambda n: FMT.extract("<tool_call>[]</tool_call>" * n + "<|tool_call|>x", ctx))
    assert_many_calls_linear(FMT, '<|tool_call|>[{"name": "get_time"}] ', ctx)
