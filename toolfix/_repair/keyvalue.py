"""The reader of :class:`~toolfix._repair.spec.KeyValueCalls` grammars.

    <tool_call>get_weather<tool_sep>
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>

The name is the text up to the name separator, the first key tag or the call's
closer. A value ends at a value closer of its own (value tags written inside it pair
up) that is followed by the next key, the call's closer or the end of the text, where
the template writes it; failing that at its first closer, else at the next key tag (a
closer the model left out). Values are text, typed by the tool's schema.
"""

from __future__ import annotations

import re

from .elision import is_placeholder
from .formats._base import Candidate, ScanContext, make_candidate, respan
from .gate import ReadArguments
from .spec import KeyValueCalls
from .termwrap import breaks_a_tag, wrapped_at
from .text import skip_ws

__all__ = ["NO_NAME", "read_key_value_call"]

_MAX_NAME = 256
#: Value tags read inside one value before the simple reading wins (keeps it linear).
_MAX_TAGS = 64
#: A name's characters: up to one of ``<``, a newline, a bracket or a quote (``*``
#: matches the empty run too, so ``match`` never fails).
_NAME_RUN = re.compile(r"[^<\n{}\[\]\"']*")
#: A run of white space, maybe empty (:func:`skip_ws` where the index is in the text).
_BLANKS = re.compile(r"\s*").match
#: Whitespace as ``str.isspace`` sees it (the same Unicode test, at C speed).
_SPACE = re.compile(r"\s")
#: What, after the opener and its blanks, begins no name (:data:`_NAME_RUN` would be
#: empty, as at the end of the text): the family scanner asks it before the readers.
NO_NAME = re.compile(r"\s*(?:[<{}\[\]\"']|\Z)")


def read_key_value_call(
    text: str, at: int, g: KeyValueCalls, ctx: ScanContext, fmt: str
) -> Candidate | None:
    """The call whose opener starts at ``at``; ``None`` when what follows is not a name
    and key/value pairs of this grammar."""
    n = len(text)
    opener, closer = g.call
    j = skip_ws(text, at + len(opener))
    # the name runs to a stop character; one over _MAX_NAME characters is no name
    run = _NAME_RUN.match(text, j, min(n, j + _MAX_NAME + 1))
    k = run.end() if run is not None else j  # (never None: the run may be empty)
    name = text[j:k].strip()
    if not name or k - j > _MAX_NAME or _SPACE.search(name) is not None:
        return None
    p = _BLANKS(text, k).end()  # type: ignore[union-attr]  # (k <= n: the name's end)
    sep = None
    for s in g.name_end:
        if text.startswith(s, p):
            sep = s
            break
    if sep is not None:
        p = _BLANKS(text, p + len(sep)).end()  # type: ignore[union-attr]  # (sep is there)
    elif text.startswith(g.key[1], p) and p == k:
        return _glued_key(text, at, j, k, g, ctx, fmt)
    elif g.name_end_required and not text.startswith(closer, p):
        return None
    keyed = text.startswith(g.key[0], p) or wrapped_at(text, p, g.key[0]) != -1
    if not keyed and sep is None:
        # no argument: a bare tool name closed (or cut off right after it)
        bare = text.startswith(closer, p) or p >= n
        if not bare or (g.bare_name_is_tool and not ctx.is_tool(name)):
            return None  # a name and then something that is no key: not this grammar
    return _pairs(text, at, p, name, g, fmt)


#: The record of a key read with its opener left out, glued to the tool's name.
_GLUED = ("native_markup", "read a key whose opening tag was left out, glued to the tool name")
#: A key as the templates write it.
_KEY_WORD = re.compile(r"[A-Za-z_][\w.-]*")


def _glued_key(
    text: str, at: int, j: int, k: int, g: KeyValueCalls, ctx: ScanContext, fmt: str
) -> Candidate | None:
    """The call whose first key's opener was left out, the key glued to the tool's name
    (``<tool_call>send_command_to_shellcommand</arg_key><arg_value>…``: GLM-4.7, vllm
    PR 47190): the longest offered name the run ``text[j:k]`` starts with, the rest the
    key; ``None`` when no offered name leaves a key's word, or a value is a placeholder
    (``...``: the reporter's elision, vllm PR 47190's second call). Read as if the opener stood
    there (the text is copied once, only for such a call)."""
    run = text[j:k]
    names = sorted((t for t in ctx.tool_names if run.startswith(t)), key=len, reverse=True)
    cut = next((j + len(t) for t in names if _KEY_WORD.fullmatch(run, len(t))), -1)
    if cut == -1:
        return None
    fixed = text[:cut] + g.key[0] + text[cut:]
    c = _pairs(fixed, at, cut, text[j:cut], g, fmt)
    args = c.arguments if isinstance(c.arguments, dict) else {}
    if any(is_placeholder(v.strip()) for v in args.values() if isinstance(v, str)):
        return None  # (a damaged call whose value stands for one, ``...``: not read)
    end = c.end - len(g.key[0])
    out = respan(c, at, end, text[at:end])
    out.notes = (*out.notes, _GLUED)
    return out


def _pairs(text: str, at: int, p: int, name: str, g: KeyValueCalls, fmt: str) -> Candidate:
    """The key/value pairs from ``p`` to the call's closer."""
    n = len(text)
    closer = g.call[1]
    kopen, kclose = g.key
    vopen, vclose = g.value
    args: dict[str, str] = ReadArguments()  # (a key written twice: noted, gate G3)
    while True:
        if text.startswith(closer, p):
            return _candidate(text, at, p + len(closer), fmt, name, args, cut=False, g=g)
        if p >= n:
            return _candidate(text, at, n, fmt, name, args, cut=True, g=g)
        if text.startswith(g.call[0], p) and args:
            # the next call's opener where the next key would go: this call's closer was
            # left out (two GLM calls in a row, the first unclosed)
            return _candidate(text, at, p, fmt, name, args, cut=False, g=g)
        ks = p + len(kopen) if text.startswith(kopen, p) else wrapped_at(text, p, kopen)
        if ks == -1:
            # stray text before the closer: the closer ends the call, if there is one
            c = text.find(closer, p)
            if c == -1:
                return _candidate(text, at, n, fmt, name, args, cut=True, g=g)
            return _candidate(text, at, c + len(closer), fmt, name, args, cut=False, g=g)
        ke, kend = _key_end(text, ks, kclose)
        if ke == -1:
            return _candidate(text, at, n, fmt, name, args, cut=True, g=g)
        key = text[ks:ke].strip()
        p = _BLANKS(text, kend).end()  # type: ignore[union-attr]  # (kclose is there)
        while text.startswith(kclose, p):  # the key's closer written twice (vllm #54971)
            p = _BLANKS(text, p + len(kclose)).end()  # type: ignore[union-attr]
        vs = p + len(vopen) if text.startswith(vopen, p) else wrapped_at(text, p, vopen)
        if vs == -1:
            if p >= n:
                return _candidate(text, at, n, fmt, name, args, cut=True, g=g)
            ve = _unopened_value_end(text, p, g)
            if ve == -1:
                args[key] = ""  # a key without a value: kept, so validation sees it
                continue
            args[key] = text[p:ve]  # (its opener left out: GLM-5.2, vllm issue 49248)
            p = _BLANKS(text, ve + len(vclose)).end()  # type: ignore[union-attr]
            continue
        ve = _value_end(text, vs, g)
        if ve == -1:
            # unterminated value: it runs to the call's closer, or it was cut off
            c = text.find(closer, vs)
            if c == -1:
                args[key] = text[vs:]
                return _candidate(text, at, n, fmt, name, args, cut=True, g=g)
            args[key] = text[vs:c]
            return _candidate(text, at, c + len(closer), fmt, name, args, cut=False, g=g)
        args[key] = text[vs:ve]
        p = ve + len(vclose) if text.startswith(vclose, ve) else ve
        p = _BLANKS(text, p).end()  # type: ignore[union-attr]  # (ve is in the text)


def _unopened_value_end(text: str, p: int, g: KeyValueCalls) -> int:
    """Where a value written without its opener ends: the value closer after ``p``
    when no key, value opener or call closer comes first
    (``<arg_key>query</arg_key>how many days</arg_value>``); -1 otherwise (a key
    without a value)."""
    # each search stops at the next key (or the one before it): linear over a call
    stop = text.find(g.key[0], p)
    stop = len(text) if stop == -1 else stop
    for tag in (g.call[1], g.value[0]):
        k = text.find(tag, p, stop)
        stop = stop if k == -1 else k
    return text.find(g.value[1], p, stop)


def _value_end(text: str, vs: int, g: KeyValueCalls) -> int:
    """Where the value starting at ``vs`` ends (its closer, or the next key tag when the
    closer was left out), or -1 when the text ends first."""
    n = len(text)
    vopen, vclose = g.value
    kopen = g.key[0]
    closer = g.call[1]
    own = -1
    depth = 0
    p = vs
    first = c = text.find(vclose, vs)  # the first closer is the first one the loop reads
    for _ in range(_MAX_TAGS):
        if c == -1:
            break
        o = text.find(vopen, p, c)
        if o != -1:
            depth += 1
            p = o + len(vopen)
        else:
            p = c + len(vclose)
            if depth > 0:
                depth -= 1
            else:
                if own == -1:
                    own = c
                k = _BLANKS(text, p).end()  # type: ignore[union-attr]  # skip_ws, p in the text
                if own == c:
                    k = _past_doubled(text, p, k, vclose)
                if k >= n or text.startswith((kopen, closer), k):
                    return c
        c = text.find(vclose, p)
    if own != -1:
        return own
    if first != -1:
        return first
    return text.find(kopen, vs)  # no closer at all: the next key ends the value


def _past_doubled(text: str, p: int, k: int, vclose: str) -> int:
    """Past the value's closer written again on the next line(s) (a stutter of its own
    closer, issue 28: the value never keeps it as text); ``k`` when none follows."""
    while "\n" in text[p:k] and text.startswith(vclose, k):
        p = k + len(vclose)
        k = _BLANKS(text, p).end()  # type: ignore[union-attr]  # (p is in the text)
    return k


def _key_end(text: str, ks: int, kclose: str) -> tuple[int, int]:
    """Where the key starting at ``ks`` ends: its closer's (start, end), the closer maybe
    broken by a terminal's line wrap (``</arg_k\n  ey>``: :mod:`.termwrap`); (-1, -1)
    when none comes within a key's length."""
    lim = min(len(text), ks + _MAX_NAME)
    ke = text.find(kclose, ks, lim)
    lt = text.find(kclose[0], ks, lim if ke == -1 else ke)
    if lt != -1 and (w := wrapped_at(text, lt, kclose)) != -1:
        return lt, w
    return (-1, -1) if ke == -1 else (ke, ke + len(kclose))


#: The record of a call read through tags broken by a terminal's line wrap.
_UNWRAPPED = ("native_markup", "read tags broken by a terminal's line wrap")
#: Why a call holding a tag broken by a line wrap in a value is not read.
_WRAPPED = "a value holds one of the call's tags broken by a line wrap: its text is not the model's"


def _candidate(
    text: str,
    start: int,
    end: int,
    fmt: str,
    name: str,
    args: dict[str, str],
    *,
    cut: bool,
    g: KeyValueCalls,
) -> Candidate:
    tags = (*g.key, *g.value, g.call[1])
    wrapped = any(breaks_a_tag(v, tags) for v in args.values())
    unwrapped = not wrapped and breaks_a_tag(text[start:end], tags)
    return make_candidate(
        text,
        start,
        end,
        fmt,
        truncated=cut,
        name=name,
        arguments=text[start:end] if wrapped else args,
        string_values=not wrapped,
        error=_WRAPPED if wrapped else None,
        notes=(_UNWRAPPED,) if unwrapped else (),
    )
