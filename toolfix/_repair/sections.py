"""The reader of :class:`~toolfix._repair.spec.JsonSection` grammars.

Tokens around a JSON body (one call object, a list of them, several objects one after
the other, or a ``{"name": {args}}`` map) or a pythonic call list
(``[f(a=1), g(b="x")]``, or one call a line). The body is read by structure: a closer
written inside a JSON string or a Python string literal is text. A closed section
around broken JSON is broken JSON (``invalid_json``); a body still open when the output
ends is cut off (``truncated``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._errors import ToolfixError
from .formats._base import Candidate, ScanContext, make_candidate
from .formats.pythonic import complete_members, parse_call, read_dotted_name, rejection
from .gate import duplicate_keys
from .spec import JsonSection
from .text import NOT_JSON, ExtendBudget, find_bracket_end, json_past_markers, skip_ws, whole_json

__all__ = ["read_section"]

_MAX_VALUES = 256
#: The start of a ``{"name": {args...`` map entry (one call of a name-map body).
_NAME_MAP_HEAD = re.compile(r'\[?\s*\{\s*"([^"\\]{1,128})"\s*:\s*(?=\{)')


def _first_closer(text: str, closers: tuple[str, ...], pos: int) -> tuple[int, str]:
    best, which = -1, ""
    for c in closers:
        k = text.find(c, pos)
        if k != -1 and (best == -1 or k < best):
            best, which = k, c
    return best, which


def read_section(
    text: str,
    at: int,
    opener: str,
    grammar: JsonSection,
    ctx: ScanContext,
    fmt: str,
    budget: ExtendBudget,
) -> list[Candidate] | None:
    """The calls of the section whose opener starts at ``at``; ``None`` when what
    follows the opener is not a body of this grammar (the opener is then text)."""
    body = at + len(opener)
    p = skip_ws(text, body)
    if grammar.body == "pythonic":
        return _pythonic(text, at, p, grammar, ctx, fmt)
    n = len(text)
    if p >= n:
        # a word the model also writes in prose (Phi-4-mini's ``functools``) and then
        # nothing: text; a special token and then nothing: a call cut off
        return None if opener.isalnum() else [_cut_empty(text, at, fmt)]
    if text[p] not in "{[":
        return None
    close_at, closer = _first_closer(text, grammar.close, p)
    values: list[tuple[int, int]] = []
    q = p
    cut = False
    broken = False
    while len(values) < _MAX_VALUES:
        stop = close_at if close_at != -1 else n
        span = find_bracket_end(text, q, ctx.limits, stop=stop, reads=ctx.reads)
        if span.truncated and close_at != -1:
            # the closer may be text inside one of the value's strings
            past = json_past_markers(
                text, q, close_at, grammar.close, ctx.limits, budget, reads=ctx.reads
            )
            if past is not None:
                close_at, closer = _first_closer(text, grammar.close, past)
                span = find_bracket_end(text, q, ctx.limits, stop=past, reads=ctx.reads)
            else:
                broken = True  # a closed section around unbalanced JSON: a missing brace
                values.append((q, close_at))
                break
        values.append((q, span.end))
        if span.truncated:
            cut = True
            break
        q = skip_ws(text, span.end)
        while q < n and text[q] == ",":
            q = skip_ws(text, q + 1)
        if q >= n or text[q] not in "{[" or (close_at != -1 and q >= close_at):
            break
    last = values[-1][1]
    if close_at != -1 and not text[last:close_at].strip(" \t\r\n,"):
        end = close_at + len(closer)
    else:
        end = last  # no closer: the call ends with its JSON, what follows stays text
    payloads = [text[s:e].strip() for s, e in values]
    payload = payloads[0] if len(payloads) == 1 else "[" + ",".join(payloads) + "]"
    if grammar.name_map and not broken:
        if not cut:
            payload = _from_name_map(payload)
        elif (m := _NAME_MAP_HEAD.match(payload)) is not None:
            # cut off: the (last) call's name and what was written of its arguments
            name, args = m.group(1), payload[m.end() :]
            return [make_candidate(text, at, end, fmt, truncated=True, name=name, arguments=args)]
    return [make_candidate(text, at, end, fmt, truncated=cut, payload=payload)]


def _cut_empty(text: str, at: int, fmt: str) -> Candidate:
    """An opener and then the end of the output: a call cut off before it began."""
    return make_candidate(
        text,
        at,
        len(text),
        fmt,
        truncated=True,
        arguments={},
        error="the output ended right after the tool-call opener",
    )


def _from_name_map(payload: str) -> str:
    """``[{"f": {"a": 1}}]`` (or one such object) as ``[{"name": "f", "arguments": ...}]``;
    the payload unchanged when it is not such a map (the interpreter reads it then)."""
    value = whole_json(payload)  # (the payload is stripped values, or one list of them)
    if value is NOT_JSON or duplicate_keys(payload, value):
        return payload  # (a key written twice: read as written, the gate refuses it)
    items = value if isinstance(value, list) else [value]
    calls: list[dict[str, Any]] = []
    for item in items:
        if not (isinstance(item, dict) and len(item) == 1):
            return payload
        ((name, args),) = item.items()
        if not isinstance(args, dict) or name in ("name", "arguments", "function"):
            return payload
        calls.append({"name": name, "arguments": args})
    return _DUMPS(calls if isinstance(value, list) else calls[0])


#: ``json.dumps(..., ensure_ascii=False)`` by one encoder built once (``json.dumps``
#: builds one a call when given an option).
_DUMPS = json.JSONEncoder(ensure_ascii=False).encode


def _pythonic(
    text: str, at: int, p: int, grammar: JsonSection, ctx: ScanContext, fmt: str
) -> list[Candidate] | None:
    """``[f(a=1), g()]`` or one call a line, up to the closer."""
    n = len(text)
    if p >= n:
        return [_cut_empty(text, at, fmt)]
    listed = text[p] == "["
    q = skip_ws(text, p + 1) if listed else p
    items: list[tuple[int, int, str, bool]] = []  # start, end, name, cut
    while len(items) < _MAX_VALUES:
        name_end = read_dotted_name(text, q)
        if name_end == q or name_end >= n or text[name_end] != "(":
            break
        span = find_bracket_end(text, name_end, ctx.limits, reads=ctx.reads)
        items.append((q, span.end, text[q:name_end], span.truncated))
        if span.truncated:
            break
        q = skip_ws(text, span.end)
        if q < n and text[q] == ",":
            q = skip_ws(text, q + 1)
    if not items:
        return [_cut_empty(text, at, fmt)] if q >= n else None
    if listed and q < n and text[q] == "]":
        q = skip_ws(text, q + 1)
    end = items[-1][1]
    for c in grammar.close:
        if text.startswith(c, q):
            end = q + len(c)
            break
    out: list[Candidate] = []
    for i, (s, e, name, cut) in enumerate(items):
        # the spans tile the section: separators between calls go with the call before
        lo = at if i == 0 else items[i - 1][1]
        hi = end if i == len(items) - 1 else e
        out.append(_pythonic_candidate(text, lo, hi, s, e, name, cut, ctx, fmt))
    return out


def _pythonic_candidate(
    text: str,
    lo: int,
    hi: int,
    s: int,
    e: int,
    name: str,
    cut: bool,
    ctx: ScanContext,
    fmt: str,
) -> Candidate:
    raw_call = text[s:e]
    py = ("pythonic",)
    if cut:
        try:
            partial = complete_members(raw_call, ctx.limits)
        except ToolfixError:
            partial = None
        return make_candidate(
            text,
            lo,
            hi,
            fmt,
            truncated=True,
            extra=py,
            name=name,
            arguments=raw_call if partial is None else partial,
            error="pythonic call cut off before its closing parenthesis",
        )
    try:
        call = parse_call(raw_call, ctx.limits)
    except ToolfixError as exc:
        return make_candidate(
            text, lo, hi, fmt, extra=py, name=name, arguments=raw_call, error=str(exc)
        )
    arguments: str | dict[str, Any] = raw_call
    if call is not None and call.arguments is not None:
        arguments = call.arguments
    return make_candidate(
        text,
        lo,
        hi,
        fmt,
        extra=py,
        name=name if call is None else call.name,
        arguments=arguments,
        error=rejection(call),
        notes=() if call is None else call.notes,
    )
