"""MeetKai Functionary v3 recipients: ``>>>name\\n{json}`` and ``>>>all\\ntext``.

Chat template of ``meetkai/functionary-medium-v3.2`` (llama.cpp
``models/templates/meetkai-functionary-medium-v3.2.jinja``) and llama.cpp
``common_chat_parse_functionary_v3_2``: every assistant segment starts with a
recipient line; ``all`` is text for the user, any other recipient is a function
called with a JSON object (shown as it follows a first ``>>>``)::

    all
    Let me check.>>>get_weather
    {"city": "Paris"}>>>get_time
    {"tz": "Europe/Paris"}

The generation prompt may already end with ``>>>``, so the first segment can
lack it (``get_weather\\n{...}>>>all\\n...``); that first segment is taken when
its name is a registry tool. ``>>>all`` markers are not calls: use
:func:`strip_all_recipients` on the remaining content. The v3.1 ``<function=name>``
form belongs to the Qwen-XML format.
"""

from __future__ import annotations

from ..text import find_bracket_end, json_past_markers, read_identifier, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat, make_candidate

__all__ = ["FunctionaryFormat", "strip_all_recipients"]

_MARK = ">>>"
_ALL = ">>>all\n"


def strip_all_recipients(content: str) -> str:
    """Remove Functionary's ``>>>all`` recipient lines (and a leading bare ``all``)."""
    out = content.replace(_ALL, "")
    stripped = out.lstrip()
    if stripped.startswith("all\n"):
        out = stripped[4:]
    return out


class FunctionaryFormat(ToolCallFormat):
    """Functionary v3 ``>>>name`` + JSON arguments."""

    name = "functionary"
    markers = (_MARK,)
    priority = 10
    source = (
        "https://huggingface.co/meetkai/functionary-medium-v3.2 chat template; "
        "ggml-org/llama.cpp common/chat.cpp (functionary v3.2)"
    )

    def tidy(self, remaining: str) -> str:
        return strip_all_recipients(remaining).strip()

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        # the first segment may come without ">>>" (the prompt ended with it)
        first = skip_ws(text, 0)
        if not text.startswith(_MARK, first):
            cand = self._segment(text, first, first, ctx, need_tool=True)
            if cand is not None:
                out.append(cand)
        pos = out[-1].end if out else 0
        while True:
            m = text.find(_MARK, pos)
            if m == -1:
                break
            cand = self._segment(text, m, m + len(_MARK), ctx, need_tool=False)
            if cand is None:
                pos = m + len(_MARK)
                continue
            self.check_call_count(len(out), ctx, text, m)
            out.append(cand)
            pos = cand.end
        return out

    def _segment(
        self, text: str, start: int, name_at: int, ctx: ScanContext, *, need_tool: bool
    ) -> Candidate | None:
        """A ``name\\n{json}`` segment whose name starts at ``name_at``."""
        ne = read_identifier(text, name_at, extra="_-.")
        name = text[name_at:ne]
        if not name or name == "all" or not text.startswith("\n", ne):
            return None
        if need_tool and not ctx.is_tool(name):
            return None
        p = skip_ws(text, ne + 1)
        n = len(text)
        if p >= n:
            if not ctx.is_tool(name):
                return None
            return self._cand(text, start, n, name, "", truncated=True)
        if text[p] not in "{[":
            return None  # e.g. raw python code after ">>>python": not a JSON call
        # the next ">>>" ends the segment, unless it sits inside a JSON string of it
        nxt = text.find(_MARK, p)
        stop = n if nxt == -1 else nxt
        span = find_bracket_end(text, p, ctx.limits, stop=stop, reads=ctx.reads)
        if span.truncated and stop < n:
            past = json_past_markers(text, p, stop, (_MARK,), ctx.limits, reads=ctx.reads)
            if past is not None:
                return self._cand(text, start, past, name, text[p:past], False)
            end = len(text[:stop].rstrip())
            return self._cand(text, start, end, name, text[p:end], False)
        return self._cand(text, start, span.end, name, text[p : span.end], span.truncated)

    def _cand(
        self, text: str, start: int, end: int, name: str, args: str, truncated: bool
    ) -> Candidate:
        return make_candidate(
            text, start, end, self.name, truncated=truncated, name=name, arguments=args
        )
