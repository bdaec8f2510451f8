"""Cheap, linear repairs of the JSON mistakes models make most.

One left-to-right pass over the span, emitting a normalised copy:

* single-quoted strings become double-quoted (inner ``"`` escaped, ``\\'`` unescaped);
* raw newlines, tabs and other control characters inside strings are escaped;
* invalid escapes (``\\d``, ``\\.``) keep their backslash as a literal backslash;
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


def quick_fix(src: str) -> QuickFix:
    """Rewrite ``src`` into JSON that ``json.loads`` can read, when the damage is common."""
    out: list[str] = []
    fixes: set[str] = set()
    stack: list[str] = []
    i = 0
    n = len(src)
    append = out.append
    while i < n:
        ch = src[i]
        if ch == '"' or ch == "'":
            i = _string(src, i, ch, out, fixes)
            if i < 0:  # string ran to the end of the text
                out.append('"')
                fixes.add("closed a string cut off by truncation")
                return _close(out, stack, fixes, truncated=True)
            # an unquoted-key check does not apply after a string
            continue
        if ch == "{" or ch == "[":
            stack.append("}" if ch == "{" else "]")
            append(ch)
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
                if expected != ch:
                    fixes.add("fixed a mismatched closing bracket")
                    ch = expected
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
            elif lit is not None:
                append(lit)
                fixes.add("converted Python literals")
            else:
                append(word)
            i = j
            continue
        append(ch)
        i += 1
    return _close(out, stack, fixes, truncated=bool(stack))


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
                buf.append("\\\\")
                fixes.add("escaped invalid backslashes")
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


def _close(out: list[str], stack: list[str], fixes: set[str], *, truncated: bool) -> QuickFix:
    if stack:
        # a dangling comma or colon before the added closers
        j = len(out) - 1
        while j >= 0 and out[j].isspace():
            j -= 1
        if j >= 0 and out[j] == ",":
            del out[j]
        elif j >= 0 and out[j] == ":":
            out.append("null")
        out.extend(reversed(stack))
        fixes.add("closed brackets left open by truncation")
    return QuickFix("".join(out), tuple(sorted(fixes)), truncated or bool(stack))
