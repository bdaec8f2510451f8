"""An envelope key whose closing quote or colon is damaged: ``"parameters {...}``.

A call object's keys are the envelope's: ``name``, ``arguments``, ``parameters``,
``function``. Models write them with the closing quote and colon lost or replaced:

- ``{"name":"get_weather","parameters {"city":"Tokyo"}}``, ``"parameters={``,
  ``"parameters>{``, ``"parameters({``, ``{"name","process_data",...`` (llama3.2:3b in
  llama-stack's test recordings);
- ``{"name="edit_file", "arguments": {...}}`` (Qwen3.6 on afm, scouzi1966/maclocal-api
  issue 141).

With one quote short, a JSON repair reads the rest as a string that never closes (the
call is judged cut off) or glues the junk into a key (``'parameters {"city'``). Read by
the envelope's declared keys: such a key, at a key's place (after ``{`` or ``,``) and
followed by junk then the value's ``{`` or ``"``, is written back as ``"key":``. A
comma stands for the colon only after ``{`` (``{"name",`` is never JSON; an array's
``,"name",`` is). Only broken text is mended (the caller has tried it as JSON), and
only when the mended text then reads as one whole JSON value (stray text after it
allowed): a scan that cut the span inside a value (``"parameters {"a": "]0"}}`` cut at
the ``]``) must not be completed into a call with a value the model did not write.
"""

from __future__ import annotations

import json
import re

__all__ = ["mend_envelope_keys"]

_ENVELOPE = r"(?:name|arguments|parameters|function)"

#: A damaged envelope key: its opening quote, the key, then junk where ``":`` belongs
#: (blanks, ``=``, ``>``, ``(``), and the value's opener ahead. One pass, no nesting.
_DAMAGED = re.compile(
    r"\"(" + _ENVELOPE + r")(?:([ \t]*[=>(][ \t]*|[ \t]+)(?=[{\"])|(\"[ \t]*,[ \t]*)(?=\"))"
)
# (the pattern starts with a literal quote, which the regex engine finds fast; that the
# key stands where a key does, after ``{`` or ``,`` and blanks, is read back from the
# match: a pattern that starts with a lookbehind is tried at every position of a span)


def mend_envelope_keys(text: str) -> str:
    """``text`` with each damaged envelope key written ``"key":`` (see the module);
    ``text`` itself when there is none."""
    if '"' not in text:
        return text
    out: list[str] = []
    done = 0
    for m in _DAMAGED.finditer(text):
        k = m.start()
        while k > done and text[k - 1].isspace():  # (each blank is passed once)
            k -= 1
        if k == 0 or text[k - 1] not in ("{" if m.group(3) else "{,"):
            continue
        out += (text[done : m.start()], f'"{m.group(1)}":')
        done = m.end()
    if not out:
        return text
    mended = "".join(out) + text[done:]
    try:
        _DECODER.raw_decode(mended)
    except (ValueError, RecursionError):
        return text
    return mended


_DECODER = json.JSONDecoder()
