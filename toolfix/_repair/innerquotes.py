"""A string value whose inner quotes were not escaped, read by what ends a value.

A model that writes a file's text into a JSON string often leaves its double quotes
bare: ``"content": "<html lang="en">..."`` (qwen2.5-coder in OpenClaude,
Gitlawb/openclaude issue 287). ``json.loads`` stops at ``lang=``; json-repair guesses,
and its guess drops or trims part of the value.

In an object, a member's string value can only end where the object's grammar goes
on: a quote followed by a comma and the next key (``, "key":``), or by the object's or
an array's closer. Every other quote inside a member's value is part of the value and
is escaped. Keys and array items are left as they are (an array item's end is a comma,
and a comma inside a value is common: nothing tells the two apart). The reading is
kept only when ``json.loads`` then reads the whole text (the caller checks): a quote
wrongly taken for the end leaves the rest unreadable, and the caller moves on.

One left-to-right pass; each lookahead reads the blanks after one quote and at most
:data:`_MAX_KEY` characters of a key, so the work is linear in the text.
"""

from __future__ import annotations

import re

from .quickfix import quick_fix

__all__ = ["closes_unescaped", "escape_inner_quotes"]

_MAX_KEY = 64
#: What may follow the quote that ends a member's string value.
_VALUE_END = re.compile(
    r'[ \t\r\n]*(?:,[ \t\r\n]*"[^"\\\n]{1,' + str(_MAX_KEY) + r'}"[ \t\r\n]*:|[}\]]|\Z)'
)
#: The characters the pass stops at outside strings.
_OUTSIDE = re.compile(r'["{}\[\]:,]')


def escape_inner_quotes(text: str) -> str | None:
    """``text`` with the bare quotes inside its members' string values escaped, or
    ``None`` when it has none (nothing to try)."""
    out: list[str] = []
    stack: list[str] = []  # the open containers' openers
    after_colon = False
    pos = last = 0
    n = len(text)
    changed = False
    while True:
        m = _OUTSIDE.search(text, pos)
        if m is None:
            break
        c, i = m.group(), m.start()
        if c != '"':
            if c in "{[":
                stack.append(c)
            elif c in "}]" and stack:
                stack.pop()
            after_colon = c == ":"
            pos = i + 1
            continue
        value = after_colon and bool(stack) and stack[-1] == "{"
        j = i + 1
        while j < n:
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            if ch == '"':
                if not value or _VALUE_END.match(text, j + 1) is not None:
                    break
                out.append(text[last:j])
                out.append('\\"')
                last = j + 1
                changed = True
            j += 1
        after_colon = False
        pos = j + 1
        if pos >= n:
            break
    if not changed:
        return None
    out.append(text[last:])
    return "".join(out)


def closes_unescaped(src: str) -> bool:
    """Does ``src``, which a bracket scan found unclosed (a bare quote inside a string
    value leaves a string open to its end), close once those quotes are escaped? Then
    the quote, not a cut, left it open."""
    escaped = escape_inner_quotes(src)
    if escaped is None:
        return False
    return not quick_fix(escaped).truncated
