"""DeepSeek V3 / R1 / V3.1 special-token tool-call sections.

DeepSeek V3 and R1 (chat template of ``deepseek-ai/DeepSeek-R1``, vLLM
``deepseekv3_tool_parser.py``)::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

DeepSeek V3.1 (chat template of ``deepseek-ai/DeepSeek-V3.1``, vLLM
``deepseekv31_tool_parser.py``)::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}
    <｜tool▁call▁end｜><｜tool▁calls▁end｜>

(one line in the real output).

The bars are fullwidth ``｜`` (U+FF5C) and the word separator is ``▁`` (U+2581).
Engines sometimes print ASCII bars (``<|tool▁sep|>``) or strip the special
tokens' brackets entirely (``function tool▁sep get_weather``); every token is
recognised by its distinctive ``tool▁…`` word, wrapped or bare.

Full calls quoted inside a code block are still taken: the special tokens are
never written by a model in prose, so their presence is treated as a call.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..text import find_bracket_end, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["DeepSeekFormat"]

_WORDS = {
    "tool▁calls▁begin": "calls_begin",
    "tool▁calls▁end": "calls_end",
    "tool▁call▁begin": "call_begin",
    "tool▁call▁end": "call_end",
    "tool▁sep": "sep",
}
_LEFT = ("<｜", "<|")
_RIGHT = ("｜>", "|>")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_MAX_NAME = 256


class _Tok(NamedTuple):
    kind: str
    start: int
    end: int


#: A token's word, at an occurrence of ``tool▁`` (no word is a prefix of another).
_WORD = re.compile("|".join(re.escape(w) for w in _WORDS))


def _tokens(text: str) -> list[_Tok]:
    """Every DeepSeek special token, wrapped (``<｜…｜>``/``<|…|>``) or bare, in order."""
    out: list[_Tok] = []
    word_at = _WORD.match
    i = text.find("tool▁")
    while i != -1:
        m = word_at(text, i)
        if m is None:
            i = text.find("tool▁", i + 5)
            continue
        start, end = i, m.end()
        if start >= 2 and text[start - 2 : start] in _LEFT:
            start -= 2
        if text[end : end + 2] in _RIGHT:
            end += 2
        out.append(_Tok(_WORDS[m.group()], start, end))
        i = text.find("tool▁", end)
    return out


class DeepSeekFormat(ToolCallFormat):
    """DeepSeek V3/R1 (``function<sep>name`` + fenced JSON) and V3.1 (``name<sep>json``)."""

    name = "deepseek"
    markers = ("tool▁call", "tool▁sep")
    spans_start_at_markers = True
    priority = 5
    source = (
        "https://huggingface.co/deepseek-ai/DeepSeek-V3.1 chat template; "
        "vllm-project/vllm vllm/tool_parsers/deepseekv3_tool_parser.py, deepseekv31_tool_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        toks = _tokens(text)
        out: list[Candidate] = []
        floor = 0  # nothing before this index may be claimed again
        for ti, tok in enumerate(toks):
            if tok.kind != "sep" or tok.start < floor:
                continue
            # ---- header (left of the separator)
            prev = toks[ti - 1] if ti > 0 else None
            start: int
            if prev is not None and prev.kind == "call_begin" and prev.start >= floor:
                header = text[prev.end : tok.start]
                start = prev.start
            else:
                j = tok.start
                while j > floor and tok.start - j < _MAX_NAME and text[j - 1] in _NAME_CHARS:
                    j -= 1
                # allow one space between a bare header word and a bare separator
                header = text[j : tok.start]
                if not header and j > floor and text[j - 1] == " ":
                    k = j - 1
                    while k > floor and tok.start - k < _MAX_NAME and text[k - 1] in _NAME_CHARS:
                        k -= 1
                    header, j = text[k : j - 1], k
                start = j
            # a section opener right before the call belongs to it
            cb = prev if prev is not None and prev.kind == "call_begin" else None
            before = toks[ti - 2] if cb is not None and ti >= 2 else prev
            if (
                before is not None
                and before.kind == "calls_begin"
                and before.start >= floor
                and not text[before.end : start].strip()
            ):
                start = before.start
            header = header.strip()
            if (
                cb is None
                and not text.startswith("<", tok.start)
                and header != "function"
                and not ctx.is_tool(header)
            ):
                continue  # a bare "tool▁sep" word in prose
            # ---- body (right of the separator)
            if header == "function":  # V3/R1: name on the rest of the line, then a fence
                name, pos, fenced = _function_line(text, tok.end, toks, ti)
            else:
                name, pos, fenced = header, tok.end, False
            args, args_end, truncated = self._arguments(text, pos, toks, ti, ctx)
            end = args_end
            if fenced and not truncated:
                p = skip_ws(text, end)
                if text.startswith("```", p):
                    end = p + 3
            end, closed = _closing_tokens(text, end, toks, ti)
            if not closed and args_end >= len(text) and not args.strip():
                truncated = True
            if not name:
                continue
            self.check_call_count(len(out), ctx, text, start)
            out.append(self._make(text, start, end, truncated, name=name, arguments=args))
            floor = end
        return out

    @staticmethod
    def _arguments(
        text: str, pos: int, toks: list[_Tok], ti: int, ctx: ScanContext
    ) -> tuple[str, int, bool]:
        """The arguments text starting at ``pos``: (text, end index, truncated)."""
        p = skip_ws(text, pos)
        # everything up to the next DeepSeek token (or the end) may be arguments
        nxt = len(text)
        for t in toks[ti + 1 :]:
            if t.start >= p:
                nxt = t.start
                break
        if p < len(text) and text[p] in "{[":
            span = find_bracket_end(text, p, ctx.limits, reads=ctx.reads)
            if span.truncated and nxt < len(text):
                span = find_bracket_end(text, p, ctx.limits, stop=nxt, reads=ctx.reads)
            if not span.truncated or nxt >= len(text):
                return text[p : span.end], span.end, span.truncated
            # the JSON lacks a closer but the call token closed it: broken, not cut off
            body = text[p:nxt].rstrip()
            if body.endswith("```"):
                body = body[:-3].rstrip()
            return body, p + len(body), False
        body = text[p:nxt]
        stripped = body.rstrip()
        if stripped.endswith("```"):
            stripped = stripped[:-3].rstrip()
        return stripped, p + len(stripped), nxt >= len(text)


def _function_line(text: str, body_start: int, toks: list[_Tok], ti: int) -> tuple[str, int, bool]:
    """V3/R1's ``function<sep>NAME`` line: the name, where the arguments start (past a
    ```` ```json ```` fence opener when one follows) and whether one did."""
    line_end = text.find("\n", body_start)
    next_tok = toks[ti + 1].start if ti + 1 < len(toks) else len(text)
    stop_name = min(line_end if line_end != -1 else len(text), next_tok)
    name = text[body_start:stop_name].strip()
    p = skip_ws(text, stop_name)
    if not text.startswith("```", p):
        return name, stop_name, False
    q = p + 3
    while q < len(text) and text[q].isalpha():
        q += 1
    return name, q, True


def _closing_tokens(text: str, end: int, toks: list[_Tok], ti: int) -> tuple[int, bool]:
    """Where the call ending at ``end`` ends with its closing call token, then an
    optional section end (or up to the next call of the section); and whether a call
    token closed it."""
    n = len(toks)
    k = ti + 1
    while k < n and toks[k].start < end:
        k += 1
    closed = False
    if k < n and toks[k].kind == "call_end" and not text[end : toks[k].start].strip():
        end = toks[k].end
        closed = True
        k += 1
    if k < n and toks[k].kind == "calls_end" and not text[end : toks[k].start].strip():
        end = toks[k].end
    elif k < n and toks[k].kind == "call_begin" and not text[end : toks[k].start].strip():
        end = toks[k].start  # whitespace between calls of one section
    return end, closed
