"""The quote pairs a value may be written between, read wherever a reader takes a quoted
value: ASCII double and single quotes, and the typographic pairs an editor, a chat client
or a model's own tokenizer writes in their place (``“…”``, ``‘…’``).

Models and the clients that display them write tag attributes and keys with typographic
quotes: ``<｜｜DSML｜｜invoke name=“get_pages”>`` (syt2/paper-chat-for-zotero issue 28),
``<parameter name=“file_glob”>`` (EKKOLearnAI/hermes-studio issue 942). A value opened
by one of these quotes ends at its own closer, never at another pair's.
"""

from __future__ import annotations

import json

#: Each opening quote with its closer.
QUOTE_PAIRS: dict[str, str] = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}


def escaped_quoted(text: str, pos: int, stop: int) -> tuple[str, int] | None:
    """The string written with its quotes escaped at ``pos`` (``\\"train\\"``: a call
    pasted out of a JSON string keeps that string's escaping, the class
    :mod:`toolfix._repair.escapedjson` reads for JSON bodies) and where it ends; ``None``
    when ``pos`` opens no such string, a bare quote or a line break comes before its
    escaped closer, or it does not decode. The end is found on the text as it decodes
    once (``\\\\\\"`` is a quote escaped inside the string, not its end); both decodes
    are ``json.loads``. Linear: one step per character."""
    if not text.startswith('\\"', pos):
        return None
    i, inner_escape = pos + 2, False
    while i + 1 < stop:
        ch = text[i]
        if ch == '"' or ch == "\n":
            return None  # (a bare quote: not all of it is escaped; a line: not one value)
        if ch != "\\":
            inner_escape, i = False, i + 1
            continue
        once = text[i + 1]  # (what ``\\X`` decodes to once: X)
        i += 2
        if inner_escape:
            inner_escape = False
        elif once == "\\":
            inner_escape = True
        elif once == '"':
            try:
                value = json.loads(json.loads(f'"{text[pos:i]}"'))
            except ValueError:
                return None
            return (value, i) if isinstance(value, str) else None
    return None
