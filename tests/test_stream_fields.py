"""Streams keep the upstream's chunk fields: ``role`` in the first delta, ``created``,
``model``, ``system_fingerprint`` (OpenAI), and the ``message_start`` message's own
fields (Anthropic)."""

from __future__ import annotations

from typing import Any

from conftest import WEATHER

from toolfix import FixConfig, repair_stream

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-9",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "qwen3-32b",
        "system_fingerprint": "fp_42",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_openai_chunks_keep_the_upstream_fields() -> None:
    text = f"Sure.</think>\n\nChecking. {CALL}\nMore text follows here."
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": text[i : i + 6]}) for i in range(0, len(text), 6)]
    chunks.append(_chunk({}, "stop"))
    out = list(repair_stream(chunks, [WEATHER], config=FixConfig(reasoning_prefilled=True)))
    assert len(out) > 3
    for c in out:
        assert (c["id"], c["created"], c["model"], c["system_fingerprint"]) == (
            "chatcmpl-9",
            1_700_000_000,
            "qwen3-32b",
            "fp_42",
        )
    assert out[0]["choices"][0]["delta"]["role"] == "assistant"
    assert all("role" not in c["choices"][0]["delta"] for c in out[1:])
    # the call left before the stream ended
    firsts = [i for i, c in enumerate(out) if c["choices"][0]["delta"].get("tool_calls")]
    assert firsts
    assert firsts[0] < len(out) - 2


def test_no_fingerprint_upstream_none_downstream() -> None:
    chunks = [{"id": "x", "model": "m", "choices": [{"index": 0, "delta": {"content": "hi"}}]}]
    out = list(repair_stream(chunks, [WEATHER]))
    assert all("system_fingerprint" not in c for c in out)
    assert out[0]["choices"][0]["delta"]["role"] == "assistant"


def test_anthropic_message_start_keeps_its_fields() -> None:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "container": {"id": "c1"},
            "usage": {"input_tokens": 3, "output_tokens": 0},
        },
    }
    events = [
        start,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    out = list(repair_stream(events, [WEATHER]))
    msg = out[0]["message"]
    assert (msg["id"], msg["model"], msg["role"], msg["container"]) == (
        "msg_1",
        "claude-x",
        "assistant",
        {"id": "c1"},
    )
