"""Salesforce xLAM ``{"tool_calls": [...]}`` answers."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx
from op_count import assert_linear

from toolfix._errors import NestingTooDeepError, TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.xlam import XlamFormat

FMT = XlamFormat()
CTX = ScanContext(tool_names=frozenset({"get_weather", "get_time"}))
CONTENT = ("call_in_content",)


run = FormatRunner(
    FMT,
    CTX,
    "xlam",
    ("payload", "kinds", "truncated", "explicit"),
    where=lambda c: c.name is None,
)
"""Scan, check the invariants, return the compared fields and the text left."""


def test_whole_message_is_explicit() -> None:
    lst = '[{"name": "get_weather", "arguments": {"location": "New York"}}]'
    assert run(f'  {{"tool_calls": {lst}}}\n') == ([(lst, CONTENT, False, True)], "  \n")


def test_parallel_unicode_nested_in_prose_not_explicit() -> None:
    lst = (
        '[{"name": "get_weather", "arguments": {"city": "Zürich", '
        '"o": {"d": [1, {"x": "東京"}]}}}, '
        '{"name": "get_time", "arguments": {}}]'
    )
    text = f'Here you go: {{"thought": "two calls {{}}", "tool_calls": {lst}}} done'
    assert run(text) == ([(lst, CONTENT, False, False)], "Here you go:  done")


def test_empty_list_and_fenced_object() -> None:
    assert run('{"tool_calls": []}') == ([("[]", CONTENT, False, True)], "")
    text = 'Sure.\n```json\n{"tool_calls": [{"name": "get_time", "arguments": {}}]}\n```\nBye.'
    assert run(text) == (
        [('[{"name": "get_time", "arguments": {}}]', (*CONTENT, "code_fence"), False, False)],
        "Sure.\n\nBye.",
    )


def test_truncated() -> None:
    text = '{"tool_calls": [{"name": "get_weather", "arguments": {"location": "Par'
    assert run(text) == (
        [(text[len('{"tool_calls": ') :], (*CONTENT, "truncated"), True, True)],
        "",
    )


def test_nested_tool_calls_key_is_not_taken() -> None:
    text = '{"name": "get_time", "arguments": {"tool_calls": [1, 2]}}'
    assert FMT.extract(text, CTX) == []


def test_verbatim_xlam_format_instruction() -> None:
    # Verbatim answer format from the xLAM prompt's [BEGIN OF FORMAT INSTRUCTION] block
    # (Salesforce xLAM-1b/7b-fc-r model cards, https://huggingface.co/Salesforce/xLAM-7b-fc-r,
    # also the Ollama template https://ollama.com/allenporter/xlam):
    text = (
        '{ "tool_calls": [ {"name": "func_name1", "arguments": {"argument1": "value1", '
        '"argument2": "value2"}}, ... (more tool calls as required) ] }'
    )
    lst = (
        '[ {"name": "func_name1", "arguments": {"argument1": "value1", "argument2": "value2"}}, '
        "... (more tool calls as required) ]"
    )
    assert run(text) == ([(lst, CONTENT, False, True)], "")


def test_verbatim_template_rendered_call() -> None:
    # The assistant turn as xLAM's chat template renders a call (Ollama template above):
    text = (
        '### Response: {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}'
        " <|EOT|>"
    )
    assert run(text) == (
        [('[{"name": "get_weather", "arguments": {"city": "Paris"}}]', CONTENT, False, False)],
        "### Response:  <|EOT|>",
    )


@pytest.mark.parametrize(
    "text",
    [
        "No call needed: it is sunny.",
        "The OpenAI message has a tool_calls field.",
        '```python\nmsg["tool_calls"] = []\n```',
        '{"role": "assistant", "content": "the tool_calls key is empty"}',
        '[{"name": "get_time", "arguments": {}}]',  # the bare list is the generic JSON format's
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_too_many_objects_raises() -> None:
    with pytest.raises(TooManyCallsError):
        FMT.extract('{"tool_calls": []} ' * 200, CTX)


def test_markers_and_calls_take_linear_work() -> None:
    ctx = many_calls_ctx()
    with pytest.raises(NestingTooDeepError):  # checked before any recursive parser runs
        FMT.extract('{"tool_calls": [' * 60_000, ctx)
    assert_linear(lambda n: FMT.extract("{} tool_calls " * n, ctx))
    assert_many_calls_linear(FMT, '{"tool_calls": []} ', ctx)
