"""One-call convenience functions around the manual fixer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._config import FixConfig
from ._convert import response_from_anthropic, response_from_openai
from ._manual import ManualToolCallFixProcessor
from ._messages import Response, TextPart
from ._processor import ToolsLike

__all__ = ["arepair", "as_response", "repair"]


def as_response(value: Response | Mapping[str, Any] | str) -> Response:
    """Read a response given as a :class:`Response`, an OpenAI assistant message or chat
    completion dict, an Anthropic message dict, or raw text."""
    if isinstance(value, Response):
        return value
    if isinstance(value, str):
        return Response(parts=(TextPart(text=value),) if value else ())
    if isinstance(value.get("content"), list) and (
        value.get("type") == "message"
        or any(isinstance(b, Mapping) and b.get("type") == "tool_use" for b in value["content"])
    ):
        return response_from_anthropic(value)
    return response_from_openai(value)


def repair(
    response: Response | Mapping[str, Any] | str,
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
    response: Response | Mapping[str, Any] | str,
    tools: ToolsLike,
    *,
    config: FixConfig | None = None,
) -> Response:
    """Async counterpart of :func:`repair`."""
    return repair(response, tools, config=config)
