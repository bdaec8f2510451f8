"""The proxy hook in-process: error path, pass-through, the stream buffer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("litellm")

from litellm.types.utils import Delta, ModelResponse, ModelResponseStream, StreamingChoices

from toolfix.integrations.litellm_proxy import ToolfixProxyHook

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
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
    calls = [tc for c in out for ch in c.choices for tc in (ch.delta.tool_calls or [])]
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert out[-1].choices[0].finish_reason == "tool_calls"
    plain = _chunks("Hello, no call here.")
    again = asyncio.run(_collect(hook, plain, {"tools": TOOLS, "model": "m"}))
    assert again == plain
