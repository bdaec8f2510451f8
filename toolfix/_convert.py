"""Conversions between toolfix's message model and provider shapes.

* OpenAI chat completions (the shape litellm uses): assistant messages with
  ``content``, ``tool_calls`` and ``reasoning_content``; request messages.
* Anthropic Messages: content blocks (``text``, ``thinking`` with signature,
  ``redacted_thinking``, ``tool_use``, ``server_tool_use``, ``tool_result``).

Raw argument strings are kept exactly as the provider sent them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._messages import (
    Message,
    Part,
    Prompt,
    ReasoningPart,
    Response,
    TextPart,
    ToolCallPart,
    ToolChoice,
    ToolResultPart,
    Usage,
    canonical_json,
)

__all__ = [
    "message_to_openai",
    "messages_from_openai",
    "prompt_to_openai",
    "response_from_anthropic",
    "response_from_openai",
    "response_to_openai",
    "tool_choice_to_openai",
]


def _parse_object(raw: str) -> dict[str, Any] | None:
    """``json.loads`` of an arguments string when it is a JSON object, else ``None``."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _call_from_openai(tc: Mapping[str, Any], index: int) -> ToolCallPart:
    fn = tc.get("function") or {}
    if not isinstance(fn, Mapping):
        fn = {}
    raw_args = fn.get("arguments")
    if raw_args is None:
        raw = ""
    elif isinstance(raw_args, str):
        raw = raw_args
    else:  # some servers send an object instead of a string
        raw = canonical_json(raw_args)
    extra = (
        None if _CALL_KEYS.issuperset(tc) else {k: v for k, v in tc.items() if k not in _CALL_KEYS}
    )
    return ToolCallPart(
        id=str(tc.get("id") or f"call_{index}"),
        name=str(fn.get("name") or ""),
        arguments_raw=raw,
        arguments=raw_args if isinstance(raw_args, dict) else _parse_object(raw),
        provider_data=extra or None,
    )


_CALL_KEYS = frozenset({"id", "type", "function", "index"})


_PLAIN_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls"})


def plain_openai_message(message: dict[str, Any]) -> Response | None:
    """The fast path of :func:`response_from_openai` for the common plain dict.

    An assistant message with only ``role``/``content``/``tool_calls`` keys, text or
    ``None`` content, and calls whose ``id``, ``function.name`` and
    ``function.arguments`` are non-empty strings (empty arguments allowed) reads in
    one loop of exact type checks (no ABC ``isinstance``, no shape routing). Gives
    the very ``Response`` the general reader gives (tested); ``None`` for anything
    else, which then takes the general path.
    """
    if not _PLAIN_MESSAGE_KEYS.issuperset(message):
        return None
    calls = message.get("tool_calls")
    content = message.get("content")
    if type(calls) is not list or (content is not None and type(content) is not str):
        return None
    parts: list[Part] = [TextPart(text=content)] if content else []
    for tc in calls:
        if type(tc) is not dict or not _CALL_KEYS.issuperset(tc):
            return None
        fn = tc.get("function")
        if type(fn) is not dict:
            return None
        call_id, name, raw = tc.get("id"), fn.get("name"), fn.get("arguments")
        if type(call_id) is not str or type(name) is not str or type(raw) is not str:
            return None
        if not call_id or not name:
            return None
        parts.append(
            ToolCallPart(id=call_id, name=name, arguments_raw=raw, arguments=_parse_object(raw))
        )
    return Response(parts=tuple(parts))


def response_from_openai(
    message: Mapping[str, Any],
    *,
    id: str | None = None,
    model: str | None = None,
    finish_reason: str | None = None,
    usage: Usage | None = None,
    provider_data: dict[str, Any] | None = None,
) -> Response:
    """An OpenAI chat assistant message (``choices[i].message``) as a :class:`Response`.

    Also accepts a whole chat completion (``{"choices": [...]}``), taking the first choice.
    Reasoning comes from ``reasoning_content`` (vLLM, DeepSeek, litellm) or ``reasoning``,
    with Anthropic ``thinking_blocks`` (litellm) kept with their signatures.
    """
    if "choices" in message and isinstance(message.get("choices"), list) and message["choices"]:
        choice = message["choices"][0]
        u = message.get("usage") or {}
        return response_from_openai(
            choice.get("message") or {},
            id=id or message.get("id"),
            model=model or message.get("model"),
            finish_reason=finish_reason or choice.get("finish_reason"),
            usage=usage
            or (
                Usage(
                    input_tokens=int(u.get("prompt_tokens") or 0),
                    output_tokens=int(u.get("completion_tokens") or 0),
                    requests=1,
                )
                if u
                else None
            ),
            provider_data=provider_data,
        )
    parts: list[Part] = []
    blocks = message.get("thinking_blocks")
    if isinstance(blocks, list) and blocks:
        for b in blocks:
            if not isinstance(b, Mapping):
                continue
            if b.get("type") == "redacted_thinking":
                parts.append(
                    ReasoningPart(text="", redacted=True, provider_data={"data": b.get("data")})
                )
            else:
                parts.append(
                    ReasoningPart(text=str(b.get("thinking") or ""), signature=b.get("signature"))
                )
    else:
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            parts.append(ReasoningPart(text=reasoning))
    content = message.get("content")
    if isinstance(content, str):
        if content:
            parts.append(TextPart(text=content))
    elif isinstance(content, list):  # content parts
        for c in content:
            if isinstance(c, Mapping) and c.get("type") in ("text", "output_text"):
                parts.append(TextPart(text=str(c.get("text") or "")))
    for i, tc in enumerate(message.get("tool_calls") or ()):
        if isinstance(tc, Mapping):
            parts.append(_call_from_openai(tc, i))
    fc = message.get("function_call")  # legacy functions API
    if isinstance(fc, Mapping) and not message.get("tool_calls"):
        parts.append(_call_from_openai({"id": "call_0", "function": fc}, 0))
    return Response(
        parts=tuple(parts),
        id=id,
        model=model,
        finish_reason=finish_reason,
        usage=usage,
        provider_data=provider_data,
    )


def _tool_call_to_openai(p: ToolCallPart) -> dict[str, Any]:
    return {
        "id": p.id,
        "type": "function",
        "function": {"name": p.name, "arguments": p.arguments_raw},
    }


def response_to_openai(response: Response) -> dict[str, Any]:
    """A :class:`Response` as an OpenAI chat assistant message.

    Valid calls become ``tool_calls``; invalid ones are not sent as calls (the
    provider would reject them) but listed under ``invalid_tool_calls``.
    """
    msg: dict[str, Any] = {"role": "assistant", "content": response.text or None}
    calls = [_tool_call_to_openai(p) for p in response.tool_calls if not p.provider_executed]
    if calls:
        msg["tool_calls"] = calls
    if response.reasoning is not None:
        msg["reasoning_content"] = response.reasoning
    thinking = [
        p
        for p in response.parts
        if isinstance(p, ReasoningPart) and (p.signature or (p.redacted and p.provider_data))
    ]
    if thinking:
        msg["thinking_blocks"] = [
            {"type": "redacted_thinking", "data": (p.provider_data or {}).get("data")}
            if p.redacted and not p.signature
            else {"type": "thinking", "thinking": p.text, "signature": p.signature}
            for p in thinking
        ]
    bad = response.invalid_tool_calls
    if bad:
        msg["invalid_tool_calls"] = [{"name": p.name, "raw": p.raw, "error": p.error} for p in bad]
    return msg


def message_to_openai(message: Message) -> list[dict[str, Any]]:
    """One toolfix message as OpenAI chat messages (a tool turn may expand to several)."""
    if message.role == "tool":
        return [
            {"role": "tool", "tool_call_id": p.tool_call_id, "content": p.content}
            for p in message.parts
            if isinstance(p, ToolResultPart)
        ]
    if message.role == "assistant":
        out = response_to_openai(Response(parts=message.parts))
        out.pop("invalid_tool_calls", None)
        return [out]
    results = [p for p in message.parts if isinstance(p, ToolResultPart)]
    msgs: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": p.tool_call_id, "content": p.content} for p in results
    ]
    text = message.text
    if text or not results:
        msgs.append({"role": message.role, "content": text})
    return msgs


def messages_from_openai(messages: Iterable[Mapping[str, Any]]) -> list[Message]:
    """OpenAI chat messages (request side) as toolfix messages."""
    out: list[Message] = []
    for m in messages:
        role = m.get("role")
        if role == "assistant":
            out.append(response_from_openai(m).to_message())
        elif role == "tool":
            out.append(
                Message.tool_result(
                    str(m.get("tool_call_id") or ""), str(m.get("name") or ""), _text_of(m)
                )
            )
        elif role in ("system", "developer"):
            out.append(Message.system(_text_of(m)))
        else:
            out.append(Message.user(_text_of(m)))
    return out


def _text_of(m: Mapping[str, Any]) -> str:
    content = m.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(c.get("text") or "") for c in content if isinstance(c, Mapping))
    return ""


def tool_choice_to_openai(choice: ToolChoice) -> str | dict[str, Any]:
    if choice.mode == "named":
        return {"type": "function", "function": {"name": choice.name}}
    return choice.mode


def prompt_to_openai(prompt: Prompt) -> list[dict[str, Any]]:
    """The prompt's messages in OpenAI chat shape."""
    out: list[dict[str, Any]] = []
    for m in prompt.messages:
        out.extend(message_to_openai(m))
    return out


# ---- Anthropic ------------------------------------------------------------------------


def response_from_anthropic(
    message: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    id: str | None = None,
    model: str | None = None,
) -> Response:
    """An Anthropic Messages response (or just its ``content`` block list) as a Response.

    ``thinking`` blocks keep their ``signature``; ``redacted_thinking`` keeps its data;
    ``server_tool_use`` becomes a provider-executed call that loops must not run.
    """
    if isinstance(message, Mapping):
        blocks = message.get("content") or []
        id = id or message.get("id")
        model = model or message.get("model")
        stop = message.get("stop_reason")
        u = message.get("usage") or {}
        usage = (
            Usage(
                input_tokens=int(u.get("input_tokens") or 0),
                output_tokens=int(u.get("output_tokens") or 0),
                requests=1,
            )
            if u
            else None
        )
    else:
        blocks, stop, usage = list(message), None, None
    parts: list[Part] = []
    unknown: list[dict[str, Any]] = []
    for b in blocks:
        t = b.get("type")
        if t == "text":
            parts.append(TextPart(text=str(b.get("text") or "")))
        elif t == "thinking":
            parts.append(
                ReasoningPart(text=str(b.get("thinking") or ""), signature=b.get("signature"))
            )
        elif t == "redacted_thinking":
            parts.append(
                ReasoningPart(text="", redacted=True, provider_data={"data": b.get("data")})
            )
        elif t in ("tool_use", "server_tool_use"):
            args = b.get("input")
            args_obj = args if isinstance(args, dict) else None
            parts.append(
                ToolCallPart(
                    id=str(b.get("id") or ""),
                    name=str(b.get("name") or ""),
                    arguments_raw=canonical_json(args) if args is not None else "",
                    arguments=args_obj,
                    provider_executed=t == "server_tool_use",
                )
            )
        elif t == "tool_result":
            parts.append(
                ToolResultPart(
                    tool_call_id=str(b.get("tool_use_id") or ""),
                    name="",
                    content=_text_of(b) if not isinstance(b.get("content"), str) else b["content"],
                    is_error=bool(b.get("is_error")),
                )
            )
        else:  # unknown block types ride along untouched in provider_data
            unknown.append(dict(b))
    return Response(
        parts=tuple(parts),
        id=id,
        model=model,
        finish_reason=stop,
        usage=usage,
        provider_data={"anthropic_blocks": unknown} if unknown else None,
    )
