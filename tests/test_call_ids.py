"""Call ids (issue 29): unique per response and per call, kept from the upstream,
random otherwise, stable within one stream, deterministic only with a seed."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tooldefs import WEATHER_CITY

from toolfix import (
    FixConfig,
    ManualToolCallFixProcessor,
    Response,
    StepLoop,
    ToolCallPart,
    accumulate,
    repair,
    repair_stream,
)
from toolfix._convert import response_to_anthropic
from toolfix.testing import ScriptedExecutor, pinned_ids

TOOLS = [WEATHER_CITY]
TWO_CALLS = (
    "Checking.\n<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris',}}</tool_call>\n"
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
)


@pytest.fixture(autouse=True)
def _fresh_ids() -> Iterator[None]:
    """These tests see ids as a user does (conftest pins them for the other tests)."""
    with pinned_ids(None):
        yield


def _ids(response: Response) -> list[str | None]:
    return [p.id for p in (*response.tool_calls, *response.invalid_tool_calls)]


def test_same_output_twice_gets_distinct_ids() -> None:
    first, second = repair(TWO_CALLS, TOOLS), repair(TWO_CALLS, TOOLS)
    assert len(first.tool_calls) == 2
    ids = _ids(first) + _ids(second)
    assert all(i and i.startswith("call_") for i in ids)
    assert len(set(ids)) == 4  # per call and per response
    # everything else is the same
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        (c.name, c.arguments) for c in second.tool_calls
    ]


def test_same_upstream_response_id_still_distinct() -> None:
    """A stub upstream that repeats its response id does not make ids repeat."""
    resp = Response.text_only(TWO_CALLS, id="chatcmpl-same")
    assert set(_ids(repair(resp, TOOLS))).isdisjoint(_ids(repair(resp, TOOLS)))


def test_upstream_call_ids_are_kept() -> None:
    message = {
        "content": None,
        "tool_calls": [
            {
                "id": "call_up1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{'city': 'Rome'}"},
            },
        ],
    }
    out = repair(message, TOOLS)
    assert [(c.id, c.arguments) for c in out.tool_calls] == [("call_up1", {"city": "Rome"})]


def test_a_seed_makes_ids_a_function_of_the_input() -> None:
    seeded = FixConfig(id_seed=42)
    a, b = repair(TWO_CALLS, TOOLS, config=seeded), repair(TWO_CALLS, TOOLS, config=seeded)
    assert a == b
    other = repair(TWO_CALLS, TOOLS, config=FixConfig(id_seed=43))
    assert set(_ids(a)).isdisjoint(_ids(other))


@given(
    st.sampled_from([TWO_CALLS, "<tool_call>{", "text [TOOL_CALLS]get_weather{'city': 1}"]),
    st.text(max_size=30),
)
def test_repairing_a_repaired_response_changes_nothing_without_a_seed(
    markup: str, prose: str
) -> None:
    """Promise 7 holds with fresh ids: the second pass finds nothing new."""
    fixer = ManualToolCallFixProcessor()
    once = fixer.fix(Response.text_only(prose + markup), TOOLS)
    assert fixer.fix(once, TOOLS) == once


def _chunks(text: str, cuts: list[int], rid: str | None) -> list[dict[str, Any]]:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    out = [
        {"id": rid, "choices": [{"index": 0, "delta": {"content": text[a:b]}}]}
        for a, b in itertools.pairwise(bounds)
    ]
    out.append({"id": rid, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return out


@given(st.lists(st.integers(min_value=0, max_value=400), max_size=6), st.integers(0, 2**40))
def test_stream_equals_repair_given_the_same_seed(cuts: list[int], seed: int) -> None:
    config = FixConfig(id_seed=seed)
    streamed = accumulate(repair_stream(_chunks(TWO_CALLS, cuts, "r1"), TOOLS, config=config))
    whole = repair(Response.text_only(TWO_CALLS, id="r1"), TOOLS, config=config)
    assert [(c.id, c.name, c.arguments) for c in streamed.tool_calls] == [
        (c.id, c.name, c.arguments) for c in whole.tool_calls
    ]


@given(st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_unseeded_stream_ids_are_stable_within_and_fresh_across_streams(cuts: list[int]) -> None:
    chunks = _chunks(TWO_CALLS, cuts, None)
    one = list(repair_stream(chunks, TOOLS))
    # every id a stream announces for a call index is the one it ends with
    seen: dict[int, set[str]] = {}
    for chunk in one:
        for tc in chunk["choices"][0]["delta"].get("tool_calls") or ():
            if tc.get("id"):
                seen.setdefault(tc["index"], set()).add(tc["id"])
    assert len(seen) == 2
    assert all(len(v) == 1 for v in seen.values())
    again = accumulate(repair_stream(chunks, TOOLS))
    assert set(_ids(accumulate(one))).isdisjoint(_ids(again))


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def _loop_history() -> tuple[Any, list[str]]:
    executor = ScriptedExecutor([TWO_CALLS, TWO_CALLS, "Done."])
    loop = StepLoop(
        executor,
        [get_weather],
        model="m",
        processor=ManualToolCallFixProcessor(),
    )
    result = loop.run_sync("weather?")
    ids = [c.id for step in result.steps for c in step.response.tool_calls]
    return result, ids


def test_steploop_two_turns_with_the_same_output_get_distinct_ids() -> None:
    result, ids = _loop_history()
    assert result.stopped_reason == "answer"
    assert len(ids) == 4
    assert len(set(ids)) == 4


def test_anthropic_history_from_steploop_has_unique_tool_use_ids() -> None:
    result, _ = _loop_history()
    uses: list[str] = []
    results: list[str] = []
    for message in result.messages:
        if message.role == "assistant":
            blocks = response_to_anthropic(Response(parts=message.parts))["content"]
            uses.extend(b["id"] for b in blocks if b["type"] == "tool_use")
        results.extend(p.tool_call_id for p in message.parts if p.type == "tool_result")
    assert len(uses) == 4
    assert len(set(uses)) == len(uses)  # Anthropic rejects repeats
    assert sorted(results) == sorted(uses)  # every result answers its own call


def test_proxy_hook_gives_distinct_ids_for_two_identical_requests() -> None:
    pytest.importorskip("litellm")
    from litellm.types.utils import ModelResponse

    from toolfix.integrations.litellm_proxy import ToolfixProxyHook

    hook = ToolfixProxyHook()
    got: list[str] = []
    for _ in range(2):
        upstream = ModelResponse(
            id="chatcmpl-fixed",  # a stub upstream that repeats its response id
            choices=[{"index": 0, "message": {"role": "assistant", "content": TWO_CALLS}}],
        )
        out = asyncio.run(
            hook.async_post_call_success_hook({"tools": TOOLS, "model": "m"}, None, upstream)
        )
        calls = out.choices[0].message.tool_calls
        assert [json.loads(c.function.arguments) for c in calls] == [
            {"city": "Paris"},
            {"city": "Oslo"},
        ]
        got.extend(c.id for c in calls)
    assert len(set(got)) == 4


def test_pinned_ids_restore_fresh_ids() -> None:
    with pinned_ids(5):
        assert repair(TWO_CALLS, TOOLS) == repair(TWO_CALLS, TOOLS)
    assert repair(TWO_CALLS, TOOLS) != repair(TWO_CALLS, TOOLS)


def test_a_found_call_is_a_tool_call_part() -> None:
    assert all(isinstance(c, ToolCallPart) for c in repair(TWO_CALLS, TOOLS).tool_calls)
