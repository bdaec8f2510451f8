"""One-call convenience functions around the manual fixer."""

from __future__ import annotations

from ._config import FixConfig
from ._manual import ManualToolCallFixProcessor
from ._messages import Response
from ._processor import ToolsLike
from ._shapes import as_response

__all__ = ["arepair", "as_response", "repair"]


def repair(
    response: object,
    tools: ToolsLike,
    *,
    config: FixConfig | None = None,
) -> Response:
    """Repair one response's tool calls without an LLM (sync).

    Examples:
        >>> from toolfix import repair
        >>> tools = [{"type": "function", "function": {"name": "get_weather",
        ...     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
        ...                    "required": ["city"]}}}]
        >>> text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'
        >>> fixed = repair(text, tools)
        >>> [(c.name, c.arguments) for c in fixed.tool_calls]
        [('get_weather', {'city': 'Paris'})]
    """
    return ManualToolCallFixProcessor(config).fix(as_response(response), tools)


async def arepair(
    response: object,
    tools: ToolsLike,
    *,
    config: FixConfig | None = None,
) -> Response:
    """Async counterpart of :func:`repair`."""
    return repair(response, tools, config=config)
