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

from dataclasses import dataclass

__all__ = ["QuickFix", "quick_fix"]

_VALID_ESCAPES = frozenset('"\\/bfnrtu')
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_IDENT = _IDENT_START | frozenset("0123456789-")


@dataclass(frozen=True, slots=True)
class QuickFix:
    """The rewritten text and what was changed (empty ``fixes``: nothing to do)."""

    text: str
    fixes: tuple[str, ...]
    truncated: bool


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
    stack: list[str] = []  # closers of the open containers
    marks: list[int] = []  # out-index where the current member of each container starts
    states: list[str] = []  # per container: "key", "colon", "value", "after"
    last_num = False  # the last value written was a bare number (it may have been cut)
    i = 0
    n = len(src)
    append = out.append

    def value_done() -> None:
        if states:
            states[-1] = "after"

    while i < n:
        ch = src[i]
        if ch == '"' or ch == "'":
            i = _string(src, i, ch, out, fixes)
            if i < 0:  # string ran to the end of the text
                out.append('"')
                fixes.add("closed a string cut off by truncation")
                if states and states[-1] in ("value", "key"):
                    states[-1] = "cut"
                return _close(out, stack, marks, states, fixes, truncated=True, cut=cut)
            if states:
                states[-1] = "colon" if states[-1] == "key" else "after"
            last_num = False
            continue
        if ch == "{" or ch == "[":
            stack.append("}" if ch == "{" else "]")
            append(ch)
            marks.append(len(out))
            states.append("key" if ch == "{" else "value")
            last_num = False
            i += 1
            continue
        if ch == "}" or ch == "]":
            # drop a trailing comma before the closer
            j = len(out) - 1
            while j >= 0 and out[j].isspace():
                j -= 1
            if j >= 0 and out[j] == ",":
                del out[j]
                fixes.add("removed trailing commas")
            if stack:
                expected = stack.pop()
                marks.pop()
                states.pop()
                if expected != ch:
                    fixes.add("fixed a mismatched closing bracket")
                    ch = expected
            append(ch)
            value_done()
            last_num = False
            i += 1
            continue
        if ch == ",":
            if stack:
                marks[-1] = len(out)
                states[-1] = "key" if stack[-1] == "}" else "value"
            append(ch)
            last_num = False
            i += 1
            continue
        if ch == ":":
            if states and states[-1] == "colon":
                states[-1] = "value"
            append(ch)
            i += 1
            continue
        if ch in _IDENT_START:
            j = i + 1
            while j < n and src[j] in _IDENT:
                j += 1
            word = src[i:j]
            lit = _LITERALS.get(word)
            k = j
            while k < n and src[k] in " \t":
                k += 1
            if k < n and src[k] == ":" and stack and stack[-1] == "}":
                append('"' + word + '"')
                fixes.add("quoted unquoted keys")
                if states:
                    states[-1] = "colon"
            elif lit is not None:
                append(lit)
                fixes.add("converted Python literals")
                value_done()
            else:
                append(word)
                if word in ("true", "false", "null"):
                    value_done()
            last_num = False
            i = j
            continue
        if ch in "-0123456789":
            j = i + 1
            while j < n and src[j] in "0123456789.eE+-":
                j += 1
            append(src[i:j])
            value_done()
            last_num = True
            i = j
            continue
        append(ch)
        i += 1
    if stack and last_num and states and states[-1] == "after":
        states[-1] = "cut"  # "n": 12 at the very end may have been 123
    return _close(out, stack, marks, states, fixes, truncated=bool(stack), cut=cut)


def _string(src: str, i: int, quote: str, out: list[str], fixes: set[str]) -> int:
    """Copy the string literal at ``src[i]`` as a JSON string; index after it, or -1."""
    n = len(src)
    if quote == "'":
        fixes.add("converted single-quoted strings")
    start = i + 1
    j = start
    buf: list[str] = ['"']
    seg = start
    while j < n:
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
        if c < " ":
            buf.append(src[seg:j])
            buf.append(_CONTROL.get(c, f"\\u{ord(c):04x}"))
            fixes.add("escaped raw control characters in strings")
            j += 1
            seg = j
            continue
        j += 1
    buf.append(src[seg:n])
    out.append("".join(buf))
    return -1


def _close(
    out: list[str],
    stack: list[str],
    marks: list[int],
    states: list[str],
    fixes: set[str],
    *,
    truncated: bool,
    cut: bool,
) -> QuickFix:
    if stack and not cut:
        j = len(out) - 1
        while j >= 0 and out[j].isspace():
            j -= 1
        if j >= 0 and out[j] == ",":
            del out[j]
        elif j >= 0 and out[j] == ":":
            out.append("null")
        out.extend(reversed(stack))
        fixes.add("added missing closing brackets")
        return QuickFix("".join(out), tuple(sorted(fixes)), truncated)
    if stack:
        # Keep complete members only: cut the innermost container back to its last
        # complete member; a cut array is dropped whole from its parent.
        while stack:
            if stack[-1] == "]" and len(stack) > 1:
                # a nested list cut off (an argument value): drop it whole
                del out[marks[-2] :]
                stack.pop()
                marks.pop()
                states.pop()
                states[-1] = "after_cut"
                continue
            if states[-1] not in ("after", "after_cut"):
                del out[marks[-1] :]
            break
        out.extend(reversed(stack))
        fixes.add("closed brackets left open by truncation")
    return QuickFix("".join(out), tuple(sorted(fixes)), truncated or bool(stack))
