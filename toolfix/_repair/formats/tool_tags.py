"""A call written as an XML element named after the tool, one child element per
argument: the tool-use format Cline and Roo Code teach models in their prompts, which
models then write even when the client offers native tools (Roo-Code #10270)::

    <read_file>
    <path>ReadMe.md</path>
    </read_file>

Only an element whose name is one of the offered tools is read, and only when its body
is child elements (or nothing): ``<b>bold</b>`` in prose, or ``<search>`` with text
inside, stays text. Elements of the same name nest, and what lies inside an element
is its text, whether that element is a call or not (never a second call). A child
element repeated (``<suggestion>`` twice inside ``<suggestions>``) is a list; values
are text, typed by the tool's schema. No declared grammar reads it: its opener is not a
fixed token but the name of any offered tool.

A value escaped throughout as XML text (``2&gt;/dev/null``, ``a &amp;&amp; b``: an
entity for each ``<``, ``>`` and ``&`` it holds, no raw ``<`` or ``>``) is read
unescaped: models that write this format escape their values as XML, and the clients
that teach it unescape them (Cline ``fixModelHtmlEscaping``, cline/cline#2594; Kilo
Code kilocode#111; probe#448). A value that also holds a raw ``<`` or ``>`` or a bare
``&`` is not escaped text (an XML or HTML file's content): it is kept as written.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ..tags import read_elements
from ..text import occurrences
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["ToolTagsFormat"]

#: Elements looked at per text before the reader gives up (keeps it linear).
_MAX_TAGS = 4096


class ToolTagsFormat(ToolCallFormat):
    """``<tool_name><arg>value</arg></tool_name>`` (Cline, Roo Code)."""

    name = "tool_tags"
    markers = ("</",)
    priority = 60  # generic: runs on what the families' markup left
    span_openers = "<"
    source: ClassVar[str] = (
        "https://github.com/RooCodeInc/Roo-Code/issues/10270 (model output pasted by a user); "
        "https://github.com/cline/cline (src/core/prompts: the XML tool-use format)"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        # per offered tool (a handful) whose opening tag the text holds (most often
        # none: one C-speed test each): its elements, matched by one pass over its tags
        matched: dict[str, dict[int, int]] = {}
        for name in ctx.tool_names:
            if f"<{name}>" in text:
                matched[name] = _elements_of(text, name)
        if not matched:
            return out
        opens = sorted((at, name) for name, pairs in matched.items() for at in pairs)
        pos = 0
        for at, word in opens[:_MAX_TAGS]:
            if at < pos:
                continue  # inside an element read already (a call, or one that is none)
            close = matched[word][at]
            if close == -1:
                continue  # never closed: not read (a cut-off call is left as text)
            end = close + len(word) + 3
            pos = end  # what lies inside this element is its text, call or not
            body = text[at + len(word) + 2 : close]
            read = _arguments(body) if body.strip() else ({}, False)
            if read is None:
                continue
            arguments, unescaped = read
            out.append(
                self._make(
                    text,
                    at,
                    end,
                    False,
                    name=word,
                    arguments=arguments,
                    string_values=True,
                    notes=_UNESCAPED if unescaped else (),
                )
            )
        return out


def _elements_of(text: str, word: str) -> dict[int, int]:
    """Each ``<word>`` of ``text`` with where its own ``</word>`` begins (elements of the
    same name nest), or -1 when it never closes. One pass over the tags: linear."""
    opens = occurrences(text, f"<{word}>", _MAX_TAGS)
    if not opens:
        return {}
    closes = occurrences(text, f"</{word}>", _MAX_TAGS)
    events = sorted([(p, True) for p in opens] + [(p, False) for p in closes])
    out = dict.fromkeys(opens, -1)
    stack: list[int] = []
    for p, is_open in events:
        if is_open:
            stack.append(p)
        elif stack:
            out[stack.pop()] = p
    return out


def _arguments(body: str) -> tuple[dict[str, Any], bool] | None:
    """The body's child elements as arguments (a child whose children all share one
    name is the list of their values), and whether a value escaped as XML text was
    read unescaped."""
    value = read_elements(body)
    if not isinstance(value, dict):
        return None
    listed = {k: _listed(v) for k, v in value.items()}
    if "&" not in body:
        return listed, False
    arguments = {k: _unescaped(v) for k, v in listed.items()}
    return arguments, arguments != listed


_UNESCAPED = (("invalid_json", "read a value escaped as XML text (&gt;, &amp;) unescaped"),)


#: The five XML entities, and the apostrophe's numeric spellings (``&#39;``, and
#: ``&#x27;``, which Python's ``html.escape`` writes).
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|apos|#39|#x27);")
_PLAIN = {
    "&lt;": "<",
    "&gt;": ">",
    "&amp;": "&",
    "&quot;": '"',
    "&apos;": "'",
    "&#39;": "'",
    "&#x27;": "'",
}


def _unescaped(value: Any) -> Any:
    """``value`` (text, or lists and objects of text) with each text that is escaped
    throughout as XML read back; any other text as it is."""
    if isinstance(value, str):
        if "&" not in value or "<" in value or ">" in value:
            return value
        entities = _ENTITY.findall(value)
        if not entities or len(entities) != value.count("&"):
            return value  # a bare & (``a & b``): the text is not escaped
        return _ENTITY.sub(lambda m: _PLAIN[m.group(0)], value)  # one pass: no double decoding
    if isinstance(value, list):
        return [_unescaped(v) for v in value]
    if isinstance(value, dict):
        return {k: _unescaped(v) for k, v in value.items()}
    return value


def _listed(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        (inner,) = value.values()
        if isinstance(inner, list):
            return inner
    return value
