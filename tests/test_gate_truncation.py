"""Gate rule G1 as a property: no cut of any family's call text gives a valid call that
the uncut text does not give (precisely: no valid call whose extent reaches the cut).

Every corpus case whose response holds its calls in the text content is cut at a sample
of offsets (every offset of a short case's content); the calls that
``repair(cut text)`` admits must each be a call that ``repair(whole text)`` admits, with
the same name and arguments: a call that ended before the cut is the same call, and a
call the cut reaches is never valid. Also the named edges: Kimi K2 cut inside
``<|tool_call_argument_begin|>``, a native call with empty arguments under
``finish_reason: "length"``, a ReAct output ending at ``Action Input:``."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolfix import ManualToolCallFixProcessor, ToolRegistry
from toolfix._convert import response_from_openai

CORPORA = Path(__file__).resolve().parent.parent / "benchmarks" / "corpora"
FIXER = ManualToolCallFixProcessor()


def _cases() -> list[dict[str, Any]]:
    out = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            content = case["response"].get("content")
            if (
                isinstance(content, str)
                and content.strip()
                and not case["response"].get("tool_calls")
            ):
                out.append(case)
    return out


def _valid(response: dict[str, Any], registry: ToolRegistry) -> Counter[str]:
    fixed = FIXER.fix(response_from_openai(response), registry)
    return Counter(json.dumps([c.name, c.arguments], sort_keys=True) for c in fixed.tool_calls)


def cut_violations(case: dict[str, Any], offsets: list[int]) -> list[tuple[int, str]]:
    """The cuts of ``case``'s content (at ``offsets``) that admit a call the whole text
    does not admit."""
    registry = ToolRegistry.from_openai(case["tools"])
    content: str = case["response"]["content"]
    whole = _valid({"role": "assistant", "content": content}, registry)
    bad = []
    for at in offsets:
        msg = {"role": "assistant", "content": content[:at]}
        extra = _valid(msg, registry) - whole
        if extra:
            bad.append((at, next(iter(extra))))
    return bad


def _offsets(content: str, rng: random.Random, sample: int) -> list[int]:
    n = len(content)
    if n <= sample:
        return list(range(n))
    return sorted(rng.sample(range(n), sample))


_NON_GENERATED = [c for c in _cases() if not c["id"].startswith("bfcl-")]
_GENERATED = [c for c in _cases() if c["id"].startswith("bfcl-")]


#: Cuts whose admitted call is overturned by what follows, not by the cut itself: the
#: whole text holds the markup as a value (Seed-OSS closers inside a value) or as a quote
#: (an inline code span). Those are the stream property's and the quote evidence's work
#: (issue 26 items 2 and 3, other branches); kept here, marked, so that they are seen.
_OVERTURNED_BY_WHAT_FOLLOWS = {
    "seed_oss-vllm-engine-closers-inside-value",
    "curated-plain-tool-format-docs",
    # a ReAct action answered by the ``Observation:`` after it (transcripts.py, decided by
    # what follows: a cut before the observation is a message ending in a call)
    "prec7-stretchcloud-react-slide-action-arrow",
    "prec7-ptrns-react-arrow-diagram",
    # (fresh9cn-seembox-…, answered by 返回结果： after its block, was one: its example
    # exchange's labels, 用户： then AI调用：, decide it before the call since fix10a)
    # a stand-in value named by the replace note after the call (replacenote.py, fix10c):
    # a cut before the note is a message ending in a call
    "fresh9rec2-mvtcb-smollm3-3b-r2p6-empty-think-command-cityname-placeholder",
    "ev10rec2-bfclresult-2024-deepseek-coder-6b7-relevance222-your-location-then-replace-note",
    "ev10rec2-bfclresult-2024-hermes2theta-8b-js2-placeholder-function-then-replace-note",
}
#: Cuts admitted because the whole text's call is missed, not because the cut is read
#: wrongly (strict, so reading the whole text turns each into an unexpected pass). The
#: sixth harvest's two (GLM's first opener missing, opencode #14842; MiniMax-M3's tokens,
#: llama.cpp #24523) are read whole since branch tail7: none is left.
_WHOLE_CALL_MISSED: dict[str, str] = {
    # a pythonic call closed with one ")" too many ("(46.6, 1.88)))][weather.get_by..."):
    # the whole text drops that call (pythonic reading, fix10b's area); a cut right after
    # its own ")" is that call, complete
    "fresh10rec-aafv-qwen25-3b-multiple5-tuple-extra-paren-two-lists": "one ')' too many",
}
#: Cuts a reader admits although the call's own closer is cut off (promise 9), kept here,
#: marked and strict, until the reader is fixed. The ninth harvest's oh-my-pi #8837 (a
#: self-closing ``<tool name="bash" command="..." />`` cut before its ``/>``) was one
#: until the name attribute of any element made the call wait for that element's closer
#: (anchored.py, tests/test_wrapper_attribute_cuts.py): none is left.
_CUT_BEFORE_CLOSER_ADMITTED: dict[str, str] = {}


def _marked(case: dict[str, Any]) -> Any:
    if case["id"] in _CUT_BEFORE_CLOSER_ADMITTED:
        reason = f"a cut before the closer is admitted ({_CUT_BEFORE_CLOSER_ADMITTED[case['id']]})"
        return pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True))
    if case["id"] in _WHOLE_CALL_MISSED:
        reason = f"the whole text's call is missed ({_WHOLE_CALL_MISSED[case['id']]})"
        return pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True))
    if case["id"] in _OVERTURNED_BY_WHAT_FOLLOWS:
        reason = "a later closer or quote overturns the call: stream/quote work"
        return pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True))
    return case


@pytest.mark.parametrize("case", [_marked(c) for c in _NON_GENERATED], ids=lambda c: c["id"])
def test_no_cut_of_a_corpus_call_is_admitted(case: dict[str, Any]) -> None:
    rng = random.Random(case["id"])
    content = case["response"]["content"]
    assert cut_violations(case, _offsets(content, rng, 60)) == []


def test_no_cut_of_a_generated_call_is_admitted() -> None:
    rng = random.Random(7)
    bad = []
    for case in rng.sample(_GENERATED, 150):
        content = case["response"]["content"]
        bad += [(case["id"], v) for v in cut_violations(case, _offsets(content, rng, 8))]
    assert bad == []


def _tools(*names: str) -> ToolRegistry:
    props = {"paths": {"type": "array", "items": {"type": "string"}}}
    return ToolRegistry.from_openai(
        [
            {
                "type": "function",
                "function": {"name": n, "parameters": {"type": "object", "properties": props}},
            }
            for n in names
        ]
    )


@pytest.mark.parametrize(
    "text",
    [
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.delete_files:0<|tool_call_argu",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.delete_files:0"
        "<|tool_call_argument_begin|>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.delete_files:0<|",
        "Thought: clean up\nAction: delete_files\nAction Input:",
        "Thought: clean up\nAction: delete_files\nAction Input:  \n",
    ],
)
def test_named_cuts_are_truncated_calls(text: str) -> None:
    out = FIXER.fix(
        response_from_openai({"role": "assistant", "content": text}), _tools("delete_files")
    )
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert bad.kind == "truncated"


@pytest.mark.parametrize("raw", ["", "   ", '{"paths": ["a"', '{"paths": '])
def test_native_call_cut_by_the_token_limit_is_truncated(raw: str) -> None:
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "delete_files", "arguments": raw}}
        ],
    }
    out = FIXER.fix(response_from_openai(msg, finish_reason="length"), _tools("delete_files"))
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert bad.kind == "truncated"
    assert bad.raw == raw


def test_native_call_with_empty_arguments_under_stop_is_a_call() -> None:
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "delete_files", "arguments": ""}}
        ],
    }
    out = FIXER.fix(response_from_openai(msg, finish_reason="stop"), _tools("delete_files"))
    assert [c.arguments for c in out.tool_calls] == [{}]
