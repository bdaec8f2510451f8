"""Anthropic stream events in and out: split invariance on every corpus case, thinking
signatures kept verbatim, tool_use blocks with input_json_delta fragments, the
``anthropic`` SDK's own event objects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_stream import CASES, _key, _splits, _stream_param

from toolfix import FixConfig, accumulate, repair, repair_stream
from toolfix._messages import ReasoningPart, Response, TextPart, ToolCallPart


def _args(tc: dict[str, Any]) -> str:
    args = (tc.get("function") or {}).get("arguments")
    return args if isinstance(args, str) else json.dumps(args)


def _events(response: dict[str, Any], split: Any, signature: str = "c2lnLTE=") -> list[Any]:
    """The case's message as Anthropic stream events: thinking, text, tool_use blocks."""
    out: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_s",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 11, "output_tokens": 1},
            },
        }
    ]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        out.append({"type": "content_block_start", "index": index, "content_block": start})
        out.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        out.append({"type": "content_block_stop", "index": index})
        index += 1

    if response.get("reasoning_content"):
        block(
            {"type": "thinking", "thinking": "", "signature": ""},
            [
                {"type": "thinking_delta", "thinking": p}
                for p in split(response["reasoning_content"])
            ]
            + [{"type": "signature_delta", "signature": signature}],
        )
    if response.get("content"):
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": p} for p in split(response["content"])],
        )
    for i, tc in enumerate(response.get("tool_calls") or ()):
        fn = tc.get("function") or {}
        block(
            {
                "type": "tool_use",
                "id": tc.get("id") or f"toolu_{i}",
                "name": fn.get("name"),
                "input": {},
            },
            [{"type": "input_json_delta", "partial_json": p} for p in split(_args(tc))],
        )
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 42},
        }
    )
    out.append({"type": "message_stop"})
    return out


def _reference(response: dict[str, Any], signature: str = "c2lnLTE=") -> Response:
    """The whole message as a non-stream Anthropic call gives it (built by hand)."""
    parts: list[Any] = []
    if response.get("reasoning_content"):
        parts.append(ReasoningPart(text=response["reasoning_content"], signature=signature))
    if response.get("content"):
        parts.append(TextPart(text=response["content"]))
    for i, tc in enumerate(response.get("tool_calls") or ()):
        raw = _args(tc)
        try:  # no input_json_delta at all: the block's start input, {}
            parsed = json.loads(raw or "{}")
        except ValueError:
            parsed = None
        ok = isinstance(parsed, dict)  # a real tool_use input is an object: its JSON form
        parts.append(
            ToolCallPart(
                id=tc.get("id") or f"toolu_{i}",
                name=(tc.get("function") or {}).get("name") or "",
                arguments_raw=json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
                if ok
                else raw,
                arguments=parsed if ok else None,
            )
        )
    return Response(parts=tuple(parts), id="msg_s", model="m", finish_reason="end_turn")


@pytest.mark.parametrize(
    "index", [_stream_param(i) for i in range(len(CASES))], ids=lambda i: CASES[i]["id"]
)
def test_anthropic_stream_adds_up_to_repair_for_every_split(index: int) -> None:
    case = CASES[index]
    want = _key(repair(_reference(case["response"]), case["tools"]))
    splits = _splits(index)
    if case["id"].startswith("bfcl") and index % 8:
        splits.pop("1 char")
    for name, split in splits.items():
        out = list(repair_stream(_events(case["response"], split), case["tools"]))
        got = accumulate(out)
        assert _key(got) == want, name
        ext = out[-2]["toolfix"]
        assert ext["content_mismatch"] is False
        assert ext["release_mismatch"] is False
        assert [e["type"] for e in out[:1] + out[-2:]] == [
            "message_start",
            "message_delta",
            "message_stop",
        ]
        assert out[-2]["delta"]["stop_reason"] == ("tool_use" if got.tool_calls else "end_turn")
        _well_formed(out)


def _well_formed(events: list[dict[str, Any]]) -> None:
    """One block open at a time, indices 0, 1, 2... each started, then stopped."""
    open_index = None
    expected = 0
    for e in events:
        if e["type"] == "content_block_start":
            assert open_index is None
            assert e["index"] == expected
            open_index = e["index"]
        elif e["type"] == "content_block_delta":
            assert e["index"] == open_index
        elif e["type"] == "content_block_stop":
            assert e["index"] == open_index
            open_index, expected = None, expected + 1
    assert open_index is None


def test_thinking_streams_with_its_signature_verbatim(tools: Any) -> None:
    sig = "EqQBCkgIARABGAIiQL+/sig=="
    response = {
        "reasoning_content": "The user wants the weather in Paris.",
        "content": 'Checking.\n<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris",}}</tool_call>',
    }
    events = _events(response, lambda t: [t[i : i + 5] for i in range(0, len(t), 5)], sig)
    out = list(repair_stream(events, tools))
    kinds = [(e["type"], (e.get("delta") or {}).get("type")) for e in out]
    first_thinking_at = kinds.index(("content_block_delta", "thinking_delta"))
    assert first_thinking_at <= 2  # thinking goes out as it arrives
    sigs = [
        e["delta"]["signature"]
        for e in out
        if (e.get("delta") or {}).get("type") == "signature_delta"
    ]
    assert sigs == [sig]
    fixed = accumulate(out)
    assert fixed.parts[0] == ReasoningPart(text=response["reasoning_content"], signature=sig)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("get_weather", {"city": "Paris"})]
    tool_blocks = [
        e
        for e in out
        if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"
    ]
    assert len(tool_blocks) == 1
    fragments = "".join(
        e["delta"]["partial_json"]
        for e in out
        if (e.get("delta") or {}).get("type") == "input_json_delta"
    )
    assert json.loads(fragments) == {"city": "Paris"}
    assert out[-2]["delta"]["stop_reason"] == "tool_use"
    assert fixed.usage is not None
    assert fixed.usage.input_tokens == 11
    assert fixed.usage.output_tokens == 42
    assert (fixed.id, fixed.model) == ("msg_s", "m")


def test_invalid_calls_and_repairs_ride_in_the_extension(tools: Any) -> None:
    # cut inside its value: truncated even though the stream ends on end_turn (promise 9)
    text = 'Sure.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Par'
    out = list(repair_stream(_events({"content": text}, lambda t: [t]), tools))
    ext = out[-2]["toolfix"]
    assert ext["invalid_tool_calls"][0]["kind"] == "truncated"
    assert out[-2]["delta"]["stop_reason"] == "end_turn"
    assert accumulate(out).invalid_tool_calls[0].kind == "truncated"


def test_thinking_flows_and_calls_in_it_are_promoted_after_it(tools: Any) -> None:
    response = {
        "reasoning_content": '<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Oslo"}}</tool_call>',
    }
    config = FixConfig(reasoning_calls="promote")
    events = _events(response, lambda t: [t[i : i + 7] for i in range(0, len(t), 7)])
    out = list(repair_stream(events, tools, config=config))
    want = repair(_reference(response), tools, config=config)
    assert _key(accumulate(out)) == _key(want)
    assert [c.arguments for c in accumulate(out).tool_calls] == [{"city": "Oslo"}]


def test_broken_native_tool_use_input_is_repaired(tools: Any) -> None:
    response = {
        "tool_calls": [
            {
                "id": "toolu_1",
                "function": {"name": "get_weather", "arguments": '{"city": "Rome", "days": "2",}'},
            }
        ]
    }
    events = _events(response, lambda t: [t[i : i + 3] for i in range(0, len(t), 3)])
    fixed = accumulate(list(repair_stream(events, tools)))
    assert [(c.id, c.arguments) for c in fixed.tool_calls] == [
        ("toolu_1", {"city": "Rome", "days": 2})
    ]


def test_sdk_event_objects_in(tools: Any) -> None:
    anthropic_types = pytest.importorskip("anthropic.types")
    adapter = __import__("pydantic").TypeAdapter(anthropic_types.RawMessageStreamEvent)
    text = (
        'One moment.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Lima"}}</tool_call>'
    )
    events = [
        adapter.validate_python(e)
        for e in _events({"content": text}, lambda t: [t[i : i + 4] for i in range(0, len(t), 4)])
    ]
    assert not isinstance(events[0], dict)
    out = list(repair_stream(events, tools))
    fixed = accumulate(out)
    assert fixed.text == "One moment."
    assert [c.arguments for c in fixed.tool_calls] == [{"city": "Lima"}]
    # the output validates as SDK events too
    for e in out:
        adapter.validate_python(e)


def test_whitespace_first_content_streams_what_repair_keeps(tools: Any) -> None:
    """Found by a property test: content that begins with whitespace was streamed, then
    repair() stripped it, and the stream no longer added up to repair()."""
    for text in (
        '\n\n  Let me look.\n<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Oslo"}}</tool_call>',
        "   Just prose, no call at all, with leading blanks.",
    ):
        for size in (1, 3, 50):
            pieces = [text[i : i + size] for i in range(0, len(text), size)]
            chunks = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
            out = list(repair_stream(chunks, tools))
            assert out[-1]["toolfix"]["content_mismatch"] is False
            assert accumulate(out).text == repair(text, tools).text
