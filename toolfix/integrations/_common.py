"""Shared pieces of the framework adapters (no framework imports here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._convert import _parse_object as parse_args  # one reader of an arguments string
from .._messages import InvalidToolCallPart, Prompt, Response
from .._pipeline.processor import ResponseProcessor, ToolsLike
from .._repair.manual import ManualToolCallFixProcessor

__all__ = [
    "default_processor",
    "describe_invalid",
    "parse_args",
    "run_processor",
    "run_processor_sync",
    "tool_dict",
]


def default_processor(processor: ResponseProcessor | None) -> ResponseProcessor:
    """The processor an adapter uses: the one given, else the manual fixer."""
    return processor if processor is not None else ManualToolCallFixProcessor()


def tool_dict(name: str, description: str | None, parameters: Mapping[str, Any] | None) -> Any:
    """An OpenAI-style function tool, the shape every toolfix registry reads."""
    fn: dict[str, Any] = {"name": name, "parameters": dict(parameters or {"type": "object"})}
    if description:
        fn["description"] = description
    return {"type": "function", "function": fn}


async def run_processor(
    processor: ResponseProcessor, tools: ToolsLike, response: Response, model: str = ""
) -> Response:
    """One response through ``processor`` (no executor: adapters repair, they do not re-ask)."""
    out = await processor.process(None, Prompt(), model, tools, [response])
    return out[0] if out else response


def describe_invalid(calls: list[InvalidToolCallPart]) -> str:
    """The retry feedback for calls toolfix could not repair, one line each."""
    lines = ["These tool calls could not be used; send them again as valid tool calls:"]
    for c in calls:
        raw = c.raw if len(c.raw) <= 500 else c.raw[:500] + "…"
        lines.append(f"- {c.name or 'unknown tool'}: {c.error} (you sent: {raw})")
    return "\n".join(lines)


def run_processor_sync(
    processor: ResponseProcessor, tools: ToolsLike, response: Response, model: str = ""
) -> Response:
    """Blocking counterpart of :func:`run_processor`."""
    out = processor.process_sync(None, Prompt(), model, tools, [response])
    return out[0] if out else response
