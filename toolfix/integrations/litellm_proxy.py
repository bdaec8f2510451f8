"""A LiteLLM proxy hook that repairs every chat response's tool calls.

Add it to any LiteLLM proxy config::

    litellm_settings:
      callbacks: toolfix.integrations.litellm_proxy.proxy_handler_instance

The request's ``tools`` are the registry. Responses to requests without tools,
and responses whose calls are already valid, pass through unchanged. A repair
error never drops a response: the original goes through with the error recorded.

Each repaired response carries its records in a ``toolfix`` field and the
``x-toolfix-repairs`` header; counts per model and failure kind are served on
``GET /toolfix/stats`` when the proxy is started by ``toolfix serve`` (the
Prometheus integration is enterprise-only in litellm) and logged one line per
repaired call on the ``toolfix.proxy`` logger.
"""

from __future__ import annotations

import codecs
import json
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from typing import Any

from litellm.integrations.custom_logger import CustomLogger
from litellm.types.utils import ChatCompletionMessageToolCall as _ToolCall

from .._convert import (
    messages_from_openai,
    response_from_anthropic,
    response_from_openai,
    response_to_openai,
)
from .._messages import Prompt, Response
from .._pipeline.litellm import dict_of
from .._pipeline.processor import ResponseProcessor
from .._repair.families import reasoning_prefilled_for
from .._repair.manual import ManualToolCallFixProcessor
from ._common import template_kwargs, with_prefilled

__all__ = ["ToolfixProxyHook", "proxy_handler_instance", "stats"]

log = logging.getLogger("toolfix.proxy")

HEADER = "x-toolfix-repairs"
# set by ``toolfix serve`` in the hook's view of a request: the key that request went
# upstream with (the client's own, or the held one), for the LLM fixer's re-asks
REQUEST_KEY_FIELD = "toolfix_upstream_api_key"


class _Stats:
    """Process-wide counters (thread-safe): responses seen/repaired, per model and kind."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: Counter[tuple[str, str]] = Counter()
        self.responses = 0
        self.repaired = 0
        self.errors = 0

    def record(self, model: str, kinds: Sequence[str], *, repaired: bool, error: bool) -> None:
        with self._lock:
            self.responses += 1
            self.repaired += int(repaired)
            self.errors += int(error)
            for k in kinds:
                self.counts[(model, k)] += 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            per_model: dict[str, dict[str, int]] = {}
            for (model, kind), n in sorted(self.counts.items()):
                per_model.setdefault(model, {})[kind] = n
            return {
                "responses": self.responses,
                "repaired": self.repaired,
                "errors": self.errors,
                "repairs": per_model,
            }


stats = _Stats()


def _as_dict(obj: Any) -> dict[str, Any]:
    data = dict_of(obj)
    if data is None:
        raise TypeError(f"cannot read {type(obj).__name__} as a dict")
    return data


def _record_dicts(resp: Response) -> list[dict[str, Any]]:
    return [r.as_dict() for r in resp.all_repairs]


def _changed(resp: Response) -> bool:
    return bool(resp.all_repairs) or bool(resp.invalid_tool_calls)


def _summary(kinds: Sequence[str]) -> str:
    c = Counter(kinds)
    return ",".join(f"{k}={n}" for k, n in sorted(c.items())) or "none"


class ToolfixProxyHook(CustomLogger):
    """Repairs tool calls in LiteLLM proxy responses (non-streaming and streaming).

    Args:
        processor: the repair chain; the manual fixer by default.
        fixer_api_base: when ``processor`` re-asks an LLM, the upstream it asks.
        fixer_api_key: the key for that upstream.
        reasoning_prefilled: ``True``/``False`` for every request (``toolfix serve
            --reasoning-prefilled yes/no``); ``None`` (default): per request, from its
            model name and ``chat_template_kwargs`` (top level or in ``extra_body``),
            see ``toolfix.formats.reasoning_prefilled_for``. A processor whose config
            sets ``reasoning_prefilled`` keeps its own value.
    """

    def __init__(
        self,
        processor: ResponseProcessor | None = None,
        *,
        fixer_api_base: str | None = None,
        fixer_api_key: str | None = None,
        reasoning_prefilled: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.processor = processor or ManualToolCallFixProcessor()
        self.fixer_api_base = fixer_api_base
        self.fixer_api_key = fixer_api_key
        self.reasoning_prefilled = reasoning_prefilled

    def prefilled_for(self, request: Mapping[str, Any]) -> bool | None:
        """``reasoning_prefilled`` for one request: the hook's own value, else the
        request's model name and ``chat_template_kwargs``."""
        if self.reasoning_prefilled is not None:
            return self.reasoning_prefilled
        return reasoning_prefilled_for(str(request.get("model") or ""), template_kwargs(request))

    def processor_for(self, request: Mapping[str, Any]) -> ResponseProcessor:
        """The processor that repairs this request's response (see :meth:`prefilled_for`)."""
        return with_prefilled(self.processor, self.prefilled_for(request))

    # -- the repair of one assistant message ------------------------------------------------

    def _executor(self, request: Mapping[str, Any]) -> Any:
        """The LLM fixer's executor: the fixer's upstream, with the key the request itself
        went upstream with when ``toolfix serve`` forwards the client's key."""
        if self.fixer_api_base is None:
            return None
        from .._pipeline.litellm import LiteLLMExecutor

        key = request.get(REQUEST_KEY_FIELD)
        api_key = key if isinstance(key, str) and key else self.fixer_api_key
        return LiteLLMExecutor(api_base=self.fixer_api_base, api_key=api_key)

    async def repair_message(
        self, message: Mapping[str, Any] | Response, tools: Any, request: Mapping[str, Any]
    ) -> Response:
        """The repaired :class:`Response` for one OpenAI assistant message."""
        original = message if isinstance(message, Response) else response_from_openai(message)
        prompt = _prompt(request) if self.fixer_api_base is not None else Prompt()
        model = str(request.get("model") or "")
        upstream_model = model if "/" in model else f"openai/{model}"
        return await self.processor_for(request).process(
            self._executor(request), prompt, upstream_model, tools, original
        )

    # -- non-streaming ----------------------------------------------------------------------

    async def async_post_call_success_hook(
        self, data: dict[str, Any], user_api_key_dict: Any, response: Any
    ) -> Any:
        tools = data.get("tools")
        if not tools:
            return response
        if _is_anthropic(response):
            return await self._anthropic(data, tools, response)
        choices = getattr(response, "choices", None)
        if not choices:
            return response
        model = str(data.get("model") or "")
        records: list[dict[str, Any]] = []
        kinds: list[str] = []
        changed = False
        error: str | None = None
        started = time.perf_counter()
        try:
            for choice in choices:
                message = getattr(choice, "message", None)
                if message is None:
                    continue
                msg = _as_dict(message)
                fixed = await self.repair_message(msg, tools, data)
                if not _changed(fixed):
                    continue
                changed = True
                new = response_to_openai(fixed)
                message.content = new.get("content")
                if new.get("reasoning_content") is not None:  # e.g. moved out of the content
                    message.reasoning_content = new["reasoning_content"]
                calls = new.get("tool_calls")
                message.tool_calls = [_ToolCall(**c) for c in calls] if calls else None
                if calls:
                    choice.finish_reason = "tool_calls"
                recs = _record_dicts(fixed)
                kinds.extend(r["kind"] for r in recs)
                invalid = new.get("invalid_tool_calls") or []
                kinds.extend(f"invalid:{p.kind}" for p in fixed.invalid_tool_calls)
                records.append(
                    {
                        "index": getattr(choice, "index", 0),
                        "repairs": recs,
                        "invalid_tool_calls": invalid,
                    }
                )
                _log_calls(model, fixed)
        except Exception as exc:  # a repair error never drops the response
            error = f"{type(exc).__name__}: {exc}"
            log.exception("toolfix repair failed model=%s; the original response goes out", model)
        stats.record(model, kinds, repaired=changed, error=error is not None)
        elapsed_us = int((time.perf_counter() - started) * 1e6)
        ext: dict[str, Any] = {
            "repaired": changed,
            "choices": records,
            "elapsed_us": elapsed_us,
        }
        if error is not None:
            ext["error"] = error
        try:
            response.toolfix = ext  # an extra field on litellm's pydantic model
        except Exception:  # pragma: no cover - a response type that refuses extras
            log.debug("toolfix: could not attach the records to %s", type(response).__name__)
        hidden = getattr(response, "_hidden_params", None)
        if isinstance(hidden, dict):
            headers = hidden.setdefault("additional_headers", {}) or {}
            headers[HEADER] = _header_value(kinds, error)
            hidden["additional_headers"] = headers
        return response

    async def _anthropic(self, data: dict[str, Any], tools: Any, response: Any) -> Any:
        """``/v1/messages``: the response is an Anthropic message (dict)."""
        model = str(data.get("model") or "")
        body = _as_dict(response)
        try:
            fixed = await self.repair_message(response_from_anthropic(body), tools, data)
        except Exception as exc:
            log.exception("toolfix repair failed model=%s; the original response goes out", model)
            stats.record(model, [], repaired=False, error=True)
            if isinstance(response, dict):
                response["toolfix"] = {"repaired": False, "error": f"{type(exc).__name__}: {exc}"}
            return response
        if not _changed(fixed):
            stats.record(model, [], repaired=False, error=False)
            return response
        recs = _record_dicts(fixed)
        kinds = [r["kind"] for r in recs] + [f"invalid:{p.kind}" for p in fixed.invalid_tool_calls]
        stats.record(model, kinds, repaired=True, error=False)
        _log_calls(model, fixed)
        blocks: list[dict[str, Any]] = [
            b
            for b in body.get("content") or []
            if b.get("type") in ("thinking", "redacted_thinking")
        ]
        if fixed.text:
            blocks.append({"type": "text", "text": fixed.text})
        for call in fixed.tool_calls:
            blocks.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
            )
        out = dict(body)
        out["content"] = blocks
        if fixed.tool_calls:
            out["stop_reason"] = "tool_use"
        out["toolfix"] = {
            "repaired": True,
            "repairs": recs,
            "invalid_tool_calls": [
                {"name": p.name, "raw": p.raw, "error": p.error, "kind": p.kind}
                for p in fixed.invalid_tool_calls
            ],
        }
        return out

    # -- streaming --------------------------------------------------------------------------

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict[str, Any]
    ) -> AsyncGenerator[Any, None]:
        tools = request_data.get("tools")
        if not tools:
            async for item in response:
                yield item
            return
        upstream = aiter(response)
        first = await anext(upstream, None)
        if first is None:
            return
        if isinstance(first, bytes | str):  # /v1/messages: Anthropic SSE frames
            stream = _repair_anthropic_sse(_chain(first, upstream), tools, self, request_data)
        else:
            whole = not isinstance(self.processor, ManualToolCallFixProcessor)
            stream = _repair_stream(_chain(first, upstream), tools, self, request_data, whole=whole)
        async for item in stream:
            yield item


async def _chain(first: Any, rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    yield first
    async for item in rest:
        yield item


class _SSEFrames:
    """Server-sent-event frames (bytes or str, cut anywhere) to Anthropic event dicts."""

    def __init__(self) -> None:
        self._buffer = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")()

    def feed(self, chunk: bytes | str) -> list[dict[str, Any]]:
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        self._buffer = (self._buffer + text).replace("\r\n", "\n")
        *frames, self._buffer = self._buffer.split("\n\n")
        out: list[dict[str, Any]] = []
        for frame in frames:
            data = "\n".join(
                line[5:].lstrip() for line in frame.split("\n") if line.startswith("data:")
            )
            if not data or data == "[DONE]":
                continue
            event = json.loads(data)
            if isinstance(event, dict):
                out.append(event)
        return out


def _sse(event: Mapping[str, Any], as_bytes: bool) -> bytes | str:
    frame = f"event: {event.get('type')}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"
    return frame.encode() if as_bytes else frame


async def _repair_anthropic_sse(
    chunks: AsyncIterator[Any],
    tools: Any,
    hook: ToolfixProxyHook,
    request: Mapping[str, Any],
) -> AsyncGenerator[Any, None]:
    """``/v1/messages`` streaming: the SSE frames read as Anthropic events, repaired by
    ``AnthropicStreamRepairer`` (prose and thinking as they arrive, calls as ``tool_use``
    blocks at their closer or at the end), written back as SSE frames. With a processor
    other than the manual fixer the message is gathered, processed, then emitted.
    A failure ends the stream with an Anthropic ``error`` event (the SDK raises it)."""
    from .._stream.anthropic import AnthropicStreamRepairer

    model = str(request.get("model") or "")
    manual = isinstance(hook.processor, ManualToolCallFixProcessor)
    config = getattr(hook.processor_for(request), "config", None) if manual else None
    state = AnthropicStreamRepairer(tools, config=config, hold=not manual)
    frames = _SSEFrames()
    as_bytes = True
    try:
        async for chunk in chunks:
            if not isinstance(chunk, bytes | str):
                continue
            as_bytes = isinstance(chunk, bytes)
            for event in frames.feed(chunk):
                for out in state.feed(event):
                    yield _sse(out, as_bytes)
        fixed = None
        if not manual:
            fixed = await hook.repair_message(state.whole_response(), tools, request)
        final = state.finish(fixed)
    except Exception as exc:
        log.exception("toolfix stream repair failed model=%s (/v1/messages)", model)
        stats.record(model, [], repaired=False, error=True)
        error = {"type": "api_error", "message": f"toolfix: {type(exc).__name__}: {exc}"}
        yield _sse({"type": "error", "error": error}, as_bytes)
        return
    if state.result is not None:
        _record_stream(model, state.result)
    for out in final:
        yield _sse(out, as_bytes)


def _prompt(request: Mapping[str, Any]) -> Prompt:
    """The request's conversation for the LLM fixer, with its ``chat_template_kwargs``
    (the fixer's re-asks send them upstream too, and its manual pass reads them: see
    ``LiteLLMExecutor.reasoning_prefilled``); no messages when they cannot be read."""
    kwargs = template_kwargs(request)
    params = {"extra_body": {"chat_template_kwargs": dict(kwargs)}} if kwargs else {}
    msgs = request.get("messages")
    if not isinstance(msgs, list):
        return Prompt(params=params)
    try:
        return Prompt(messages=tuple(messages_from_openai(msgs)), params=params)
    except Exception:  # e.g. Anthropic content blocks on /v1/messages
        log.debug("toolfix: request messages not readable as OpenAI chat; fixer gets none")
        return Prompt(params=params)


def _is_anthropic(response: Any) -> bool:
    if isinstance(response, dict):
        return response.get("type") == "message" and "content" in response
    return False


def _log_calls(model: str, fixed: Response, suffix: str = "") -> None:
    for call in fixed.tool_calls:
        if call.repairs:
            log.info(
                "toolfix repaired call model=%s tool=%s repairs=%s%s",
                model,
                call.name,
                _summary([r.kind for r in call.repairs]),
                suffix,
            )
    for bad in fixed.invalid_tool_calls:
        log.info(
            "toolfix could not repair call model=%s tool=%s kind=%s%s",
            model,
            bad.name,
            bad.kind,
            suffix,
        )


def _record_stream(model: str, fixed: Response, *, repaired: bool | None = None) -> None:
    """Count a streamed response's repairs and invalid calls in the stats and log its
    calls; ``repaired`` defaults to whether there was any."""
    kinds = [r.kind for r in fixed.all_repairs] + [
        f"invalid:{p.kind}" for p in fixed.invalid_tool_calls
    ]
    stats.record(model, kinds, repaired=bool(kinds) if repaired is None else repaired, error=False)
    _log_calls(model, fixed, " (stream)")


def _record_stream_failure(model: str) -> None:
    """Log (with the traceback) and count a stream whose repair failed; the caller then
    sends the original chunks on."""
    log.exception("toolfix stream repair failed model=%s; the original stream goes out", model)
    stats.record(model, [], repaired=False, error=True)


def _header_value(kinds: Sequence[str], error: str | None) -> str:
    value = f"repairs={sum(1 for k in kinds if not k.startswith('invalid:'))}"
    value += f"; invalid={sum(1 for k in kinds if k.startswith('invalid:'))}"
    if error is not None:
        value += "; error=1"
    return value


async def _repair_stream(
    chunks: AsyncIterator[Any],
    tools: Any,
    hook: ToolfixProxyHook,
    request: Mapping[str, Any],
    *,
    whole: bool,
) -> AsyncGenerator[Any, None]:
    """Repair a chat-completion stream with ``toolfix.StreamRepairer``.

    ``whole=False`` (the manual fixer): prose goes to the client as it arrives and calls
    leave as repaired tool-call deltas. ``whole=True`` (a processor that needs the whole
    response, such as the LLM-based fixer, which asks the model again): the stream is
    gathered (reasoning, native calls and the upstream's fields included), the message
    repaired as a non-stream request would be, and the result streamed out.

    Chunks that are not chat-completion chunks (``/v1/messages`` SSE bytes) pass through
    as they are. If repair fails, what is still held goes out unrepaired."""
    from litellm.types.utils import ModelResponseStream

    from .._stream.core import StreamRepairer

    model = str(request.get("model") or "")
    config = None if whole else getattr(hook.processor_for(request), "config", None)
    state = StreamRepairer(tools, config=config, hold=whole)
    seen: list[Any] = []
    async for chunk in chunks:
        if getattr(chunk, "choices", None) is None:  # not a chat chunk: hand it on untouched
            async for item in _pass_through(seen, chunk, chunks):
                yield item
            return
        seen.append(chunk)
        for out in state.feed(chunk):
            yield ModelResponseStream(**out)
    try:
        if whole:
            fixed = await hook.repair_message(state.whole_response(), tools, request)
            final = state.finish(fixed)
        else:
            final = state.finish()
    except Exception:
        _record_stream_failure(model)
        for held in seen:
            yield held
        return
    for item in _final_chunks(model, state, final, seen):
        yield item


async def _pass_through(
    seen: list[Any], chunk: Any, rest: AsyncIterator[Any]
) -> AsyncGenerator[Any, None]:
    for held in seen:
        yield held
    yield chunk
    async for item in rest:
        yield item


def _final_chunks(model: str, state: Any, final: list[dict[str, Any]], seen: list[Any]) -> Any:
    """The repaired stream's last chunks as LiteLLM stream objects; toolfix's extension
    and the upstream's usage ride with the last one."""
    from litellm.types.utils import ModelResponseStream

    if state.result is not None:
        _record_stream(model, state.result)
    usage = next((u for c in reversed(seen) if (u := getattr(c, "usage", None))), None)
    for out in final:
        extension = out.pop("toolfix", None)
        item = ModelResponseStream(**out)
        if extension is not None:
            setattr(item, "toolfix", extension)  # noqa: B010 - rides with the last chunk
            if usage is not None:
                setattr(item, "usage", usage)  # noqa: B010
        yield item


def _from_env() -> ToolfixProxyHook:
    """The hook configured by ``toolfix serve`` through environment variables."""
    chain = os.environ.get("TOOLFIX_PROXY_CHAIN", "manual")
    if chain == "manual":
        return ToolfixProxyHook()
    from .._llm import LLMBasedToolCallFixProcessor

    retries = int(os.environ.get("TOOLFIX_PROXY_MAX_RETRIES", "2"))
    return ToolfixProxyHook(
        # the LLM fixer runs the manual fixer first itself
        LLMBasedToolCallFixProcessor(max_retries=retries),
        fixer_api_base=os.environ.get("TOOLFIX_PROXY_UPSTREAM"),
        fixer_api_key=os.environ.get("TOOLFIX_PROXY_UPSTREAM_KEY") or None,
    )


proxy_handler_instance = _from_env()


def stats_json() -> str:
    return json.dumps(stats.snapshot())
