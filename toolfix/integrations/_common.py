"""Shared pieces of the framework adapters (no framework imports here)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from .._convert import _parse_object as parse_args  # one reader of an arguments string
from .._messages import InvalidToolCallPart, Prompt, Response
from .._pipeline.processor import ResponseProcessor, ToolsLike
from .._repair.families import reasoning_prefilled_for
from .._repair.manual import ManualToolCallFixProcessor

__all__ = [
    "describe_invalid",
    "model_name",
    "parse_args",
    "processor_for_model",
    "run_processor",
    "run_processor_sync",
    "template_kwargs",
    "tool_dict",
    "with_prefilled",
]


def model_name(model: Any) -> str | None:
    """The name a framework's model object serves (``model_name``, else ``model``)."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return None


def template_kwargs(request: Mapping[str, Any]) -> Mapping[str, object] | None:
    """A request's ``chat_template_kwargs``, top level or in ``extra_body``."""
    found = request.get("chat_template_kwargs")
    extra = request.get("extra_body")
    if found is None and isinstance(extra, Mapping):
        found = extra.get("chat_template_kwargs")
    return found if isinstance(found, Mapping) else None


@functools.cache
def _default() -> ManualToolCallFixProcessor:
    """The manual fixer adapters use when given none (one, kept: it holds its twins)."""
    return ManualToolCallFixProcessor()


def with_prefilled(processor: ResponseProcessor | None, value: bool | None) -> ResponseProcessor:
    """The processor that repairs with ``reasoning_prefilled=value``: the manual fixer
    (``processor`` or the default) whose config leaves it ``None`` gets its twin with
    ``value`` (:meth:`ManualToolCallFixProcessor.with_reasoning_prefilled`); a config's
    own ``True``/``False``, ``value=None`` and other processors (they read their own
    configs) leave ``processor`` as it is."""
    if processor is None:
        processor = _default()
    if value is None or not isinstance(processor, ManualToolCallFixProcessor):
        return processor
    return processor.with_reasoning_prefilled(value)


def processor_for_model(
    processor: ResponseProcessor | None,
    model: str | None,
    request: Mapping[str, Any] | None = None,
) -> ResponseProcessor:
    """The processor an adapter repairs ``model``'s responses with: :func:`with_prefilled`
    given ``toolfix.formats.reasoning_prefilled_for(model, chat_template_kwargs)`` (the
    model table, and the request's :func:`template_kwargs` when it is known)."""
    kwargs = template_kwargs(request) if request is not None else None
    return with_prefilled(processor, reasoning_prefilled_for(model, kwargs))


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
