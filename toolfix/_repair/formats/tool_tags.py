"""A call written as an XML element named after the tool, one child element per
argument: the tool-use format Cline and Roo Code teach models in their prompts, which
models then write even when the client offers native tools (Roo-Code #10270)::

    <read_file>
    <path>ReadMe.md</path>
    </read_file>

Only an element whose name is one of the offered tools is read, and only when its body
is child elements (or nothing): ``<b>bold</b>`` in prose, or ``<search>`` with text
inside, stays text. A child element repeated (``<suggestion>`` twice inside
``<suggestions>``) is a list; values are text, typed by the tool's schema. No declared
grammar reads it: its opener is not a fixed token but the name of any offered tool.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..tags import read_elements
from ..text import MarkerFinder, read_identifier
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["ToolTagsFormat"]

#: Elements looked at per text before the reader gives up (keeps it linear).
_MAX_TAGS = 4096


class ToolTagsFormat(ToolCallFormat):
    """``<tool_name><arg>value</arg></tool_name>`` (Cline, Roo Code)."""

    name = "tool_tags"
    markers = ("</",)
    priority = 60  # generic: runs on what the families' markup left
    source: ClassVar[str] = (
        "https://github.com/RooCodeInc/Roo-Code/issues/10270 (model output pasted by a user); "
        "https://github.com/cline/cline (src/core/prompts: the XML tool-use format)"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        if not ctx.tool_names:
            return out
        closers = MarkerFinder(text)  # (an unclosed tag must not send each search to the end)
        pos = 0
        for _ in range(_MAX_TAGS):
            at = text.find("<", pos)
            if at == -1:
                break
            word_end = read_identifier(text, at + 1, extra="_-.")
            word = text[at + 1 : word_end]
            pos = at + 1
            if word not in ctx.tool_names or not text.startswith(">", word_end):
                continue
            closer = f"</{word}>"
            close = closers.find(closer, word_end)
            if close == -1:
                continue  # never closed: not read (a cut-off call is left as text)
            body = text[word_end + 1 : close]
            arguments = {} if not body.strip() else _arguments(body)
            if arguments is None:
                continue
            end = close + len(closer)
            out.append(
                self._make(text, at, end, False, name=word, arguments=arguments, string_values=True)
            )
            pos = end
        return out


def _arguments(body: str) -> dict[str, Any] | None:
    """The body's child elements as arguments; a child whose children all share one
    name is the list of their values."""
    value = read_elements(body)
    if not isinstance(value, dict):
        return None
    return {k: _listed(v) for k, v in value.items()}


def _listed(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        (inner,) = value.values()
        if isinstance(inner, list):
            return inner
    return value
