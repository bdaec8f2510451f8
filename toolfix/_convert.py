"""Conversions between toolfix's message model and provider shapes.

* OpenAI chat completions (the shape litellm uses): assistant messages with
  ``content``, ``tool_calls`` and ``reasoning_content``; request messages.
* Anthropic Messages: content blocks (``text``, ``thinking`` with signature,
  ``redacted_thinking``, ``tool_use``, ``server_tool_use``, ``tool_result``).
* OpenAI Responses API: ``output`` items (``message`` with ``output_text``,
  ``function_call``, ``reasoning``).
* Ollama native ``/api/chat`` replies (``{"model", "message", "done"}``, arguments
  as objects).

SDK objects (``openai``, ``anthropic``, ``ollama``, litellm) are read through their
``model_dump()``; no SDK is imported here. Structured arguments (an object rather
than a string) are checked against ``Limits.max_depth`` before anything recurses
into them.

Raw argument strings are kept exactly as the provider sent them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from ._config import Limits
from ._errors import NestingTooDeepError, UnsupportedInputError
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
    "response_from_ollama",
    "response_from_openai",
    "response_from_openai_responses",
    "response_to_anthropic",
    "response_to_ollama",
    "response_to_openai",
    "response_to_openai_completion",
    "response_to_openai_responses",
    "tool_choice_to_openai",
]

_LIMITS = Limits()
_DEFAULT_MAX_DEPTH = _LIMITS.max_depth


@runtime_checkable
class ModelDumpable(Protocol):
    """An SDK object (openai, anthropic, ollama, litellm, MCP) read through ``model_dump()``."""

    def model_dump(self, *args: Any, **kwargs: Any) -> Any: ...


def describe_shape(value: Any) -> str:
    """A short name for the shape of ``value``, for error messages."""
    if isinstance(value, Mapping):
        keys = sorted(str(k) for k in value)
        more = f" (+{len(keys) - 8} more)" if len(keys) > 8 else ""
        return f"dict with keys {keys[:8]}{more}" if keys else "empty dict"
    if isinstance(value, list | tuple):
        return f"{type(value).__name__} of {len(value)} item(s)" if value else "empty list"
    return type(value).__name__


def _unsupported(what: str, value: Any) -> UnsupportedInputError:
    shape = describe_shape(value)
    try:
        raw = repr(value)[:200]
    except Exception:  # a hostile __repr__
        raw = None
    return UnsupportedInputError(f"{what}: got {shape}", shape=shape, raw=raw)


def check_depth(value: Any, max_depth: int, *, tool_name: str | None = None) -> None:
    """Raise :class:`NestingTooDeepError` when ``value`` (dicts and lists) nests deeper than
    ``max_depth``. Iterative, so a 100,000-deep structure costs no recursion."""
    if not isinstance(value, dict | list):
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise NestingTooDeepError(
                f"structured arguments nest deeper than Limits.max_depth ({max_depth})"
                + (f" in a call to {tool_name!r}" if tool_name else ""),
                limit=max_depth,
                actual=depth,
                tool_name=tool_name,
            )
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))


def plain(value: Any) -> Any:
    """``value.model_dump()`` for pydantic/SDK objects (OpenAI, Anthropic, Ollama, litellm);
    other values unchanged."""
    if isinstance(value, Mapping | str | list | tuple | type):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump()
        except Exception as exc:  # an SDK object that cannot dump itself
            raise _unsupported(
                f"cannot read {type(value).__name__} (model_dump failed)", value
            ) from exc
    return value


#: ``raw_decode`` for the common ``{...}`` text: the decode ``json.loads`` ends in, without
#: its two whitespace regexes (a third of its cost on a small object).
_raw_decode = json.JSONDecoder().raw_decode


def _parse_object(raw: str) -> dict[str, Any] | None:
    """``json.loads`` of an arguments string when it is a JSON object, else ``None``.

    Text that starts with ``{`` and ends with ``}`` (nearly all) goes straight to the
    decoder's public ``raw_decode``: what ``json.loads`` runs after two whitespace regexes,
    with the same answer; anything else, or text left over after the object, takes
    ``json.loads`` itself."""
    if raw[:1] == "{" and raw[-1:] == "}":
        try:
            value, end = _raw_decode(raw)
        except (ValueError, RecursionError):
            return None
        if end == len(raw):
            return value  # type: ignore[no-any-return]  # a dict: the text starts with "{"
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _call_from_openai(
    tc: Mapping[str, Any], index: int, max_depth: int = _DEFAULT_MAX_DEPTH
) -> ToolCallPart:
    return ToolCallPart.model_validate(_call_fields(tc, index, max_depth))


def _call_fields(tc: Mapping[str, Any], index: int, max_depth: int) -> dict[str, Any]:
    """An OpenAI tool call's fields as a :class:`ToolCallPart` holds them (a plain dict:
    a response's parts are validated in one pass, :func:`response_from_openai`)."""
    fn = tc.get("function") or {}
    if type(fn) is not dict and not isinstance(fn, Mapping):
        fn = {}
    raw_args = fn.get("arguments")
    if type(raw_args) is str:  # (exact type tests first: they skip the ABC machinery)
        raw = raw_args
        arguments = _parse_object(raw)
    elif raw_args is None:
        raw, arguments = "", None
    else:  # some servers (Ollama) send an object instead of a string
        check_depth(raw_args, max_depth, tool_name=str(fn.get("name") or "") or None)
        raw = raw_args if isinstance(raw_args, str) else canonical_json(raw_args)
        arguments = raw_args if isinstance(raw_args, dict) else _parse_object(raw)
    call_id = tc.get("id")
    name = fn.get("name")
    return {
        "type": "tool_call",
        "id": call_id if call_id and type(call_id) is str else str(call_id or f"call_{index}"),
        "name": name if type(name) is str else str(name or ""),
        "arguments_raw": raw,
        "arguments": arguments,
        "provider_data": (
            None
            if _CALL_KEYS.issuperset(tc)
            else {k: v for k, v in tc.items() if k not in _CALL_KEYS} or None
        ),
    }


_CALL_KEYS = frozenset({"id", "type", "function", "index"})


def _opt_str(value: Any) -> str | None:
    """A metadata field (id, model, finish reason) when it is a string; else dropped."""
    return value if isinstance(value, str) else None


def _count(value: Any) -> int:
    """A token count from provider JSON; anything that is not a whole number counts 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def response_with(
    response: Response, parts: tuple[Part, ...], repairs: tuple[Any, ...]
) -> Response:
    """``response`` with new ``parts`` and ``repairs`` (what the repair engine returns)."""
    return response.model_copy(update={"parts": parts, "repairs": repairs})


def response_from_openai(
    message: Mapping[str, Any],
    *,
    id: str | None = None,
    model: str | None = None,
    finish_reason: str | None = None,
    usage: Usage | None = None,
    provider_data: dict[str, Any] | None = None,
    limits: Limits | None = None,
) -> Response:
    """An OpenAI chat assistant message (``choices[i].message``) as a :class:`Response`.

    Also accepts a whole chat completion (``{"choices": [...]}``), taking the first choice.
    Reasoning comes from ``reasoning_content`` (vLLM, DeepSeek, litellm) or ``reasoning``,
    with Anthropic ``thinking_blocks`` (litellm) kept with their signatures.

    Raises:
        UnsupportedInputError: ``choices``, ``content`` or ``tool_calls`` of a shape that
            is not OpenAI's (``{"tool_calls": ["oops"]}``), rather than dropping them.
        NestingTooDeepError: arguments given as an object nest deeper than
            ``limits.max_depth``.
    """
    if "choices" in message:
        return _from_chat_completion(
            message,
            id=id,
            model=model,
            finish_reason=finish_reason,
            usage=usage,
            provider_data=provider_data,
            limits=limits,
        )
    max_depth = _DEFAULT_MAX_DEPTH if limits is None else limits.max_depth
    # (each reader only where its keys are: a plain message has neither reasoning nor text)
    parts = [] if _REASONING_KEYS.isdisjoint(message) else _reasoning_parts(message)
    content = message.get("content")
    if content is not None:
        parts += _content_parts(content)
    parts += _tool_call_parts(message, max_depth)
    # one validation of the whole response (its text and calls given as their fields);
    # these dicts hold the models' fields and nothing else (built here), so pydantic need
    # not look for unknown keys (``extra="forbid"`` guards what users pass)
    return _validate_response(
        {
            "parts": parts,
            "id": id,
            "model": model,
            "finish_reason": finish_reason,
            "usage": usage,
            "provider_data": provider_data,
        },
        extra="ignore",
    )


#: :meth:`Response.model_validate` without its Python wrapper: the model's own cached
#: validator (pydantic's ``__pydantic_validator__``), which that method calls.
_validate_response = cast(
    "Callable[..., Response]", Response.__pydantic_validator__.validate_python
)


def _from_chat_completion(
    completion: Mapping[str, Any],
    *,
    id: str | None,
    model: str | None,
    finish_reason: str | None,
    usage: Usage | None,
    provider_data: dict[str, Any] | None,
    limits: Limits | None,
) -> Response:
    """A whole chat completion: its first choice's message, with the completion's id, model,
    usage and the choice's finish reason where the caller gave none."""
    choices = completion["choices"]
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise _unsupported(
            "a chat completion's 'choices' must be a non-empty list of objects", choices
        )
    choice = choices[0]
    inner = choice.get("message") or {}
    if not isinstance(inner, Mapping):
        raise _unsupported("choices[0].message must be an object", inner)
    return response_from_openai(
        inner,
        id=id or _opt_str(completion.get("id")),
        model=model or _opt_str(completion.get("model")),
        finish_reason=finish_reason or _opt_str(choice.get("finish_reason")),
        usage=usage or _usage_of(completion, "prompt_tokens", "completion_tokens"),
        provider_data=provider_data,
        limits=limits,
    )


def _usage_of(
    reply: Mapping[str, Any], input_key: str, output_key: str, *, keep_empty: bool = False
) -> Usage | None:
    """The ``usage`` object of a reply as :class:`Usage` (one request); ``None`` when it is
    missing, not an object, or empty (unless ``keep_empty``: the Responses API's reader)."""
    u = reply.get("usage")
    if not isinstance(u, Mapping) or not (u or keep_empty):
        return None
    return Usage(
        input_tokens=_count(u.get(input_key)), output_tokens=_count(u.get(output_key)), requests=1
    )


def _reasoning_from_block(block: Mapping[str, Any]) -> ReasoningPart:
    """An Anthropic ``thinking`` block (signature kept) or ``redacted_thinking`` block (its
    data kept) as a reasoning part; litellm's ``thinking_blocks`` use the same shape."""
    if block.get("type") == "redacted_thinking":
        return ReasoningPart(text="", redacted=True, provider_data={"data": block.get("data")})
    return ReasoningPart(text=str(block.get("thinking") or ""), signature=block.get("signature"))


#: The keys :func:`_reasoning_parts` reads.
_REASONING_KEYS = frozenset({"thinking_blocks", "reasoning_content", "reasoning"})


def _reasoning_parts(message: Mapping[str, Any]) -> list[Part | dict[str, Any]]:
    """Reasoning of an OpenAI-shaped message: litellm's ``thinking_blocks`` when present,
    else ``reasoning_content`` (vLLM, DeepSeek, litellm) or ``reasoning``."""
    blocks = message.get("thinking_blocks")
    if isinstance(blocks, list) and blocks:
        return [_reasoning_from_block(b) for b in blocks if isinstance(b, Mapping)]
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        return [{"type": "reasoning", "text": reasoning}]  # (validated with the response)
    return []


def _content_parts(content: Any) -> list[dict[str, Any]]:
    """Text of an OpenAI message's ``content`` (a string, a list of text parts, or null)
    as text parts' fields (validated with the response they go into)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        return [
            {"type": "text", "text": str(c.get("text") or "")}
            for c in content
            if isinstance(c, Mapping) and c.get("type") in ("text", "output_text")
        ]
    if content is not None:
        raise _unsupported(
            "an OpenAI message's 'content' must be a string, a list or null", content
        )
    return []


def _tool_call_parts(message: Mapping[str, Any], max_depth: int) -> list[dict[str, Any]]:
    """Calls of an OpenAI message (their fields): ``tool_calls``, else a legacy
    ``function_call``."""
    tool_calls = message.get("tool_calls")
    if (
        tool_calls is not None
        and tool_calls.__class__ is not list
        and not isinstance(tool_calls, tuple)
    ):
        raise _unsupported("an OpenAI message's 'tool_calls' must be a list", tool_calls)
    calls: list[dict[str, Any]] = []
    for i, tc in enumerate(tool_calls or ()):
        if type(tc) is not dict and not isinstance(tc, Mapping):
            raise _unsupported(f"tool_calls[{i}] must be an object", tc)
        calls.append(_call_fields(tc, i, max_depth))
    fc = None if tool_calls else message.get("function_call")  # legacy functions API
    if fc is not None and isinstance(fc, Mapping):
        calls.append(_call_fields({"id": "call_0", "function": fc}, 0, max_depth))
    return calls


def _tool_call_to_openai(p: ToolCallPart) -> dict[str, Any]:
    return {
        "id": p.id,
        "type": "function",
        "function": {"name": p.name, "arguments": p.arguments_raw},
    }


def _thinking_block(p: ReasoningPart) -> dict[str, Any]:
    """A reasoning part as an Anthropic ``thinking`` block (``redacted_thinking`` when it is
    redacted and has no signature): the shape litellm's ``thinking_blocks`` use too."""
    if p.redacted and not p.signature:
        return {"type": "redacted_thinking", "data": (p.provider_data or {}).get("data")}
    return {"type": "thinking", "thinking": p.text, "signature": p.signature}


def _list_invalid_calls(response: Response, out: dict[str, Any]) -> None:
    """Writers do not send invalid calls as calls; they list them under the extra key
    ``invalid_tool_calls`` (name, raw text, error), when there are any."""
    bad = response.invalid_tool_calls
    if bad:
        out["invalid_tool_calls"] = [{"name": p.name, "raw": p.raw, "error": p.error} for p in bad]


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
        msg["thinking_blocks"] = [_thinking_block(p) for p in thinking]
    _list_invalid_calls(response, msg)
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
    limits: Limits | None = None,
) -> Response:
    """An Anthropic Messages response (or just its ``content`` block list) as a Response.

    ``thinking`` blocks keep their ``signature``; ``redacted_thinking`` keeps its data;
    ``server_tool_use`` becomes a provider-executed call that loops must not run.
    The ``anthropic`` SDK's ``Message`` is read through its ``model_dump()``.
    """
    message = plain(message)
    max_depth = (limits or _LIMITS).max_depth
    if isinstance(message, Mapping):
        blocks = message.get("content") or []
        id = id or _opt_str(message.get("id"))
        model = model or _opt_str(message.get("model"))
        stop = message.get("stop_reason")
        usage = _usage_of(message, "input_tokens", "output_tokens")
    else:
        blocks, stop, usage = list(message), None, None
    if not isinstance(blocks, list | tuple):
        raise _unsupported("an Anthropic message's 'content' must be a list of blocks", blocks)
    parts: list[Part] = []
    unknown: list[dict[str, Any]] = []
    for b in blocks:
        b = plain(b)
        if not isinstance(b, Mapping):
            raise _unsupported("an Anthropic content block must be an object", b)
        t = b.get("type")
        if t == "text":
            parts.append(TextPart(text=str(b.get("text") or "")))
        elif t in ("thinking", "redacted_thinking"):
            parts.append(_reasoning_from_block(b))
        elif t in ("tool_use", "server_tool_use"):
            args = b.get("input")
            check_depth(args, max_depth, tool_name=str(b.get("name") or "") or None)
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


def response_to_anthropic(response: Response) -> dict[str, Any]:
    """A :class:`Response` as an Anthropic Messages response dict (``type: "message"``).

    Reasoning becomes ``thinking`` blocks (signatures kept, redacted ones as
    ``redacted_thinking``), text a ``text`` block, valid calls ``tool_use`` blocks (provider-
    executed ones ``server_tool_use``). Invalid calls are not sent as calls; they are
    listed under the extra key ``invalid_tool_calls``. ``anthropic.types.Message.
    model_validate(...)`` of the result gives the SDK object.
    """
    content: list[dict[str, Any]] = []
    for p in response.parts:
        if isinstance(p, ReasoningPart):
            content.append(_thinking_block(p))
        elif isinstance(p, TextPart):
            if p.text:
                content.append({"type": "text", "text": p.text})
        elif isinstance(p, ToolCallPart):
            content.append(
                {
                    "type": "server_tool_use" if p.provider_executed else "tool_use",
                    "id": p.id,
                    "name": p.name,
                    "input": p.arguments if p.arguments is not None else {},
                }
            )
    for extra in (response.provider_data or {}).get("anthropic_blocks") or ():
        content.append(dict(extra))
    calls = any(isinstance(p, ToolCallPart) and not p.provider_executed for p in response.parts)
    usage = response.usage or Usage()
    msg: dict[str, Any] = {
        "id": response.id or "msg_toolfix",
        "type": "message",
        "role": "assistant",
        "model": response.model or "",
        "content": content,
        "stop_reason": "tool_use" if calls else (response.finish_reason or "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }
    _list_invalid_calls(response, msg)
    return msg


def response_to_openai_completion(response: Response) -> dict[str, Any]:
    """A :class:`Response` as a whole OpenAI chat completion dict (one choice).

    The message is :func:`response_to_openai`'s; ``finish_reason`` is ``"tool_calls"``
    when valid calls are present. ``openai.types.chat.ChatCompletion.model_validate(...)``
    of the result gives the SDK object.
    """
    message = response_to_openai(response)
    usage = response.usage
    out: dict[str, Any] = {
        "id": response.id or "chatcmpl-toolfix",
        "object": "chat.completion",
        "created": 0,
        "model": response.model or "",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls"
                if message.get("tool_calls")
                else (response.finish_reason or "stop"),
            }
        ],
    }
    if usage is not None:
        out["usage"] = {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
        }
    return out


# ---- OpenAI Responses API -------------------------------------------------------------

_RESPONSES_ITEM_TYPES = frozenset({"message", "function_call", "reasoning"})


def response_from_openai_responses(
    response: Any,
    *,
    limits: Limits | None = None,
) -> Response:
    """An OpenAI Responses-API response (``{"object": "response", "output": [...]}``), its
    ``output`` list, or one output item, as a :class:`Response`.

    ``message`` items give text (``output_text``; a ``refusal`` is kept as text),
    ``function_call`` items give calls (id: ``call_id``; the item id is kept in
    ``provider_data["item_id"]``), ``reasoning`` items give reasoning (summary text,
    ``encrypted_content`` kept in ``provider_data``). Other item types (server-side
    tools) ride along in ``provider_data["responses_items"]``. SDK objects are read
    through ``model_dump()``.
    """
    items, envelope = _responses_items(plain(response))
    max_depth = (limits or _LIMITS).max_depth
    parts: list[Part] = []
    unknown: list[dict[str, Any]] = []
    for index, raw_item in enumerate(items):
        item = plain(raw_item)
        if not isinstance(item, Mapping):
            raise _unsupported(f"Responses-API output[{index}] must be an object", item)
        read = _responses_item_parts(item, index, max_depth)
        if read is None:
            unknown.append(dict(item))
        else:
            parts += read
    return Response(
        parts=tuple(parts),
        id=_opt_str(envelope.get("id")),
        model=_opt_str(envelope.get("model")),
        finish_reason=_opt_str(envelope.get("status")),
        usage=_usage_of(envelope, "input_tokens", "output_tokens", keep_empty=True),
        provider_data={"responses_items": unknown} if unknown else None,
    )


def _responses_items(response: Any) -> tuple[Sequence[Any], Mapping[str, Any]]:
    """The output items of a Responses-API response, output list or single item, and the
    response around them (id, model, status, usage; empty when only items were given)."""
    if isinstance(response, Mapping) and isinstance(response.get("output"), list):
        return response["output"], response
    if isinstance(response, Mapping) and str(response.get("type")) in _RESPONSES_ITEM_TYPES:
        return [response], {}
    if isinstance(response, list | tuple):
        return response, {}
    raise _unsupported("not a Responses-API response or output item", response)


def _responses_item_parts(item: Mapping[str, Any], index: int, max_depth: int) -> list[Part] | None:
    """The parts one output item gives; ``None`` for an item type toolfix does not read."""
    t = item.get("type")
    if t == "message":
        blocks = item.get("content") or []
        if not isinstance(blocks, list):
            raise _unsupported("a Responses-API message's 'content' must be a list", blocks)
        parts: list[Part] = []
        for b in blocks:
            if isinstance(b, Mapping) and b.get("type") in ("output_text", "text"):
                parts.append(TextPart(text=str(b.get("text") or "")))
            elif isinstance(b, Mapping) and b.get("type") == "refusal":
                parts.append(TextPart(text=str(b.get("refusal") or "")))
        return parts
    if t == "function_call":
        call = _call_from_openai(
            {
                "id": item.get("call_id") or item.get("id") or f"call_{index}",
                "function": {"name": item.get("name"), "arguments": item.get("arguments")},
            },
            index,
            max_depth,
        )
        if item.get("id"):
            call = call.model_copy(update={"provider_data": {"item_id": item["id"]}})
        return [call]
    if t == "reasoning":
        summary = item.get("summary") or []
        text = "".join(
            str(s.get("text") or "") for s in summary if isinstance(s, Mapping)
        ) or "".join(
            str(c.get("text") or "") for c in (item.get("content") or []) if isinstance(c, Mapping)
        )
        data = {k: item[k] for k in ("id", "encrypted_content") if item.get(k)}
        return [ReasoningPart(text=text, provider_data=data or None)]
    return None


def response_to_openai_responses(response: Response) -> list[dict[str, Any]]:
    """A :class:`Response` as Responses-API ``output`` items: ``reasoning``, one assistant
    ``message`` with ``output_text``, then a ``function_call`` per valid call. Invalid calls
    are not emitted as calls (read them from the :class:`Response`)."""
    items: list[dict[str, Any]] = []
    for p in response.parts:
        if isinstance(p, ReasoningPart):
            item: dict[str, Any] = {
                "type": "reasoning",
                "id": (p.provider_data or {}).get("id") or "rs_toolfix",
                "summary": [{"type": "summary_text", "text": p.text}] if p.text else [],
            }
            if (p.provider_data or {}).get("encrypted_content"):
                item["encrypted_content"] = (p.provider_data or {})["encrypted_content"]
            items.append(item)
    if response.text:
        items.append(
            {
                "type": "message",
                "id": "msg_toolfix",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": response.text, "annotations": []}],
            }
        )
    for call in response.tool_calls:
        if call.provider_executed:
            continue
        items.append(
            {
                "type": "function_call",
                "id": (call.provider_data or {}).get("item_id") or f"fc_{call.id}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments_raw,
                "status": "completed",
            }
        )
    items.extend(dict(i) for i in (response.provider_data or {}).get("responses_items") or ())
    return items


# ---- Ollama native /api/chat ----------------------------------------------------------


def response_from_ollama(reply: Any, *, limits: Limits | None = None) -> Response:
    """An Ollama ``/api/chat`` reply (``{"model", "message": {...}, "done": true}``) or the
    ``ollama`` SDK's ``ChatResponse``, as a :class:`Response`.

    Arguments arrive as objects; they are kept (depth-checked) and given a canonical raw
    string. Calls carry no ids in Ollama; they get ``call_<index>``. ``thinking`` becomes
    reasoning.
    """
    reply = plain(reply)
    if not isinstance(reply, Mapping) or not isinstance(plain(reply.get("message")), Mapping):
        raise _unsupported("not an Ollama chat reply (needs a 'message' object)", reply)
    message = dict(plain(reply["message"]))
    thinking = message.pop("thinking", None)
    if isinstance(thinking, str) and thinking and not message.get("reasoning_content"):
        message["reasoning_content"] = thinking
    calls = message.get("tool_calls")
    if isinstance(calls, list | tuple):
        message["tool_calls"] = [plain(c) for c in calls]
    count = reply.get("prompt_eval_count"), reply.get("eval_count")
    usage = (
        Usage(input_tokens=_count(count[0]), output_tokens=_count(count[1]), requests=1)
        if any(isinstance(c, int) for c in count)
        else None
    )
    return response_from_openai(
        message,
        model=_opt_str(reply.get("model")),
        finish_reason=_opt_str(reply.get("done_reason")),
        usage=usage,
        limits=limits,
    )


def response_to_ollama(response: Response) -> dict[str, Any]:
    """A :class:`Response` as an Ollama ``/api/chat`` reply dict: arguments as objects,
    reasoning as ``thinking``; invalid calls under the extra key ``invalid_tool_calls``."""
    message: dict[str, Any] = {"role": "assistant", "content": response.text}
    if response.reasoning is not None:
        message["thinking"] = response.reasoning
    calls = [
        {"function": {"name": c.name, "arguments": c.arguments if c.arguments is not None else {}}}
        for c in response.tool_calls
        if not c.provider_executed
    ]
    if calls:
        message["tool_calls"] = calls
    out: dict[str, Any] = {
        "model": response.model or "",
        "message": message,
        "done": True,
        "done_reason": response.finish_reason or "stop",
    }
    _list_invalid_calls(response, out)
    return out


#: ``provider_data`` key of a response holding litellm's ``provider_specific_fields``
#: of the assistant message, kept so that server-side tool calls can be replayed.
PROVIDER_FIELDS_KEY = "litellm_provider_specific_fields"

#: litellm's ``provider_specific_fields`` entries holding results of server-side tools.
_SERVER_RESULT_KEYS = ("web_search_results", "tool_results")


def server_tool_ids(fields: Mapping[str, Any]) -> set[str]:
    ids: set[str] = set()
    for key in _SERVER_RESULT_KEYS:
        for r in fields.get(key) or ():
            if isinstance(r, Mapping) and isinstance(r.get("tool_use_id"), str):
                ids.add(r["tool_use_id"])
    return ids


def mark_provider_executed(response: Response, message: Mapping[str, Any]) -> Response:
    """Calls the provider ran itself (Anthropic ``server_tool_use``: ``srvtoolu_`` ids, or
    ids that have a server-side result) marked ``provider_executed``; litellm's
    ``provider_specific_fields`` kept in ``provider_data`` so the calls can be replayed."""
    fields = message.get("provider_specific_fields")
    fields = fields if isinstance(fields, Mapping) else {}
    server_ids = server_tool_ids(fields)
    changed = False
    parts = []
    for p in response.parts:
        if (
            isinstance(p, ToolCallPart)
            and not p.provider_executed
            and (p.id.startswith("srvtoolu_") or p.id in server_ids)
        ):
            p = p.model_copy(update={"provider_executed": True})
            changed = True
        parts.append(p)
    if not changed:
        return response
    kept = {k: v for k, v in fields.items() if v is not None}
    provider_data = {**(response.provider_data or {}), PROVIDER_FIELDS_KEY: kept}
    return response.model_copy(update={"parts": tuple(parts), "provider_data": provider_data})
