"""ReAct-style text calls: ``Action: name`` then ``Action Input: {...}``.

Agents prompted with the ReAct pattern (LangChain's ``ReActSingleInputOutputParser``,
LlamaIndex's ``ReActOutputParser``) expect this shape; weak models often return it
when the serving stack offers native tools, or with a Python dict as the input
(llama_index #10322). The thought before the action stays content.
"""

from __future__ import annotations

from typing import ClassVar

from ..text import find_bracket_end, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["ReactFormat"]

_ACTION = "Action:"
_INPUT = "Action Input:"


class ReactFormat(ToolCallFormat):
    """``Action:`` / ``Action Input:`` pairs."""

    name = "react"
    markers = (_INPUT,)
    priority = 40
    source: ClassVar[str] = (
        "https://github.com/langchain-ai/langchain/blob/master/libs/langchain/langchain/"
        "agents/output_parsers/react_single_input.py; "
        "https://github.com/run-llama/llama_index/blob/main/llama-index-core/"
        "llama_index/core/agent/react/output_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
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
