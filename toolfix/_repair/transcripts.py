"""Calls displayed in a session transcript, not made (issue 28's negative corpus).

An agent's session pasted or echoed as the message shows the calls the client already
ran: each one is a record of the past, with its result or the user's turn around it.
Two classes, each from two public sources or more (``benchmarks/corpora/
prose_negatives.jsonl`` ids ``prec6-``, the spent ``fresh5`` split):

- **answered**: a call displayed and answered by its result, a line right after it that
  labels the tool's result (``Observation:``, ``Result:``, ``Tool result:``, ``Output:``,
  ``Response:``, Claude Code's ``⎿``), in the same block of lines: a ReAct transcript
  (lkim0402.github.io, bsamud/learn-ai-engineering), Claude Code's ``● Bash(…)`` over
  ``⎿  (No content)`` (anthropics/claude-code#18856). The call's block (the lines above
  the label, up to a blank line or an earlier result) is the span (:func:`result_spans`).
- **turn-framed**: the call stands between a user's turn and the agent's prose after it,
  in a pasted session: a user turn is a line opened by a chat prompt (``you>``,
  ``user>``, ``User:``, ``Human:``, ``You:``), or the text's first line opened by a
  shell or quote prompt (``$ whet``, ``> yeah read it…``: simonw/llm#1095, the whet
  README's demo on docs.rs). The span runs from the end of the first user turn to the
  start of the last prose line (:func:`turn_spans`).

A conversation rendered in a chat template's markup (a user's turn before the call) is
read by :mod:`.rendered`, through :mod:`.history`: decided by what precedes the call.
The classes here are decided by what follows the call, so they refuse only calls that wait for the
end of a stream: a call holding a family's closer may leave a stream at it
(``textscan._shown``), and the schema-anchored reader reads the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["labels_result", "result_spans", "shown_spans", "turn_spans"]

Span = tuple[int, int]

#: A line that labels a tool's result, right after the call it answers: a ReAct
#: observation, a result or output label (``Result:``, ``[tool result]``), Claude Code's
#: ``⎿``, or the Chinese "returned result" (``返回结果：``, ``// 返回结果``: a skill's
#: examples file on skill.seembox.com and an MCP demo page on demoos.fun, h9cn's
#: ``fresh9cn-seembox-…`` and ``fresh9cn-demoos-…``), alone on its line (read per line).
_RESULT_RE = re.compile(
    r"^[ \t]*(?:[-*\u2022][ \t]*)?(?:"
    r"(?:\[[ \t]*)?(?:tool[ _]?|function[ _]?)?(?:observation|results?|output|response"
    r"|returned)(?:[ \t]*\d{1,3})?(?:[ \t]*\]|[ \t]*:)"
    r"|\u23bf"
    r"|(?://[ \t]*)?\u8fd4\u56de\u7ed3\u679c[ \t]*[:\uff1a]?[ \t]*$)",
    re.MULTILINE | re.IGNORECASE,
)
#: What every result label holds (substring tests first; a label with a number before
#: its ``:`` is an observation's: ``Observation 1:``).
_RESULT_HINTS = (
    "bservation", "BSERVATION", "esult:", "esults:", "esult]", "ESULT", "utput:", "utput]",
    "UTPUT", "esponse:", "esponse]", "ESPONSE", "eturned:", "ETURNED", "\u23bf",
    "\u8fd4\u56de\u7ed3\u679c",
)  # fmt: skip
#: How many lines above a result label its call's block is read.
_BLOCK_LINES = 24


def shown_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """Sorted spans of calls displayed in a transcript (:func:`result_spans`,
    :func:`turn_spans`), each after asking ``has`` (``marker in text``; the scanner's
    indexed test for a long text) for the hints it needs (most texts hold none)."""
    spans = result_spans(text, has) + turn_spans(text, has)
    spans.sort()
    return spans


def result_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """Sorted spans of the blocks answered by a result label: for each label line, the
    lines above it up to a blank line (the blank lines right above it skipped), an
    earlier label or :data:`_BLOCK_LINES` lines. ``has`` as for :func:`shown_spans`."""
    if not any(map(text.__contains__ if has is None else has, _RESULT_HINTS)):
        return []
    spans: list[Span] = []
    floor = 0
    for m in _RESULT_RE.finditer(text):
        start = _block_above(text, m.start(), floor)
        if start < m.start():
            spans.append((start, m.start()))
        end = text.find("\n", m.end())
        floor = len(text) if end == -1 else end + 1
    return spans


def labels_result(line: str) -> bool:
    """Does ``line`` (one line) open with a label of a tool's result (``Observation:``,
    ``Result:``, ``⎿``)?"""
    return _RESULT_RE.match(line) is not None


def _block_above(text: str, label: int, floor: int) -> int:
    """Where the block of lines right above the line at ``label`` starts: the blank
    lines right above it skipped, then up to a blank line, ``floor`` or
    :data:`_BLOCK_LINES` lines; ``label`` when there is none."""
    start = label
    eol = label - 1  # (the line break that ends the line above)
    skipping = True
    for _ in range(_BLOCK_LINES):
        if eol < floor:
            break
        bol = max(floor, text.rfind("\n", floor, eol) + 1)
        if text[bol:eol].strip():
            skipping = False
            start = bol
        elif not skipping:
            break
        eol = bol - 1
    return start


#: A user's turn opening a line: a chat prompt (``you>``, ``User:``), read per line.
_TURN_RE = re.compile(
    r"^[ \t]*(?:\*\*)?(?:you|user|human|me)(?:\*\*)?[ \t]*(?:>|:(?:\*\*)?)[ \t]*\S",
    re.MULTILINE | re.IGNORECASE,
)
#: What a user's turn holds (substring tests first, lower and capitalised).
_TURN_HINTS = (
    "ou>", "ser>", "uman>", "ou:", "ser:", "uman:", "OU>", "SER>", "OU:", "SER:", "UMAN:",
    "ou**:", "ser**:",
)  # fmt: skip
#: The text's first line opened by a shell or quote prompt (``$ whet``, ``> yeah…``).
_FIRST_PROMPT_RE = re.compile(r"\A\s*(?:\$|>|\u276f|%)[ \t]+\S")
#: A line of prose: a word, then at least two more, and no markup to open a call.
_PROSE_RE = re.compile(
    r"^[ \t]*[A-Z][^\s{}\[\]<>()=]*(?:[ \t]+[^\s{}\[\]<>()=]+){2,}[ \t]*$", re.MULTILINE
)
#: How far back from the end the last prose line is looked for.
_TAIL_CHARS = 4000


def turn_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """The span of a turn-framed transcript: from the end of the first user turn (a
    chat prompt opening a line, or a shell or quote prompt opening the text) to the
    start of the last line of prose after it; empty when there is none. ``has`` as for
    :func:`shown_spans`."""
    turn = _FIRST_PROMPT_RE.match(text)
    if turn is None and any(map(text.__contains__ if has is None else has, _TURN_HINTS)):
        turn = _TURN_RE.search(text)
    if turn is None:
        return []
    eol = text.find("\n", turn.end())
    if eol == -1:
        return []
    starts = [m.start() for m in _PROSE_RE.finditer(text, max(eol, len(text) - _TAIL_CHARS))]
    return [(eol, starts[-1])] if starts else []
