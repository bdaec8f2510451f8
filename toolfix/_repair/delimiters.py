"""Delimiters a model invented around ``name{json}``: skipped, never read as grammar.

A model that has lost its call tokens sometimes writes an offered tool's name glued to a
JSON object of that tool's parameters, and sets the pair off from prose with delimiters
no family declares: a glyph between the name and its object (``⇬get_weather⇬{...}⇬``),
a template's section tags around them (``{{#tool_call}}get_weather{...}{{/tool_call}}``),
doubled brackets (``[[name]]{...}``, ``{{name}}{{...}}``), a garbled token glued in front
(``Lie:default_api:mandatory_tool{...}``: bayesimpact/bayes-platform PR 731). The
schema-anchored reader (:mod:`.anchored`) reads the name where it is placed by structure
and the object's keys as the tool's declared parameters; this module holds the
spellings of such delimiters it needs told apart from the name and the arguments:

- **a symbol run that starts the name's line** (:func:`glyph_led`,
  :func:`lead_glyphs_end`): ``⇬get_weather``. The line starts the call, and the stream
  holds from there as from a line that starts with a name
  (:func:`~toolfix._repair.nametable.name_line_start`), so a stream never sends what
  ``repair()`` takes as a call;

- **a symbol run between the name and its object** (:func:`past_glyphs`): one to
  :data:`_MAX_GLYPHS` non-ASCII symbol characters (Unicode categories ``So``, ``Sm``,
  ``Sk``: ``⇬``, ``→``, ``✦``), blanks around them, then the ``{``. ASCII punctuation is
  left to the reader's own noise rules (``=``, ``:`` and ``(`` are syntax there);
- **braces that belong to the delimiters, not to the arguments' object**
  (:func:`brace_depth`): a delimiter after the last value that opens braces
  (``}{{/tool_call}}``) is no object opened around the arguments and never closed
  (which the reader takes as a cut: promise 9), and the ``}}`` that close a delimiter
  written before the name (``{{name}}{{"city": …``) close nothing the arguments opened,
  so a cut object after them (``{{name}}{{"city": "x"``) is still seen open;
- **what closes the call** (:func:`past_closing`): closing section tags and symbol
  runs right after the call's closers go with the call when text follows on its line.

Sources: deepseek-v3.1:671b on Ollama Cloud in adityonugrohoid/ollama-tool-calling-research
(``{{#tool_call}}…{{/tool_call}}``, ``⇬…⇬``, ``{{name}}{{…}}``), bayes-platform PR 731
(a garbled word glued to ``default_api:name{…}``), openclaw/openclaw issue 66178
(``[name]`` then the object).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["brace_depth", "glyph_led", "lead_glyphs_end", "past_closing", "past_glyphs"]

#: The longest symbol run taken as a delimiter between a name and its object.
_MAX_GLYPHS = 4
#: Unicode categories of the symbols a delimiter run may hold.
_SYMBOLS = frozenset({"So", "Sm", "Sk"})
#: A template's closing section tag (``{{/tool_call}}``): what a model that writes its
#: call as a template section closes it with.
_SECTION_CLOSE = re.compile(r"\{\{/[^{}\s]{1,32}\}\}")
#: The most delimiters taken after one call.
_MAX_CLOSING = 4


def _glyph(ch: str) -> bool:
    return ord(ch) > 0x7F and unicodedata.category(ch) in _SYMBOLS


def past_glyphs(text: str, pos: int, stop: int) -> int:
    """Where the object after a name at ``pos`` opens, past a run of invented symbol
    delimiters (blanks around it allowed, on the name's line): the ``{``'s index when
    ``text[pos:]`` is such a run then ``{``; else ``pos`` unchanged."""
    i = pos
    while i < stop and text[i] in " \t":
        i += 1
    run = i
    while i < stop and i - run < _MAX_GLYPHS and _glyph(text[i]):
        i += 1
    if i == run:
        return pos
    while i < stop and text[i] in " \t":
        i += 1
    return i if text.startswith("{", i) and i < stop else pos


def brace_depth(text: str, start: int, end: int, depth: int, *, more: bool) -> int:
    """The depth of braces opened around the arguments after ``text[start:end]`` (a
    run of markup between arguments), from ``depth`` before it. A ``}`` with none open
    closes a delimiter written before the name (``{{name}}{{…``), not the arguments'
    object, so the depth never falls below zero. ``more``: an argument follows the
    run; when none does, the run is what follows the last value, and a ``{`` in it
    opens a delimiter (``}{{/tool_call}}``), not the arguments' object: the run counts
    up to its first ``{``."""
    if not more:
        first = text.find("{", start, end)
        end = end if first == -1 else first
    for k in range(start, end):  # (the run was skipped anyway: one more look at it)
        ch = text[k]
        if ch == "{":
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
    return depth


def past_closing(text: str, pos: int, stop: int) -> int:
    """``pos`` (the end of a call's closers) moved past the invented delimiters that
    close the call: template closing sections (``{{/tool_call}}``) and symbol runs
    (``⇬``), at most :data:`_MAX_CLOSING` of them, so the text left after the call
    does not start with them."""
    for _ in range(_MAX_CLOSING):
        m = _SECTION_CLOSE.match(text, pos, stop)
        if m is not None:
            pos = m.end()
            continue
        run = pos
        while pos < stop and pos - run < _MAX_GLYPHS and _glyph(text[pos]):
            pos += 1
        if pos == run:
            break
    return pos


def lead_glyphs_end(text: str, pos: int, stop: int) -> int:
    """``pos`` (a line's start) moved past a run of at most :data:`_MAX_GLYPHS` invented
    symbol delimiters glued to what follows (``⇬get_weather``); ``pos`` when none."""
    i = pos
    while i < stop and i - pos < _MAX_GLYPHS and _glyph(text[i]):
        i += 1
    return i


def glyph_led(text: str, start: int) -> int:
    """Where the line starts when the name at ``start`` is glued to a symbol run that
    starts its line (``⇬get_weather``): the run is the call's delimiter, the line starts
    the call (the stream holds there too:
    :func:`~toolfix._repair.nametable.name_line_start`); -1 when it is not."""
    i = start
    while i > 0 and start - i < _MAX_GLYPHS and _glyph(text[i - 1]):
        i -= 1
    return i if i < start and (i == 0 or text[i - 1] == "\n") else -1
