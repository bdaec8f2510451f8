"""A catalogue of tools: a list that names each tool the model has, with an example call.

Asked "what tools do you have?", a model answers with a list introduced by a sentence
that says it has tools, and writes under each item an example of the tool's call. The
calls document the tools; none is made (issue 28's negative corpus):

- "I currently have the following tools at my disposal:\\n\\n1. Weather Check: You can
  ask me for the current weather in a specific city, like this:\\n   {"name":
  "get_weather", …}\\n\\n2. File Search: …\\n   {"name": "search_files", …}"
  (qwen2.5:1.5b in MikeVeerman/tool-calling-benchmark, prose_negatives
  ``fresh7rec-mvbench-qwen25-1b5-tool-list-with-json-examples``);
- "I can use several tools depending on your specific request:\\n\\n1. `get_weather(city:
  string)`: …" then an example call (smollm3 in the same benchmark, held out in the
  sixth round: ``fresh6rec-mvbench-smollm3-format-tutorial-example``), and the same
  kind of introduction in zed-industries/zed#41897 ("My available tools are:", MiniMax
  M2), nanbeige4.1 and bitnet ("I have access to the following tools:").

Decided by the text before the call only (a stream decides it when the call is
complete): the call is inside an item of a list (``1.``, ``2)``, ``-``, ``*``, ``•``),
written on the item's line or on the item's indented lines below it, or below it with
no blank line between; and the line that introduces the list (the nearest line above
its first item that is no item and not indented) says that the writer has tools (the
words "tools" or "functions" with "have", "access", "available", "at my disposal",
"include", "can use" …) and makes no call itself (no "I'll", "let me", "I will", "now").
A call under a list item of any other list ("1. Check the weather:", a plan of
steps after "Here is my plan:") is the model's own.

Written without bullets, one tool a line (``send_email {"to": …}``, ``note({"text":
…})``, or the name on a line and its object below it), a catalogue line is one that
holds an object, under the introduction: the line ending with ``:`` that opens its
paragraph over other tools' lines, or the paragraph above it ("Available tools:",
``## Tools``). The introductions a catalogue writes include a bare label ("Tools:",
"Available tools:", a ``## Tools`` heading), "here are my tools", "the tools I was
given", "tools you can call", "I have 2 tools" (``tests/test_catalogue_anchored.py``
draws them over the schema-anchored reader's name-then-object shapes).
"""

from __future__ import annotations

import re

__all__ = ["in_catalogue"]

#: How many lines above a call its list item, and the list's introduction, are looked for.
_ITEM_LINES = 8
_LIST_LINES = 40
#: How many characters back all of it is looked for.
_CHARS = 4000
#: A list item's opener: a number with ``.``/``)``, or a bullet, then a blank.
_ITEM_RE = re.compile(r"[ \t]{0,3}(?:\d{1,2}[.)]|[-*\u2022])[ \t]+\S")
#: An introduction that says the writer has tools (read in lower case).
_HAS_TOOLS_RE = re.compile(
    r"\b(?:tools?|functions?)\b[^\n]{0,60}?(?:\bavailable\b|\bat (?:my|your) disposal\b"
    r"|\binclude\b|\bare\s*:|\bi (?:have|can use)\b|\bsupport(?:ed)?\b)"
    r"|\b(?:have|has) (?:access to |the following |these |several |a (?:variety|number|set)"
    r" of |many |some )+[^\n]{0,30}?\b(?:tools|functions)\b"
    r"|\b(?:can|could) use (?:several|these|the following|many|some|a few)\b[^\n]{0,20}"
    r"\b(?:tools|functions)\b"
    r"|\b(?:my|the|available) (?:available )?(?:tools|functions) (?:are|include)\b"
    r"|^[#*\s]*(?:(?:my|the|available|offered) )?(?:tools|functions)[*\s]*:?[*\s]*$"
    r"|\b(?:here|these|those|below) (?:are|is)\b[^\n]{0,20}?\b(?:my|the|all|available)\b"
    r"[^\n]{0,20}?\b(?:tools|functions)\b"
    r"|\b(?:tools|functions) (?:i was given|i(?: can)? (?:call|use)|you can (?:call|use)"
    r"|(?:i|you) (?:have|get))\b"
    r"|\bi have (?:\d{1,2}|two|three|four|five|six|a few|several|some) (?:tools|functions)\b"
    r"|\b(?:can|could) (?:help|assist)(?: you)? with (?:these|the following|my)"
    r" (?:tools|functions)\b"
)
#: An introduction that makes calls itself: the model saying what it will do now.
_ACTS_RE = re.compile(
    r"\b(?:i'll|i will|i'm going to|i am going to|let me|let's|now i|i need to|i'd like to)\b"
)


def in_catalogue(text: str, start: int) -> bool:
    """Is the call at ``start`` an example under an item of a list of the tools the
    writer has (see the module)?"""
    lo = max(0, start - _CHARS)
    bol = max(lo, text.rfind("\n", lo, start) + 1)
    item = _item_above(text, lo, bol, start)
    if item is not None:
        intro = _list_intro(text, lo, item)
    elif _object_line(text, start):
        intro = _line_intro(text, lo, bol)
    else:
        return False
    return (
        intro is not None
        and _HAS_TOOLS_RE.search(intro) is not None
        and _ACTS_RE.search(intro) is None
    )


def _item_above(text: str, lo: int, bol: int, start: int) -> int | None:
    """The start of the list item line holding the call whose line starts at ``bol``:
    the call's own line, or a line above it with only indented lines (or, with no blank
    line between, any lines) in between; ``None`` when there is none."""
    if _ITEM_RE.match(text, bol) is not None and bol < start:
        return bol
    indented = text[bol : bol + 1] in (" ", "\t")
    blank = False
    eol = bol - 1
    for _ in range(_ITEM_LINES):
        if eol < lo:
            return None
        k = max(lo, text.rfind("\n", lo, eol) + 1)
        line = text[k:eol]
        if _ITEM_RE.match(line) is not None:
            return k if (indented or not blank) else None
        if not line.strip():
            blank = True
        elif line[:1] not in (" ", "\t") and (blank or indented):
            return None  # (a paragraph of its own: the item ended above it)
        eol = k - 1
    return None


def _object_line(text: str, start: int) -> bool:
    """Does the call at ``start`` hold an object on its line or the next (a tool's name
    and its argument object, as a catalogue without bullets writes it)? A signature
    line (``send_email(to: string)``) is read as it was: no object, no catalogue line."""
    eol = text.find("\n", start)
    eol = len(text) if eol == -1 else text.find("\n", eol + 1)
    return text.find("{", start, len(text) if eol == -1 else eol) != -1


def _line_intro(text: str, lo: int, bol: int) -> str | None:
    """The introduction of a catalogue written without bullets, one tool per line
    (``send_email {"to": …}`` under "Available tools:"): the line ending with ``:`` that
    opens the paragraph holding the call's line at ``bol``, over lines that are tools'
    lines too (:func:`_tool_line`, or indented), or the last line of the
    paragraph above it, past one blank line (lower case); ``None`` when neither is
    within :data:`_ITEM_LINES` lines."""
    eol = bol - 1
    blank = False
    for _ in range(_ITEM_LINES):
        if eol < lo:
            return None
        k = max(lo, text.rfind("\n", lo, eol) + 1)
        line = text[k:eol].strip()
        if not line:
            if blank:
                return None
            blank = True
        elif blank or line.endswith(":"):
            return line.lower()
        elif not _tool_line(line) and text[k : k + 1] not in (" ", "\t"):
            return None  # (a line of prose between: no tool's line)
        eol = k - 1
    return None


def _tool_line(line: str) -> bool:
    """Is the stripped ``line`` a tool's line of a catalogue: one word (its name), or a
    line holding an object or a signature (``{``, ``(``)?"""
    return "{" in line or "(" in line or len(line.split()) == 1


def _list_intro(text: str, lo: int, item: int) -> str | None:
    """The line that introduces the list holding the item at ``item`` (lower case): read
    up by paragraphs (runs of non-blank lines), past those that open with an item or an
    indented line (the list's items, with their calls' lines however those are written),
    the line before the first item of the paragraph that opens with prose, or its last
    line; ``None`` past :data:`_LIST_LINES` lines."""
    eol = item - 1
    para: list[str] = []  # (the paragraph read so far, from its last line up)
    for _ in range(_LIST_LINES):
        k = max(lo, text.rfind("\n", lo, eol) + 1) if eol >= lo else lo
        line = text[k:eol] if eol >= lo else ""
        if line.strip():
            para.append(line)
        if (not line.strip() or k <= lo) and para:
            first = para[-1]
            if _ITEM_RE.match(first) is None and first[:1] not in (" ", "\t"):
                return _before_items(para[::-1]).lower()
            para = []
        if k <= lo:
            return None
        eol = k - 1
    return None


def _before_items(lines: list[str]) -> str:
    """The line before the first item among ``lines`` (top to bottom, the first no
    item), or the last line when none is an item."""
    for i, line in enumerate(lines):
        if _ITEM_RE.match(line) is not None:
            return lines[i - 1]
    return lines[-1]
