"""Replace notes: a value the text right after its call asks the reader to replace.

A model that does not know an argument may still write the call, with a stand-in
value, then tell the user to put the real one in: ``{"city": "CityName"}`` then
``Replace "CityName" with the actual name of the city`` (smollm3 and phi4-mini in
MikeVeerman/tool-calling-benchmark's recorded runs), ``store_location='your_location'``
then ``Replace 'your_location' with the actual location`` (deepseek-coder-6.7b in
HuanzhiMao/BFCL-Result's 2024-08-11 dump), ``"processFunction":
"yourJavaScriptFunction"`` then ``Note: Replace "yourJavaScriptFunction" with your
actual JavaScript function`` (Hermes-2-Theta-Llama-3-8B, same dump). The call is the
model's template, not its call: it becomes an invalid call with its raw text (the
same kind as a slot, :mod:`~toolfix._repair.slots`), never a call made with the
stand-in, never a text silently dropped.

A value is named by a note when, within :data:`_WINDOW` characters after the call's
end, it is written (quoted or bare, as a whole word) in a sentence that asks to replace
it (``replace``, ``substitute``, ``swap``, ``change`` before it) with the user's own or
actual thing (``with your actual ...``, ``with the actual ...``, ``with a valid ...``),
or in ``将 X 替换为`` / ``把 X 换成``. ``You can replace London with any other city``
offers another value: the call stays. Only the text after the call is read; a note before
the call, or one naming a different string, leaves the call as written.

Only a value shaped like a stand-in is read this way (:func:`may_stand_in`: one
identifier-like word that says ``your`` or holds its parameter's name, ``CityName`` for
``city``), and a stream never releases a call holding such a value before its end
(``toolfix/_stream/core.py``), so a note arriving later cannot take back a call a stream
has sent (promise 12).
"""

from __future__ import annotations

import re
from typing import Any

from .._messages import CallPart, FailureKind, ToolCallPart, invalid_call

__all__ = ["REPLACED", "may_stand_in", "replaced", "replaced_key"]


#: The error a call whose value a note asks to replace carries.
REPLACED = (
    "a value is a stand-in the text after the call asks to replace: the arguments are not known"
)
#: How far after the call's end a note is looked for.
_WINDOW = 400
#: The shortest and longest value read.
_FEWEST, _MOST = 2, 72
#: After the value: what it is to be replaced with, the user's own or actual thing
#: (``with your actual ...``, ``with the actual ...``); ``with any other city`` is not
#: a stand-in's note, it offers another value.
_WITH_YOURS = re.compile(
    r"[\"'`”’]?\s*(?:with|by|for)\s+(?:[\w'’-]+\s+){0,2}?"
    r"(?:your|actual|real|own|correct|desired|appropriate|valid)\b",
    re.IGNORECASE,
)
#: The verb that asks for the replacement, in the value's sentence before it.
_VERB = re.compile(r"\b(?:replac|substitut|swap|chang)", re.IGNORECASE)
#: How far back the value's sentence is read for the verb.
_LOOKBACK = 60


#: One identifier-like word: the only shape a stand-in is read in.
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def may_stand_in(key: str, value: object) -> bool:
    """Is ``value`` shaped like a stand-in for ``key``: one identifier-like word of
    :data:`_FEWEST` to :data:`_MOST` characters that says ``your`` or holds the key's
    name of 3 letters or more (``your_location``, ``yourJavaScriptFunction``,
    ``CityName`` for ``city``)? A stream holds a call with such a value to its end (a
    note may still come)."""
    if not isinstance(value, str) or not _FEWEST <= len(value) <= _MOST:
        return False
    if _WORD.fullmatch(value) is None:
        return False
    folded, name = value.casefold().replace("_", ""), key.casefold().replace("_", "")
    return "your" in folded or (len(name) >= 3 and name in folded)


def _sentence_before(note: str, i: int) -> str:
    """The text of ``note`` before ``i`` in the same sentence (at most :data:`_LOOKBACK`)."""
    back = note[max(0, i - _LOOKBACK) : i]
    cut = max(back.rfind(". "), back.rfind("\n"), back.rfind("! "), back.rfind("? "))
    return back[cut + 1 :]


#: The same in Chinese: ``将 X 替换为你的实际...``.
_ZH_WITH = re.compile(r"[\"'`”’]?\s*(?:替换为|替换成|换成)")
_ZH_BEFORE = re.compile(r"[将把]\s*[\"'`“‘]?\s*$")


def _word_at(note: str, i: int, end: int) -> bool:
    """Is ``note[i:end]`` a whole word (no letter, digit or ``_`` touches it)?"""
    left = note[i - 1] if i else " "
    right = note[end] if end < len(note) else " "
    return not (left.isalnum() or left == "_" or right.isalnum() or right == "_")


def _named(note: str, value: str) -> bool:
    """Is ``value`` named in ``note`` as a stand-in to replace with the user's own?"""
    start = 0
    while (i := note.find(value, start)) >= 0:
        start = i + 1
        end = i + len(value)
        if not _word_at(note, i, end):
            continue  # part of a longer word
        if _WITH_YOURS.match(note, end) and _VERB.search(_sentence_before(note, i)):
            return True
        if _ZH_BEFORE.search(note, max(0, i - 4), i) and _ZH_WITH.match(note, end):
            return True
    return False


def replaced_key(text: str, end: int, arguments: dict[str, Any] | None) -> str | None:
    """The first key of ``arguments`` whose string value the text after ``end`` (the
    call's end in ``text``) asks to replace (the module docs), or ``None``."""
    if not arguments:
        return None
    note = text[end : end + _WINDOW]
    if not note.strip():
        return None
    if "with" not in note and "by" not in note and "for" not in note and "换" not in note:
        return None
    for key, value in arguments.items():
        if may_stand_in(key, value) and _named(note, value):
            return key
    return None


def replaced(parts: list[CallPart], text: str, start: int, end: int) -> list[CallPart]:
    """``parts``, the calls read from ``text[start:end]``, each valid call whose value
    the text after ``end`` asks to replace made an invalid call with that raw text
    (kind ``missing_required``, as a slot's: :mod:`~toolfix._repair.slots`)."""
    out: list[CallPart] = []
    for part in parts:
        if part.type != "tool_call" or not isinstance(part, ToolCallPart):
            out.append(part)
            continue
        key = replaced_key(text, end, part.arguments)
        if key is None:
            out.append(part)
            continue
        out.append(
            invalid_call(
                part.id,
                part.name,
                text[start:end],
                f"{REPLACED}: {key}",
                FailureKind.MISSING_REQUIRED,
                part.arguments,
                part.repairs,
            )
        )
    return out
