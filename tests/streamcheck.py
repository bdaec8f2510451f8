"""The streaming promise as one check: any split of a message, streamed through
``repair_stream``, adds up to what ``repair()`` gives for the whole message."""

from __future__ import annotations

import itertools
from typing import Any

from toolfix import accumulate, repair, repair_stream


def assert_stream_adds_up(text: str, tools: list[dict[str, Any]], cuts: list[int]) -> None:
    """Stream ``text`` as OpenAI content chunks split at ``cuts`` and check the calls,
    the text and the stream's own verdict against ``repair()`` of the whole."""
    points = sorted({0, len(text), *(c for c in cuts if 0 < c < len(text))})
    chunks = [
        {
            "id": "s",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": text[a:b]}, "finish_reason": None}],
        }
        for a, b in itertools.pairwise(points)
    ]
    out = list(repair_stream(chunks, tools))
    got = accumulate(out)
    whole = {"role": "assistant", "content": text}
    want = repair({"id": "s", "model": "m", "choices": [{"index": 0, "message": whole}]}, tools)
    assert [(c.name, c.arguments) for c in got.tool_calls] == [
        (c.name, c.arguments) for c in want.tool_calls
    ]
    assert got.text == want.text
    assert out[-1]["toolfix"]["content_mismatch"] is False
