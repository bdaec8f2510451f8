"""DeepSeek V3.2 DSML tool calls.

The V3.2 chat template writes calls as XML-like tags with a ``｜DSML｜`` prefix::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

``string="true"`` marks a string value, ``string="false"`` a JSON value. The
body of an ``invoke`` may also be a JSON object. Engines print the prefix in
several ways (``｜DSML｜``, ``｜｜DSML｜｜``, ASCII ``|DSML|``) or drop it
(``<function_calls><invoke name="...">``), and mix the two in one call; all are
read the same way.

Source: the DeepSeek-V3.2 model repository's encoding files, and SGLang's
``python/sglang/srt/function_call/deepseekv32_detector.py``, which documents the
four shapes above.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from .._scan import find_bracket_end, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["DsmlFormat"]

_INVOKE = 'invoke name="'
_PARAM = 'parameter name="'
_PREFIXES = ("｜DSML｜", "｜｜DSML｜｜", "|DSML|", "||DSML||", "")
_SECTIONS = ("function_calls>", "tool_calls>")
_KINDS = ("call_in_content", "native_markup")
_MAX_NAME = 256


def _tag_start(text: str, at: int, lo: int) -> int:
    """Start of the ``<`` (and DSML prefix) of a tag whose word begins at ``at``; -1 if none."""
    for prefix in _PREFIXES:
        s = at - len(prefix) - 1
        if s >= lo and text.startswith(prefix, s + 1) and text[s] == "<":
            return s
    return -1


def _closing(text: str, word: str, pos: int, stop: int) -> tuple[int, int]:
    """The first ``</[prefix]word>`` at or after ``pos``: (start, end), or (-1, -1)."""
    target = word + ">"
    while True:
        k = text.find(target, pos, stop)
        if k == -1:
            return -1, -1
        for prefix in _PREFIXES:
            s = k - len(prefix) - 2
            if s >= 0 and text.startswith("</" + prefix, s):
                return s, k + len(target)
        pos = k + 1


def _tag_at(text: str, k: int, word: str) -> bool:
    """Does a ``<[prefix]word`` (``word`` may start with ``/``) tag start at ``k``?"""
    if not text.startswith("<", k):
        return False
    slash = word.startswith("/")
    j = k + 1
    if slash:
        if not text.startswith("/", j):
            return False
        j += 1
        word = word[1:]
    return any(text.startswith(prefix + word, j) for prefix in _PREFIXES)


def _value_end(text: str, pos: int) -> tuple[int, int]:
    """The ``</parameter>`` that ends a value starting at ``pos``: the first one followed
    by the next parameter, ``</invoke>`` or the end of the text; else the first one at
    all (a value that runs into other text); ``(-1, -1)`` when there is none."""
    n = len(text)
    first = (-1, -1)
    p = pos
    for _ in range(_MAX_CLOSERS):
        vs, ve = _closing(text, "parameter", p, n)
        if vs == -1:
            break
        if first[0] == -1:
            first = (vs, ve)
        k = skip_ws(text, ve)
        if k >= n or _tag_at(text, k, _PARAM) or _tag_at(text, k, "/invoke>"):
            return vs, ve
        p = ve
    return first


#: How many ``</parameter>`` written as text one value may hold before the first one wins.
_MAX_CLOSERS = 64


class DsmlFormat(ToolCallFormat):
    """``<｜DSML｜invoke name="...">`` blocks, with or without the DSML prefix."""

    name = "dsml"
    markers = (_INVOKE,)
    priority = 5
    source: ClassVar[str] = (
        "https://huggingface.co/deepseek-ai/DeepSeek-V3.2 (encoding); "
        "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/"
        "function_call/deepseekv32_detector.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        n = len(text)
        pos = 0
        floor = 0
        while True:
            at = text.find(_INVOKE, pos)
            if at == -1:
                return out
            pos = at + len(_INVOKE)
            start = _tag_start(text, at, floor)
            if start == -1:
                continue
            name_end = text.find('"', pos, min(n, pos + _MAX_NAME))
            if name_end == -1:
                continue
            name = text[pos:name_end]
            gt = text.find(">", name_end, min(n, name_end + 64))
            if not name or gt == -1:
                continue
            body_start = gt + 1
            arguments: str | dict[str, Any]
            arguments, strings, close_s, close_e = self._body(text, body_start, ctx)
            truncated = close_s == -1
            end = n if truncated else close_e
            # the section tags around the first/last call go with them
            section = self._section_open(text, floor, start)
            if section != -1:
                start = section
            if not truncated:
                after = skip_ws(text, end)
                for word in _SECTIONS:
                    cs, ce = _closing(text, word[:-1], after, min(n, after + 40))
                    if cs == after:
                        end = ce
                        break
            self.check_call_count(len(out), ctx, text, start)
            out.append(
                Candidate(
                    start=start,
                    end=end,
                    format=self.name,
                    raw=text[start:end],
                    kinds=(*_KINDS, "truncated") if truncated else _KINDS,
                    name=name,
                    arguments=arguments,
                    string_values=strings,
                    truncated=truncated,
                )
            )
            pos = floor = end

    @staticmethod
    def _section_open(text: str, floor: int, start: int) -> int:
        """Start of a ``<function_calls>`` opener directly before ``start``, else -1."""
        head = text[floor:start].rstrip()
        for word in _SECTIONS:
            if head.endswith(word):
                s = _tag_start(text, floor + len(head) - len(word), floor)
                if s != -1:
                    return s
        return -1

    @staticmethod
    def _body(text: str, lo: int, ctx: ScanContext) -> tuple[str | dict[str, Any], bool, int, int]:
        """Read an invoke's body by structure: ``(arguments, untyped, close_start, close_end)``.

        A JSON body ends where its brackets close; a parameter value ends at a
        ``</parameter>`` followed by the next parameter, ``</invoke>`` or the end of the
        text (where the template writes it), so closers and other calls' markup written
        inside a value are text. The invoke ends at the ``</invoke>`` after the last
        parameter (``(-1, -1)`` when the output ended first: a cut-off call).
        """
        n = len(text)
        p = skip_ws(text, lo)
        if p < n and text[p] == "{":
            span = find_bracket_end(text, p, ctx.limits)
            if span.truncated:
                # unbalanced JSON: up to the first </invoke> (a missing brace), or cut off
                cs, ce = _closing(text, "invoke", p, n)
                return text[p : n if cs == -1 else cs], False, cs, ce
            cs, ce = _closing(text, "invoke", span.end, n)
            if cs != -1 and text[span.end : cs].strip():
                cs, ce = _closing(text, "invoke", p, n)  # text after the JSON: old reading
            return text[p : span.end], False, cs, ce
        params: dict[str, Any] = {}
        untyped = False
        pos = lo
        while True:
            k = skip_ws(text, pos)
            if _tag_at(text, k, "/invoke>"):
                cs, ce = _closing(text, "invoke", k, n)
                return params, untyped, cs, ce
            if not _tag_at(text, k, _PARAM):
                # not where the template writes the next tag: the first </invoke> ends it
                cs, ce = _closing(text, "invoke", pos, n)
                if cs == -1:
                    return params, untyped, -1, -1
                extra, more = DsmlFormat._arguments(text, pos, cs, ctx)
                if isinstance(extra, dict):
                    params.update(extra)
                return params, untyped or more, cs, ce
            at = text.find(_PARAM, k)
            start = at + len(_PARAM)
            q = text.find('"', start, min(n, start + _MAX_NAME))
            gt = text.find(">", q if q != -1 else start, min(n, start + _MAX_NAME + 64))
            if q == -1 or gt == -1:
                return params, untyped, -1, -1
            key = text[start:q]
            attrs = text[q + 1 : gt]
            vs, ve = _value_end(text, gt + 1)
            value = text[gt + 1 : n if vs == -1 else vs]
            if 'string="false"' in attrs:
                try:
                    params[key] = json.loads(value.strip())
                except ValueError:
                    params[key] = value.strip()
                    untyped = True
            else:
                params[key] = value.strip()
                untyped = untyped or 'string="true"' not in attrs
            if vs == -1:
                return params, untyped, -1, -1
            pos = ve

    @staticmethod
    def _arguments(
        text: str, lo: int, hi: int, ctx: ScanContext
    ) -> tuple[str | dict[str, Any], bool]:
        """A JSON body (as text), or the parameters as a dict (typed by ``string=``)."""
        p = skip_ws(text, lo)
        if p < hi and text[p] == "{":
            span = find_bracket_end(text, p, ctx.limits, stop=hi)
            return text[p : span.end], False
        params: dict[str, Any] = {}
        untyped = False
        pos = lo
        while True:
            at = text.find(_PARAM, pos, hi)
            if at == -1:
                break
            pos = at + len(_PARAM)
            q = text.find('"', pos, min(hi, pos + _MAX_NAME))
            gt = text.find(">", q if q != -1 else pos, min(hi, pos + _MAX_NAME + 64))
            if q == -1 or gt == -1:
                break
            key = text[pos:q]
            attrs = text[q + 1 : gt]
            vs, ve = _closing(text, "parameter", gt + 1, hi)
            value = text[gt + 1 : hi if vs == -1 else vs]
            if 'string="false"' in attrs:
                try:
                    params[key] = json.loads(value.strip())
                except ValueError:
                    params[key] = value.strip()
                    untyped = True
            else:
                params[key] = value.strip()
                untyped = untyped or 'string="true"' not in attrs
            if vs == -1:
                break
            pos = ve
        return params, untyped
