"""Mistral ``[TOOL_CALLS]`` in its three generations.

- tokenizer < v11 (Mistral 7B v0.3, Nemo, Small 2409):
  ``[TOOL_CALLS][{"name": "f", "arguments": {...}, "id": "abc123def"}, ...]``
  (also a single object, and a list cut short);
- v11 (Small 3.1, Devstral): ``[TOOL_CALLS]f{"a": 1}`` and v11+ with the ``[ARGS]``
  token: ``[TOOL_CALLS]f[ARGS]{"a": 1}``, one ``[TOOL_CALLS]`` per call
  (``[TOOL_CALLS]a[ARGS]{..}[TOOL_CALLS]b[ARGS]{..}``);
- with a call id (v13): ``[TOOL_CALLS]f[CALL_ID]abc123def[ARGS]{"a": 1}``.

Each call is ``explicit=True`` with kinds ``("call_in_content", "native_markup")``;
text before ``[TOOL_CALLS]`` stays content.

Sources: vLLM ``mistral_tool_parser.py``
(https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/tool_parsers/mistral_tool_parser.py,
its tests use ``[TOOL_CALLS]get_current_weather[ARGS]{"city": ...}``) and the
mistral-common tokenizer docs
(https://github.com/mistralai/mistral-common, ``InstructTokenizerV11``/``V13``
encode ``[TOOL_CALLS]`` name ``[CALL_ID]`` id ``[ARGS]`` arguments).
"""

from __future__ import annotations

import re
from typing import ClassVar

from ..text import MarkerFinder, escaped_json_end, find_bracket_end, json_past_markers, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["MistralFormat"]

BOT = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"
_NAME_EXTRA = "_-."
#: A tool name: ``str.isalnum`` characters (what ``\w`` matches, besides ``_``) and
#: :data:`_NAME_EXTRA`; a call id: ``str.isalnum`` characters. Both match the empty string.
_NAME = re.compile(r"[\w.-]*")
_ID = re.compile(r"[^\W_]*")
_MAX_NAME = 256
_MAX_ID = 64


class MistralFormat(ToolCallFormat):
    """Mistral's ``[TOOL_CALLS]`` token followed by a JSON list or ``name[ARGS]{...}``."""

    name = "mistral"
    markers = (BOT, ARGS)
    spans_start_at_markers = True
    priority = 10
    source: ClassVar[str] = (
        "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
        "tool_parsers/mistral_tool_parser.py; https://github.com/mistralai/mistral-common"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """One candidate per ``[TOOL_CALLS]`` section (per call in the v11+ forms)."""
        out: list[Candidate] = []
        finder = MarkerFinder(text)
        n = len(text)
        pos = 0
        while pos < n:
            start = finder.find(BOT, pos)
            if start == -1:
                break
            after = start + len(BOT)
            nxt = finder.find(BOT, after)
            stop = nxt if nxt != -1 else n
            cand = self._section(text, start, after, stop, ctx)
            if cand is not None:
                out.append(cand)
                pos = cand.end
            else:
                pos = after
        if ARGS in text:
            out = self._bare_args(text, out, finder, ctx)
        return out

    def _bare_args(
        self, text: str, found: list[Candidate], finder: MarkerFinder, ctx: ScanContext
    ) -> list[Candidate]:
        """``name[ARGS]{...}`` whose ``[TOOL_CALLS]`` token the engine stripped (seen in
        mlx-lm #1448): taken only at the start of a line and for a registry tool."""
        out = list(found)
        n = len(text)
        pos = 0
        while True:
            a = finder.find(ARGS, pos)
            if a == -1:
                break
            pos = a + len(ARGS)
            s = a
            while (
                s > 0
                and a - s < _MAX_NAME
                and (text[s - 1].isalnum() or text[s - 1] in _NAME_EXTRA)
            ):
                s -= 1
            name = text[s:a]
            if not name or not ctx.is_tool(name):
                continue
            if s > 0 and text[s - 1] not in "\n" and not text[:s].endswith(BOT):
                continue
            if text[:s].endswith(BOT) or any(c.start <= s < c.end for c in out):
                continue
            nxt = finder.find(BOT, pos)
            cand = self._section(text, s, s, nxt if nxt != -1 else n, ctx)
            if cand is not None and not any(c.start < cand.end and cand.start < c.end for c in out):
                out.append(cand)
                pos = max(pos, cand.end)
        out.sort(key=lambda c: c.start)
        return out

    def _section(
        self, text: str, start: int, after: int, stop: int, ctx: ScanContext
    ) -> Candidate | None:
        first = skip_ws(text, after)
        if first >= stop:
            return None
        if text[first] == "[" and not self._list_of_objects(text, first, stop):
            return None
        if text[first] in "[{":
            end, cut = self._json_end(text, first, stop, ctx)
            return self._make(text, start, end, cut, payload=text[first:end])
        # v11+: name, optional [CALL_ID]id, optional [ARGS], then the JSON arguments
        j = _NAME.match(text, first, min(stop, first + _MAX_NAME)).end()  # type: ignore[union-attr]
        if j == first:
            return None
        name = text[first:j]
        call_id: str | None = None
        if text.startswith(CALL_ID, j):
            k = j + len(CALL_ID)
            id_end = _ID.match(text, k, min(stop, k + _MAX_ID)).end()  # type: ignore[union-attr]
            call_id = text[k:id_end] or None
            j = id_end
        had_args = text.startswith(ARGS, j)
        if had_args:
            j += len(ARGS)
        body = skip_ws(text, j)
        if body < stop and text[body] in "{[":
            end, cut = self._json_end(text, body, stop, ctx)
            return self._make(
                text,
                start,
                end,
                cut,
                name=name,
                arguments=text[body:end],
                call_id=call_id,
            )
        if had_args:
            # [ARGS] then something that is not JSON (or nothing: cut right there)
            raw = text[j:stop].strip()
            return self._make(text, start, stop, not raw, name=name, arguments=raw, call_id=call_id)
        if body >= len(text) or (call_id is not None and body >= stop):
            # cut after the name: the call never got its arguments
            return self._make(text, start, stop, True, name=name, arguments="", call_id=call_id)
        return None

    @staticmethod
    def _json_end(text: str, first: int, stop: int, ctx: ScanContext) -> tuple[int, bool]:
        """End of the JSON value at ``first``, and whether the output was cut inside it.

        A ``[TOOL_CALLS]`` at ``stop`` inside one of the value's strings is text: the value
        then ends where its brackets close. A value still open at the next call's opener
        is broken JSON (the opener closes it), not a cut-off output.
        """
        quoted = escaped_json_end(text, first)
        if quoted is not None:  # escaped JSON, quoted in another call's string
            return quoted.end, quoted.truncated
        span = find_bracket_end(text, first, ctx.limits, stop=stop, reads=ctx.reads)
        if span.truncated and stop < len(text):
            past = json_past_markers(text, first, stop, (BOT, "</s>"), ctx.limits, reads=ctx.reads)
            if past is not None:
                return past, False
        return span.end, span.truncated and span.end >= len(text)

    @staticmethod
    def _list_of_objects(text: str, i: int, stop: int) -> bool:
        """``[`` followed by ``{`` (or cut right after the ``[``)."""
        j = skip_ws(text, i + 1)
        return j >= len(text) or (j < stop and text[j] == "{")
