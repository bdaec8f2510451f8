"""Tags broken by a terminal's line wrap.

A CLI agent prints the model's text wrapped at the terminal's width and indents each
continuation line; a user who copies it from the terminal gets a line break and the
indent inside whatever crossed the edge, tags included (iFlow CLI and GLM-4.7,
iflow-cli issue 283)::

    <arg_key>path</arg_key><arg_
      value>unity_test/functions.md</arg_value>

A tag spelled with one such break strictly inside it (``<arg_\\n  value>``) can be
nothing but that tag: no grammar writes a line break inside a tag's word. A reader
that finds one where it expects the tag reads it as the tag; one that finds one inside
a value knows the value's text is not what the model wrote there, and reads no value
from it (a tag's broken spelling is never data).
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["breaks_a_tag", "wrapped_at"]

#: The break a terminal writes: a newline, then the continuation line's indent.
_BREAK = r"\r?\n[ \t]*"


@cache
def _pattern(tags: tuple[str, ...]) -> re.Pattern[str]:
    """Each of ``tags`` with one break after each of its characters but the last."""
    alts = [re.escape(t[:i]) + _BREAK + re.escape(t[i:]) for t in tags for i in range(1, len(t))]
    return re.compile("|".join(alts))


def wrapped_at(text: str, p: int, tag: str) -> int:
    """Index just past ``tag`` written at ``p`` with one line break inside it, else -1."""
    if len(tag) < 2:
        return -1
    m = _pattern((tag,)).match(text, p)
    return -1 if m is None else m.end()


def breaks_a_tag(value: str, tags: tuple[str, ...]) -> bool:
    """Does ``value`` hold one of ``tags`` broken by a line break? (Only a value with a
    newline is searched.)"""
    if "\n" not in value:
        return False
    return _pattern(tuple(t for t in tags if len(t) >= 2)).search(value) is not None
