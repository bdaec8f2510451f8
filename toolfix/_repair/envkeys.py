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
``,"name",`` is).

Two more damaged closings of an arguments key, each followed by the arguments whole:

- the key closed by the other quote: ``"parameters':{'city':'New York'}}`` (llama3.2:3b
  in llama-stack's recordings): the key is written back
  ``"key":`` and the value read as the linear repairs read single quotes
  (quickfix.py);
- the key closed by an escaped quote, the rest written escaped as if inside a string:
  ``"parameters\\":{\\"timezone\\":\\"UTC\\"}}``: the key is written back and
  ``\\"`` and ``\\\\`` after it unescaped once.

Only broken text is mended (the caller has tried it as JSON), and only when the value
after each mended key then reads whole (stray text after it allowed: the object around
it is judged as any other, a missing closer of it is a cut): a scan that cut the span
inside a value (``"parameters {"a": "]0"}}`` cut at the ``]``) must not be completed
into a call with a value the model did not write.
"""

from __future__ import annotations

import json
import re

from .quickfix import quick_fix

__all__ = ["closes_mended", "mend_envelope_keys"]

_ENVELOPE = r"(?:name|arguments|parameters|function)"

#: A damaged envelope key: its opening quote, the key, then junk where ``":`` belongs
#: (blanks, ``=``, ``>``, ``(``; the other quote or an escaped quote before the colon),
#: and the value's opener ahead. One pass, no nesting.
_DAMAGED = re.compile(
    r"\"(" + _ENVELOPE + r")(?:([ \t]*[=>(][ \t]*|[ \t]+)(?=[{\"])|(\"[ \t]*,[ \t]*)(?=\")"
    r"|('[ \t]*:[ \t]*)(?=[{'\"])|(\\\"[ \t]*:[ \t]*)(?=\{))"
)
# (the pattern starts with a literal quote, which the regex engine finds fast; that the
# key stands where a key does, after ``{`` or ``,`` and blanks, is read back from the
# match: a pattern that starts with a lookbehind is tried at every position of a span)

#: An escaped quote or backslash (the rest of a key closed by ``\"``: written escaped).
_ESCAPED = re.compile(r"\\([\"\\])")


def mend_envelope_keys(text: str) -> str:
    """``text`` with each damaged envelope key written ``"key":`` (see the module);
    ``text`` itself when there is none."""
    if '"' not in text:
        return text
    out: list[str] = []
    done = 0
    whole = True  # (only ``{"name",`` mended: the whole text must read once mended)
    for m in _DAMAGED.finditer(text):
        if m.start() < done:
            continue  # (inside the unescaped rest of an earlier key)
        k = m.start()
        while k > done and text[k - 1].isspace():  # (each blank is passed once)
            k -= 1
        if k == 0 or text[k - 1] not in ("{" if m.group(3) else "{,"):
            continue
        rest = text[m.end() :]
        if m.group(5):  # (closed by an escaped quote: the rest was written escaped)
            rest = _ESCAPED.sub(r"\1", rest)
        if m.group(3) is None:
            if not _reads_whole(rest):
                return text
            whole = False
        out += (text[done : m.start()], f'"{m.group(1)}":')
        if m.group(5):
            out.append(rest)
            done = len(text)
            break
        done = m.end()
    if not out:
        return text
    mended = "".join(out) + text[done:]
    if whole:
        try:
            _DECODER.raw_decode(mended)
        except (ValueError, RecursionError):
            return text
    return mended


def closes_mended(src: str) -> bool:
    """Does ``src``, which a bracket scan found unclosed (the other quote or an escaped
    quote closing an arguments key leaves a string open to the end), read as one whole
    JSON value once its damaged envelope keys are mended? Then the key, not a cut, left
    it open."""
    mended = mend_envelope_keys(src)
    return mended is not src and _reads_whole(mended)


def _reads_whole(value: str) -> bool:
    """Does ``value`` start with one whole JSON value that ends where a member does
    (then a ``,``, a closer or the end of the text), as written or once the linear
    repairs (quickfix.py) rewrite its quotes, with nothing added to close it? (A string
    followed by more text, ``"{"query": ...``, is a quote out of place, not a value.)"""
    try:
        end = _DECODER.raw_decode(value)[1]
    except (ValueError, RecursionError):
        pass
    else:
        return _member_ends(value, end)
    quick = quick_fix(value, cut=False)
    if quick.truncated:
        return False
    try:
        end = _DECODER.raw_decode(quick.text)[1]
    except (ValueError, RecursionError):
        return False
    return _member_ends(quick.text, end)


def _member_ends(text: str, end: int) -> bool:
    """Is ``text[end:]`` blank, or does it go on with a ``,`` or a closer?"""
    rest = text[end : end + 64].lstrip()
    return not rest or rest[0] in ",}]"


_DECODER = json.JSONDecoder()
