"""Streaming repair: OpenAI ``chat.completion.chunk`` deltas (or Anthropic Messages stream
events) in, repaired deltas (events) out.

The contract (docs/guides/streaming.md): accumulating the output stream gives
exactly what :func:`toolfix.repair` gives for the whole message, for every way the
input is split into chunks, and streamed content never contains markup that
``repair()`` would remove.

How it keeps that promise while text still flows:

* **Nothing leaves while reasoning is unsettled**: with tools, a lone ``</think>`` arriving
  later would turn everything before it into reasoning (templates that open ``<think>``
  in the prompt). Content and calls wait until the text's first reasoning token has
  passed and settled where reasoning ends, or, with ``FixConfig.reasoning_prefilled=True``,
  until the first closer has passed (:func:`~toolfix._repair.families.reasoning_gate`);
  with ``reasoning_prefilled=False`` (no block opened in the prompt) they need not wait.
* **Prose passes through as it arrives** from there, minus a bounded hold-back: the last
  word and the whitespace before it (a word may be the start of a marker, or a bare
  ``name(`` call), and any text from the first place where markup of any family could
  begin (the family registry's openers). Emitted content is therefore always a prefix
  of the content ``repair()`` keeps.
* **From the first possible marker on, content is held** until the stream ends, when
  the whole message is repaired once (the same code as ``repair()``) and the rest of
  the content, the calls and the invalid calls are emitted.
* **Calls are released at their own closer** (the registry's closers), once the text
  after it is known, and only when no continuation can take the call back (promise 12,
  :meth:`_Core._may_release`): nothing before it could enclose it as a value (an open
  fence or backtick, a raw-text value marker, a tag named after an offered tool, an
  open JSON bracket). The message up to the closer is repaired; the calls it gives
  that came from native markup (not code fences, bare JSON or pythonic text) go out at
  once. A call's id derives from the text up to its end only, so the call is the one
  ``repair()`` gives for the whole message. The work is bounded: past
  :data:`RELEASE_BUDGET` times the text length, attempts wait until the text has
  doubled since the last one (calls go out in batches; linear time in total).
* **Native tool-call deltas** from the provider are buffered per index and repaired
  with the message at the end, then emitted whole: ``index``, ``id`` and name
  first, then the arguments in one fragment, which is the final repaired JSON.
* **Reasoning** (``reasoning_content`` deltas) passes straight through: ``repair()``
  never rewrites it (calls promoted from it are added after it).
* **The end**: the last chunk has ``finish_reason: "tool_calls"`` when calls were
  emitted; invalid calls and repair records ride in its ``"toolfix"`` extension
  field, which :func:`accumulate` reads back into a :class:`~toolfix.Response`.

Anthropic events (``message_start`` ... ``message_stop``, dicts or the ``anthropic``
SDK's event objects) go through :class:`AnthropicStreamRepairer`
(``toolfix/_stream/anthropic.py``) on the same core.
"""

from __future__ import annotations

import json
import re
import time
from abc import ABC, abstractmethod
from collections.abc import (
    Callable,
    Iterable,
    Mapping,
)
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._config import FixConfig
from .._convert import PROVIDER_FIELDS_KEY, mark_provider_executed, plain, response_from_openai
from .._messages import (
    FailureKind,
    InvalidToolCallPart,
    Part,
    ReasoningPart,
    RepairRecord,
    Response,
    TextPart,
    ToolCallPart,
    Usage,
)
from .._pipeline.processor import ToolsLike
from .._repair.engine import DEFAULT_CONFIG, fix
from .._repair.families import (
    THINK_HINTS,
    THINK_TOKEN_MAX,
    bracket_openers,
    families,
    markup_start,
    reasoning_gate,
    release_closers,
    text_value_markers,
)
from .._repair.ids import stream_seed
from .._repair.nametable import NAME_LINE_REACH, NameTable, name_line_start, name_table
from .._repair.replacenote import may_stand_in
from .._tools import ToolRegistry

if TYPE_CHECKING:
    pass

__all__ = ["RELEASE_BUDGET", "StreamRepairer", "accumulate_openai"]

#: Where markup may begin (the family registry's openers): from the first match on,
#: content waits for the end.
_MARKUP_START = markup_start()

#: Every family's call closers (the registry's), ``]`` among them (``[TOOL_CALLS][...]``,
#: granite's ``<|tool_call|>[...]``), tried only when an opener of such a family occurs.
#: A closer only triggers an attempt once what follows it is known (another closer right
#: after: that one decides); ``repair()`` decides what is a call.
_CLOSER = release_closers()
_BRACKET_OPENERS = bracket_openers()
_CLOSER_MAX = max(72, *(len(c) + 8 for f in families() for c in f.closers))
#: :attr:`_Core.gate` when the reasoning question stays open to the end of the stream.
_NEVER = 1 << 62
#: After a ``]``: still inside JSON (an array in the arguments), not the end of a call.
_IN_JSON = frozenset(',}]":{-0123456789')

#: Early release spends up to this many times the text length on repairs of prefixes;
#: past it, an attempt waits until the text has doubled since the last (linear time).
RELEASE_BUDGET = 2

#: Where a call was found that later text can still change: it is not released early.
#: (a call taken from reasoning depends on whether an answer follows it)
_UNSETTLED = frozenset(
    {FailureKind.CODE_FENCE, FailureKind.PYTHONIC, FailureKind.TRUNCATED, FailureKind.IN_REASONING}
)


#: Argument values written as raw text between tags, in any family (the registry's value
#: markers: Qwen3-Coder ``<parameter=``, DSML/MiniMax ``<parameter name=``, GLM
#: ``<arg_value>``...).
_TEXT_VALUES = text_value_markers()

#: Markup right after a backtick: inline code if a backtick follows its end.
_QUOTED_MARKUP = re.compile(r"`[<\[{]")

#: Repair notes of JSON that ended inside a string or was rebuilt by the general repairer.
_CUT_NOTE = re.compile(r"string|cut|truncat|json-repair", re.IGNORECASE)


_NO_MATCH = re.compile(r"(?!)")


def _open_bracket(text: str, start: int, end: int) -> bool:
    """A JSON ``{`` or ``[`` opened in ``text[start:end]`` is still open at ``end`` (strings
    followed inside brackets only): a call there may be quoted in a value."""
    depth = 0
    in_string = escaped = False
    for ch in text[start:end]:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth = max(0, depth - 1)
        elif ch == '"' and depth:
            in_string = True
    return depth > 0 or in_string


def _safe_end(text: str, limit: int) -> int:
    """How much of ``text[:limit]`` may go out now: up to before the last word and the
    whitespace before it (the word could still become a marker or a ``name(`` call)."""
    end = limit
    while end > 0 and not text[end - 1].isspace():
        end -= 1
    while end > 0 and text[end - 1].isspace():
        end -= 1
    if (limit == len(text) or text[limit] == "{") and "\n" in text[end:limit]:
        # the last word of a line may be a call's name on its own line, its JSON
        # arguments to follow (GLM-4-0414 writes ``name\n{args}``): it waits for the
        # next line
        while end > 0 and not text[end - 1].isspace():
            end -= 1
        while end > 0 and text[end - 1].isspace():
            end -= 1
    return end


def _settled(call: ToolCallPart) -> bool:
    """A call that came from native markup (closed by its own closer), whose JSON did not
    end inside a string (a closer written in a value would have cut it there), with no
    value shaped like a stand-in (a note after the call may still ask to replace it:
    :mod:`toolfix._repair.replacenote`)."""
    kinds = {r.kind for r in call.repairs}
    return (
        FailureKind.NATIVE_MARKUP in kinds
        and not any(may_stand_in(k, v) for k, v in (call.arguments or {}).items())
        and not (kinds & _UNSETTLED)
        and not any(
            r.kind == FailureKind.INVALID_JSON and _CUT_NOTE.search(r.detail or "")
            for r in call.repairs
        )
    )


def _same_calls(a: list[ToolCallPart], b: list[ToolCallPart]) -> bool:
    """The same calls as a client sees them (repair records travel at the end)."""
    return len(a) == len(b) and all(
        (x.id, x.name, x.arguments_raw, x.provider_executed)
        == (y.id, y.name, y.arguments_raw, y.provider_executed)
        for x, y in zip(a, b, strict=True)
    )


class _Core:
    """What both stream shapes share: the content hold-back, the early release of calls,
    and what is left to emit once the whole message is repaired."""

    def __init__(
        self, tools: ToolsLike, config: FixConfig, hold: bool, release: bool = True
    ) -> None:
        # one registry for the stream: the prefix repairs and the final one share it
        self.tools = ToolRegistry.of(tools)
        self.config = config
        # one id seed for the whole stream (_repair/ids.py), passed with each repair: the
        # configuration stays the caller's, so streams share its fixer (engine.fixer_for)
        self.seed = stream_seed() if config.id_seed is None else config.id_seed
        self.hold = hold  # release nothing early (a processor that needs the whole text)
        self.text: list[str] = []  # every content piece, joined only when needed
        self.length = 0
        self._pending = ""  # content not sent yet (before any possible markup)
        self._scanned = 0  # pending before this position has no markup start
        self.held = hold  # markup may have started: the rest waits for the end
        self.sent: list[str] = []  # content already sent
        # early release of calls
        self.released: list[ToolCallPart] = []
        # the last characters of the content (a closer may straddle chunks), kept from
        # when the content is first held (``None`` until then)
        self._tail: str | None = None
        self._closer_end = -1  # end of the last closer seen, not yet tried
        self._tried = 0  # closers ending here or before were dealt with
        self._after = ""  # text after the closer waiting for a decision
        self._bracket_closer = False
        # the offered names a line may start with, as the anchored reader reads them (built
        # when content first flows: most streams hold it all until the reasoning settles)
        self._line_names: NameTable | None = None
        self._payload = False  # a ``{`` was seen while held (arguments have begun)
        self._last_try = 0  # the text length at the last attempt
        self._brackets = False  # an opener whose closer is ``]`` was seen
        self._spent = 0  # characters repaired so far by release attempts
        # a cut-off call kept with its complete members may grow: no early release then
        self._release_off = hold or not release or config.truncated != "invalid"
        # reasoning: content before :attr:`gate` may still turn out to be reasoning (a lone
        # closer later); -1 while undecided, ``_NEVER`` when it stays so to the end
        # (no tools: repair() keeps the text; ``reasoning_prefilled=False``: no lone closer
        # turns text into reasoning)
        self.gate = -1 if len(self.tools) and config.reasoning_prefilled is not False else 0
        self._strip = False
        self._think_tail = ""
        self._gate_spent = 0  # characters read by :meth:`_open_gate` so far
        self.message_for: Callable[[str], Response] = lambda content: Response(
            parts=[TextPart(text=content)]
        )
        self._tool_tags: re.Pattern[str] | None = None

    # ---- content ----------------------------------------------------------------------

    def add(self, content: str) -> str:
        """Take a content piece; returns the content that may go out now (see the module
        docs). Only the unsent tail (the last word and what just arrived) is searched:
        linear in the stream."""
        self.text.append(content)
        self.length += len(content)
        if self.gate < 0:
            content = self._open_gate(content)
        if self.gate < 0 or self.gate == _NEVER:
            return ""  # later text may still turn this into reasoning
        if self.held:
            return ""
        if self._strip:  # whitespace right after the prompt's reasoning closer is dropped
            content = content.lstrip()
            if not content:
                return ""
            self._strip = False
        self._pending += content
        pending = self._pending
        # a little before the last scan point: a keyword may straddle two chunks
        found = _MARKUP_START.search(pending, max(0, self._scanned - 16))
        limit = found.start() if found is not None else -1
        if self.config.schema_anchored:  # (a line that starts with an offered name)
            if self._line_names is None:
                self._line_names = name_table(tuple(self.tools))
            lo = max(0, self._scanned - 16 - NAME_LINE_REACH)
            line = name_line_start(pending, self._line_names, lo, not self.sent)
            if line != -1 and (limit == -1 or line < limit):
                limit = line
        if limit != -1:
            self.held = True
        else:
            limit = len(pending)
            self._scanned = len(pending)
        end = _safe_end(pending, limit)
        if end <= 0:
            return ""
        self._pending = pending[end:]
        self._scanned = max(0, self._scanned - end)
        self.sent.append(pending[:end])
        return pending[:end]

    def _open_gate(self, piece: str) -> str:
        """Decide, when the text allows it, where content that no later reasoning closer can
        turn into reasoning begins (:attr:`gate`); returns the content from there on (or
        ``piece`` while undecided). Only the tail is searched for reasoning tokens."""
        window = self._think_tail + piece
        self._think_tail = window[-THINK_TOKEN_MAX:]
        for hint in THINK_HINTS:  # (a plain loop: this runs on most chunks of a stream)
            if hint in window:
                break
        else:
            return piece
        self._gate_spent += self.length
        if self._gate_spent > RELEASE_BUDGET * self.length + 4096:
            self.gate = _NEVER  # many reasoning tokens, none settling: hold (linear work)
            return piece
        whole = "".join(self.text)
        self.text = [whole]
        found = reasoning_gate(whole, self.config.reasoning_prefilled)
        if found is None:
            return piece
        start, end, at = found
        if _MARKUP_START.search(whole, 0, start) and (
            self._may_enclose(whole, 0, start) or not self._gate_holds(whole, start, end)
        ):
            self.gate = _NEVER  # the token may sit in a call's value: hold to the end
            return piece
        self.gate, self._strip = at, at > 0
        if at > 0 and not whole[:start].strip():
            # an empty block: repair() keeps the text as written unless a call follows,
            # so the prose waits for the end (calls may still leave early)
            self.held = True
        return whole[at:]

    def _gate_holds(self, whole: str, start: int, end: int) -> bool:
        """``repair()`` reads the reasoning closer at ``start:end`` as the end of the
        prompt's reasoning too (markup before it could hold it as a call's value)."""
        expected = whole[:start].strip()
        if start == end or not expected:
            return start == end == 0
        tried = self.repair(self.message_for(whole[:end]))
        return any(isinstance(p, ReasoningPart) and p.text == expected for p in tried.parts)

    def repair(self, response: Response) -> Response:
        """``response`` repaired as ``repair()`` does with this stream's id seed."""
        return fix(response, self.tools, self.config, self.seed)

    def stop_releasing(self) -> None:
        """No more early release (the message took a shape the core cannot follow)."""
        self._release_off = True

    def release_calls(self, message_for: Callable[[str], Response]) -> list[ToolCallPart]:
        """Calls that can go out now: once a closer and what follows it are known, the
        calls of ``repair(message_for(content up to the closer))`` that came from native
        markup, in order, beyond those already released. Only the tail is searched for
        closers; the text is joined only for an attempt (within the budget)."""
        if self._release_off:
            return []  # (for good: the tail is not needed any more)
        if not self.held:
            return []  # (nothing goes early before markup: the tail is not kept yet)
        piece = self.text[-1]
        if self._tail is None:  # markup has just begun: the tail from the text so far
            whole = "".join(self.text)
            self.text = [whole]
            cut = len(whole) - len(piece)
            self._tail = whole[max(0, cut - _CLOSER_MAX) : cut]
        window = self._tail + piece
        self._tail = window[-_CLOSER_MAX:]
        if not self._payload and "{" in piece:
            self._payload = True
        if self._closer_end < 0 and ">" not in piece and "]" not in piece:
            return []  # every closer ends in one of these
        base = self.length - len(window)
        if not self._brackets and "[" in window:
            self._brackets = any(o in window for o in _BRACKET_OPENERS)
        found = False
        for m in _CLOSER.finditer(window):
            end = base + m.end()
            if end <= max(self._tried, self._closer_end):
                continue
            if m.group() == "]" and (
                not self._brackets
                or (
                    window.endswith(_BRACKET_OPENERS, 0, m.end())
                    and not (self._payload or "{" in window[: m.start()])
                )
            ):
                continue  # not a call list, or an opener before any arguments
            self._closer_end, self._after, found = end, window[m.end() :], True
            self._bracket_closer = m.group() == "]"
        if not found:
            if self._closer_end < 0:
                return []
            self._after = (self._after + piece)[:_CLOSER_MAX]
        end = self._closer_end
        if not self._decided(self._after):
            return []  # what follows the closer is not known yet
        self._closer_end, self._tried = -1, end
        if self._after[0] == "`" or (self._bracket_closer and self._after.lstrip()[0] in _IN_JSON):
            return []  # a backtick right after the closer quotes the markup; JSON goes on
        if (
            self._spent + self.length > RELEASE_BUDGET * self.length + 4096
            and self.length < 2 * self._last_try
        ):
            return []  # over budget: the next attempt once the text has doubled (linear)
        self._spent += self.length
        self._last_try = self.length
        whole = "".join(self.text)
        self.text = [whole]
        if not self._may_release(whole, end):
            return []
        tried = self.repair(message_for(whole[:end]))
        calls = tried.tool_calls
        k = len(self.released)
        if not _same_calls(calls[:k], self.released):
            self._release_off = True  # never expected: keep the rest for the end
            return []
        out: list[ToolCallPart] = []
        for call in calls[k:]:
            if not _settled(call) or k + len(out) >= self.config.limits.max_calls:
                break
            out.append(call)
        self.released.extend(out)
        return out

    def _may_release(self, whole: str, end: int) -> bool:
        """No continuation can overturn a call that ends at ``end`` (the release rule,
        docs/guides/streaming.md): every reasoning token that could still make it
        reasoning has been ruled out, and nothing before it could turn out to enclose it
        as a value (an open code fence or backtick, a family whose values are raw text
        between tags, a tag named after an offered tool, an open JSON bracket)."""
        if self.gate < 0 or self.gate == _NEVER or end <= self.gate:
            return False  # a lone reasoning closer may still come
        return not self._may_enclose(whole, self.gate, end)

    def _may_enclose(self, whole: str, start: int, end: int) -> bool:
        """Something in ``whole[:end]`` could turn out to hold what follows as a value."""
        if whole.count("```", 0, end) % 2 or _QUOTED_MARKUP.search(whole, 0, end):
            return True  # an open code fence, or markup after a backtick: may be quoted
        if _TEXT_VALUES.search(whole, 0, end):
            # values written as text between tags: closers arriving later (orphans) can
            # still show that a closer here was text of a value that quoted a whole call
            return True
        if self._tool_tags is None:
            names = sorted(self.tools.names, key=len, reverse=True)
            self._tool_tags = (
                re.compile("<(?:" + "|".join(map(re.escape, names)) + r")[\s/>]")
                if names
                else _NO_MATCH
            )
        if self._tool_tags.search(whole, 0, end):
            return True  # an element named after a tool holds its arguments as text
        return _open_bracket(whole, start, end)

    @staticmethod
    def _decided(after: str) -> bool:
        """Enough of the text after a closer is known: its first non-blank character, and
        when that opens a tag or token, the whole of it (another closer takes over)."""
        rest = after.lstrip()
        if not rest:
            return False
        if rest[0] in "<[":
            return len(rest) >= _CLOSER_MAX - 8 or any(c in rest for c in ">]")
        return True

    # ---- the end ----------------------------------------------------------------------

    def rest(self, fixed: Response) -> tuple[str, bool, list[ToolCallPart], bool]:
        """``(content to send, content mismatch, calls to send, released calls
        mismatch)`` once the whole message is repaired as ``fixed``."""
        text = fixed.text
        sent = "".join(self.sent)
        mismatch = not text.startswith(sent)
        more = text[len(sent) :] if not mismatch else ""
        calls = fixed.tool_calls
        k = len(self.released)
        bad_release = not _same_calls(calls[:k], self.released)
        return more, mismatch, calls[k:], bad_release

    def extension(
        self, fixed: Response, mismatch: bool, bad_release: bool, **extra: Any
    ) -> dict[str, Any]:
        calls = fixed.tool_calls
        return {
            "calls": [
                {
                    "index": i,
                    "repairs": _records(c.repairs),
                    **({"provider_executed": True} if c.provider_executed else {}),
                }
                for i, c in enumerate(calls)
            ],
            "invalid_tool_calls": [p.model_dump(mode="json") for p in fixed.invalid_tool_calls],
            "repairs": _records(fixed.repairs),
            "content_mismatch": mismatch,
            "released_early": len(self.released),
            "release_mismatch": bad_release,
            "llm_calls": sum(r.llm_calls for r in fixed.all_repairs),
            **extra,
        }


@dataclass
class _NativeCall:
    id: str = ""
    name: str = ""
    arguments: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


class _StreamRepairerBase(ABC):
    """What the OpenAI and the Anthropic stream repairers share: the settings, the text
    core, the tools, whether reasoning streams as it arrives, and the repaired result."""

    def __init__(
        self,
        tools: ToolsLike,
        *,
        config: FixConfig | None = None,
        hold: bool = False,
        release_calls: bool = True,
    ) -> None:
        self.config = config or DEFAULT_CONFIG  # (repair()'s: one fixer)
        self._core = _Core(tools, self.config, hold, release_calls)
        self._core.message_for = self._message_for
        self.tools = self._core.tools
        # reasoning is never rewritten (calls promoted from it are added after it)
        self._stream_reasoning = not hold
        self.result: Response | None = None
        self._start()

    @abstractmethod
    def _start(self) -> None:
        """Set up the repairer's own state (the end of ``__init__``)."""

    @abstractmethod
    def _message_for(self, content: str) -> Any:
        """The message with ``content`` and what else has arrived (a release attempt)."""

    @abstractmethod
    def whole_response(self) -> Response:
        """The stream so far as the :class:`~toolfix.Response` a non-stream call gives."""

    def _repaired(self, fixed: Response | None) -> Response:
        """``fixed`` (a processor's answer), or else the whole message repaired; kept as
        :attr:`result`."""
        if fixed is None:
            fixed = self._core.repair(self.whole_response())
        self.result = fixed
        return fixed


class StreamRepairer(_StreamRepairerBase):
    """The incremental state of one streamed response (feed chunks, then finish).

    ``feed(chunk)`` returns the output chunks that can go out now; ``finish()``
    returns the rest, ending with the chunk that carries ``finish_reason`` and the
    ``"toolfix"`` extension. Deterministic: the output adds up to the same calls and
    text for every split of the input; only when things go out depends on the split.
    """

    def _start(self) -> None:
        self._reasoning: list[str] = []
        self._calls: dict[int, _NativeCall] = {}
        self._meta: dict[str, Any] = {
            "id": None,
            "model": None,
            "created": None,
            "system_fingerprint": None,
        }
        self._role_sent = False  # the first chunk out says ``role: "assistant"``
        self._meta_done = False
        self._usage: dict[str, Any] | None = None
        self._thinking_blocks: list[dict[str, Any]] = []
        self._provider_fields: dict[str, Any] = {}
        self._finish_reason: str | None = None
        self._emitted_calls = 0

    # ---- input ------------------------------------------------------------------------

    def feed(self, chunk: Any) -> list[dict[str, Any]]:
        """Take one input chunk (a dict or an SDK/litellm chunk object)."""
        data = chunk
        if type(data) is not dict:
            data = plain(chunk)
            if not _is_map(data):
                return []
        if not self._meta_done:
            for key in self._meta:
                if self._meta[key] is None and data.get(key) is not None:
                    self._meta[key] = data.get(key)
            self._meta_done = True  # every chunk of a stream repeats them: the first says
            if self._meta["created"] is None:
                self._meta["created"] = int(time.time())
        usage = data.get("usage")
        if usage and _is_map(usage):
            self._usage = dict(usage)
        out: list[dict[str, Any]] = []
        choices = data.get("choices")
        if not choices or type(choices) is not list:
            return out
        choice = choices[0]
        if type(choice) is not dict and not _is_map(choice):  # (a dict: no call)
            return out
        if choice.get("finish_reason"):
            self._finish_reason = str(choice["finish_reason"])
        delta = choice.get("delta")
        if type(delta) is not dict and not _is_map(delta):
            return out
        content = delta.get("content")
        if len(delta) == 1 and content and type(content) is str:  # the common chunk
            return self._content(content, out)
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            if self._core.text:
                self._core.stop_releasing()  # reasoning after content: part order may change
            self._reasoning.append(reasoning)
            if self._stream_reasoning:
                out.append(self._chunk({"reasoning_content": reasoning}))
        self._take_thinking(delta.get("thinking_blocks"))
        fields = delta.get("provider_specific_fields")
        if isinstance(fields, Mapping):
            self._provider_fields.update({k: v for k, v in fields.items() if v is not None})
        for tc in delta.get("tool_calls") or ():
            if isinstance(tc, Mapping):
                self._take_call(tc)
        if isinstance(content, str) and content:
            return self._content(content, out)
        return out

    def _content(self, content: str, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        piece = self._core.add(content)
        if piece:
            out.append(self._chunk({"content": piece}))
        if not self._calls:  # native calls come after the text calls in repair()
            for call in self._core.release_calls(self._message_for):
                out.extend(self._call_chunks(call))
        return out

    def _take_thinking(self, blocks: Any) -> None:
        """litellm's Anthropic ``thinking_blocks`` deltas: text and signature pieces."""
        if not isinstance(blocks, list):
            return
        for b in blocks:
            if not isinstance(b, Mapping):
                continue
            if b.get("type") == "redacted_thinking" or not self._thinking_blocks:
                self._thinking_blocks.append(dict(b))
                continue
            last = self._thinking_blocks[-1]
            if last.get("type") == "redacted_thinking" or (
                last.get("signature") and b.get("thinking")
            ):
                self._thinking_blocks.append(dict(b))
                continue
            last["thinking"] = (last.get("thinking") or "") + (b.get("thinking") or "")
            if b.get("signature"):
                last["signature"] = (last.get("signature") or "") + b["signature"]

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

    # ---- output -----------------------------------------------------------------------

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        """An output chunk with the upstream's fields (id, created, model,
        system_fingerprint); the first one says ``role: "assistant"``."""
        if not self._role_sent:
            self._role_sent = True
            delta = {"role": "assistant", **delta}
        out = {
            "id": self._meta["id"] or "chatcmpl-toolfix",
            "object": "chat.completion.chunk",
            "created": self._meta["created"] or int(time.time()),
            "model": self._meta["model"] or "",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if self._meta["system_fingerprint"] is not None:
            out["system_fingerprint"] = self._meta["system_fingerprint"]
        return out

    def _call_chunks(self, call: ToolCallPart) -> list[dict[str, Any]]:
        i = self._emitted_calls
        self._emitted_calls += 1
        head = {
            "index": i,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        return [
            self._chunk({"tool_calls": [head]}),
            self._chunk(
                {"tool_calls": [{"index": i, "function": {"arguments": call.arguments_raw}}]}
            ),
        ]

    def _message_for(self, content: str) -> Response:
        """The message with ``content`` and what else has arrived (a release attempt)."""
        completion = self._completion(self._message(content, with_calls=False))
        return response_from_openai(completion, limits=self.config.limits)

    def _message(self, content: str, *, with_calls: bool = True) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": content or None}
        if self._reasoning:
            msg["reasoning_content"] = "".join(self._reasoning)
        if self._thinking_blocks:
            msg["thinking_blocks"] = self._thinking_blocks
        if self._provider_fields:
            msg["provider_specific_fields"] = dict(self._provider_fields)
        if self._calls and with_calls:
            msg["tool_calls"] = [
                {
                    "id": c.id or f"call_{i}",
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for i, c in sorted(self._calls.items())
            ]
        return msg

    def _completion(self, msg: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "choices": [{"index": 0, "message": msg, "finish_reason": self._finish_reason}]
        }
        if self._meta["id"] is not None:
            out["id"] = self._meta["id"]
        if self._meta["model"] is not None:
            out["model"] = self._meta["model"]
        if self._usage:
            out["usage"] = self._usage
        return out

    def whole_message(self) -> dict[str, Any]:
        """The message the stream adds up to, as the non-stream API would return it."""
        return self._message("".join(self._core.text))

    def whole_completion(self) -> dict[str, Any]:
        """The stream as a non-stream chat completion (id, model, usage, finish reason)."""
        return self._completion(self.whole_message())

    def whole_response(self) -> Response:
        """The stream as the :class:`~toolfix.Response` a non-stream call gives (calls the
        provider ran itself marked ``provider_executed``, as ``LiteLLMExecutor`` does)."""
        message = self.whole_message()
        return mark_provider_executed(response_from_openai(self.whole_completion()), message)

    def finish(self, fixed: Response | None = None) -> list[dict[str, Any]]:
        """Repair the whole message (or take ``fixed``, a processor's answer) and emit
        what is left."""
        fixed = self._repaired(fixed)
        out: list[dict[str, Any]] = []
        reasoning = fixed.reasoning or ""
        streamed_reasoning = "".join(self._reasoning) if self._stream_reasoning else ""
        if reasoning.startswith(streamed_reasoning) and len(reasoning) > len(streamed_reasoning):
            out.append(self._chunk({"reasoning_content": reasoning[len(streamed_reasoning) :]}))
        more, mismatch, calls, bad_release = self._core.rest(fixed)
        if more:
            out.append(self._chunk({"content": more}))
        for call in calls:
            out.extend(self._call_chunks(call))
        finish = "tool_calls" if fixed.tool_calls else (self._finish_reason or "stop")
        last = self._chunk({}, finish)
        if self._usage:
            last["usage"] = self._usage
        provider: dict[str, Any] = {}
        if self._thinking_blocks:
            provider["thinking_blocks"] = self._thinking_blocks
        if self._provider_fields:
            provider["provider_specific_fields"] = self._provider_fields
        last["toolfix"] = self._core.extension(
            fixed,
            mismatch,
            bad_release,
            finish_reason=fixed.finish_reason,
            **({"provider": provider} if provider else {}),
        )
        out.append(last)
        return out


def _is_map(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _records(records: Iterable[RepairRecord]) -> list[dict[str, Any]]:
    return [r.model_dump(mode="json") for r in records]


def accumulate_openai(chunks: Iterable[Mapping[str, Any]]) -> Response:
    text: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    extension: Mapping[str, Any] = {}
    meta: dict[str, Any] = {}
    usage: Mapping[str, Any] | None = None
    finish: str | None = None
    for chunk in chunks:
        meta.setdefault("id", chunk.get("id"))
        meta.setdefault("model", chunk.get("model"))
        if isinstance(chunk.get("usage"), Mapping):
            usage = chunk["usage"]
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
    provider = extension.get("provider") or {}
    parts: list[Part] = []
    blocks = provider.get("thinking_blocks")
    if blocks:
        parts.extend(_thinking_parts(blocks))
        told = "".join(p.text for p in parts if isinstance(p, ReasoningPart))
        extra = "".join(reasoning)
        if extra.startswith(told) and len(extra) > len(told):
            parts.append(ReasoningPart(text=extra[len(told) :]))
    elif reasoning:
        parts.append(ReasoningPart(text="".join(reasoning)))
    if text:
        parts.append(TextPart(text="".join(text)))
    parts.extend(_call_parts(calls, extension))
    parts.extend(
        InvalidToolCallPart.model_validate(p) for p in extension.get("invalid_tool_calls", ())
    )
    return _response(parts, meta, extension, finish, usage, provider)


def _thinking_parts(blocks: Iterable[Mapping[str, Any]]) -> list[ReasoningPart]:
    return [
        ReasoningPart(text="", redacted=True, provider_data={"data": b.get("data")})
        if b.get("type") == "redacted_thinking"
        else ReasoningPart(text=str(b.get("thinking") or ""), signature=b.get("signature"))
        for b in blocks
    ]


def _call_parts(
    calls: Mapping[int, Mapping[str, Any]], extension: Mapping[str, Any]
) -> list[ToolCallPart]:
    by_index = {c["index"]: c for c in extension.get("calls", ())}
    out = []
    for i, c in sorted(calls.items()):
        info = by_index.get(i, {})
        out.append(
            ToolCallPart(
                id=c["id"],
                name=c["name"],
                arguments_raw=c["arguments"],
                arguments=json.loads(c["arguments"]) if c["arguments"] else {},
                provider_executed=bool(info.get("provider_executed")),
                repairs=tuple(RepairRecord.model_validate(r) for r in info.get("repairs", ())),
            )
        )
    return out


def _response(
    parts: list[Part],
    meta: Mapping[str, Any],
    extension: Mapping[str, Any],
    finish: str | None,
    usage: Mapping[str, Any] | None,
    provider: Mapping[str, Any],
    *,
    input_key: str = "prompt_tokens",
    output_key: str = "completion_tokens",
) -> Response:
    fields = provider.get("provider_specific_fields")
    provider_data = None
    if fields and any(isinstance(p, ToolCallPart) and p.provider_executed for p in parts):
        provider_data = {PROVIDER_FIELDS_KEY: dict(fields)}
    return Response(
        parts=tuple(parts),
        id=meta.get("id"),
        model=meta.get("model") or None,
        finish_reason=extension.get("finish_reason", finish) if extension else finish,
        usage=Usage(
            input_tokens=int(usage.get(input_key) or 0),
            output_tokens=int(usage.get(output_key) or 0),
            requests=1,
        )
        if usage
        else None,
        provider_data=provider_data,
        repairs=tuple(RepairRecord.model_validate(r) for r in extension.get("repairs", ())),
    )
