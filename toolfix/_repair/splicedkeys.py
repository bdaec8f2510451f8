"""A key written again at a break, without its colon: never read into the value before it.

Qwen3.5 in opencode (anomalyco/opencode issue 6918) wrote a write call's arguments as
``{"content": "...", "filePath": "/p/s.sh",\n "filePath"/p/s.sh"\n}``: the key written a
second time, its colon and opening quote lost. Read as a string value with bare inner
quotes (innerquotes.py), the first ``filePath`` swallows the second: the value becomes
``'/p/s.sh",\n "filePath"/p/s.sh'``, data nobody wrote. json-repair drops the broken
member instead: a key written twice passes as once (docs/design.md, rule G3).

The class: after a quote that could end a string value, a comma, a line break and a
quoted name that the text writes as a key elsewhere, or that the tool declares as a
parameter, and no colon after it (nor a comma or ``]``, what follows an array's item).
That quoted name reads as the next member's key, so no string value may hold it, and
the member it opens is broken: the text is no JSON call (promise 6: an invalid call
with its raw text beats wrong data).

One regex pass over a text already known broken (strict JSON never gets here).
"""

from __future__ import annotations

import re
from collections.abc import Collection

__all__ = ["spliced_key"]

_MAX_KEY = 64
#: A name written as a key: a quoted run followed by a colon.
_KEY = re.compile(r'"([^"\\\n]{1,' + str(_MAX_KEY) + r'})"[ \t\r\n]*:')
#: A value's closing quote, a comma, a line break, then a quoted name with no colon after
#: (nor a comma or ``]``: an array's next item).
_SPLICE = re.compile(
    r'"[ \t]*,[ \t]*\r?\n[ \t\r\n]*"([^"\\\n]{1,' + str(_MAX_KEY) + r'})"(?![ \t\r\n]*[:,\]])'
)


def spliced_key(text: str, declared: Collection[str] = ()) -> str | None:
    """The first name in the broken JSON ``text`` written at a member's break as a key
    without its colon (a key the text writes elsewhere with one, or a ``declared``
    parameter), or ``None``."""
    if "\n" not in text:
        return None
    keys: set[str] | None = None
    for m in _SPLICE.finditer(text):
        name = m.group(1)
        if name in declared:
            return name
        if keys is None:
            keys = {k.group(1) for k in _KEY.finditer(text)}
        if name in keys:
            return name
    return None
