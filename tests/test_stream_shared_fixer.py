"""``repair()`` and a stream given no configuration share one fixer (one interpreter
cache): the default configuration is one cache entry, counted, never timed."""

from __future__ import annotations

from test_stream_cost import CALL, TOOLS, _chunks

from toolfix import ToolRegistry, accumulate, repair, repair_stream
from toolfix._repair import engine


def test_repair_and_default_streams_share_one_fixer() -> None:
    registry = ToolRegistry.of(TOOLS)
    message = {"role": "assistant", "content": "call " + CALL}
    engine.fixer_for.cache_clear()  # (a cache only: the next repairs rebuild it)
    for config in (None, engine.DEFAULT_CONFIG):  # a stream given none holds the default
        assert repair(message, registry, config=config).tool_calls[0].name == "get_weather"
        out = list(repair_stream(_chunks("call " + CALL), registry, config=config))
        assert [c.name for c in accumulate(out).tool_calls] == ["get_weather"]
    assert engine.fixer_for.cache_info().misses == 1  # one fixer built, for all four
