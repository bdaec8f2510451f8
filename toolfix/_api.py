"""One-call convenience functions around the manual fixer, and reading what users hold.

:func:`as_response` reads every response shape toolfix knows (see its docstring) and
raises :class:`~toolfix.UnsupportedInputError` naming the shape for anything else;
:func:`as_tools` does the same for tools.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from ._config import FixConfig, Limits
from ._convert import (
    ModelDumpable,
    _unsupported,
    describe_shape,
    plain,
    response_from_anthropic,
    response_from_ollama,
    response_from_openai,
    response_from_openai_responses,
)
from ._errors import ToolDefinitionError
from ._messages import Response, TextPart
from ._pipeline.processor import OFFLOAD_CHARS, ToolsLike, text_size
from ._repair.engine import fix
from ._tools import ToolDescriptor, ToolRegistry, cached_registry

__all__ = [
    "ResponseInput",
    "ToolsInput",
    "as_response",
    "as_tools",
    "repair",
    "repair_async",
]


ResponseInput: TypeAlias = (
    Response | str | Mapping[str, Any] | Sequence[Mapping[str, Any]] | ModelDumpable
)
"""What :func:`repair` and :func:`as_response` read: a :class:`Response`, raw text, an
OpenAI / Anthropic / Ollama / Responses-API message or reply (dict or SDK object), or a
list of Anthropic content blocks or Responses-API items."""

ToolsInput: TypeAlias = (
    ToolRegistry
    | ToolDescriptor
    | Mapping[str, Any]
    | Callable[..., Any]
    | Iterable[ToolDescriptor | Mapping[str, Any] | Callable[..., Any] | ModelDumpable]
    | str
    | bytes
    | ModelDumpable
    | None
)
"""What :func:`repair` and :func:`as_tools` read: a registry, tool dicts (OpenAI,
Anthropic, MCP), descriptors, typed functions, a JSON string of tools, MCP objects."""

_ANTHROPIC_BLOCKS = frozenset(
    {"text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "tool_result"}
)
_RESPONSES_BLOCKS = frozenset({"output_text", "refusal"})
_RESPONSES_ITEMS = frozenset({"message", "function_call", "reasoning", "function_call_output"})
_OPENAI_MESSAGE_KEYS = ("content", "tool_calls", "function_call", "reasoning_content")


def _block_type(block: Any) -> str | None:
    """The ``type`` of a block or item as a string (``""`` when not a string), or ``None``
    when the block is not an object."""
    if not isinstance(block, Mapping):
        return None
    t = block.get("type")
    return t if isinstance(t, str) else ""


def _from_mapping(value: Mapping[str, Any], limits: Limits | None) -> Response:
    # the common shape first and cheaply: an OpenAI chat message (string or null content)
    content = value.get("content")
    if (content is None or content.__class__ is str) and (
        "tool_calls" in value or "content" in value or value.get("role") == "assistant"
    ):
        return response_from_openai(value, limits=limits)
    if "choices" in value:
        return response_from_openai(value, limits=limits)
    if isinstance(content, list):
        types = {_block_type(b) for b in content}
        if value.get("type") == "message" and types & _RESPONSES_BLOCKS:
            return response_from_openai_responses(value, limits=limits)
        if value.get("type") == "message" or types & (_ANTHROPIC_BLOCKS - {"text"}):
            return response_from_anthropic(value, limits=limits)
        return response_from_openai(value, limits=limits)
    if any(k in value for k in _OPENAI_MESSAGE_KEYS):
        return response_from_openai(value, limits=limits)
    if isinstance(value.get("output"), list):
        return response_from_openai_responses(value, limits=limits)
    if "message" in value:
        return response_from_ollama(value, limits=limits)
    if _block_type(value) in _RESPONSES_ITEMS:
        return response_from_openai_responses(value, limits=limits)
    raise _unsupported("not a response toolfix can read", value)


def _from_sequence(value: list[Any] | tuple[Any, ...], limits: Limits | None) -> Response:
    items = [plain(v) for v in value]
    types = {_block_type(b) for b in items}
    if items and None not in types:
        if types <= _ANTHROPIC_BLOCKS:
            return response_from_anthropic(items, limits=limits)
        if types & _RESPONSES_ITEMS:
            return response_from_openai_responses(items, limits=limits)
    raise _unsupported("not a list of Anthropic content blocks or Responses-API items", value)


def as_response(value: ResponseInput, *, limits: Limits | None = None) -> Response:
    """Read a response in any shape toolfix knows.

    * a :class:`Response` (returned as is) or raw text;
    * OpenAI chat: an assistant message or a whole chat completion, as dicts or as the
      ``openai`` SDK's ``ChatCompletionMessage`` / ``ChatCompletion`` (litellm's
      ``ModelResponse`` too);
    * OpenAI Responses API: a ``Response`` (dict or SDK object), its ``output`` list, or
      one output item (``function_call``, ``message`` with ``output_text``);
    * Anthropic Messages: a message dict or the ``anthropic`` SDK's ``Message``, or its
      content block list;
    * Ollama ``/api/chat`` replies (``{"model", "message", "done"}``) and the ``ollama``
      SDK's ``ChatResponse``.

    SDK objects are read through ``model_dump()``; no SDK is imported.

    Raises:
        UnsupportedInputError: any other shape (``{"foo": "bar"}``,
            ``{"tool_calls": ["oops"]}``, ``42``), naming the shape received.
        NestingTooDeepError: arguments given as objects nest deeper than
            ``limits.max_depth`` (default :class:`~toolfix.Limits`).
    """
    if value.__class__ is dict:  # (the common shape: no ABC test before it)
        return _from_mapping(value, limits)
    if isinstance(value, Response):
        return value
    if isinstance(value, str):
        return Response(parts=(TextPart(text=value),) if value else ())
    if isinstance(value, Mapping):
        return _from_mapping(value, limits)
    if isinstance(value, list | tuple):
        return _from_sequence(value, limits)
    dumped = plain(value)
    if isinstance(dumped, Mapping):
        return _from_mapping(dumped, limits)
    raise _unsupported("not a response toolfix can read", value)


def as_tools(tools: ToolsInput) -> ToolsLike:
    """Read tools in any shape toolfix knows, for :func:`repair` and the registry.

    Accepts what :meth:`ToolRegistry.of <toolfix.ToolRegistry.of>` accepts (a registry, a
    list of OpenAI / Anthropic / MCP tool dicts, descriptors or typed functions), plus: a
    single tool dict, a single function, a JSON string of tools, MCP ``Tool`` and
    ``ListToolsResult`` objects (or their dict form ``{"tools": [...]}``), and any
    pydantic/SDK tool object with ``model_dump()``.

    Raises:
        UnsupportedInputError: a value that is none of these (``42``), naming its shape.
    """
    if tools is None or isinstance(tools, ToolRegistry):
        return tools
    if type(tools) is list:
        for t in tools:
            if type(t) is not dict:
                break
        else:  # the README's form, passed on as is: the registry cache then knows the
            return tools  # list by its identity (a copy here would be new on every call)
    if isinstance(tools, str | bytes):
        try:
            parsed = json.loads(tools)
        except (ValueError, RecursionError) as exc:
            raise _unsupported("a tools string must be JSON", tools) from exc
        if isinstance(parsed, str):
            raise _unsupported("a tools string must hold a JSON list or object", parsed)
        return as_tools(parsed)
    if isinstance(tools, ToolDescriptor):
        return [tools]
    if isinstance(tools, Mapping):
        if isinstance(tools.get("tools"), list) and "name" not in tools:
            return as_tools(tools["tools"])  # MCP ListToolsResult dict
        return [tools]
    dump = None if isinstance(tools, type) else getattr(tools, "model_dump", None)
    if callable(dump):
        dumped = dump(by_alias=True, exclude_none=True)
        if not isinstance(dumped, Mapping):
            raise _unsupported("cannot read tools from", tools)
        return as_tools(dumped)
    if callable(tools):
        return [tools]
    if isinstance(tools, Iterable):
        out: list[Any] = []
        for t in tools:
            if isinstance(t, ToolDescriptor | Mapping) or (
                callable(t) and not hasattr(t, "model_dump")
            ):
                out.append(t)
            elif not isinstance(t, type) and callable(getattr(t, "model_dump", None)):
                out.append(t.model_dump(by_alias=True, exclude_none=True))
            else:
                shape = describe_shape(t)
                raise ToolDefinitionError(f"cannot make a tool from {shape}: {t!r}"[:300])
        return out
    raise _unsupported("not tools toolfix can read", tools)


def repair(
    response: ResponseInput,
    tools: ToolsInput,
    *,
    config: FixConfig | None = None,
) -> Response:
    """Repair one response's tool calls without an LLM (sync).

    ``response`` is anything :func:`as_response` reads, ``tools`` anything
    :func:`as_tools` reads. Recovered calls get fresh ids in every call of
    ``repair`` unless ``config.id_seed`` pins them (docs/guides/ids.md). With no
    tools, nothing is taken, and markup naming tools comes back with a record saying
    no tools were offered.

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
    limits = config.limits if config is not None else None
    # the same list of tool dicts again: its registry, without reading the list twice
    registry = cached_registry(tools) if type(tools) is list else None
    if registry is None:
        registry = ToolRegistry.of(as_tools(tools))
    return fix(as_response(response, limits=limits), registry, config)


async def repair_async(
    response: ResponseInput,
    tools: ToolsInput,
    *,
    config: FixConfig | None = None,
) -> Response:
    """:func:`repair` for an event loop: the same answer; an input of
    :data:`~toolfix._pipeline.processor.OFFLOAD_CHARS` characters or more is repaired in a
    worker thread, so the loop keeps serving."""
    limits = config.limits if config is not None else None
    value = as_response(response, limits=limits)
    if text_size([value]) < OFFLOAD_CHARS:
        return repair(value, tools, config=config)
    return await asyncio.to_thread(repair, value, tools, config=config)
