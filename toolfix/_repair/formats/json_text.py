"""Bare JSON, fenced JSON, JSON in prose, JSON lists of calls (the generic fallback).

This format runs last, on whatever the native formats left. It finds:

- code fences tagged ``json`` (or ``tool_call``, ``jsonc``...) or untagged, whose
  body starts with ``{`` or ``[``: kinds ``("call_in_content", "code_fence")``;
- bare objects ``{...}`` and lists of objects ``[{...}, ...]`` in prose: kinds
  ``("call_in_content",)``;
- glued objects ``{..}{..}`` / ``{..}\\n{..}`` (only whitespace, commas or
  semicolons between): one candidate each, with ``"concatenated"``;
- a value that never closes runs to the end of its region, with ``"truncated"``.

Every candidate is ``explicit=False``: the interpreter only takes it when it is
call-shaped, so a JSON example in an answer stays content. Fences in other
languages (``python``, ``bash``, ``tool_code``...) are skipped whole: code is
never scanned for JSON. The scan is linear: after a span the scan resumes at its
end, and nothing inside a span is scanned again.
"""

from __future__ import annotations

import re
from typing import ClassVar

from ..envkeys import closes_mended
from ..innerquotes import closes_unescaped
from ..quickfix import closes_requoted
from ..text import (
    BracketSpan,
    ExtendBudget,
    Fence,
    find_bracket_end,
    json_past_markers,
    next_fence,
    read_identifier,
    skip_ws,
)
from ._base import Candidate, ScanContext, ToolCallFormat, make_candidate

__all__ = ["JsonTextFormat"]

#: Fence info strings whose body may hold a JSON call ("" = untagged fence).
JSON_FENCE_LANGS = frozenset(
    {"", "json", "json5", "jsonc", "jsonl", "tool_call", "tool_calls", "function_call", "tool"}
)

_OPENERS = re.compile(r"[\[{]")
_SEPARATORS = " \t\r\n,;"
_GLUED = ("concatenated",)


def _keyable(text: str, i: int, hi: int) -> bool:
    """Could the ``{`` at ``i`` open a JSON(-ish) object with at least one key?

    Accepts a quoted key, or an unquoted identifier followed by ``:``; refuses
    ``{}``, ``{x}`` (LaTeX), ``{{ jinja }}`` and the like.
    """
    j = skip_ws(text, i + 1)
    if j >= hi:
        return False
    c = text[j]
    if c in "\"'":
        return True
    end = read_identifier(text, j, extra="_-$")
    if end == j:
        return False
    k = skip_ws(text, end)
    return k < hi and text[k] == ":"


def _value_start(text: str, i: int, hi: int) -> bool:
    """Does a JSON object, or a list whose first item is an object, start at ``i``? (An
    object written as a JSON string, ``["{\\"name\\": ...}"]``, counts: escapedjson.py.)"""
    if text[i] == "{":
        return _keyable(text, i, hi)
    j = skip_ws(text, i + 1)
    if text.startswith('"{\\"', j):
        return True
    return j < hi and text[j] == "{" and _keyable(text, j, hi)


def _run(text: str, first: int, hi: int, ctx: ScanContext) -> list[BracketSpan]:
    """The value at ``first`` and the values glued after it (separators only between)."""
    span = find_bracket_end(text, first, ctx.limits, stop=hi, reads=ctx.reads)
    spans = [_misplaced_key_quote(text, _missing_brace_before_object(text, span, hi), hi)]
    while not spans[-1].truncated:
        k = spans[-1].end
        while k < hi and text[k] in _SEPARATORS:
            k += 1
        if k >= hi or text[k] not in "{[" or not _value_start(text, k, hi):
            break
        span = find_bracket_end(text, k, ctx.limits, stop=hi, reads=ctx.reads)
        spans.append(_missing_brace_before_object(text, span, hi))
    return spans


def _fence_closer(
    text: str, first: int, fence: Fence, ctx: ScanContext, budget: ExtendBudget
) -> Fence:
    """The fence whose value opens at ``first``, ended where it really ends: past its
    closing backticks when they were inside a JSON string of a value that closes after
    them; at the end of the text, unclosed, when they stand inside a string of a value
    that never closes (a cut output whose string held backticks: ```` ```bash ```` in a
    file's content); else as found."""
    ticks = fence.end - fence.body_end
    past = json_past_markers(
        text, first, fence.body_end, ("`" * ticks,), ctx.limits, budget, reads=ctx.reads
    )
    if past is not None:  # the closing backticks were inside a JSON string
        close = skip_ws(text, past)
        return Fence(fence.start, fence.body_start, close, close + ticks, fence.lang, True)
    if _outside_strings(text, first, fence.body_end):
        return fence
    if not find_bracket_end(text, first, ctx.limits, reads=ctx.reads).truncated:
        return fence
    n = len(text)
    return Fence(fence.start, fence.body_start, n, n, fence.lang, False)


def _misplaced_key_quote(text: str, span: BracketSpan, hi: int) -> BracketSpan:
    """An object left open only by a key's misplaced quote (``, description": …}``,
    ``"selectFunctions\\ "arguments": {…}}``: quickfix.py) or by a bare quote inside a
    string value (``"content": "say "hi"…"}``: innerquotes.py) that closes at the ``}``
    ending its region was not cut off: the span ends there. (A span left open runs to
    its region's end and the scan resumes there: one such check per region.)"""
    if not span.truncated or text[span.start] != "{":
        return span
    end = len(text[span.start : hi].rstrip()) + span.start
    if text[end - 1] != "}":
        return span
    body = text[span.start : end]
    if not (closes_requoted(body) or closes_unescaped(body) or closes_mended(body)):
        return span
    return BracketSpan(span.start, end, False)


def _missing_brace_before_object(text: str, span: BracketSpan, hi: int) -> BracketSpan:
    """``{"name": "a", "arguments": {...}`` then, on the next line, another object: the
    first lacks a brace, the next call's opening brace closes it (not a cut-off output).
    The span then ends at the ``}`` that ends its line (outside strings)."""
    if not span.truncated or text[span.start] != "{":
        return span
    nl = text.find("\n", span.start, hi)
    while nl != -1:
        k = nl + 1
        while k < hi and text[k] in " \t\r\n":
            k += 1
        if k < hi and text[k] == "{" and _keyable(text, k, hi):
            last = len(text[:nl].rstrip()) - 1
            if last > span.start and text[last] == "}" and _outside_strings(text, span.start, last):
                return BracketSpan(span.start, last + 1, False)
            return span
        nl = text.find("\n", k, hi) if k < hi else -1
    return span


def _missing_brace_before_prose(text: str, span: BracketSpan, hi: int) -> BracketSpan:
    """An unclosed value followed, after its last ``}``, by prose (on a new line, or after
    a space when that ``}`` is outside strings) lacks a brace; it was not cut off (a
    cut-off output has nothing after the cut). The span then ends at that ``}`` so the
    prose stays content."""
    if not span.truncated:
        return span
    last = text.rfind("}", span.start, hi)
    if last == -1:
        return span
    rest = text[last + 1 : hi]
    head = rest.lstrip()
    gap = rest[: len(rest) - len(head)]
    if head[:1].isalpha() and ("\n" in gap or (gap and _outside_strings(text, span.start, last))):
        return BracketSpan(span.start, last + 1, False)
    return span


def _outside_strings(text: str, lo: int, at: int) -> bool:
    """Is ``text[at]`` outside every double-quoted string opened from ``lo``?"""
    inside = False
    i = lo
    while True:
        q = text.find('"', i, at)
        if q == -1:
            return not inside
        k = q - 1
        while k >= lo and text[k] == "\\":
            k -= 1
        if (q - 1 - k) % 2 == 0:  # not escaped
            inside = not inside
        i = q + 1


def _emit(
    text: str,
    spans: list[BracketSpan],
    base_kinds: tuple[str, ...],
    outer: tuple[int, int] | None,
    out: list[Candidate],
    name: str,
    *,
    closed: bool = False,
) -> None:
    """One candidate per span; spans made contiguous (separators go with the next one).

    ``outer`` widens the first start / last end to a fence's backticks. In a
    ``closed`` fence an unbalanced value is broken JSON, not a cut-off output.
    """
    glued = len(spans) > 1
    for idx, span in enumerate(spans):
        start = span.start if idx == 0 else spans[idx - 1].end
        end = span.end
        if outer is not None:
            if idx == 0:
                start = outer[0]
            if idx == len(spans) - 1:
                end = outer[1]
        truncated = span.truncated and not closed
        out.append(
            make_candidate(
                text,
                start,
                end,
                name,
                truncated=truncated,
                where=base_kinds,
                extra=_GLUED if glued else (),
                payload=text[span.start : span.end],
                explicit=False,
            )
        )


#: How far back the name line of a ``name\n{args}`` call may start (keeps it linear).
_MAX_NAME_LINE = 128


def _name_line_before(text: str, lo: int, i: int, ctx: ScanContext) -> tuple[int, str] | None:
    """``(start, name)`` when the line right before the object at ``i`` is exactly one
    of the tools' names (``get_weather\n{"city": "Paris"}``), else ``None``."""
    j = i
    while j > lo and text[j - 1] in " \t":
        j -= 1
    if j <= lo or text[j - 1] != "\n":
        return None
    k = j - 1
    if k > lo and text[k - 1] == "\r":
        k -= 1
    window = max(lo, k - _MAX_NAME_LINE)
    newline = text.rfind("\n", window, k)
    if newline == -1 and window > lo:
        return None  # a line longer than any tool name
    start = lo if newline == -1 else newline + 1
    name = text[start:k].strip()
    if not name or name not in ctx.tool_names:
        return None
    return start + text[start:k].index(name), name


class JsonTextFormat(ToolCallFormat):
    """Generic JSON written into the text: fenced, bare, in prose, lists, glued objects."""

    name = "json"
    markers = ()
    priority = 90
    span_openers = "{[`"
    source: ClassVar[str] = (
        "generic; fence and bare-JSON shapes as in the vLLM llama3_json / hermes fallbacks "
        "(https://github.com/vllm-project/vllm/tree/main/vllm/entrypoints/openai/tool_parsers)"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """Fenced JSON and bare JSON values in prose, in order, non-overlapping.

        Read left to right by structure: backticks inside a JSON string of a value in
        prose do not open a fence, and inside a fenced value they do not close it.
        """
        out: list[Candidate] = []
        n = len(text)
        budget = ExtendBudget()
        pos = 0
        while True:
            fence = next_fence(text, pos)
            hi = n if fence is None else fence.start
            pos = self._scan_prose(text, pos, hi, ctx, out, budget)
            if fence is None:
                return out
            if pos > fence.start:
                continue  # a value in prose held those backticks: fences resume after it
            pos = fence.end
            if fence.lang not in JSON_FENCE_LANGS:
                continue  # code in another language: never scanned
            first = skip_ws(text, fence.body_start)
            if first >= fence.body_end or text[first] not in "{[":
                continue
            if fence.closed:
                fence = _fence_closer(text, first, fence, ctx, budget)
                pos = fence.end
            spans = _run(text, first, fence.body_end, ctx)
            if fence.closed or spans[-1].truncated:
                outer = (fence.start, fence.end)
            else:
                # unclosed fence but balanced JSON: prose after it stays prose
                outer = (fence.start, spans[-1].end)
                pos = spans[-1].end
            kinds = ("call_in_content", "code_fence")
            _emit(text, spans, kinds, outer, out, self.name, closed=fence.closed)

    def _scan_prose(
        self,
        text: str,
        lo: int,
        hi: int,
        ctx: ScanContext,
        out: list[Candidate],
        budget: ExtendBudget,
    ) -> int:
        """Values in ``text[lo:hi]``; returns where the scan stopped (past ``hi`` when a
        value's string held the backticks found at ``hi``)."""
        n = len(text)
        i = lo
        while i < hi:
            m = _OPENERS.search(text, i, hi)
            if m is None:
                return hi
            i = m.start()
            if not _value_start(text, i, hi):
                i += 1
                continue
            spans = _run(text, i, hi, ctx)
            last = spans[-1]
            if last.truncated and hi < n and budget.left > 0:
                budget.left -= 1
                whole = find_bracket_end(text, last.start, ctx.limits, reads=ctx.reads)
                if not whole.truncated:
                    spans[-1] = whole
            spans[-1] = _missing_brace_before_prose(text, spans[-1], hi)
            named = _name_line_before(text, lo, i, ctx) if text[i] == "{" else None
            if named is not None and len(spans) == 1 and not spans[0].truncated:
                # GLM-4-0414 writes a call as the tool's name on a line, then its arguments
                # (mlx-swift-lm #491): only a registry tool's exact name counts
                name_at, tool = named
                end = spans[0].end
                out.append(
                    Candidate(
                        start=name_at,
                        end=end,
                        format=self.name,
                        raw=text[name_at:end],
                        kinds=("call_in_content",),
                        name=tool,
                        arguments=text[i:end],
                        explicit=False,
                    )
                )
                i = end
                continue
            _emit(text, spans, ("call_in_content",), None, out, self.name)
            i = spans[-1].end
        return max(i, hi)
