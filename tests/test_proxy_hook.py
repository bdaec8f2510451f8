"""The proxy hook in-process: error path, pass-through, the stream buffer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("litellm")

from litellm.types.utils import Delta, ModelResponse, ModelResponseStream, StreamingChoices
from tooldefs import WEATHER_CITY

from toolfix.integrations.litellm_proxy import ToolfixProxyHook

TOOLS = [WEATHER_CITY]
BROKEN = "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris',}}"


def _response(content: str) -> ModelResponse:
    return ModelResponse(
        choices=[{"index": 0, "message": {"role": "assistant", "content": content}}]
    )


def test_repair_error_keeps_the_original_response() -> None:
    hook = ToolfixProxyHook()

    async def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    hook.repair_message = boom  # type: ignore[method-assign]
    resp = _response(BROKEN)
    out = asyncio.run(hook.async_post_call_success_hook({"tools": TOOLS, "model": "m"}, None, resp))
    assert out.choices[0].message.content == BROKEN
    assert "boom" in out.toolfix["error"]
    assert "error=1" in out._hidden_params["additional_headers"]["x-toolfix-repairs"]


def test_non_stream_repair_and_no_tools_pass_through() -> None:
    hook = ToolfixProxyHook()
    out = asyncio.run(
        hook.async_post_call_success_hook({"tools": TOOLS, "model": "m"}, None, _response(BROKEN))
    )
    call = out.choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    untouched = _response(BROKEN)
    same = asyncio.run(hook.async_post_call_success_hook({"model": "m"}, None, untouched))
    assert same.choices[0].message.content == BROKEN


def _chunks(text: str) -> list[ModelResponseStream]:
    out = [
        ModelResponseStream(
            id="x", choices=[StreamingChoices(index=0, delta=Delta(content=text[i : i + 5]))]
        )
        for i in range(0, len(text), 5)
    ]
    out.append(
        ModelResponseStream(
            id="x", choices=[StreamingChoices(index=0, delta=Delta(), finish_reason="stop")]
        )
    )
    return out


async def _collect(hook: ToolfixProxyHook, chunks: list[Any], data: dict[str, Any]) -> list[Any]:
    async def gen() -> AsyncIterator[Any]:
        for c in chunks:
            yield c

    return [c async for c in hook.async_post_call_streaming_iterator_hook(None, gen(), data)]


def test_stream_is_repaired_and_plain_text_passes_through() -> None:
    hook = ToolfixProxyHook()
    out = asyncio.run(_collect(hook, _chunks(BROKEN), {"tools": TOOLS, "model": "m"}))
    deltas = [tc for c in out for ch in c.choices for tc in (ch.delta.tool_calls or [])]
    names = [d.function.name for d in deltas if d.function.name]
    args = "".join(d.function.arguments or "" for d in deltas)
    assert names == ["get_weather"]
    assert json.loads(args) == {"city": "Paris"}
    assert deltas[0].id  # index, id and name come first
    assert out[-1].choices[0].finish_reason == "tool_calls"
    assert out[-1].toolfix["invalid_tool_calls"] == []
    text = "Hello, no call here at all."
    plain = _chunks(text)
    again = asyncio.run(_collect(hook, plain, {"tools": TOOLS, "model": "m"}))
    streamed = "".join(ch.delta.content or "" for c in again for ch in c.choices)
    assert streamed == text
    assert again[-1].choices[0].finish_reason == "stop"
    # prose flows before the upstream stream ends: the first chunk out is text
    assert again[0].choices[0].delta.content


def _anthropic_sse(text: str) -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "model": "m", "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text[i : i + 5]},
            }
            for i in range(0, len(text), 5)
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]
    return "".join(
        f"event: {e['type']}\r\ndata: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in events
    ).encode()


def _read_sse(frames: list[Any]) -> list[dict[str, Any]]:
    raw = b"".join(f if isinstance(f, bytes) else f.encode() for f in frames).decode()
    return [
        json.loads(line[5:])
        for block in raw.split("\n\n")
        for line in block.split("\n")
        if line.startswith("data:")
    ]


def test_anthropic_sse_stream_is_repaired_whatever_the_byte_cuts() -> None:
    """/v1/messages streams reach the hook as raw SSE bytes: cut anywhere (inside a
    multi-byte character, between \\r and \\n), they are read, repaired, written back."""
    from toolfix import accumulate

    tools = [
        {
            "name": "get_weather",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]
    text = (
        'Voilà, São Paulo.\n<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "São Paulo",}}</tool_call>'
    )
    data = _anthropic_sse(text)
    for size in (1, 7, 64, len(data)):

        async def upstream(size: int = size) -> AsyncIterator[bytes]:
            for i in range(0, len(data), size):
                yield data[i : i + size]

        async def run() -> list[Any]:
            hook = ToolfixProxyHook()
            request = {"model": "m", "tools": tools}
            return [
                x
                async for x in hook.async_post_call_streaming_iterator_hook(
                    None, upstream(), request
                )
            ]

        events = _read_sse(asyncio.run(run()))
        fixed = accumulate(events)
        assert fixed.text == "Voilà, São Paulo."
        assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
            ("get_weather", {"city": "São Paulo"})
        ]
        assert events[-2]["delta"]["stop_reason"] == "tool_use"
        assert events[-1] == {"type": "message_stop"}
