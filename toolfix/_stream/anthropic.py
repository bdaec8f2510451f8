"""Streaming repair of Anthropic Messages stream events (``message_start``,
``content_block_start/delta/stop``, ``message_delta``, ``message_stop``), dicts or the
``anthropic`` SDK's event objects; the output is Anthropic event dicts.

The same core and the same promise as OpenAI chunks (``toolfix/_stream/core.py``,
docs/guides/streaming.md): the output adds up (:func:`accumulate_anthropic`) to what
:func:`toolfix.repair` gives for the whole message, for every split of the input.

* ``thinking`` blocks pass through as they arrive (``thinking_delta``), their
  ``signature_delta`` verbatim; ``redacted_thinking`` blocks unchanged (``repair()``
  never rewrites reasoning; calls promoted from it come after it).
* The first ``text`` block flows as OpenAI content does (a bounded hold-back, then held
  from the first possible marker); calls found in it are released at their own
  closer as ``tool_use`` blocks (``input_json_delta`` fragments whose concatenation is
  the repaired arguments JSON). Later text blocks wait for the end.
* Native ``tool_use`` blocks are buffered (their ``input_json_delta`` fragments
  joined), repaired with the message and emitted at the end; ``server_tool_use`` stays
  provider-executed. Other block types (server tool results) are emitted unchanged at
  the end.
* ``message_delta`` carries ``stop_reason: "tool_use"`` when calls were emitted, and the
  ``"toolfix"`` extension (invalid calls, repair records), then ``message_stop``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .._convert import plain, response_from_anthropic
from .._messages import (
    InvalidToolCallPart,
    Part,
    ReasoningPart,
    RepairRecord,
    Response,
    TextPart,
    ToolCallPart,
    Usage,
)
from .core import _is_map, _StreamRepairerBase

__all__ = ["AnthropicStreamRepairer", "accumulate_anthropic"]

#: Events of the SDK's ``messages.stream()`` helper that repeat the raw events.
_DERIVED = frozenset({"text", "thinking", "signature", "input_json", "citation"})
_CALL_BLOCKS = ("tool_use", "server_tool_use")


class AnthropicStreamRepairer(_StreamRepairerBase):
    """The incremental state of one streamed Anthropic response.

    ``feed(event)`` returns the events that can go out now; ``finish()`` the rest,
    ending with ``message_delta`` (with the ``"toolfix"`` extension) and
    ``message_stop``.
    """

    def _start(self) -> None:
        self._message: dict[str, Any] = {}
        self._blocks: list[dict[str, Any]] = []  # the input blocks, as they add up
        self._by_index: dict[int, int] = {}  # input block index -> position in _blocks
        self._text_block: int | None = None  # the text block that flows
        self._native_call = False  # a tool_use block has arrived
        self._stop_reason: str | None = None
        self._stop_sequence: Any = None
        self._usage: dict[str, Any] = {}
        self._started = False
        self._next = 0  # next output block index
        self._open: str | None = None  # type of the open output block
        self._streamed_thinking = 0  # thinking blocks sent as they came

    # ---- output helpers ---------------------------------------------------------------

    def _start_message(self) -> list[dict[str, Any]]:
        if self._started:
            return []
        self._started = True
        # the upstream's own fields are kept (``container``...); the rest is toolfix's
        msg: dict[str, Any] = {
            **{k: v for k, v in self._message.items() if k not in ("content", "stop_reason")},
            "id": self._message.get("id") or "msg_toolfix",
            "type": "message",
            "role": "assistant",
            "model": self._message.get("model") or "",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": dict(self._message.get("usage") or {"input_tokens": 0, "output_tokens": 0}),
        }
        return [{"type": "message_start", "message": msg}]

    def _close(self) -> list[dict[str, Any]]:
        if self._open is None:
            return []
        self._open = None
        self._next += 1
        return [{"type": "content_block_stop", "index": self._next - 1}]

    def _open_block(self, block: dict[str, Any]) -> list[dict[str, Any]]:
        out = self._close()
        self._open = str(block["type"])
        out.append({"type": "content_block_start", "index": self._next, "content_block": block})
        return out

    def _delta(self, delta: dict[str, Any]) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": self._next, "delta": delta}

    def _text(self, text: str) -> list[dict[str, Any]]:
        out = [] if self._open == "text" else self._open_block({"type": "text", "text": ""})
        out.append(self._delta({"type": "text_delta", "text": text}))
        return out

    def _call(self, call: ToolCallPart) -> list[dict[str, Any]]:
        kind = "server_tool_use" if call.provider_executed else "tool_use"
        out = self._open_block({"type": kind, "id": call.id, "name": call.name, "input": {}})
        out.append(self._delta({"type": "input_json_delta", "partial_json": call.arguments_raw}))
        out.extend(self._close())
        return out

    def _thinking(self, part: ReasoningPart) -> list[dict[str, Any]]:
        if part.redacted and not part.signature:
            data = (part.provider_data or {}).get("data")
            out = self._open_block({"type": "redacted_thinking", "data": data})
        else:
            out = self._open_block({"type": "thinking", "thinking": "", "signature": ""})
            out.append(self._delta({"type": "thinking_delta", "thinking": part.text}))
            if part.signature:
                out.append(self._delta({"type": "signature_delta", "signature": part.signature}))
        out.extend(self._close())
        return out

    # ---- input ------------------------------------------------------------------------

    def feed(self, event: Any) -> list[dict[str, Any]]:
        """Take one stream event (a dict or an ``anthropic`` SDK event object)."""
        data = event
        if type(data) is not dict:
            data = plain(event)
            if not _is_map(data):
                return []
        kind = data.get("type")
        if kind == "content_block_delta":  # the common event first
            if self._started:
                return self._block_delta(data)
            return self._start_message() + self._block_delta(data)
        if kind == "message_start":
            message = data.get("message")
            self._message = dict(message) if isinstance(message, Mapping) else {}
            if isinstance(self._message.get("usage"), Mapping):
                self._usage.update(self._message["usage"])
            return self._start_message()
        out = self._start_message()
        if kind == "content_block_start":
            out.extend(self._block_start(data))
        elif kind == "content_block_delta":
            out.extend(self._block_delta(data))
        elif kind == "content_block_stop":
            i = self._by_index.get(_int(data.get("index")))
            if i is not None and self._blocks[i].get("_streamed") and self._open is not None:
                out.extend(self._close())
        elif kind == "message_delta":
            delta = data.get("delta")
            if isinstance(delta, Mapping):
                if delta.get("stop_reason"):
                    self._stop_reason = str(delta["stop_reason"])
                if "stop_sequence" in delta:
                    self._stop_sequence = delta.get("stop_sequence")
            usage = data.get("usage")
            if isinstance(usage, Mapping):
                self._usage.update({k: v for k, v in usage.items() if v is not None})
        # message_stop, ping and the SDK helper's derived events: nothing to do
        return out

    def _block_start(self, data: Mapping[str, Any]) -> list[dict[str, Any]]:
        block = plain(data.get("content_block"))
        block = dict(block) if isinstance(block, Mapping) else {"type": "text", "text": ""}
        self._by_index[_int(data.get("index"))] = len(self._blocks)
        self._blocks.append(block)
        kind = block.get("type")
        if kind == "text":
            block["_pieces"] = [block.get("text") or ""] if block.get("text") else []
            if self._text_block is None and not self._native_call:
                self._text_block = len(self._blocks) - 1
            else:
                self._core.stop_releasing()  # later text blocks wait for the end
                self._core.held = True
            return []
        if kind in _CALL_BLOCKS:
            self._native_call = True
            block["_json"] = []
            return []
        if kind == "thinking" and self._stream_reasoning:
            block["_streamed"] = True
            block["_pieces"] = [block.get("thinking") or ""] if block.get("thinking") else []
            self._streamed_thinking += 1
            if self._core.text:
                self._core.stop_releasing()  # reasoning after the text: part order moves
            out = self._open_block({"type": "thinking", "thinking": "", "signature": ""})
            if block.get("thinking"):
                out.append(self._delta({"type": "thinking_delta", "thinking": block["thinking"]}))
            return out
        if kind == "thinking":
            block["_pieces"] = [block.get("thinking") or ""] if block.get("thinking") else []
        if kind == "redacted_thinking" and self._stream_reasoning:
            block["_streamed"] = True
            self._streamed_thinking += 1
            clean = {k: v for k, v in block.items() if not k.startswith("_")}
            return self._open_block(clean)
        return []

    def _block_delta(self, data: Mapping[str, Any]) -> list[dict[str, Any]]:
        i = self._by_index.get(_int(data.get("index")))
        delta = data.get("delta")
        if type(delta) is not dict:
            delta = plain(delta)
            if not _is_map(delta):
                return []
        if i is None:
            return []
        block = self._blocks[i]
        kind = delta.get("type")
        if kind == "text_delta" and type(delta.get("text")) is str:
            block.setdefault("_pieces", []).append(delta["text"])
            if i != self._text_block:
                return []
            out: list[dict[str, Any]] = []
            piece = self._core.add(delta["text"])
            if piece:
                out.extend(self._text(piece))
            for call in self._core.release_calls(self._message_for):
                out.extend(self._call(call))
            return out
        if kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            block.setdefault("_pieces", []).append(delta["thinking"])
            if block.get("_streamed"):
                return [self._delta({"type": "thinking_delta", "thinking": delta["thinking"]})]
            return []
        if kind == "signature_delta" and isinstance(delta.get("signature"), str):
            block["signature"] = (block.get("signature") or "") + delta["signature"]
            if block.get("_streamed"):
                return [self._delta({"type": "signature_delta", "signature": delta["signature"]})]
            return []
        if kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            block.setdefault("_json", []).append(delta["partial_json"])
        return []

    # ---- the whole message ------------------------------------------------------------

    def _content(
        self, text_override: str | None = None
    ) -> tuple[list[dict[str, Any]], dict[int, str]]:
        """The blocks as a Messages ``content`` list, and the raw JSON of tool_use blocks
        whose input did not parse (position -> text)."""
        content: list[dict[str, Any]] = []
        broken: dict[int, str] = {}
        for i, b in enumerate(self._blocks):
            clean = {k: v for k, v in b.items() if not k.startswith("_")}
            kind = b.get("type")
            if kind == "text":
                clean["text"] = (
                    text_override
                    if i == self._text_block and text_override is not None
                    else "".join(b.get("_pieces") or ())
                )
            elif kind == "thinking":
                clean["thinking"] = "".join(b.get("_pieces") or ())
            elif kind in _CALL_BLOCKS and b.get("_json"):
                raw = "".join(b["_json"])
                try:
                    clean["input"] = json.loads(raw)
                except ValueError:
                    clean["input"] = {}
                    broken[len(content)] = raw
                else:
                    if not isinstance(clean["input"], dict):
                        clean["input"] = {}
                        broken[len(content)] = raw
            content.append(clean)
            if text_override is not None and i == self._text_block:
                break  # an attempt: the message up to the flowing text
        return content, broken

    def whole_response(self, text_override: str | None = None) -> Response:
        """The stream as the :class:`~toolfix.Response` a non-stream call gives."""
        content, broken = self._content(text_override)
        message = {
            "id": self._message.get("id"),
            "type": "message",
            "role": "assistant",
            "model": self._message.get("model"),
            "content": content,
            "stop_reason": self._stop_reason,
            "usage": self._usage or None,
        }
        response = response_from_anthropic(message, limits=self.config.limits)
        if not broken:
            return response
        parts = list(response.parts)
        for pos, raw in broken.items():
            p = parts[pos]
            if isinstance(p, ToolCallPart):
                parts[pos] = p.model_copy(update={"arguments_raw": raw, "arguments": None})
        return response.model_copy(update={"parts": tuple(parts)})

    def _message_for(self, text: str) -> Response:
        return self.whole_response(text)

    # ---- the end ----------------------------------------------------------------------

    def finish(self, fixed: Response | None = None) -> list[dict[str, Any]]:
        """Repair the whole message (or take ``fixed``, a processor's answer) and emit
        what is left."""
        fixed = self._repaired(fixed)
        out = self._start_message()
        reasoning = [p for p in fixed.parts if isinstance(p, ReasoningPart)]
        for part in reasoning[self._streamed_thinking :]:
            out.extend(self._thinking(part))
        more, mismatch, calls, bad_release = self._core.rest(fixed)
        if more:
            out.extend(self._text(more))
        for call in calls:
            out.extend(self._call(call))
        for block in (fixed.provider_data or {}).get("anthropic_blocks") or ():
            out.extend(self._open_block(dict(block)))
        out.extend(self._close())
        local = any(not c.provider_executed for c in fixed.tool_calls)
        stop = "tool_use" if local else (self._stop_reason or "end_turn")
        usage = dict(self._usage) or {"output_tokens": 0}
        out.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": self._stop_sequence},
                "usage": usage,
                "toolfix": self._core.extension(
                    fixed, mismatch, bad_release, finish_reason=fixed.finish_reason
                ),
            }
        )
        out.append({"type": "message_stop"})
        return out


def _int(value: Any) -> int:
    return value if type(value) is int else -1


def accumulate_anthropic(events: Iterable[Any]) -> Response:
    """Add up a repaired Anthropic event stream into a :class:`~toolfix.Response`."""
    meta: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    extension: Mapping[str, Any] = {}
    stop: str | None = None
    for event in events:
        data = plain(event)
        if not isinstance(data, Mapping):
            continue
        kind = data.get("type")
        if kind == "message_start":
            msg = data.get("message") or {}
            meta = {"id": msg.get("id"), "model": msg.get("model")}
            usage.update(msg.get("usage") or {})
        elif kind == "content_block_start":
            block = dict(plain(data.get("content_block")) or {})
            block["_pieces"] = []
            blocks[data["index"]] = block
        elif kind == "content_block_delta":
            block = blocks[data["index"]]
            delta = plain(data.get("delta")) or {}
            t = delta.get("type")
            if t == "text_delta":
                block["_pieces"].append(delta.get("text") or "")
            elif t == "thinking_delta":
                block["_pieces"].append(delta.get("thinking") or "")
            elif t == "signature_delta":
                block["signature"] = (block.get("signature") or "") + (delta.get("signature") or "")
            elif t == "input_json_delta":
                block["_pieces"].append(delta.get("partial_json") or "")
        elif kind == "message_delta":
            stop = (data.get("delta") or {}).get("stop_reason") or stop
            usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
            if isinstance(data.get("toolfix"), Mapping):
                extension = data["toolfix"]
    parts, unknown = _block_parts(blocks, extension)
    return Response(
        parts=tuple(parts),
        id=meta.get("id"),
        model=meta.get("model") or None,
        finish_reason=extension.get("finish_reason", stop) if extension else stop,
        usage=Usage(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            requests=1,
        )
        if usage
        else None,
        provider_data={"anthropic_blocks": unknown} if unknown else None,
        repairs=tuple(RepairRecord.model_validate(r) for r in extension.get("repairs", ())),
    )


def _block_parts(
    blocks: Mapping[int, dict[str, Any]], extension: Mapping[str, Any]
) -> tuple[list[Part], list[dict[str, Any]]]:
    """The parts the accumulated blocks make (and the blocks of unknown types)."""
    by_index = {c["index"]: c for c in extension.get("calls", ())}
    parts: list[Part] = []
    unknown: list[dict[str, Any]] = []
    n_calls = 0
    for _, block in sorted(blocks.items()):
        t = block.get("type")
        joined = "".join(block.pop("_pieces"))
        if t == "text":
            parts.append(TextPart(text=joined))
        elif t == "thinking":
            parts.append(ReasoningPart(text=joined, signature=block.get("signature") or None))
        elif t == "redacted_thinking":
            parts.append(
                ReasoningPart(text="", redacted=True, provider_data={"data": block.get("data")})
            )
        elif t in _CALL_BLOCKS:
            info = by_index.get(n_calls, {})
            n_calls += 1
            parts.append(
                ToolCallPart(
                    id=str(block.get("id") or ""),
                    name=str(block.get("name") or ""),
                    arguments_raw=joined,
                    arguments=json.loads(joined) if joined else {},
                    provider_executed=t == "server_tool_use",
                    repairs=tuple(RepairRecord.model_validate(r) for r in info.get("repairs", ())),
                )
            )
        else:
            unknown.append(block)
    parts.extend(
        InvalidToolCallPart.model_validate(p) for p in extension.get("invalid_tool_calls", ())
    )
    return parts, unknown
