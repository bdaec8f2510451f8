"""Hermes / Qwen 2.5-3 / NousResearch ``<tool_call>{json}</tool_call>``.

Shapes taken (each ``explicit=True``, kinds ``("call_in_content", "native_markup")``):

- ``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>``, several in a row;
- a body that is a JSON list of calls (``<tool_call>[{...}, {...}]</tool_call>``);
- a missing ``</tool_call>``: the body runs to the next ``<tool_call>`` or the end of
  the text, and is ``truncated`` only when its JSON never closes;
- a lone ``</tool_call>`` with no opener (the opener was eaten as a special token):
  the JSON object just before it;
- the near-misses ``<tool_call>name\\n{args}</tool_call>`` (name + arguments) and
  ``<tool_call>name(key="v")</tool_call>`` (pythonic, read by the whitelist walker);
- any other closed ``<tool_call>…</tool_call>`` whose body has a letter or digit: the
  body is the payload, so the interpreter reports it as an invalid call (promise 6).

A closed tag around unbalanced JSON is broken JSON (``invalid_json``), not
``truncated``: the model did finish its markup.

Bodies that start with other markup (``<function=`` of Qwen3-Coder) or hold GLM's
``<arg_key>`` are left to those formats; a body that looks like none of the above
(``<tool_call>`` mentioned in prose and never closed, or closed around nothing but
punctuation such as ``...``) is left as text.

Source: vLLM ``hermes_tool_parser.py``
(https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py)
and the Qwen2.5/Qwen3 chat templates ("For each function call, return a json object
with function name and arguments within <tool_call></tool_call> XML tags").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ..text import (
    ANCHOR_MIN_CHARS,
    ExtendBudget,
    MarkerFinder,
    find_bracket_end,
    find_marker,
    json_past_markers,
    skip_ws,
)
from ._base import Candidate, ScanContext, ToolCallFormat
from .json_text import _keyable
from .pythonic import parse_call, read_dotted_name, rejection

__all__ = ["HermesFormat"]

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
_LONE_CLOSE_TRIES = 8
#: ``<function>NAME</function>`` and the white space after it.
#: White space (:func:`~toolfix._repair.text.skip_ws` as one match).
_BLANKS = re.compile(r"\s*").match
#: What starts a body another format reads: a tag (Qwen3-Coder's ``<function=``), or
#: Qwen3-Coder's ``function=`` that lost its ``<`` (qwen_xml reads it written back).
_OTHER_MARKUP = ("<", "function=")
_FUNCTION_TAG = re.compile(r"<function>[ \t]*([A-Za-z_][\w.\-]{0,127})[ \t]*</function>\s*")


class HermesFormat(ToolCallFormat):
    """``<tool_call>`` tags around a JSON call (Hermes 2 Pro, Qwen 2.5/3, many fine-tunes)."""

    name = "hermes"
    markers = (OPEN, CLOSE)
    priority = 10
    source: ClassVar[str] = (
        "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
        "tool_parsers/hermes_tool_parser.py"
    )

    def may_open_before(self, text: str, pos: int) -> bool:
        """A span starts at ``<tool_call>``, or (no opener before the closer) at the
        ``{`` or ``[`` of the JSON right before a lone ``</tool_call>``."""
        first_open = text.find(OPEN)
        if first_open != -1 and first_open < pos:
            return True
        first_close = text.find(CLOSE)
        if first_close == -1 or (first_open != -1 and first_open < first_close):
            return False  # every closer comes after an opener that starts past ``pos``
        return text.find("{", 0, pos) != -1 or text.find("[", 0, pos) != -1

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """Every ``<tool_call>`` body that holds a call, in order."""
        out: list[Candidate] = []
        # a short text is searched again from each position (a few C-speed passes over
        # at most ANCHOR_MIN_CHARS characters cost less than the cache's lookups); a
        # long one through the cache, which keeps the scan linear
        find = text.find if len(text) < ANCHOR_MIN_CHARS else MarkerFinder(text).find
        budget = ExtendBudget()
        n = len(text)
        pos = 0
        while pos < n:
            open_at = find(OPEN, pos)
            close_at = find(CLOSE, pos)
            if close_at != -1 and (open_at == -1 or close_at < open_at):
                cand = self._lone_close(text, pos, close_at, ctx)
                if cand is not None:
                    out.append(cand)
                pos = close_at + len(CLOSE)
                continue
            if open_at == -1:
                break
            body_start = open_at + len(OPEN)
            next_open = find(OPEN, body_start)
            # (``close_at`` is the first closer past the opener already: no closer
            # starts inside ``<tool_call>``, so it is the first at or after body_start)
            first = _BLANKS(text, body_start).end()  # type: ignore[union-attr]
            marker = n  # the first of the next opener, the closer and the end
            if next_open != -1:
                marker = next_open
            if close_at != -1 and close_at < marker:
                marker = close_at
            if marker < n and first < marker and text[first] in "{[":
                # a tag inside a JSON string of the body is text, not this call's end
                past = json_past_markers(
                    text, first, marker, (CLOSE, OPEN), ctx.limits, budget, reads=ctx.reads
                )
                if past is not None:
                    next_open = find_marker(text, OPEN, past)
                    close_at = find_marker(text, CLOSE, past)
            closed = close_at != -1 and (next_open == -1 or close_at < next_open)
            if closed:
                body_end, end = close_at, close_at + len(CLOSE)
            else:
                body_end = next_open if next_open != -1 else n
                end = body_end
            cand = self._body(text, open_at, body_start, first, body_end, end, closed, ctx)
            if cand is not None:
                out.append(cand)
                pos = cand.end
            else:
                pos = body_start
        return out

    def _named_json(
        self,
        text: str,
        start: int,
        name: str,
        brace: int,
        body_end: int,
        end: int,
        closed: bool,
        ctx: ScanContext,
    ) -> Candidate:
        """A name, then its arguments as the JSON object at ``brace``."""
        span = find_bracket_end(text, brace, ctx.limits, stop=body_end, reads=ctx.reads)
        if not closed and not span.truncated:
            end = span.end
        return self._make(
            text,
            start,
            end,
            span.truncated and not closed and body_end >= len(text),
            name=name,
            arguments=text[brace:body_end].strip() if closed else text[brace : span.end],
        )

    def _body(
        self,
        text: str,
        start: int,
        body_start: int,
        first: int,
        body_end: int,
        end: int,
        closed: bool,
        ctx: ScanContext,
    ) -> Candidate | None:
        """The call in the body ``text[body_start:body_end]``, whose first non-blank
        character is at ``first``."""
        if first >= body_end:
            return None
        named = _FUNCTION_TAG.match(text, first, body_end)
        if named is not None and text.startswith("{", named.end()):
            # the name in a <function> tag, the arguments as JSON after it (mlx-omni #126)
            name = named.group(1)
            return self._named_json(text, start, name, named.end(), body_end, end, closed, ctx)
        if text.startswith(_OTHER_MARKUP, first) or (
            text[first] not in "{[" and text.find("<arg_key>", first, body_end) != -1
        ):
            return None  # Qwen3-Coder XML or GLM: not ours
        if (
            not closed
            and text[first] == "["
            and not text.startswith(("{", "["), skip_ws(text, first + 1))
        ):
            return None  # an open "<tool_call>[" with no call object after it: text
        if text[first] in "{[":
            span = find_bracket_end(text, first, ctx.limits, stop=body_end, reads=ctx.reads)
            last = body_end  # the body without its white space, copied once (it may be long)
            while last > first and text[last - 1].isspace():
                last -= 1
            payload = text[first:last]
            if not closed and not span.truncated:
                # no closing tag, balanced JSON: the call ends with it, prose after stays
                end = span.end
                payload = text[first:end]
            # a closed tag around unbalanced JSON is broken JSON, not a cut-off output
            # cut off only when the output ended inside it: the next <tool_call> closes it
            cut = span.truncated and not closed and body_end >= len(text)
            return self._make(text, start, end, cut, payload=payload)
        name_end = read_dotted_name(text, first)
        has_name = first < name_end < body_end
        if has_name and text[name_end] == "(":
            cs = find_bracket_end(text, name_end, ctx.limits, stop=body_end, reads=ctx.reads)
            call = parse_call(text[first : cs.end], ctx.limits) if not cs.truncated else None
            if not closed and not cs.truncated:
                end = cs.end
            args: str | Mapping[str, Any] = text[first : cs.end]
            if call is not None and call.arguments is not None:
                args = call.arguments
            if call is None and not closed and not cs.truncated:
                return None
            return self._make(
                text,
                start,
                end,
                cs.truncated and not closed,
                name=text[first:name_end],
                arguments=args,
                extra=("pythonic",),
                error=(
                    "pythonic call cut off before its closing parenthesis"
                    if cs.truncated
                    else rejection(call)
                ),
            )
        brace = skip_ws(text, name_end)
        if has_name and brace < body_end and text[brace] == "{" and _keyable(text, brace, body_end):
            name = text[first:name_end]
            return self._named_json(text, start, name, brace, body_end, end, closed, ctx)
        body = text[body_start:body_end]
        if closed and any(ch.isalnum() for ch in body):
            # both tags around something that is no call we know: report it, never hide it
            return self._make(text, start, end, False, payload=body.strip())
        return None

    def _lone_close(self, text: str, lo: int, close_at: int, ctx: ScanContext) -> Candidate | None:
        """``{...}</tool_call>`` without an opener: the last JSON object before the closer."""
        # walk back over whitespace to the object's closing brace, then find its start
        j = close_at - 1
        while j >= lo and text[j].isspace():
            j -= 1
        if j < lo or text[j] not in "}]":
            return None
        # the earliest opener in [lo, j] whose span ends exactly at j + 1; a few tries
        # only, so that a long run of unbalanced braces stays linear
        i = lo
        for _ in range(_LONE_CLOSE_TRIES):
            if i > j:
                return None
            hit_obj = text.find("{", i, j + 1)
            hit_list = text.find("[", i, j + 1)
            hits = [h for h in (hit_obj, hit_list) if h != -1]
            if not hits:
                return None
            i = min(hits)
            ok = text[i] == "{" and _keyable(text, i, j + 1)
            ok = ok or (text[i] == "[" and text[skip_ws(text, i + 1)] == "{")
            if ok:
                span = find_bracket_end(text, i, ctx.limits, stop=j + 1, reads=ctx.reads)
                if not span.truncated and span.end == j + 1:
                    return self._make(
                        text, i, close_at + len(CLOSE), False, payload=text[i : j + 1]
                    )
                if not span.truncated:
                    i = span.end
                    continue
            i += 1
        return None
