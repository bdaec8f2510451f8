"""Template slots: a value that says what should go in its place, not a value.

A model that does not know an argument (it asked the user, or shows how a call would
look) writes a slot where the value goes, and a reporter who quotes a reply does the same
for a value they leave out. The slot is a short phrase in a wrapper a reader is meant to
replace, and it names the parameter or says it is a placeholder:

- **wrapped phrases**, ``<…>``, ``[…]``, ``{…}``, ``{{…}}``, ``${…}`` or ``**…**``
  around two words or more (snake, kebab, camel case or blanks) that hold every word of
  the parameter's name or a placeholder word (:data:`_SLOT_WORDS`):
  ``"city": "<specific_city>"`` (smollm3 under "if this query requires a tool call,
  here's how you can proceed:", MikeVeerman/tool-calling-benchmark's recorded runs, which
  hold ``<CITY_NAME>``, ``<City Name>``, ``[MEETING_TIME]``, ``[Insert Date & Time
  Here]``, ``<your_pattern>`` from other models too), ``"reason":
  "**insert_any_reason_here**"`` (run-llama/llama_index#19187, a reporter's placeholder);
- **a bracketed placeholder phrase inside a short value** (``<…>``, ``[…]``, ``{{…}}``,
  ``${…}`` holding a placeholder word): ``"time": "next Thursday at [specific time]"``
  (lfm2.5-thinking in chimera-defi/Etc-mono-repo's benchmark cache, after "Let me know
  the title and time!"), the same slot words as the whole-value spellings above;
- **bare snake or kebab phrases** that open with ``your``/``insert`` and end with
  ``here``, or hold the word ``placeholder``: ``"city": "your_city_here"`` (phi4-mini in
  the same benchmark: "Replace `your_city_here` with the actual city name").

One word is data (``<Enter>`` for a key to press, ``<div>``, a generic ``<T>``; a slot
that IS the parameter's name is :func:`~toolfix._repair.elision.names_own_slot`'s), and
so is a bare phrase without both marks: BFCL's ``simple_python_106`` really asks for the
dataset ``your_dataset_name``. The gate refuses a call with a slot as it refuses an
elision mark (rule G5): an invalid call with its raw text, for the LLM fixer, never a
call made with the slot as its argument, and never a text silently dropped.
"""

from __future__ import annotations

import re

__all__ = ["template_slot"]

#: A wrapped phrase: the opener, then words (letters, digits, ``_``, ``-``, ``&``,
#: blanks), then the closer that matches it (checked by :data:`_CLOSERS`).
_WRAPPED = re.compile(
    r"(<|\{\{|\{|\[|\$\{|\*\*)[ \t]*([A-Za-z][\w &-]{0,62}?)[ \t]*(>|\}\}|\}|\]|\*\*)"
)
_CLOSERS = {"<": ">", "{{": "}}", "{": "}", "[": "]", "${": "}", "**": "**"}
#: A bare snake or kebab phrase (no blanks).
_BARE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+){2,7}")
#: Where a phrase splits into words: separators, and a lower-to-upper case change.
_SPLIT = re.compile(r"[\s_&-]+|(?<=[a-z0-9])(?=[A-Z])")
#: Words that say the phrase is a placeholder (lower case).
_SLOT_WORDS = frozenset({"your", "insert", "placeholder", "specific", "replace"})
#: The shortest parameter name a phrase is read for, its separators aside.
_NAME_CHARS = 3
#: The longest value looked at.
_MOST = 72


def _words(phrase: str) -> list[str]:
    return [w.casefold() for w in _SPLIT.split(phrase) if w]


def _slot_words(m: re.Match[str]) -> list[str]:
    """The words of a wrapped phrase whose closer matches its opener (else none)."""
    return _words(m.group(2)) if _CLOSERS[m.group(1)] == m.group(3) else []


def _holds_slot(value: str) -> bool:
    """Does a short value hold a bracketed placeholder phrase among other words
    (``"next Thursday at [specific time]"``)? Emphasis and single braces are left out
    (``"check **your order**"`` is markup), and so is a link's text (``[your account](…)``)."""
    for m in _WRAPPED.finditer(value):
        if m.group(1) in ("**", "{") or value.startswith("(", m.end()):
            continue
        words = _slot_words(m)
        if len(words) >= 2 and not _SLOT_WORDS.isdisjoint(words):
            return True
    return False


def template_slot(key: str, value: str) -> bool:
    """Is ``value``, the value of the parameter ``key``, a template slot: a wrapped
    phrase of two words or more naming ``key`` or a placeholder, a short value holding
    a bracketed placeholder phrase, or a bare ``your_…_here`` / ``…placeholder…``
    phrase (the module docs)?"""
    if len(value) > _MOST or len(value) < 5:
        return False
    m = _WRAPPED.fullmatch(value) if value[0] in "<{[$*" else None
    if m is not None and len(words := _slot_words(m)) >= 2:
        if not _SLOT_WORDS.isdisjoint(words):
            return True
        own = _words(key)
        return len("".join(own)) >= _NAME_CHARS and set(own) <= set(words)
    if _holds_slot(value):
        return True
    if _BARE.fullmatch(value) is None:
        return False
    words = _words(value)
    return "placeholder" in words or (words[0] in ("your", "insert") and words[-1] == "here")
