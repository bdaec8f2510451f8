"""Llama 3.1-3.3 ``<|python_tag|>`` calls."""

from __future__ import annotations

import functools

import format_checks
import pytest

from toolfix._errors import NestingTooDeepError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.llama import LlamaFormat

FMT = LlamaFormat()
CTX = ScanContext(tool_names=frozenset({"trending_songs", "get_weather", "brave_search"}))
KINDS = ("call_in_content", "native_markup")


remaining = functools.partial(format_checks.remaining, fmt="llama", explicit=True)
"""The text left, after checking spans, order, the format name and ``explicit``."""


def test_verbatim_llama31_python_tag() -> None:
    # https://github.com/meta-llama/llama-models/issues/169 (Llama 3.1 JSON tool call)
    body = (
        '{\n    "type": "function",\n    "name": "trending_songs",\n    "parameters": {\n'
        '        "n": "10",\n        "genre": "all"\n    }\n}'
    )
    text = f"<|python_tag|>{body}<|eom_id|>"
    cands = FMT.extract(text, CTX)
    assert len(cands) == 1
    c = cands[0]
    assert (c.start, c.end) == (0, len(text))
    assert c.payload == body
    assert c.kinds == KINDS
    assert not c.truncated


def test_prose_before_and_eot_end() -> None:
    call = '{"name": "get_weather", "parameters": {"city": "São Paulo"}}'
    text = f"Checking the weather.\n<|python_tag|>{call}<|eot_id|>"
    cands = FMT.extract(text, CTX)
    assert [c.payload for c in cands] == [call]
    assert remaining(text, cands) == "Checking the weather.\n"


def test_several_objects_after_one_tag() -> None:
    a = '{"name": "get_weather", "parameters": {"city": "Paris"}}'
    b = '{"name": "trending_songs", "parameters": {}}'
    text = f"<|python_tag|>{a}; {b}\n<|eom_id|>"
    cands = FMT.extract(text, CTX)
    assert [c.payload for c in cands] == [a, b]
    assert remaining(text, cands) == ""
    assert cands[0].start == 0
    assert cands[1].end == len(text)


def test_several_tags() -> None:
    a = '{"name": "get_weather", "parameters": {"city": "Paris"}}'
    b = '{"name": "get_weather", "parameters": {"city": "Rome"}}'
    text = f"<|python_tag|>{a}<|python_tag|>{b}"
    cands = FMT.extract(text, CTX)
    assert [c.payload for c in cands] == [a, b]
    assert remaining(text, cands) == ""


def test_no_end_token_and_nested() -> None:
    call = '{"name": "get_weather", "parameters": {"loc": {"lat": 1.5, "lon": [2, 3]}}}'
    text = f"<|python_tag|>{call}"
    cands = FMT.extract(text, CTX)
    assert [c.payload for c in cands] == [call]


def test_truncated() -> None:
    text = '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Par'
    cands = FMT.extract(text, CTX)
    assert len(cands) == 1
    assert cands[0].truncated
    assert cands[0].kinds == (*KINDS, "truncated")
    assert cands[0].end == len(text)


def test_builtin_tool_pythonic_call() -> None:
    # Llama 3.1 built-in tools (prompt format docs): brave_search.call(query="...")
    text = '<|python_tag|>brave_search.call(query="Menlo Park weather")<|eom_id|>'
    cands = FMT.extract(text, CTX)
    assert len(cands) == 1
    c = cands[0]
    # the ``.call`` method is how the built-in is invoked, not part of its name
    assert (c.name, c.arguments) == ("brave_search", {"query": "Menlo Park weather"})
    assert c.kinds == (*KINDS, "pythonic")
    assert (c.start, c.end) == (0, len(text))


def test_code_interpreter_body_is_reported_raw() -> None:
    text = '<|python_tag|>import sys\nprint("Python version: ", sys.version)<|eom_id|>'
    cands = FMT.extract(text, CTX)
    assert len(cands) == 1
    assert cands[0].payload == 'import sys\nprint("Python version: ", sys.version)'
    assert cands[0].name is None


@pytest.mark.parametrize(
    "text",
    [
        "The weather in Paris is sunny.",
        '{"name": "get_weather", "parameters": {"city": "Paris"}}',  # bare JSON: json_text's job
        "Llama uses <|python_tag|><|eom_id|> for tools.",
        "Llama 3.1 uses the <|python_tag|> token before tool calls.",
    ],
)
def test_negatives(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_linear_on_repeated_markers() -> None:
    assert FMT.extract("<|python_tag|>" * 70_000, CTX) == []
    many = '<|python_tag|>{"name": "get_weather", "parameters": {}}<|eom_id|>' * 10_000
    assert len(FMT.extract(many, CTX)) == 10_000


def test_deep_nesting_raises() -> None:
    with pytest.raises(NestingTooDeepError):
        FMT.extract("<|python_tag|>" + "{" * 100_000, CTX)


def test_unbalanced_json_before_end_token_is_not_truncated() -> None:
    text = '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}<|eom_id|>'
    cands = FMT.extract(text, CTX)
    assert len(cands) == 1
    assert cands[0].payload == '{"name": "get_weather", "parameters": {"city": "Paris"}'
    assert not cands[0].truncated
    assert (cands[0].start, cands[0].end) == (0, len(text))
