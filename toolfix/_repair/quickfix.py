"""Cheap, linear repairs of the JSON mistakes models make most.

One left-to-right pass over the span, emitting a normalised copy:

* single-quoted strings become double-quoted (inner ``"`` escaped, ``\\'`` unescaped);
* raw newlines, tabs and other control characters inside strings are escaped;
* invalid escapes: before a letter or digit (``C:\\dir``, ``\\d+``) the backslash is
  kept as a literal backslash, and before punctuation too in a string that escapes a
  regular expression's punctuation (``\\(``, ``\\|``, ``\\.``: :data:`_REGEX_ESCAPE`);
  before punctuation in any other string (markdown's ``\\_``, ``\\*``) it is dropped;
* ``True``/``False``/``None`` outside strings become ``true``/``false``/``null``;
* unquoted keys (``{city: "Paris"}``) are quoted;
* trailing commas before ``}``/``]`` are dropped;
* a missing closing quote and missing closing brackets are added at the end
  (truncation), in the right order;
* a stray ``"`` after a number with only closing brackets after it, at the end of the
  span (``"b": 2"}``: gpt-oss-20b on vLLM in bbrowning/bfcl-vllm-results, and
  functionary-small-v3.2's ``"c": 1"}`` in the BFCL result dump of 2024-08-11) is
  dropped: the brackets after it close the value, so no string was cut off there;
* a key's quotes out of place (:func:`_requoted`): a bare word directly followed by
  ``":`` is a key whose opening quote is missing (``, description": "…"``:
  MoonshotAI/kimi-cli#2165) or was written as the closing quote of the string before it,
  the value's closing quote and the comma lost (``"selectFunctions\\ "arguments": {``:
  ollama/ollama#11381). The quote is put back and the text scanned again; the result is
  kept only when ``json.loads`` then reads it (never a guess that needs more repair).

The result is handed to ``json.loads``; when that still fails, the caller falls
back to json-repair (which handles more, but is slower and, on some inputs,
super-linear). Nothing here recurses, so no depth limit applies to this pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import cast

__all__ = ["QuickFix", "closes_requoted", "quick_fix"]

_VALID_ESCAPES = frozenset('"\\/bfnrtu')
#: A backslash before punctuation only a regular expression escapes (``\\(\\.cpp\\|\\.h\\)``:
#: a ``find -regex`` from qwen3 in Codex, openai/codex issue 1273; ``'^\\*\\|^* '``: a
#: grep from qwen in Neroued/ninfer pull 101). A string holding one is a regular
#: expression or a command: every invalid escape's backslash in it is content and kept,
#: ``\\*`` too. In any other string a backslash before punctuation is Markdown's
#: (``\\_``, ``\\*``, ``\\'``) and dropped.
_REGEX_ESCAPE = re.compile(r"\\[()|.{}\[\]+?^]")
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
#: One token of the scan; ``findall`` lists them at C speed, and they tile the text:
#:
#: 1. a string literal, double- or single-quoted, to its closing quote (a quote after a
#:    backslash is escaped) or to the end of the text. A double-quoted string that is
#:    already valid JSON (:data:`_PLAIN_STRING`) is copied whole; any other is rewritten
#:    by :func:`_string`, which ends it where this token ends (an invalid escape never
#:    involves a quote);
#: 2. a run of blanks;
#: 3. a comma or a colon, with the blanks after it (one token instead of two: a comma
#:    dropped before a closer leaves them, see :func:`_drop_comma`);
#: 4. an identifier;
#: 5. a number (as written: ``json.loads`` judges it);
#: 6. any other single character (brackets among them).
_TOKEN = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'
    r"|'[^'\\]*(?:\\.[^'\\]*)*(?:'|\\?\Z)"
    r"|[ \t\n\r]+"
    r"|,[ \t\n\r]*"
    r"|:[ \t\n\r]*"
    r"|[A-Za-z_$][A-Za-z0-9_$-]*"
    r"|[-0-9][0-9.eE+-]*"
    r"|.",
    re.DOTALL,
)
_BLANKS = frozenset(" \t\n\r")
#: Inside a string literal opened by each quote: the characters :func:`_string` decides on.
_STRING_SPECIAL = {
    '"': re.compile(r'["\\\x00-\x1f]'),
    "'": re.compile(r"['\"\\\x00-\x1f]"),
}
#: A double-quoted string that is already valid JSON (no raw control character, only
#: JSON escapes): copied whole.
_PLAIN_STRING = re.compile(r'"[^"\\\x00-\x1f]*(?:\\["\\/bfnrtu][^"\\\x00-\x1f]*)*"')

#: A quote, then only closing brackets and blanks to the end of the text (what follows a
#: number there: ``2"}``).
_STRAY_QUOTE = re.compile(r'"[ \t\n\r}\]]*[}\]][ \t\n\r}\]]*')

#: An open container: its closer, where its current member starts in the output, and
#: what the scan expects next in it ("key", "colon", "value", "after", "cut",
#: "after_cut").
_Frame = tuple[str, int, str]


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class QuickFix:
    """The rewritten text and what was changed (empty ``fixes``: nothing to do)."""

    text: str
    fixes: tuple[str, ...]
    truncated: bool


#: How many keys with misplaced quotes one text may have put back (each costs a scan).
_REQUOTES = 8
_REQUOTED = "put back a key's misplaced quote"
#: The keys of a call's envelope (``{"name": …, "arguments": {…}}`` and its spellings):
#: the keys a string value's lost closing quote may run into and still be read as keys.
_ENVELOPE_KEYS = frozenset(
    {"name", "arguments", "parameters", "args", "params", "input", "function", "tool"}
)


def quick_fix(src: str, *, cut: bool = True) -> QuickFix:
    """Rewrite ``src`` into JSON that ``json.loads`` can read, when the damage is common.

    With ``cut=False`` (the markup around the span closed: a brace is missing, the
    output was not cut) open brackets are simply closed. With ``cut=True`` (the
    output may have stopped mid-value) only complete members survive: an object
    keeps the members whose value visibly ended (a string closed, a nested value
    closed, or a comma followed); a member cut mid-key or mid-value is dropped; a
    nested array cut off is dropped whole (a shortened list would be a guess); a
    top-level list (of calls) keeps its complete elements.

    One pass of :func:`_scan`. A key's misplaced quote (:func:`_requoted`) is put back and the text
    scanned again, at most :data:`_REQUOTES` times; that reading is kept only when
    ``json.loads`` reads it and it needs no repair (a truncation closed, a string closed
    at the end) the text as written did not need: a quote put back in the wrong place
    leaves a string open to the end."""
    text = src
    for _ in range(_REQUOTES + 1):
        found = _scan(text, cut)
        if isinstance(found, QuickFix):
            break
        text = found
    else:
        found = None
    if text is src and found is not None:
        return found
    plain = cast(QuickFix, _scan(src, cut, requote=False))  # (requote=False: never a str)
    if (
        found is None
        or (found.truncated and not plain.truncated)
        or not {*found.fixes} <= {*plain.fixes}  # (a repair only the new reading needs)
    ):
        return plain
    try:
        json.loads(found.text)
    except (ValueError, RecursionError):
        return plain
    return QuickFix(found.text, tuple(sorted({*found.fixes, _REQUOTED})), found.truncated)


def closes_requoted(src: str) -> bool:
    """Does ``src``, which a bracket scan found unclosed, close once its keys' misplaced
    quotes are put back (:func:`_requoted`)? Then the quote, not a cut, left it open."""
    fixed = quick_fix(src)
    return _REQUOTED in fixed.fixes and not fixed.truncated


def _scan(src: str, cut: bool, *, requote: bool = True) -> QuickFix | str:
    """One pass of :func:`quick_fix` over :data:`_TOKEN`'s tokens; with ``requote``, the
    text with a key's misplaced quote put back (a ``str``) as soon as one is found. The
    innermost container is kept in locals (``closer``, ``mark``, ``state``; ``closer``
    empty: no container is open), the ones around it in ``outer``.
    """
    out: list[str] = []
    fixes: set[str] = set()
    outer: list[_Frame] = []  # the open containers around the innermost one
    closer, mark, state = "", 0, ""
    last_num = False  # the last value written was a bare number (it may have been cut)
    append = out.append

    toks = _TOKEN.findall(src)
    plain = _PLAIN_STRING.fullmatch
    # the branches go from the most frequent token to the least
    for k in range(len(toks)):  # (an identifier looks at the tokens after it)
        tok = toks[k]
        c = tok[0]
        if c == '"' and plain(tok) is not None:  # a well-formed JSON string: copied as it is
            append(tok)
            if closer:
                state = "colon" if state == "key" else "after"
            last_num = False
        elif c in _BLANKS:
            append(tok)
        elif c == ",":
            if closer:
                mark = len(out)
                state = "key" if closer == "}" else "value"
            append(tok)
            last_num = False
        elif c == ":":
            if state == "colon":
                state = "value"
            append(tok)
        elif c == "{" or c == "[":
            append(c)
            if closer:
                outer.append((closer, mark, state))
            closer, mark, state = ("}", len(out), "key") if c == "{" else ("]", len(out), "value")
            last_num = False
        elif c == "}" or c == "]":
            closer, mark, state = _close_bracket(c, (closer, mark, state), outer, out, fixes)
            last_num = False
        elif c == '"' or c == "'":  # a string literal that needs rewriting
            if last_num and _STRAY_QUOTE.fullmatch(tok):  # ``2"}`` ends the text
                closer, mark, state = _stray_quote(tok, (closer, mark, state), outer, out, fixes)
                last_num = False
                continue
            if _string(tok, 0, c, out, fixes) < 0:  # it ran to the end of the text
                append('"')
                fixes.add("closed a string cut off by truncation")
                if state in ("value", "key"):
                    state = "cut"
                return _close(out, _open(outer, closer, mark, state), fixes, True, cut)
            if closer:
                state = "colon" if state == "key" else "after"
            last_num = False
        elif c in _IDENT_START:
            if requote and closer == "}" and _key_follows(toks, k):
                fixed = _requoted(src, toks, k, state)
                if fixed is not None:
                    return fixed
            state = _word(toks, k, closer, state, out, fixes)
            last_num = False
        elif c in "-0123456789":
            append(tok)
            if closer:
                state = "after"
            last_num = True
        else:
            append(c)
    if closer and last_num and state == "after":
        state = "cut"  # "n": 12 at the very end may have been 123
    frames = _open(outer, closer, mark, state)
    return _close(out, frames, fixes, bool(frames), cut)


def _stray_quote(
    tok: str, inner: _Frame, outer: list[_Frame], out: list[str], fixes: set[str]
) -> _Frame:
    """Drop the stray quote that opens ``tok`` (:data:`_STRAY_QUOTE`) and write the
    closing brackets and blanks after it."""
    fixes.add("dropped a stray quote after a number")
    for ch in tok[1:]:
        if ch in _BLANKS:
            out.append(ch)
        else:
            inner = _close_bracket(ch, inner, outer, out, fixes)
    return inner


def _key_follows(toks: list[str], k: int) -> bool:
    """Is the bare word ``toks[k]`` directly followed by ``"`` and a colon (``key":``)?"""
    nxt = toks[k + 1] if k + 1 < len(toks) else ""
    return nxt[:1] == '"' and nxt[1:].lstrip(" \t")[:1] == ":"


def _requoted(src: str, toks: list[str], k: int, state: str) -> str | None:
    """``src`` with the quote of the key ``toks[k]`` put back (it is followed by ``":``),
    or ``None`` when the text before it does not say where the quote went: where a key
    is due (after ``{`` or ``,``) its opening quote was left out; right after a string
    value (no blank between) that string's closing quote was the key's opening quote,
    and the value's closing quote and the comma are added (blanks and a lone backslash
    at the value's end, written where they were, are dropped). That second reading is
    taken for a call envelope's keys only (:data:`_ENVELOPE_KEYS`): inside a value,
    ``"say "hi": "now"`` may as well be one string with its quotes left unescaped."""
    at = sum(map(len, toks[:k]))  # (rare: once per misplaced quote)
    if state == "key":
        return src[:at] + '"' + src[at:]
    prev = toks[k - 1] if k else ""
    if (
        state != "after"
        or toks[k] not in _ENVELOPE_KEYS
        or prev[:1] not in ('"', "'")
        or len(prev) < 2
        or prev[-1] != prev[0]
    ):
        return None
    end = at - 1  # the string's last quote
    while end > at - len(prev) + 1 and src[end - 1] in " \t":
        end -= 1
    run = end
    while run > at - len(prev) + 1 and src[run - 1] == "\\":
        run -= 1
    if (end - run) % 2:
        end -= 1  # (a lone backslash would escape the quote put back)
    return src[:end] + prev[0] + ', "' + src[at:]


def _close_bracket(
    c: str, inner: _Frame, outer: list[_Frame], out: list[str], fixes: set[str]
) -> _Frame:
    """Write the closing bracket ``c`` (the innermost container's, whatever was written);
    returns the container that is then the innermost.

    A list's ``]`` written right after the last member of an object in it closed
    closes both: the object's ``}`` was left out (``[{"h": "a"}, {"h": "b"]}``: the
    last object of a list, vllm issue 19056, ranxianglei/billion-context-pi issue 253).
    Any other ``c`` is the innermost container's closer miswritten."""
    _drop_trailing_comma(out, fixes)
    closer = inner[0]
    if not closer:
        out.append(c)
        return inner
    if c == "]" and closer == "}" and inner[2] == "after" and outer and outer[-1][0] == c:
        fixes.add("closed an object left open before its list's closer")
        out.append(closer)
        inner = outer.pop()
        closer = c
    elif closer != c:
        fixes.add("fixed a mismatched closing bracket")
    out.append(closer)
    frame = outer.pop() if outer else ("", 0, "")
    return (frame[0], frame[1], "after") if frame[0] else frame


def _word(toks: list[str], k: int, closer: str, state: str, out: list[str], fixes: set[str]) -> str:
    """Write the identifier ``toks[k]`` (an unquoted key, a Python literal, a bare word);
    returns the innermost container's state after it."""
    tok = toks[k]
    if closer == "}" and _colon_after(toks, k):  # an unquoted key
        out.append('"' + tok + '"')
        fixes.add("quoted unquoted keys")
        return "colon"
    lit = _LITERALS.get(tok)
    if lit is not None:
        out.append(lit)
        fixes.add("converted Python literals")
        return "after" if closer else state
    out.append(tok)  # a bare word, copied as it is
    return "after" if closer and tok in ("true", "false", "null") else state


def _colon_after(toks: list[str], k: int) -> bool:
    """Is the token after ``toks[k]`` a ``:`` (spaces or tabs between allowed)?"""
    k += 1
    if k < len(toks) and toks[k][0] in " \t" and not toks[k].strip(" \t"):
        k += 1
    return k < len(toks) and toks[k][0] == ":"


def _open(outer: list[_Frame], closer: str, mark: int, state: str) -> list[_Frame]:
    """Every open container, innermost last."""
    if closer:
        outer.append((closer, mark, state))
    return outer


def _drop_trailing_comma(out: list[str], fixes: set[str]) -> None:
    """Before a closer: drop a comma written after the last member."""
    j = len(out) - 1
    while j >= 0 and out[j].isspace():
        j -= 1
    if j >= 0 and out[j][0] == ",":
        _drop_comma(out, j)
        fixes.add("removed trailing commas")


def _drop_comma(out: list[str], j: int) -> None:
    """Drop the comma that opens ``out[j]`` (the blanks after it stay)."""
    rest = out[j][1:]
    if rest:
        out[j] = rest
    else:
        del out[j]


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
    regex: bool | None = None  # (a string with a regular expression's escapes in it)
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
                if regex is None and not (nxt.isalnum() or nxt.isspace()):
                    regex = _REGEX_ESCAPE.search(src, start) is not None  # (once a string)
                if nxt.isalnum() or nxt.isspace() or regex:
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
    out: list[str], frames: list[_Frame], fixes: set[str], truncated: bool, cut: bool
) -> QuickFix:
    if frames and not cut:
        j = len(out) - 1
        while j >= 0 and out[j].isspace():
            j -= 1
        if j >= 0 and out[j][0] == ",":
            _drop_comma(out, j)
        elif j >= 0 and out[j][0] == ":":
            out.append("null")
        out.extend(f[0] for f in reversed(frames))
        fixes.add("added missing closing brackets")
        return QuickFix("".join(out), tuple(sorted(fixes)), truncated)
    if frames:
        # Keep complete members only: cut the innermost container back to its last
        # complete member; a cut array is dropped whole from its parent.
        while frames:
            closer, mark, state = frames[-1]
            if closer == "]" and len(frames) > 1:
                # a nested list cut off (an argument value): drop it whole
                frames.pop()
                parent_closer, parent_mark, _ = frames[-1]
                del out[parent_mark:]
                frames[-1] = (parent_closer, parent_mark, "after_cut")
                continue
            if state not in ("after", "after_cut"):
                del out[mark:]
            break
        out.extend(f[0] for f in reversed(frames))
        fixes.add("closed brackets left open by truncation")
    return QuickFix("".join(out), tuple(sorted(fixes)), truncated or bool(frames))
