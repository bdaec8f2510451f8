"""Recognise the response shapes users hold, and refuse the rest by name.

``repair()`` takes a response as the caller got it. This module tells the shapes
apart and hands each to its reader in ``toolfix._convert``:

============================  ====================================================
shape                         recognised by
============================  ====================================================
:class:`~toolfix.Response`    its type
raw text                      ``str``
SDK objects (OpenAI, litellm, ``model_dump()``: read as the dict they dump to
Anthropic, Ollama, Responses)
OpenAI chat completion        ``choices`` list (the first choice's message)
OpenAI assistant message      ``role``/``content``/``tool_calls``/``reasoning*`` keys
OpenAI Responses API          ``object: "response"`` or an ``output`` item list; or
                              one output item / a list of them
Anthropic message             ``content`` block list with ``type: "message"``,
                              ``role: "assistant"`` or a ``tool_use`` block
Ollama ``/api/chat`` reply    ``message`` object beside ``done``/``model``
============================  ====================================================

Anything else raises :class:`~toolfix.UnsupportedInputError` naming what it got:
an empty answer for an unknown shape would hide the call the model made.

Arguments that arrive already parsed (Ollama, Responses-style objects, some
servers) are checked for depth without recursion first: deeper than
``Limits.max_depth`` becomes an invalid call of kind ``limit_exceeded``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._config import Limits
from ._convert import plain_openai_message, response_from_anthropic, response_from_openai
from ._errors import UnsupportedInputError
from ._messages import (
    FailureKind,
    InvalidToolCallPart,
    Part,
    ReasoningPart,
    Response,
    TextPart,
    ToolCallPart,
)

__all__ = ["as_response", "too_deep"]

_MESSAGE_KEYS = frozenset(
    {"role", "content", "tool_calls", "reasoning_content", "reasoning", "thinking_blocks"}
)
_DEFAULT_DEPTH = Limits().max_depth


def describe_shape(value: object) -> str:
    """A short name for what was given: type, and keys for a mapping."""
    if isinstance(value, Mapping):
        keys = ", ".join(repr(k) for k in list(value)[:8])
        more = ", ..." if len(value) > 8 else ""
        return f"a mapping with keys [{keys}{more}]"
    return f"a {type(value).__name__}"


def too_deep(value: object, limit: int = _DEFAULT_DEPTH) -> bool:
    """Whether ``value`` nests lists/dicts deeper than ``limit`` (iterative, no recursion)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            if depth >= limit:
                return True
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            if depth >= limit:
                return True
            stack.extend((v, depth + 1) for v in item)
    return False


def as_response(value: object) -> Response:
    """Read a response in any shape toolfix knows (see the module docs)."""
    if isinstance(value, Response):
        return value
    if isinstance(value, str):
        return Response(parts=(TextPart(text=value),) if value else ())
    if type(value) is dict:  # the common plain OpenAI message, read without routing
        plain = plain_openai_message(value)
        if plain is not None:
            return plain
    if not isinstance(value, Mapping | list):
        dump = getattr(value, "model_dump", None)
        if callable(dump):
            dumped = dump(mode="json") if _takes_mode(dump) else dump()
            if isinstance(dumped, Mapping):
                return _from_mapping(dumped, value)
        to_dict = getattr(value, "to_dict", None)
        if callable(to_dict):
            dumped = to_dict()
            if isinstance(dumped, Mapping):
                return _from_mapping(dumped, value)
        raise _unsupported(value)
    if isinstance(value, list):
        if value and all(isinstance(i, Mapping) and "type" in i for i in value):
            return _from_responses_output(value, value)
        raise _unsupported(value)
    return _from_mapping(value, value)


def _takes_mode(dump: Any) -> bool:
    try:
        import inspect

        return "mode" in inspect.signature(dump).parameters
    except (TypeError, ValueError):
        return False


def _unsupported(value: object, why: str = "") -> UnsupportedInputError:
    shape = describe_shape(value)
    detail = f": {why}" if why else ""
    return UnsupportedInputError(
        f"cannot read a model response from {shape}{detail}. toolfix reads raw text, "
        "OpenAI chat completions and messages, Responses-API objects, Anthropic messages, "
        "Ollama /api/chat replies, litellm ModelResponse and toolfix.Response",
        raw=_raw_of(value),
    )


def _raw_of(value: object) -> str:
    """Text for an error's ``raw``: JSON if it can be written, a placeholder if not."""
    try:
        return json.dumps(value, default=repr)[:2000]
    except (ValueError, TypeError, RecursionError):
        pass
    try:
        return repr(value)[:2000]
    except RecursionError:
        return f"<{type(value).__name__} nested too deep to show>"


def _from_mapping(data: Mapping[str, Any], original: object) -> Response:
    choices = data.get("choices")
    if isinstance(choices, list):
        if choices and not isinstance(choices[0], Mapping):
            raise _unsupported(original, "choices[0] is not an object")
        return _checked_openai(data, original)
    if data.get("object") == "response" or isinstance(data.get("output"), list):
        output = data.get("output") or []
        return _from_responses_output(output, original, data)
    kind = data.get("type")
    content = data.get("content")
    if (kind == "function_call" and "arguments" in data) or (
        kind == "message"
        and isinstance(content, list)
        and any(isinstance(b, Mapping) and b.get("type") == "output_text" for b in content)
    ):
        return _from_responses_output([data], original)  # one Responses output item
    if isinstance(content, list) and (
        data.get("type") == "message"
        or any(
            isinstance(b, Mapping) and b.get("type") in ("tool_use", "thinking", "server_tool_use")
            for b in content
        )
        or (data.get("role") == "assistant" and "stop_reason" in data)
    ):
        return response_from_anthropic(data)
    message = data.get("message")
    if isinstance(message, Mapping) and ("done" in data or "model" in data):
        return _from_ollama(message, data)
    if _MESSAGE_KEYS & data.keys():
        return _checked_openai(data, original)
    raise _unsupported(original)


def _checked_openai(data: Mapping[str, Any], original: object) -> Response:
    message = data
    choices = data.get("choices")
    if isinstance(choices, list) and choices:
        inner = choices[0].get("message")
        message = inner if isinstance(inner, Mapping) else {}
    calls = message.get("tool_calls")
    deep: list[InvalidToolCallPart] = []
    if calls is not None:
        if not isinstance(calls, list):
            raise _unsupported(original, f"tool_calls is {describe_shape(calls)}, not a list")
        kept = []
        for i, tc in enumerate(calls):
            if not isinstance(tc, Mapping):
                raise _unsupported(original, f"tool_calls[{i}] is {describe_shape(tc)}")
            fn = tc.get("function")
            args = fn.get("arguments") if isinstance(fn, Mapping) else None
            if args is not None and not isinstance(args, str) and too_deep(args):
                name = fn.get("name") if isinstance(fn, Mapping) else None
                deep.append(
                    _too_deep_call(str(tc.get("id") or f"call_{i}"), _str(name), _raw_of(args))
                )
            else:
                kept.append(tc)
        if deep:
            message = {**message, "tool_calls": kept}
            data = {**data, "choices": [{**choices[0], "message": message}]} if choices else message
    response = response_from_openai(data)
    if deep:
        response = response.model_copy(update={"parts": (*response.parts, *deep)})
    return response


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _too_deep_call(call_id: str | None, name: str | None, raw: str) -> InvalidToolCallPart:
    return InvalidToolCallPart(
        id=call_id,
        name=name,
        raw=raw[:2000],
        error=f"arguments nest deeper than Limits.max_depth ({_DEFAULT_DEPTH})",
        kind=FailureKind.LIMIT_EXCEEDED.value,
    )


def _dump_args(args: Any) -> tuple[str, dict[str, Any] | None, bool]:
    """``(raw, parsed, too_deep)`` for arguments given as a string or as a parsed value."""
    if isinstance(args, str):
        return args, None, False
    if too_deep(args):
        return _raw_of(args), None, True
    try:
        raw = json.dumps(args, ensure_ascii=False)
    except (TypeError, ValueError):
        raw = repr(args)
    return raw, args if isinstance(args, dict) else None, False


def _from_ollama(message: Mapping[str, Any], envelope: Mapping[str, Any]) -> Response:
    parts: list[Part] = []
    thinking = message.get("thinking")
    if isinstance(thinking, str) and thinking:
        parts.append(ReasoningPart(text=thinking))
    content = message.get("content")
    if isinstance(content, str) and content:
        parts.append(TextPart(text=content))
    for i, tc in enumerate(message.get("tool_calls") or ()):
        if not isinstance(tc, Mapping):
            raise _unsupported(envelope, f"message.tool_calls[{i}] is {describe_shape(tc)}")
        fn_value = tc.get("function")
        fn: Mapping[str, Any] = fn_value if isinstance(fn_value, Mapping) else {}
        name = str(fn.get("name") or "")
        raw, parsed, deep = _dump_args(fn.get("arguments"))
        call_id = str(tc.get("id") or f"call_{i}")
        if deep:
            parts.append(_too_deep_call(call_id, name, raw))
            continue
        if parsed is None and isinstance(fn.get("arguments"), str):
            parsed = _parse_object(raw)
        parts.append(ToolCallPart(id=call_id, name=name, arguments_raw=raw, arguments=parsed))
    return Response(
        parts=tuple(parts),
        model=envelope.get("model") if isinstance(envelope.get("model"), str) else None,
        finish_reason=envelope.get("done_reason")
        if isinstance(envelope.get("done_reason"), str)
        else None,
    )


def _parse_object(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _from_responses_output(
    output: list[Any], original: object, envelope: Mapping[str, Any] | None = None
) -> Response:
    parts: list[Part] = []
    for i, item in enumerate(output):
        if not isinstance(item, Mapping):
            raise _unsupported(original, f"output[{i}] is {describe_shape(item)}")
        kind = item.get("type")
        if kind == "message":
            for block in item.get("content") or ():
                if isinstance(block, Mapping) and block.get("type") in ("output_text", "text"):
                    parts.append(TextPart(text=str(block.get("text") or "")))
        elif kind == "reasoning":
            summary = item.get("summary") or item.get("content") or ()
            text = "\n".join(str(s.get("text") or "") for s in summary if isinstance(s, Mapping))
            if text:
                parts.append(ReasoningPart(text=text))
        elif kind == "function_call":
            raw, parsed, deep = _dump_args(item.get("arguments"))
            call_id = str(item.get("call_id") or item.get("id") or f"call_{i}")
            name = str(item.get("name") or "")
            if deep:
                parts.append(_too_deep_call(call_id, name, raw))
                continue
            if parsed is None:
                parsed = _parse_object(raw)
            extra = {"item_id": item["id"]} if item.get("id") and item.get("call_id") else None
            parts.append(
                ToolCallPart(
                    id=call_id, name=name, arguments_raw=raw, arguments=parsed, provider_data=extra
                )
            )
        elif kind in ("web_search_call", "file_search_call", "code_interpreter_call"):
            continue  # provider-side tools: their results are in the message items
        else:
            raise _unsupported(original, f"output[{i}] has type {kind!r}")
    env = envelope or {}
    return Response(
        parts=tuple(parts),
        id=env.get("id") if isinstance(env.get("id"), str) else None,
        model=env.get("model") if isinstance(env.get("model"), str) else None,
    )
