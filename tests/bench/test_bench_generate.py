"""BFCL mapping, rendering, mutations and the generator's determinism."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from toolfix._bench.bfcl import UnmappableError, map_schema, map_tool, pick_arguments, tool_name
from toolfix._bench.corpus import parse_line
from toolfix._bench.mutate import CATALOGUE, Draft
from toolfix._bench.render import (
    EmitCall,
    JsonStyle,
    Truncation,
    dumps,
    ends_unclosed,
    render,
)

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpora" / "bfcl_generated.jsonl"


# ---- BFCL mapping -------------------------------------------------------------------


def test_map_schema_types() -> None:
    bfcl = {
        "type": "dict",
        "properties": {
            "x": {"type": "float"},
            "pair": {"type": "tuple", "items": {"type": "integer"}},
            "anything": {"type": "any", "description": "free"},
            "name": {"type": "String"},
            "nested": {"type": "dict", "properties": {"n": {"type": "Integer"}}},
        },
        "required": ["x"],
    }
    assert map_schema(bfcl) == {
        "type": "object",
        "properties": {
            "x": {"type": "number"},
            "pair": {"type": "array", "items": {"type": "integer"}},
            "anything": {"description": "free"},
            "name": {"type": "string"},
            "nested": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
        "required": ["x"],
    }


def test_map_schema_rejects_unknown_types() -> None:
    with pytest.raises(UnmappableError):
        map_schema({"type": "complex"})


def test_map_tool() -> None:
    tool = map_tool(
        {
            "name": "math.factorial",
            "description": "n!",
            "parameters": {
                "type": "dict",
                "properties": {"number": {"type": "integer"}},
                "required": ["number"],
            },
        }
    )
    assert tool == {
        "type": "function",
        "function": {
            "name": "math_factorial",
            "description": "n!",
            "parameters": {
                "type": "object",
                "properties": {"number": {"type": "integer"}},
                "required": ["number"],
                "additionalProperties": False,
            },
        },
    }
    assert tool_name("a.b.c") == "a_b_c"


def test_pick_arguments() -> None:
    picked = pick_arguments({"base": [10], "unit": ["", "units"], "opt": [""], "xs": [[3, 5]]})
    assert picked == {"base": 10, "unit": "units", "xs": [3, 5]}


# ---- rendering ----------------------------------------------------------------------


def test_dumps_default_is_json_dumps() -> None:
    value = {"a": [1, 2.5, True, None], "b": {"c": 'x\n"y"'}, "é": "ü"}
    assert dumps(value) == json.dumps(value, ensure_ascii=False)


def test_dumps_styles() -> None:
    v = {"a_b": "it's", "t": True}
    assert dumps(v, JsonStyle(single_quotes=True)) == "{'a_b': 'it\\'s', 't': true}"
    assert dumps(v, JsonStyle(unquoted_keys=True)) == '{a_b: "it\'s", t: true}'
    assert dumps(v, JsonStyle(python_literals=True)) == '{"a_b": "it\'s", "t": True}'
    assert dumps(v, JsonStyle(trailing_commas=True)) == '{"a_b": "it\'s", "t": true,}'
    escaped = dumps({"a_b": "x_y"}, JsonStyle(escape_underscores=True))
    assert escaped == '{"a\\_b": "x_y"}'  # keys and names only: values are left alone
    assert dumps(v, JsonStyle(escape_apostrophes=True)) == '{"a_b": "it\\\'s", "t": true}'
    assert dumps({"s": "a\nb"}, JsonStyle(raw_newlines=True)) == '{"s": "a\nb"}'


def test_render_formats() -> None:
    call = EmitCall("get_weather", {"city": "Paris", "days": 2})
    assert render("openai", [call])["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris", "days": 2}',
    }
    assert render("json_bare", [call])["content"] == (
        '{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}'
    )
    assert render("pythonic", [call])["content"] == '[get_weather(city="Paris", days=2)]'
    assert render("qwen_xml", [call])["content"] == (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>"
    )
    assert render("mistral_args", [call])["content"] == (
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 2}'
    )
    llama = EmitCall("get_weather", {"city": "Paris"}, args_key="parameters")
    assert render("llama", [llama])["content"] == (
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}'
    )
    kimi = render("kimi", [call])["content"]
    assert kimi.startswith("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0")


def test_render_truncation_and_missing_brace() -> None:
    call = EmitCall("f", {"a": 1, "b": "x", "c": 3}, truncation=Truncation(keep=1))
    # a number at the very end could be cut mid-digits: the cut is after the comma
    assert render("openai", [call])["tool_calls"][0]["function"]["arguments"] == '{"a": 1, '
    call.truncation = Truncation(keep=2, partial_key="c")
    assert render("hermes", [call])["content"] == (
        '<tool_call>\n{"name": "f", "arguments": {"a": 1, "b": "x", "c'
    )
    whole = EmitCall("f", {"a": "x"})
    assert render("json_bare", [whole], JsonStyle(missing_brace=True))["content"] == (
        '{"name": "f", "arguments": {"a": "x"}'
    )


@pytest.mark.parametrize(
    ("fmt", "unclosed"),
    [
        ("openai", True),  # nothing follows a native arguments string
        ("json_bare", True),
        ("mistral_args", True),
        ("llama", True),
        ("hermes", False),  # </tool_call> closes it: a repairable missing brace
        ("mistral", False),  # the list's ] closes it
        ("json_fence", False),
        ("harmony", False),  # <|call|>
    ],
)
def test_missing_brace_at_the_end_reads_as_a_cut(fmt: str, unclosed: bool) -> None:
    calls = [EmitCall("f", {"a": "x"}, args_key="parameters" if fmt == "llama" else "arguments")]
    style = JsonStyle(missing_brace=True)
    response = render(fmt, calls, style)
    assert ends_unclosed(fmt, calls, style, response) is unclosed
    assert ends_unclosed(fmt, calls, JsonStyle(), render(fmt, calls)) is False


def _draft(fmt: str, args: dict[str, Any], required: list[str]) -> Draft:
    schema = {
        "type": "object",
        "properties": {k: {"type": "string"} for k in args},
        "required": required,
    }
    return Draft(
        fmt=fmt,
        calls=[EmitCall("lookup_record", dict(args))],
        expected=[("lookup_record", dict(args))],
        schemas={"lookup_record": schema},
    )


def test_truncation_expectations() -> None:
    trunc = next(m for m in CATALOGUE if m.name == "truncated")
    rng = random.Random(1)
    for _ in range(20):
        d = _draft("hermes", {"a": "1", "b": "2"}, ["a", "b"])
        trunc.apply(d, rng)
        assert d.expected == []
        assert d.expected_error is not None
    # nothing required: still a call cut off before its closer, so an expected error
    # (it is reported invalid with its partial arguments, never run: issue 11)
    d = _draft("hermes", {"a": "1", "b": "2"}, [])
    trunc.apply(d, random.Random(3))
    assert d.expected == []
    assert d.expected_error is not None
    assert "cut off inside the call to lookup_record" in d.expected_error


def test_unknown_name_mutation_stays_a_unique_close_match() -> None:
    m = next(m for m in CATALOGUE if m.name == "unknown_name")
    d = _draft("json_bare", {"a": "1"}, [])
    m.apply(d, random.Random(0))
    written = d.calls[0].name
    assert written != "lookup_record"
    assert d.expected[0][0] == "lookup_record"
    d.settle_misnamed()
    if written.lower().replace("-", "_") == "lookup_record" or written == "lookupRecord":
        assert d.expected[0][0] == "lookup_record"  # only written differently: renamed
    else:  # other letters: never renamed, the case expects the invalid call
        assert d.misnamed == [(written, "lookup_record")]
        assert not d.expected
        assert d.expected_error is not None


# ---- generator ----------------------------------------------------------------------


def test_generator_is_deterministic(tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    from toolfix._bench.generate import generate, write_corpus

    sets = ("simple_python", "parallel", "irrelevance")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_corpus(generate(seed=0, max_cases=60, sets=sets), a)
    write_corpus(generate(seed=0, max_cases=60, sets=sets), b)
    assert a.read_bytes() == b.read_bytes()
    c = tmp_path / "c.jsonl"
    write_corpus(generate(seed=1, max_cases=60, sets=sets), c)
    assert c.read_bytes() != a.read_bytes()
    lines = a.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 60
    for text in lines:
        case = parse_line(text)
        assert case.source
        assert case.source.startswith("generated from BFCL v4")


def _committed_lines() -> list[str]:
    if not CORPUS.is_file():
        pytest.skip("generated corpus not present")
    return CORPUS.read_text(encoding="utf-8").splitlines()


def test_committed_corpus_lines_validate() -> None:
    from jsonschema import Draft202012Validator

    ids = set()
    for text in _committed_lines():
        case = parse_line(text)
        assert case.id not in ids
        ids.add(case.id)
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in case.tools}
        for call in case.expected_calls:
            assert Draft202012Validator(schemas[call.name]).is_valid(call.arguments), case.id
    assert len(ids) >= 1000


def test_committed_corpus_size() -> None:
    _committed_lines()
    assert CORPUS.stat().st_size < 3_200_000


def test_bad_escape_touches_names_and_keys_only() -> None:
    call = EmitCall("get_weather", {"city_name": "x_y"})
    content = render("json_bare", [call], JsonStyle(escape_underscores=True))["content"]
    assert content == '{"name": "get\\_weather", "arguments": {"city\\_name": "x_y"}}'
