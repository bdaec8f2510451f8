"""Cheap, linear repairs of the JSON mistakes models make most.

One left-to-right pass over the span, emitting a normalised copy:

* single-quoted strings become double-quoted (inner ``"`` escaped, ``\\'`` unescaped);
* raw newlines, tabs and other control characters inside strings are escaped;
* invalid escapes: before a letter or digit (``C:\\dir``, ``\\d+``) the backslash is
  kept as a literal backslash; before punctuation (markdown's ``\\_``, ``\\*``) it
  is dropped;
* ``True``/``False``/``None`` outside strings become ``true``/``false``/``null``;
* unquoted keys (``{city: "Paris"}``) are quoted;
* trailing commas before ``}``/``]`` are dropped;
* a missing closing quote and missing closing brackets are added at the end
  (truncation), in the right order.

The result is handed to ``json.loads``; when that still fails, the caller falls
back to json-repair (which handles more, but is slower and, on some inputs,
super-linear). Nothing here recurses, so no depth limit applies to this pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["QuickFix", "quick_fix"]

_VALID_ESCAPES = frozenset('"\\/bfnrtu')
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_IDENT = _IDENT_START | frozenset("0123456789-")
#: A double-quoted string that is already valid JSON (no raw control character, only
#: JSON escapes): copied whole at C speed instead of character by character.
_PLAIN_STRING = re.compile(r'"[^"\\\x00-\x1f]*(?:\\["\\/bfnrtu][^"\\\x00-\x1f]*)*"')
_BLANK = re.compile(r"[ \t\n\r]+")
#: Inside a string literal opened by each quote: the characters :func:`_string` decides on.
_STRING_SPECIAL = {
    '"': re.compile(r'["\\\x00-\x1f]'),
    "'": re.compile(r"['\"\\\x00-\x1f]"),
}
_BLANKS = frozenset(" \t\n\r")
#: The rest of a bare number (copied as written; json.loads judges it).
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]*")
#: The rest of an identifier (:data:`_IDENT`).
_WORD_TAIL = re.compile(r"[A-Za-z0-9_$-]*")


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class QuickFix:
    """The rewritten text and what was changed (empty ``fixes``: nothing to do)."""

    text: str
    fixes: tuple[str, ...]
    truncated: bool


class _Frame:
    """One open container: its closer, where its current member starts in the output,
    and what the scan expects next in it ("key", "colon", "value", "after", "cut",
    "after_cut")."""

    __slots__ = ("closer", "mark", "state")

    def __init__(self, closer: str, mark: int, state: str) -> None:
        self.closer = closer
        self.mark = mark
        self.state = state


def quick_fix(src: str, *, cut: bool = True) -> QuickFix:
    """Rewrite ``src`` into JSON that ``json.loads`` can read, when the damage is common.

    With ``cut=False`` (the markup around the span closed: a brace is missing, the
    output was not cut) open brackets are simply closed. With ``cut=True`` (the
    output may have stopped mid-value) only complete members survive: an object
    keeps the members whose value visibly ended (a string closed, a nested value
    closed, or a comma followed); a member cut mid-key or mid-value is dropped; a
    nested array cut off is dropped whole (a shortened list would be a guess); a
    top-level list (of calls) keeps its complete elements.
    """
    out: list[str] = []
    fixes: set[str] = set()
    frames: list[_Frame] = []  # the open containers, innermost last
    last_num = False  # the last value written was a bare number (it may have been cut)
    i = 0
    n = len(src)
    append = out.append
    plain_string = _PLAIN_STRING.match
    blank = _BLANK.match
    number = _NUMBER_TAIL.match

    # the branches go from the most frequent character class to the least
    while i < n:
        ch = src[i]
        if ch == '"':
            m = plain_string(src, i)
            if m is not None:  # a well-formed JSON string: copied as it is
                append(m.group())
                i = m.end()
                if frames:
                    top = frames[-1]
                    top.state = "colon" if top.state == "key" else "after"
                last_num = False
                continue
            i = _string(src, i, ch, out, fixes)
        elif ch == "'":
            i = _string(src, i, ch, out, fixes)
        elif ch in _BLANKS:
            m = blank(src, i)
            append(m.group())  # type: ignore[union-attr]  # ``ch`` is a blank
            i = m.end()  # type: ignore[union-attr]
            continue
        elif ch == ",":
            if frames:
                top = frames[-1]
                top.mark = len(out)
                top.state = "key" if top.closer == "}" else "value"
            append(ch)
            last_num = False
            i += 1
            continue
        elif ch == ":":
            if frames and frames[-1].state == "colon":
                frames[-1].state = "value"
            append(ch)
            i += 1
            continue
        elif ch == "{" or ch == "[":
            append(ch)
            frames.append(
                _Frame("}", len(out), "key") if ch == "{" else _Frame("]", len(out), "value")
            )
            last_num = False
            i += 1
            continue
        elif ch == "}" or ch == "]":
            _drop_trailing_comma(out, fixes)
            if frames:
                expected = frames.pop().closer
                if expected != ch:
                    fixes.add("fixed a mismatched closing bracket")
                    ch = expected
            append(ch)
            if frames:
                frames[-1].state = "after"
            last_num = False
            i += 1
            continue
        elif ch in _IDENT_START:
            i = _word(src, i, out, frames, fixes)
            last_num = False
            continue
        elif ch in "-0123456789":
            j = number(src, i + 1).end()  # type: ignore[union-attr]  # matches the empty tail
            append(src[i:j])
            if frames:
                frames[-1].state = "after"
            last_num = True
            i = j
            continue
        else:
            append(ch)
            i += 1
            continue
        # a string that needed rewriting (``_string`` wrote it)
        if i < 0:  # string ran to the end of the text
            append('"')
            fixes.add("closed a string cut off by truncation")
            if frames and frames[-1].state in ("value", "key"):
                frames[-1].state = "cut"
            return _close(out, frames, fixes, truncated=True, cut=cut)
        if frames:
            top = frames[-1]
            top.state = "colon" if top.state == "key" else "after"
        last_num = False
    if frames and last_num and frames[-1].state == "after":
        frames[-1].state = "cut"  # "n": 12 at the very end may have been 123
    return _close(out, frames, fixes, truncated=bool(frames), cut=cut)


def _drop_trailing_comma(out: list[str], fixes: set[str]) -> None:
    """Before a closer: drop a comma written after the last member."""
    j = len(out) - 1
    while j >= 0 and out[j].isspace():
        j -= 1
    if j >= 0 and out[j] == ",":
        del out[j]
        fixes.add("removed trailing commas")


def _word(src: str, i: int, out: list[str], frames: list[_Frame], fixes: set[str]) -> int:
    """An identifier at ``src[i]``: an unquoted key (quoted), a Python literal (made
    JSON), or a bare word copied as it is. Returns the index after it."""
    n = len(src)
    j = _WORD_TAIL.match(src, i + 1).end()  # type: ignore[union-attr]  # matches the empty tail
    word = src[i:j]
    k = j
    while k < n and src[k] in " \t":
        k += 1
    if k < n and src[k] == ":" and frames and frames[-1].closer == "}":
        out.append('"' + word + '"')
        fixes.add("quoted unquoted keys")
        frames[-1].state = "colon"
        return j
    lit = _LITERALS.get(word)
    if lit is not None:
        out.append(lit)
        fixes.add("converted Python literals")
        if frames:
            frames[-1].state = "after"
    else:
        out.append(word)
        if word in ("true", "false", "null") and frames:
            frames[-1].state = "after"
    return j


def _string(src: str, i: int, quote: str, out: list[str], fixes: set[str]) -> int:
    """Copy the string literal at ``src[i]`` as a JSON string; index after it, or -1.

    Only the characters that need a decision (a backslash, a quote, a control
    character) are visited; the runs between them are copied as slices."""
    n = len(src)
    if quote == "'":
        fixes.add("converted single-quoted strings")
    search = _STRING_SPECIAL[quote].search
    start = i + 1
    j = start
    buf: list[str] = ['"']
    seg = start
    while True:
        m = search(src, j)
        if m is None:
            break
        j = m.start()
        c = src[j]
        if c == "\\":
            if j + 1 >= n:
                buf.append(src[seg:j])
                buf.append("\\\\")
                out.append("".join(buf))
                return -1
            nxt = src[j + 1]
            if quote == "'" and nxt == "'":
                buf.append(src[seg:j])
                buf.append("'")
                j += 2
                seg = j
                continue
            if nxt not in _VALID_ESCAPES:
                buf.append(src[seg:j])
                if nxt.isalnum() or nxt.isspace():
                    # a Windows path or a regex: the backslash is content
                    buf.append("\\\\")
                    fixes.add("escaped invalid backslashes")
                else:
                    # markdown-style escaping of punctuation (\_ \* \$): drop the backslash
                    fixes.add("removed backslashes escaping punctuation")
                j += 1
                seg = j
                continue
            j += 2
            continue
        if c == quote:
            buf.append(src[seg:j])
            buf.append('"')
            out.append("".join(buf))
            return j + 1
        if c == '"':  # only reachable inside a single-quoted string
            buf.append(src[seg:j])
            buf.append('\\"')
            j += 1
            seg = j
            continue
        # a control character
        buf.append(src[seg:j])
        buf.append(_CONTROL.get(c, f"\\u{ord(c):04x}"))
        fixes.add("escaped raw control characters in strings")
        j += 1
        seg = j
    buf.append(src[seg:n])
    out.append("".join(buf))
    return -1


def _close(
    out: list[str], frames: list[_Frame], fixes: set[str], *, truncated: bool, cut: bool
) -> QuickFix:
    if frames and not cut:
        j = len(out) - 1
        while j >= 0 and out[j].isspace():
            j -= 1
        if j >= 0 and out[j] == ",":
            del out[j]
        elif j >= 0 and out[j] == ":":
            out.append("null")
        out.extend(f.closer for f in reversed(frames))
        fixes.add("added missing closing brackets")
        return QuickFix("".join(out), tuple(sorted(fixes)), truncated)
    if frames:
        # Keep complete members only: cut the innermost container back to its last
        # complete member; a cut array is dropped whole from its parent.
        while frames:
            if frames[-1].closer == "]" and len(frames) > 1:
                # a nested list cut off (an argument value): drop it whole
                frames.pop()
                del out[frames[-1].mark :]
                frames[-1].state = "after_cut"
                continue
            if frames[-1].state not in ("after", "after_cut"):
                del out[frames[-1].mark :]
            break
        out.extend(f.closer for f in reversed(frames))
        fixes.add("closed brackets left open by truncation")
    return QuickFix("".join(out), tuple(sorted(fixes)), truncated or bool(frames))
