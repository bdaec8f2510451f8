"""Streaming repair: OpenAI ``chat.completion.chunk`` deltas in, repaired deltas out.

The contract (docs/guides/streaming.md): accumulating the output stream gives
exactly what :func:`toolfix.repair` gives for the whole message, for every way the
input is split into chunks, and streamed content never contains markup that
``repair()`` would remove.

How it keeps that promise while text still flows:

* **Prose passes through as it arrives**, minus a bounded hold-back: the last word
  and the whitespace before it (a word may be the start of a marker, or a bare
  ``name(`` call), and any text from the first place where markup could begin
  (``<``, ``[``, ``{``, a code fence, ``(``, ``|``, harmony's ``to=``, ReAct's
  ``Action:``/``Thought:``...). Emitted content is therefore always a prefix of
  the content ``repair()`` keeps.
* **From the first possible marker on, text is held** until the stream ends, when
  the whole message is repaired once (the same code as ``repair()``) and the rest of
  the content, the calls and the invalid calls are emitted. Cost: one repair of
  the whole text plus a linear scan of the chunks.
* **Native tool-call deltas** from the provider are buffered per index and repaired
  with the message at the end, then emitted whole: ``index``, ``id`` and name
  first, then the arguments in one fragment, which is the final repaired JSON.
* **Reasoning** (``reasoning_content`` deltas) passes straight through when calls in
  reasoning are ignored (the default); otherwise it is held like text.
* **The end**: the last chunk has ``finish_reason: "tool_calls"`` when calls were
  emitted; invalid calls and repair records ride in its ``"toolfix"`` extension
  field, which :func:`accumulate` reads back into a :class:`~toolfix.Response`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._api import repair
from ._config import FixConfig
from ._convert import plain, response_from_openai
from ._messages import (
    InvalidToolCallPart,
    Part,
    ReasoningPart,
    RepairRecord,
    Response,
    TextPart,
    ToolCallPart,
)
from ._processor import ToolsLike

if TYPE_CHECKING:
    from ._executor import PromptExecutor
    from ._messages import Prompt
    from ._processor import ResponseProcessor

__all__ = [
    "StreamRepairer",
    "accumulate",
    "arepair_stream",
    "process_stream_whole",
    "repair_stream",
]

#: Where markup may begin: from the first match on, content waits for the end.
_MARKUP_START = re.compile(
    r"[<\[{(`|>]|｜|\bto=|\b(?:Action|Thought|Observation|functools|call)\s*:|\bfunctools\b"
)


def _safe_end(text: str, limit: int) -> int:
    """How much of ``text[:limit]`` may go out now: up to before the last word and the
    whitespace before it (the word could still become a marker or a ``name(`` call)."""
    end = limit
    while end > 0 and not text[end - 1].isspace():
        end -= 1
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end


@dataclass
class _NativeCall:
    id: str = ""
    name: str = ""
    arguments: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class StreamRepairer:
    """The incremental state of one streamed response (feed chunks, then finish).

    ``feed(chunk)`` returns the output chunks that can go out now; ``finish()``
    returns the rest, ending with the chunk that carries ``finish_reason`` and the
    ``"toolfix"`` extension. Deterministic: the output depends only on the input text
    and calls, never on how they were split into chunks, except for when prose is
    released.
    """

    def __init__(
        self, tools: ToolsLike, *, config: FixConfig | None = None, hold: bool = False
    ) -> None:
        self.tools = tools
        self._hold = hold  # release nothing early (a processor that needs the whole text)
        self.config = config or FixConfig()
        self._text: list[str] = []  # every content piece, joined only at the end
        self._pending = ""  # content not sent yet (before any possible markup)
        self._scanned = 0  # pending before this position has no markup start
        self._held = False  # markup may have started: the rest waits for the end
        self._emitted = 0  # content characters already sent
        self._reasoning: list[str] = []
        self._stream_reasoning = self.config.reasoning_calls == "ignore" and not hold
        self._calls: dict[int, _NativeCall] = {}
        self._meta: dict[str, Any] = {"id": None, "model": None, "created": None}
        self._finish_reason: str | None = None
        self.result: Response | None = None

    # ---- input ------------------------------------------------------------------------

    def feed(self, chunk: Any) -> list[dict[str, Any]]:
        """Take one input chunk (a dict or an SDK/litellm chunk object)."""
        data = plain(chunk)
        if not isinstance(data, Mapping):
            return []
        for key in ("id", "model", "created"):
            if self._meta[key] is None and data.get(key) is not None:
                self._meta[key] = data.get(key)
        out: list[dict[str, Any]] = []
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            return out
        choice = choices[0]
        if choice.get("finish_reason"):
            self._finish_reason = str(choice["finish_reason"])
        delta = choice.get("delta")
        if not isinstance(delta, Mapping):
            return out
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            self._reasoning.append(reasoning)
            if self._stream_reasoning:
                out.append(self._chunk({"reasoning_content": reasoning}))
        for tc in delta.get("tool_calls") or ():
            if isinstance(tc, Mapping):
                self._take_call(tc)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._text.append(content)
            piece = self._release(content)
            if piece:
                out.append(self._chunk({"content": piece}))
        return out

    def _take_call(self, tc: Mapping[str, Any]) -> None:
        index = tc.get("index")
        key = index if isinstance(index, int) else len(self._calls)
        call = self._calls.setdefault(key, _NativeCall())
        if isinstance(tc.get("id"), str) and tc["id"]:
            call.id = tc["id"]
        fn = tc.get("function")
        if isinstance(fn, Mapping):
            if isinstance(fn.get("name"), str):
                call.name += fn["name"]
            if isinstance(fn.get("arguments"), str):
                call.arguments += fn["arguments"]

    def _release(self, content: str) -> str:
        """The content that may go out now (see the module docs). Only the unsent tail
        (the last word and what just arrived) is searched: linear in the stream."""
        if self._held or self._hold:
            return ""
        self._pending += content
        pending = self._pending
        # a little before the last scan point: a keyword may straddle two chunks
        found = _MARKUP_START.search(pending, max(0, self._scanned - 16))
        if found is not None:
            self._held = True
            limit = found.start()
        else:
            limit = len(pending)
            self._scanned = len(pending)
        end = _safe_end(pending, limit)
        if end <= 0:
            return ""
        self._pending = pending[end:]
        self._scanned = max(0, self._scanned - end)
        self._emitted += end
        return pending[:end]

    # ---- output -----------------------------------------------------------------------

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self._meta["id"] or "chatcmpl-toolfix",
            "object": "chat.completion.chunk",
            "created": self._meta["created"] or int(time.time()),
            "model": self._meta["model"] or "",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def whole_message(self) -> dict[str, Any]:
        """The message the stream adds up to, as the non-stream API would return it."""
        text = "".join(self._text)
        msg: dict[str, Any] = {"role": "assistant", "content": text or None}
        if self._reasoning:
            msg["reasoning_content"] = "".join(self._reasoning)
        if self._calls:
            msg["tool_calls"] = [
                {
                    "id": c.id or f"call_{i}",
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for i, c in sorted(self._calls.items())
            ]
        return msg

    def finish(self, fixed: Response | None = None) -> list[dict[str, Any]]:
        """Repair the whole message (or take ``fixed``, a processor's answer) and emit
        what is left."""
        if fixed is None:
            fixed = repair(self.whole_message(), self.tools, config=self.config)
        self.result = fixed
        out: list[dict[str, Any]] = []
        reasoning = fixed.reasoning or ""
        streamed_reasoning = "".join(self._reasoning) if self._stream_reasoning else ""
        if reasoning.startswith(streamed_reasoning) and len(reasoning) > len(streamed_reasoning):
            out.append(self._chunk({"reasoning_content": reasoning[len(streamed_reasoning) :]}))
        text = fixed.text
        sent = "".join(self._text)[: self._emitted]
        mismatch = not text.startswith(sent)
        if not mismatch and len(text) > len(sent):
            out.append(self._chunk({"content": text[len(sent) :]}))
        calls = fixed.tool_calls
        for i, call in enumerate(calls):
            out.append(
                self._chunk(
                    {
                        "tool_calls": [
                            {
                                "index": i,
                                "id": call.id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            out.append(
                self._chunk(
                    {"tool_calls": [{"index": i, "function": {"arguments": call.arguments_raw}}]}
                )
            )
        finish = "tool_calls" if calls else (self._finish_reason or "stop")
        last = self._chunk({}, finish)
        last["toolfix"] = {
            "calls": [{"index": i, "repairs": _records(c.repairs)} for i, c in enumerate(calls)],
            "invalid_tool_calls": [p.model_dump(mode="json") for p in fixed.invalid_tool_calls],
            "repairs": _records(fixed.repairs),
            "content_mismatch": mismatch,
            "llm_calls": sum(r.llm_calls for r in fixed.all_repairs),
        }
        out.append(last)
        return out


def _records(records: Iterable[RepairRecord]) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json") for r in records]


def repair_stream(
    chunks: Iterable[Any], tools: ToolsLike, *, config: FixConfig | None = None
) -> Iterator[dict[str, Any]]:
    """Repair a streamed response chunk by chunk (sync); yields OpenAI chunk dicts."""
    state = StreamRepairer(tools, config=config)
    for chunk in chunks:
        yield from state.feed(chunk)
    yield from state.finish()


async def arepair_stream(
    chunks: AsyncIterable[Any] | Iterable[Any],
    tools: ToolsLike,
    *,
    config: FixConfig | None = None,
) -> AsyncIterator[dict[str, Any]]:
    """Repair a streamed response (async); accepts an async or a sync iterable."""
    state = StreamRepairer(tools, config=config)
    if isinstance(chunks, AsyncIterable):
        async for chunk in chunks:
            for out in state.feed(chunk):
                yield out
    else:
        for chunk in chunks:
            for out in state.feed(chunk):
                yield out
    for out in state.finish():
        yield out


async def process_stream_whole(
    processor: ResponseProcessor,
    executor: PromptExecutor | None,
    prompt: Prompt,
    model: str,
    tools: ToolsLike,
    chunks: AsyncIterable[Any] | Iterable[Any],
) -> AsyncIterator[dict[str, Any]]:
    """Any processor on a stream: gather the whole message, process it, emit the result.

    What a processor that may ask an LLM again (the LLM-based fixer) does: nothing goes
    out until it has answered, and the final chunk's ``toolfix.llm_calls`` says what
    the fix spent."""
    state = StreamRepairer(tools, hold=True)
    if isinstance(chunks, AsyncIterable):
        async for chunk in chunks:
            state.feed(chunk)
    else:
        for chunk in chunks:
            state.feed(chunk)
    [fixed] = await processor.process(
        executor, prompt, model, tools, [response_from_openai(state.whole_message())]
    )
    for out in state.finish(fixed):
        yield out


def accumulate(chunks: Iterable[Mapping[str, Any]]) -> Response:
    """Add up a repaired stream (what :func:`repair_stream` yields) into a ``Response``.

    Gives the same calls, invalid calls, content and reasoning that ``repair()`` gives
    for the whole message."""
    text: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    extension: Mapping[str, Any] = {}
    meta: dict[str, Any] = {}
    finish: str | None = None
    for chunk in chunks:
        meta.setdefault("id", chunk.get("id"))
        meta.setdefault("model", chunk.get("model"))
        if isinstance(chunk.get("toolfix"), Mapping):
            extension = chunk["toolfix"]
        for choice in chunk.get("choices") or ():
            finish = choice.get("finish_reason") or finish
            delta = choice.get("delta") or {}
            if delta.get("reasoning_content"):
                reasoning.append(delta["reasoning_content"])
            if delta.get("content"):
                text.append(delta["content"])
            for tc in delta.get("tool_calls") or ():
                slot = calls.setdefault(tc["index"], {"id": "", "name": "", "arguments": ""})
                if tc.get("id"):
                    slot["id"] = tc["id"]
                fn = tc.get("function") or {}
                slot["name"] += fn.get("name") or ""
                slot["arguments"] += fn.get("arguments") or ""
    repairs_by_index = {
        c["index"]: tuple(RepairRecord.model_validate(r) for r in c.get("repairs", ()))
        for c in extension.get("calls", ())
    }
    parts: list[Part] = []
    if reasoning:
        parts.append(ReasoningPart(text="".join(reasoning)))
    if text:
        parts.append(TextPart(text="".join(text)))
    for i, c in sorted(calls.items()):
        parts.append(
            ToolCallPart(
                id=c["id"],
                name=c["name"],
                arguments_raw=c["arguments"],
                arguments=json.loads(c["arguments"]) if c["arguments"] else {},
                repairs=repairs_by_index.get(i, ()),
            )
        )
    parts.extend(
        InvalidToolCallPart.model_validate(p) for p in extension.get("invalid_tool_calls", ())
    )
    return Response(
        parts=tuple(parts),
        finish_reason=finish,
        repairs=tuple(RepairRecord.model_validate(r) for r in extension.get("repairs", ())),
    )
