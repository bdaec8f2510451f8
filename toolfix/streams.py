"""Streams: repair a streamed response chunk by chunk, and add a repaired stream up.

OpenAI chunks in give OpenAI chunk dicts out; Anthropic stream events in give
Anthropic event dicts out (docs/guides/streaming.md).

    >>> from toolfix.streams import accumulate, repair_stream
    >>> chunks = [{"choices": [{"index": 0, "delta": {"content": "Hi"}}]}]
    >>> accumulate(repair_stream(chunks, [])).text
    'Hi'
"""

from __future__ import annotations

from ._stream.api import (
    StreamChunk,
    accumulate,
    process_stream_whole,
    repair_stream,
    repair_stream_async,
)
from ._stream.core import StreamRepairer

__all__ = [
    "StreamChunk",
    "StreamRepairer",
    "accumulate",
    "process_stream_whole",
    "repair_stream",
    "repair_stream_async",
]
