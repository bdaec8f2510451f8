"""Records of calls already made, written back as text (issue 28's negative corpus).

Clients that replay a conversation's past calls to a model as text wrap each one in a
labelled record: ds2api writes ``[TOOL_CALL_HISTORY]`` (``status: already_called``,
``function.name: …``, ``function.arguments: {…}``) up to ``[/TOOL_CALL_HISTORY]``, and
the result as ``[TOOL_RESULT_HISTORY]``; Memoh wrote ``[Previous assistant tool use]``
over ``Tool: exec`` and ``Input: {…}``. Models imitate the records they were shown and
write them back as their message: a record of a call made before, not a call. Sources
(each independent): CJackHwang/ds2api#77 (DeepSeek's web chat, the spent
``fresh6cn-ds2api-77-deepseek-web-echoes-tool-history-records``) and felinics/Memoh#446
("the model … started emitting the new [Previous assistant tool use] format in its
visible response": ``prec7-memoh-446-previous-tool-use-record``).

A record opens with a bracketed label of at most five words that says it holds a past
call: a word of a call (``tool``, ``call``, ``function``, ``action``) and a word of the
past (``history``, ``previous``, ``prior``, ``earlier``, ``past``) as its last word, or
as its first word when the last names what the record holds (``use``, ``call``,
``result``, ``output``: not a sentence such as ``[Previous tool call failed]``), written
with ``_``, ``-`` or blanks between the words. Its span runs from the label to the record's
closer (the same label with a ``/``), else to the end of its block (a blank line or a
fence line, past the line after the label, which may open a fence), else to the end of
the text. It is decided by what precedes the call (the
label), so a stream and a whole text agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .rendered import rendered_spans

__all__ = ["history_spans"]

Span = tuple[int, int]

#: A bracketed label of at most 60 characters (read per label: :func:`_names_past_call`).
_LABEL_RE = re.compile(r"\[([A-Za-z][\w \t-]{2,58}[A-Za-z])\]")
#: The words of a label that say it is of the past, and that say it holds a call.
_PAST = frozenset(("history", "previous", "prior", "earlier", "past"))
_CALL = frozenset(("tool", "call", "function", "action", "tools", "calls", "functions"))
#: The last word of a label that opens with a word of the past: it names the record
#: (``Previous assistant tool use``), not a sentence (``[Previous tool call failed]``).
_RECORD_ENDS = frozenset(("use", "uses", "call", "calls", "invocation", "result", "output"))
#: The most characters a label holds between its brackets.
_LABEL_CHARS = 60
#: The most words a label holds.
_LABEL_WORDS = 5
#: Where a record without a closer ends: a blank line, or a fence line.
_BLOCK_END_RE = re.compile(r"\n[ \t]*\n|\n[ \t]*(?:`{3,}|~{3,})")
#: A label opening with a word of the past (``[Previous``, ``[PRIOR``...), found in one
#: pass: its literal ``[`` lets the search skip at ``str.find`` speed.
_OPENING_RE = re.compile(r"\[(?i:previous|prior|earlier|past)")
#: A label closing with one, as written (each found with ``str.find``, its ``[`` then
#: looked for before it).
_CLOSING_HINTS = ("HISTORY]", "History]", "history]")


def history_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """Sorted spans of the records of past calls in ``text``: each from its label to
    its closer or the end of its block, and a rendered conversation from its first user
    turn on (:mod:`.rendered`). ``has`` answers ``marker in text`` (the scanner's
    indexed test for a long text)."""
    test = text.__contains__ if has is None else has
    rendered = rendered_spans(text, test)
    if not test("["):
        return rendered
    spans = _record_spans(text, test)
    if rendered:  # (the records inside the rendered conversation are in its span)
        spans = [s for s in spans if s[0] < rendered[0][0]] + rendered
    return spans


def _record_spans(text: str, test: Callable[[str], bool]) -> list[Span]:
    """Sorted spans of the labelled records of past calls (:func:`history_spans`)."""
    spans: list[Span] = []
    unclosed: set[str] = set()  # (labels whose closer is not in the rest of the text)
    for m in _labels(text, test):
        if spans and m.start() < spans[-1][1]:
            continue  # (a label inside a record already found)
        closer = -1 if m.group(1) in unclosed else text.find(f"[/{m.group(1)}]", m.end())
        if closer == -1:
            unclosed.add(m.group(1))
            first = text.find("\n", m.end() + 1)  # (its first line may open a fence)
            block = None if first == -1 else _BLOCK_END_RE.search(text, first)
            closer = len(text) if block is None else block.start()
        spans.append((m.start(), closer))
    return spans


def _labels(text: str, test: Callable[[str], bool]) -> list[re.Match[str]]:
    """The past-call labels of ``text``, in order: the ``[`` of each opening word of the
    past (one search), and of each closing one (``str.find``, asked of ``test`` first),
    the label matched there (no pass of a general regex over the whole text)."""
    starts = [m.start() for m in _OPENING_RE.finditer(text)]
    if test("ISTORY]") or test("istory]"):
        for hint in _CLOSING_HINTS:
            k = text.find(hint)
            while k != -1:
                starts.append(text.rfind("[", max(0, k - _LABEL_CHARS), k))
                k = text.find(hint, k + 1)
    found: dict[int, re.Match[str]] = {}
    for start in starts:
        m = None if start == -1 else _LABEL_RE.match(text, start)
        if m is not None and _names_past_call(m.group(1)):
            found[start] = m
    return [found[k] for k in sorted(found)]


def _names_past_call(label: str) -> bool:
    """Is ``label`` (at most :data:`_LABEL_WORDS` words, one of them a word of a call) a
    record's: ending with a word of the past (``TOOL_CALL_HISTORY``), or opening with one
    and ending with what the record holds (``Previous assistant tool use``)?"""
    words = re.split(r"[\s_-]+", label.lower())
    if len(words) > _LABEL_WORDS or _CALL.isdisjoint(words):
        return False
    return words[-1] in _PAST or (words[0] in _PAST and words[-1] in _RECORD_ENDS)
