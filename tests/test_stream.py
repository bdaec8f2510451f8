"""Streaming repair: split invariance on every corpus case, promptness, real HTTP (SSE)."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai_stub import StubServer, openai_sse, run_stub_server

from toolfix import (
    LiteLLMExecutor,
    LLMBasedToolCallFixProcessor,
    ManualToolCallFixProcessor,
    Prompt,
    accumulate,
    repair,
    repair_stream,
    repair_stream_async,
)
from toolfix._stream.api import stream_through
from toolfix.testing import ScriptedExecutor

CORPORA = sorted(
    (Path(__file__).resolve().parent.parent / "benchmarks" / "corpora").glob("*.jsonl")
)
MARKERS = ("<tool_call>", "</tool_call>", "[TOOL_CALLS]", "<|", "|>", "```", "{", "}", "(", ")")


def _cases() -> list[dict[str, Any]]:
    return [json.loads(line) for path in CORPORA for line in path.read_text().splitlines()]


CASES = _cases()


def _cut(text: str, sizes: list[int]) -> list[str]:
    out, i, k = [], 0, 0
    while i < len(text):
        n = sizes[k % len(sizes)]
        out.append(text[i : i + n])
        i, k = i + n, k + 1
    return out


def _at_markers(text: str) -> list[str]:
    cuts = sorted(
        {0, len(text)}
        | {i for m in MARKERS for i in _find_all(text, m)}
        | {i + len(m) for m in MARKERS for i in _find_all(text, m)}
    )
    return [text[a:b] for a, b in itertools.pairwise(cuts) if b > a]


def _find_all(text: str, marker: str) -> Iterator[int]:
    i = text.find(marker)
    while i != -1:
        yield i
        i = text.find(marker, i + 1)


def _chunks(response: dict[str, Any], split: Any) -> list[dict[str, Any]]:
    """The response as OpenAI chunks: reasoning, then content, then native call deltas."""
    out: list[dict[str, Any]] = []

    def delta(d: dict[str, Any], finish: str | None = None) -> None:
        out.append(
            {
                "id": "s",
                "model": "m",
                "choices": [{"index": 0, "delta": d, "finish_reason": finish}],
            }
        )

    for piece in split(response.get("reasoning_content") or ""):
        delta({"reasoning_content": piece})
    for piece in split(response.get("content") or ""):
        delta({"content": piece})
    for i, tc in enumerate(response.get("tool_calls") or ()):
        fn = tc.get("function") or {}
        args = fn.get("arguments")
        args = args if isinstance(args, str) else json.dumps(args)
        delta(
            {
                "tool_calls": [
                    {
                        "index": i,
                        "id": tc.get("id"),
                        "type": "function",
                        "function": {"name": fn.get("name"), "arguments": ""},
                    }
                ]
            }
        )
        for piece in split(args):
            delta({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    delta({}, "stop")
    return out


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    """The whole response as the non-stream API gives it (what the stream adds up to)."""
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return {"id": "s", "model": "m", "choices": [choice]}


def _key(r: Any) -> tuple[Any, ...]:
    return (
        [
            (c.id, c.name, c.arguments, [(x.kind, x.detail) for x in c.repairs])
            for c in r.tool_calls
        ],
        [(c.name, c.raw, c.kind, c.error) for c in r.invalid_tool_calls],
        r.text,
        r.reasoning or None,
    )


def _splits(case_index: int) -> dict[str, Any]:
    rng = random.Random(case_index)
    sizes = [rng.randint(1, 24) for _ in range(32)]
    return {
        "one chunk": lambda t: [t] if t else [],
        "random sizes": lambda t: _cut(t, sizes),
        "at markers": _at_markers,
        "1 char": lambda t: list(t),
    }


# Conformance cases (harvest-json) whose stream and whole repair still differ; strict, so a
# fix shows up as XPASS and the entry is removed.
KNOWN_STREAM_GAPS: dict[str, str] = {}


def _stream_param(i: int) -> Any:
    gap = KNOWN_STREAM_GAPS.get(CASES[i]["id"])
    return pytest.param(i, marks=pytest.mark.xfail(strict=True, reason=gap)) if gap else i


@pytest.mark.parametrize(
    "index", [_stream_param(i) for i in range(len(CASES))], ids=lambda i: CASES[i]["id"]
)
def test_stream_adds_up_to_repair_for_every_split(index: int) -> None:
    case = CASES[index]
    want = _key(repair(_completion(case["response"]), case["tools"]))
    splits = _splits(index)
    if case["id"].startswith("bfcl") and index % 8:
        splits.pop("1 char")  # 1 in 8 generated cases char by char keeps CI short; all others
    for name, split in splits.items():
        out = list(repair_stream(_chunks(case["response"], split), case["tools"]))
        assert _key(accumulate(out)) == want, name
        assert out[-1]["toolfix"]["content_mismatch"] is False
        assert out[-1]["toolfix"]["release_mismatch"] is False


def test_prose_flows_before_the_input_ends() -> None:
    text = "The weather in Paris is mild today, and tomorrow brings light rain in the afternoon."
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
    emitted_before_end = []
    from toolfix._stream.core import StreamRepairer

    state = StreamRepairer([])
    for n, piece in enumerate(pieces):
        for chunk in state.feed({"choices": [{"index": 0, "delta": {"content": piece}}]}):
            emitted_before_end.append((n, chunk["choices"][0]["delta"]["content"]))
        sent = "".join(c for _, c in emitted_before_end)
        seen = "".join(pieces[: n + 1])
        held = seen[len(sent) :]
        assert len(held.strip().split(" ")) <= 1  # never more than the last word back
    assert emitted_before_end[0][0] < 3
    rest = state.finish()
    assert (
        "".join(c for _, c in emitted_before_end) + rest[0]["choices"][0]["delta"]["content"]
        == text
    )
    assert rest[-1]["choices"][0]["finish_reason"] == "stop"


def test_calls_come_out_as_deltas_with_valid_json_and_finish_reason(tools: Any) -> None:
    text = (
        'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": "3",}}'
        "\n</tool_call>"
    )
    out = list(repair_stream(_chunks({"content": text}, lambda t: _cut(t, [3])), tools))
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in out)
    assert "<tool_call>" not in content
    assert content == "Sure."
    call_deltas = [
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in out
        if c["choices"][0]["delta"].get("tool_calls")
    ]
    assert call_deltas[0]["function"]["name"] == "get_weather"
    assert call_deltas[0]["id"]
    args = "".join(d["function"]["arguments"] for d in call_deltas)
    assert json.loads(args) == {"city": "Paris", "days": 3}
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert any(r["kind"] == "native_markup" for r in out[-1]["toolfix"]["calls"][0]["repairs"])


async def test_async_stream_and_processor_chain(tools: Any) -> None:
    text = '[get_weather(city="Oslo")]'

    async def source() -> Any:
        for c in _chunks({"content": text}, lambda t: _cut(t, [2])):
            yield c

    out = [c async for c in repair_stream_async(source(), tools)]
    assert [c.arguments for c in accumulate(out).tool_calls] == [{"city": "Oslo"}]
    manual = ManualToolCallFixProcessor()
    out2 = [
        c
        async for c in manual.process_stream(
            None, Prompt(), "m", tools, _chunks({"content": text}, list)
        )
    ]
    assert _key(accumulate(out2)) == _key(accumulate(out))


async def test_llm_fixer_on_a_stream_says_so(tools: Any) -> None:
    fix_reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "f1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Lima"}'},
            }
        ],
    }
    executor = ScriptedExecutor(["yes", fix_reply])
    fixer = ManualToolCallFixProcessor() + LLMBasedToolCallFixProcessor(max_retries=1)
    chunks = _chunks(
        {"content": "Let me check the weather in Lima for you."}, lambda t: _cut(t, [4])
    )
    out = [
        c
        async for c in stream_through(
            fixer, executor, Prompt.of("weather in Lima?"), "m", tools, chunks
        )
    ]
    fixed = accumulate(out)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("get_weather", {"city": "Lima"})]
    assert out[-1]["toolfix"]["llm_calls"] == 2
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"


@pytest.fixture
def stub() -> Iterator[StubServer]:
    yield from run_stub_server()


@pytest.mark.integration
async def test_litellm_streams_over_sse_and_the_stream_is_repaired(
    stub: StubServer, tools: Any
) -> None:
    text = (
        'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Rome", "days": "2"}}'
        "</tool_call>"
    )
    stub.reply(openai_sse(_cut(text, [6])))
    executor = LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test")
    raw = executor.execute_stream(Prompt.of("weather in Rome?"), "openai/stub-model", tools)
    out = [c async for c in repair_stream_async(raw, tools)]
    assert stub.requests[0].body["stream"] is True
    fixed = accumulate(out)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("get_weather", {"city": "Rome", "days": 2})
    ]
    assert fixed.text == "Checking."
    assert out[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_early_release_work_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """Releasing calls at their closer repairs prefixes of the message: the characters
    repaired in total stay within a constant times the text, and calls still go out
    early (in batches once the budget is spent)."""
    import toolfix._stream.core as stream_module
    from toolfix import FixConfig, Limits

    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}},
            },
        }
    ]
    # (the prompt opened the reasoning: calls leave once its closer has passed)
    text = "done</think>\n" + "".join(
        f'<tool_call>{{"name": "f", "arguments": {{"a": {i}}}}}</tool_call>\n' for i in range(600)
    )
    repaired: list[int] = []
    real = stream_module.fix

    def counting(message: Any, *args: Any, **kwargs: Any) -> Any:
        repaired.append(len(message.text))
        return real(message, *args, **kwargs)

    monkeypatch.setattr(stream_module, "fix", counting)
    config = FixConfig(limits=Limits(max_calls=10_000), reasoning_prefilled=True)
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": text[i : i + 4]}}]}
        for i in range(0, len(text), 4)
    ]
    out = list(repair_stream(chunks, tools, config=config))
    repaired.pop()  # the final repair of the whole message; the rest are prefixes
    assert sum(repaired) <= (stream_module.RELEASE_BUDGET + 4) * len(text) + 4096
    assert out[-1]["toolfix"]["released_early"] > 300
    assert [c.arguments for c in accumulate(out).tool_calls] == [{"a": i} for i in range(600)]
