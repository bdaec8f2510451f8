"""The names of the calls a text is repaired to, whole and streamed in chunks: what the
promise-3 generators (narrated, documented, counterfactual, transcripts, past records,
catalogues, slots, rendered conversations) assert on, in ``repair()`` and in the stream."""

from __future__ import annotations

from typing import Any

from toolfix import accumulate, repair, repair_stream

__all__ = ["names", "streamed_names"]


def names(text: str, tools: list[dict[str, Any]]) -> list[str]:
    """The names of the calls ``repair(text, tools)`` returns."""
    return [c.name for c in repair(text, tools).tool_calls]


def streamed_names(text: str, tools: list[dict[str, Any]], size: int = 7) -> list[str]:
    """The names of the calls a stream of ``text`` in chunks of ``size`` ends with."""
    chunks = [
        {
            "id": "s",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": text[i : i + size]}}],
        }
        for i in range(0, len(text), size)
    ]
    return [c.name for c in accumulate(list(repair_stream(chunks, tools))).tool_calls]
