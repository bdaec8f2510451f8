"""The public "run these calls against these tools" helper, and partial tools."""

from __future__ import annotations

import functools

from toolfix import InvalidToolCallPart, Response, ToolCallPart, ToolRegistry, run_tool_calls
from toolfix.loop import run_tool_calls_sync


def scale(value: int, factor: int) -> int:
    """Multiply."""
    return value * factor


async def ascale(value: int, factor: int) -> int:
    """Multiply, async."""
    return value * factor


def _call(cid: str, name: str, raw: str, **kw: object) -> ToolCallPart:
    import json

    return ToolCallPart(id=cid, name=name, arguments_raw=raw, arguments=json.loads(raw), **kw)


def test_partial_tools_are_described_by_the_wrapped_function() -> None:
    registry = ToolRegistry.of([functools.partial(scale, factor=3)])
    tool = registry["scale"]
    assert set(tool.properties) == {"value"}  # the bound argument is not offered
    assert tool.description == "Multiply."
    [run] = run_tool_calls_sync([_call("c", "scale", '{"value": 4}')], registry)
    assert (run.content, run.is_error) == ("12", False)


async def test_runs_a_response_in_call_order_and_reports_mistakes() -> None:
    registry = ToolRegistry.of([functools.partial(ascale, factor=2)])
    response = Response(
        parts=(
            _call("a", "ascale", '{"value": 1}'),
            InvalidToolCallPart(id="b", name="ascale", raw="{oops", error="not JSON"),
            _call("c", "nope", "{}"),
            _call("d", "web_search", "{}", provider_executed=True),
            _call("e", "ascale", '{"value": "x"}'),
        )
    )
    runs = await run_tool_calls(response, registry)
    assert [r.call_id for r in runs] == ["a", "b", "c", "e"]  # the provider's own call is skipped
    assert [r.error_type for r in runs] == [
        None,
        "invalid_call",
        "unknown_tool",
        "invalid_arguments",
    ]
    assert runs[0].content == "2"
    assert runs[0].to_part().content == "2"
