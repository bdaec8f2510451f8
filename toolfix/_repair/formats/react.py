"""Calls written as labelled sections: a name label, then an input label.

ReAct (``Action: name`` then ``Action Input: {...}``): agents prompted with the ReAct
pattern (LangChain's ``ReActSingleInputOutputParser``, LlamaIndex's
``ReActOutputParser``) expect this shape; weak models often return it when the serving
stack offers native tools, or with a Python dict as the input (llama_index #10322). The
thought before the action stays content.

Qwen-Agent's function-call prompt (``✿FUNCTION✿: name`` then ``✿ARGS✿: {...}``, ended
by ``✿RESULT✿`` or the next call) is the same shape with other labels; its sections
are also read written the other way round (``✿ARGS✿: {...} ✿FUNCTION✿: name``,
deer-flow #395): the labels, not their order, say which section is which.
"""

from __future__ import annotations

import re
from typing import ClassVar

from ..text import find_bracket_end, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["ReactFormat"]

_ACTION = "Action:"
_INPUT = "Action Input:"
#: Qwen-Agent's labels (qwen_agent/llm/fncall_prompts/qwen_fncall_prompt.py).
QA_NAME = "\u273fFUNCTION\u273f"
QA_ARGS = "\u273fARGS\u273f"
_QA_MARK = "\u273f"
#: A label's colon (ASCII or full-width) and the blanks around it.
_QA_COLON = re.compile(r"[ \t]*[:\uff1a]?[ \t]*")
#: A tool name: one run of name characters on the label's line.
_QA_TOOL = re.compile(r"[\w.:/-]{1,128}")
#: What is noted on a call read from sections written the other way round.
_SWAPPED = ("native_markup", "read a call whose arguments section came before its name")


class ReactFormat(ToolCallFormat):
    """``Action:`` / ``Action Input:`` pairs."""

    name = "react"
    markers = (_INPUT, QA_ARGS)
    priority = 40
    source: ClassVar[str] = (
        "https://github.com/langchain-ai/langchain/blob/master/libs/langchain/langchain/"
        "agents/output_parsers/react_single_input.py; "
        "https://github.com/run-llama/llama_index/blob/main/llama-index-core/"
        "llama_index/core/agent/react/output_parser.py; "
        "https://github.com/QwenLM/Qwen-Agent/blob/main/qwen_agent/llm/fncall_prompts/"
        "qwen_fncall_prompt.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out = self._react(text, ctx) if _INPUT in text else []
        if QA_ARGS in text:
            out.extend(self._qwen_agent(text, ctx, out[-1].end if out else 0))
        return out

    def _react(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        n = len(text)
        pos = 0
        while True:
            inp = text.find(_INPUT, pos)
            if inp == -1:
                return out
            pos = inp + len(_INPUT)
            act = text.rfind(_ACTION, max(0, inp - 300), inp)
            if act == -1 or (act > 0 and text[act - 1] not in "\n"):
                continue
            name = text[act + len(_ACTION) : inp].strip().strip("`*").strip()
            if (
                not name
                or "\n" in name
                or not name.replace("_", "a").replace("-", "a").replace(".", "a").isalnum()
            ):
                continue
            body = skip_ws(text, pos)
            if body < n and text[body] in "{[":
                span = find_bracket_end(text, body, ctx.limits, reads=ctx.reads)
                arguments = text[body : span.end]
                end, truncated = span.end, span.truncated
            else:
                line_end = text.find("\n", body)
                end = n if line_end == -1 else line_end
                arguments = text[body:end].strip()
                truncated = body >= n  # the output ended at "Action Input:": cut off
                if not ctx.is_tool(name):
                    continue
            if out and act < out[-1].end:
                continue
            out.append(self._make(text, act, end, truncated, name=name, arguments=arguments))
            pos = end

    def _qwen_agent(self, text: str, ctx: ScanContext, lo: int) -> list[Candidate]:
        """Qwen-Agent's ``✿FUNCTION✿: name`` / ``✿ARGS✿: {...}`` pairs after ``lo``, in
        either order, and the further arguments sections written right after a pair
        (more calls of its function); an arguments section with no name section next to
        it is text."""
        out: list[Candidate] = []
        pos = lo
        while (a := text.find(QA_ARGS, pos)) != -1:
            self.check_call_count(len(out), ctx, text, a)
            pos = a + len(QA_ARGS)
            args, end, cut = _qa_args(text, _QA_COLON.match(text, pos).end(), ctx)  # type: ignore[union-attr]
            named = _name_before(text, max(lo, out[-1].end if out else lo), a)
            notes: tuple[tuple[str, str], ...] = ()
            if named is not None:
                start, name = named
            elif out and not text[out[-1].end : a].strip() and out[-1].notes == ():
                # another arguments section right after a call's: one more call of the
                # same function (Qwen-Agent's parser splits the sections on the label)
                start, name = out[-1].end, out[-1].name or ""
            else:
                after = _name_after(text, end) if not cut else None
                if after is None or not ctx.is_tool(after[1]):
                    continue  # an arguments section alone: text
                start, (end, name), notes = a, after, (_SWAPPED,)
            out.append(self._make(text, start, end, cut, name=name, arguments=args, notes=notes))
            pos = end
        return out


def _qa_args(text: str, j: int, ctx: ScanContext) -> tuple[str, int, bool]:
    """The arguments section's text from ``j``: a JSON value read by structure, else the
    text up to the next label (the parser's own split); its end; whether it was cut."""
    n = len(text)
    if j < n and text[j] in "{[":
        span = find_bracket_end(text, j, ctx.limits, reads=ctx.reads)
        return text[j : span.end], span.end, span.truncated
    stop = text.find(_QA_MARK, j)
    stop = n if stop == -1 else stop
    args = text[j:stop].rstrip()
    return args, j + len(args), not args and stop == n


def _name_before(text: str, lo: int, a: int) -> tuple[int, str] | None:
    """``(start, name)`` of the name section right before the arguments label at ``a``
    (the declared order), or ``None``."""
    f = text.rfind(QA_NAME, lo, a)
    if f == -1:
        return None
    j = _QA_COLON.match(text, f + len(QA_NAME)).end()  # type: ignore[union-attr]
    m = _QA_TOOL.match(text, j, a)
    if m is None or text[m.end() : a].strip():
        return None
    return f, m.group()


def _name_after(text: str, end: int) -> tuple[int, str] | None:
    """``(end, name)`` of a name section right after an arguments section ending at
    ``end`` (the sections written the other way round), or ``None``."""
    k = skip_ws(text, end)
    if not text.startswith(QA_NAME, k):
        return None
    j = _QA_COLON.match(text, k + len(QA_NAME)).end()  # type: ignore[union-attr]
    m = _QA_TOOL.match(text, j)
    if m is None:
        return None
    rest = skip_ws(text, m.end())
    if rest < len(text) and text[m.end()] not in " \t\r\n" and not text.startswith(_QA_MARK, rest):
        return None  # the name runs on into other text: no name section
    return m.end(), m.group()
