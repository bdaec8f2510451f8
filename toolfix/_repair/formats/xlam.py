"""Salesforce xLAM ``{"tool_calls": [{"name": ..., "arguments": {...}}]}``.

The xLAM function-calling models (``Salesforce/xLAM-1b-fc-r``, ``xLAM-7b-fc-r``
model cards; vLLM ``vllm/tool_parsers/xlam_tool_parser.py``) answer with one
JSON object whose ``tool_calls`` key holds the list of calls::

    {"tool_calls": [{"name": "get_weather", "arguments": {"location": "New York"}}]}

xLAM-2 writes the bare list, which the generic JSON format takes. The
candidate's payload is the list text; the span is the whole object (and a
``json`` fence wrapping only it). ``explicit`` only when the object is the whole
message: an object quoted inside prose is checked by the interpreter first.
"""

from __future__ import annotations

import re

from ..text import find_bracket_end, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["XlamFormat"]

_KEYS = ('"tool_calls"', "'tool_calls'")
#: What :func:`_list_in_object` looks for (at any depth), matched at a quote.
_KEY_LIST = re.compile(r"(?:\"tool_calls\"|'tool_calls')\s*:\s*\[")


def _has_key_list(text: str) -> bool:
    """Does ``"tool_calls": [`` occur anywhere (without it there is no call)? Looked for
    at the occurrences of the word (``str.find``), not by a search at every position."""
    i = text.find("tool_calls", 1)
    while i != -1:
        if _KEY_LIST.match(text, i - 1) is not None:
            return True
        i = text.find("tool_calls", i + 10)
    return False


def _list_in_object(text: str, lo: int, hi: int) -> int:
    """Index of the ``[`` of a depth-1 ``"tool_calls": [`` in the object ``text[lo:hi]``, or -1."""
    depth = 0
    i = lo
    while i < hi:
        ch = text[i]
        if ch in "\"'":
            if depth == 1 and (text.startswith(_KEYS[0], i) or text.startswith(_KEYS[1], i)):
                p = skip_ws(text, i + len(_KEYS[0]))
                if p < hi and text[p] == ":":
                    p = skip_ws(text, p + 1)
                    if p < hi and text[p] == "[":
                        return p
            # skip the string literal
            j = i + 1
            while j < hi and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        i += 1
    return -1


class XlamFormat(ToolCallFormat):
    """xLAM's ``{"tool_calls": [...]}`` answer object (payload = the list)."""

    name = "xlam"
    markers = ("tool_calls",)
    priority = 30
    source = (
        "https://huggingface.co/Salesforce/xLAM-1b-fc-r; "
        "vllm-project/vllm vllm/tool_parsers/xlam_tool_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        if not _has_key_list(text) and (
            text.count("{") + text.count("[") + text.count("(") <= ctx.limits.max_depth
        ):
            # no "tool_calls": [ anywhere, and too few brackets for a bracket scan to
            # raise NestingTooDeepError: nothing the loop below would read (the marker
            # also occurs in the JSON wrappers the generic scanner reads)
            return out
        n = len(text)
        pos = 0
        whole = text.strip()
        while True:
            o = text.find("{", pos)
            if o == -1:
                break
            span = find_bracket_end(text, o, ctx.limits, reads=ctx.reads)
            obj_end = span.end
            pos = obj_end if obj_end > o else o + 1
            if "tool_calls" not in text[o:obj_end]:
                if span.truncated:
                    break
                continue
            lb = _list_in_object(text, o, obj_end)
            if lb == -1:
                if span.truncated:
                    break
                continue
            lst = find_bracket_end(text, lb, ctx.limits, stop=obj_end, reads=ctx.reads)
            truncated = span.truncated or lst.truncated
            start, end = o, obj_end
            where: tuple[str, ...] = ("call_in_content",)
            # a fence holding only this object goes with it
            fs = text.rfind("```", max(0, o - 64), o)
            if fs != -1:
                head = text[fs + 3 : o]
                fe = skip_ws(text, end)
                if head.strip().lower() in ("", "json") and "\n" in head + "\n":
                    if text.startswith("```", fe):
                        start, end = fs, fe + 3
                        where = (*where, "code_fence")
                    elif fe >= n:
                        start = fs
                        where = (*where, "code_fence")
            self.check_call_count(len(out), ctx, text, o)
            out.append(
                self._make(
                    text,
                    start,
                    end,
                    truncated,
                    where=where,
                    payload=text[lb : lst.end],
                    explicit=whole == text[o:obj_end].strip(),
                )
            )
            if span.truncated:
                break
        return out
