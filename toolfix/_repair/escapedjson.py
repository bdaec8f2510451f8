"""A call's JSON body written escaped, read as the JSON it escapes.

A body pasted out of an API request or a log keeps the escaping of the string it was
in: ``{\\"url\\":\\"https://www.github.com\\",\\"max_length\\":5000}`` (gpt-oss on the
llama.cpp server, ggml-org/llama.cpp pull 15091: a harmony call in the reasoning). No
JSON reader takes ``{\\"``; json-repair reads it as keys made of the quotes' debris.

The same escaping, once more inside a valid list: llama-stack's watsonx recording of
llama-3.3-70b answered ``["{\\"type\\": \\"function\\", \\"name\\": ...}", ...]``, each call
object serialised into a string of a JSON list (:func:`object_strings`).

The class: a body that opens a JSON object or list whose first string is written
``\\"`` (:func:`~toolfix._repair.text.escaped_json_end` finds its end in the markup
families) and that, read as the inside of one JSON string, decodes to text that is
itself one whole JSON value, strictly. Nothing is guessed: both decodes are
``json.loads``; a body that needs any other repair is not read this way.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ESCAPED_NOTE", "STRINGS_NOTE", "escaped_value", "object_strings"]

ESCAPED_NOTE = 'read JSON written escaped (its quotes written \\")'
STRINGS_NOTE = "read a list of JSON objects each written as a JSON string"
#: An object or a list of objects whose first string is written escaped.
_ESCAPED_START = re.compile(r'(?:\[[ \t\r\n]*)?\{[ \t\r\n]*\\"')


def escaped_value(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` (stripped) is one JSON value written escaped, else
    ``(False, None)``. Two strict decodes, both linear."""
    if _ESCAPED_START.match(text) is None or '"' in text.replace('\\"', ""):
        return False, None  # (a bare quote: not all of it is escaped)
    try:
        inner = json.loads(f'"{text}"')
        value = json.loads(inner)
    except (ValueError, RecursionError):
        return False, None
    if not isinstance(value, (dict, list)):
        return False, None
    return True, value


def object_strings(value: Any) -> list[Any] | None:
    """The objects a list of strings holds when every item is a string that decodes,
    strictly, to a JSON object (``["{\\"a\\": 1}", ...]``); else ``None``. Only a
    list whose first item is a string starting with ``{`` is decoded at all."""
    if type(value) is not list or not value:
        return None
    first = value[0]
    if type(first) is not str or not first.lstrip().startswith("{"):
        return None
    out: list[Any] = []
    for item in value:
        if type(item) is not str:
            return None
        try:
            decoded = json.loads(item)
        except (ValueError, RecursionError):
            return None
        if not isinstance(decoded, dict):
            return None
        out.append(decoded)
    return out
