"""Gemma tool calls: ```` ```tool_code ```` fences and ``call:name{...}`` blocks.

Gemma 3 has no tool tokens; Google's function-calling guide prompts it to answer
with Python calls, and its examples wrap them in a ``tool_code`` fence
(https://ai.google.dev/gemma/docs/capabilities/function-calling,
https://ai.google.dev/gemma/docs/meme-generator)::

    ```tool_code
    get_weather(city="Paris")
    ```

(also ``print(get_weather(city="Paris"))`` and Gemini-style ``default_api.get_weather(...)``).
The call is read by the pythonic format's whitelist walker
(:func:`toolfix._repair.formats.pythonic.parse_call`: ``ast.parse`` after a length cap,
literals only, nothing executed). Bare ``[f(a=1)]`` lists belong to the pythonic format.

FunctionGemma (``google/functiongemma-270m-it``; vLLM
``functiongemma_tool_parser.py``) and Gemma 4 (vLLM ``gemma4_tool_parser.py``)
write calls in a JSON-like syntax with unquoted keys and delimited strings::

    <start_function_call>call:get_weather{location:<escape>Tokyo, Japan<escape>}<end_function_call>
    <|tool_call>call:get_weather{location:<|"|>Tokyo<|"|>,days:3}<tool_call|>

These are decoded here into a dict (strings stay strings; bare numbers,
``true``/``false``/``null`` become JSON values; nested ``{}``/``[]`` allowed).
Without its wrapper token, ``call:name{`` is only taken for a registry tool.
"""

from __future__ import annotations

from typing import Any

from ..._errors import NestingTooDeepError
from ..text import (
    NOT_JSON,
    Fence,
    find_bracket_end,
    find_fences,
    read_identifier,
    skip_ws,
    whole_json,
)
from ._base import Candidate, ScanContext, ToolCallFormat
from .gemma_shell import BARE_MARKS, CallHeads, keyed_paren_span
from .pythonic import parse_call, read_dotted_name, rejection

__all__ = ["GemmaFormat", "parse_gemma_args"]

_WRAPPERS = (
    ("<start_function_call>", "<end_function_call>"),
    ("<|tool_call>", "<tool_call|>"),
)
_STRING_DELIMS = ("<escape>", '<|"|>')
_CALL = "call:"
#: Outside a string, these end the arguments even when a ``}`` is missing: the call's
#: end token, or the next call's opener (issue 11: the next call is never an argument).
_ENDS = tuple(tok for pair in _WRAPPERS for tok in pair)
#: What a string value with a left-out opening delimiter never holds before its closer
#: (a key's colon, a bracket, markup): :meth:`_ArgReader._lone_closer` stops there.
_NO_VALUE_TEXT = frozenset(":{}[]<")
_LONE_CLOSER = (
    ("invalid_json", 'read a string whose opening delimiter was left out up to its closing <|"|>'),
)


#: Where a call in a ```` ```tool_code ```` fence was found.
_FENCED = ("call_in_content", "code_fence")


class _ArgReader:
    """Reads FunctionGemma / Gemma 4 ``{key:value,...}`` objects; linear, depth-checked."""

    def __init__(self, text: str, ctx: ScanContext) -> None:
        self.text = text
        self.n = len(text)
        self.ctx = ctx
        self.truncated = False
        self._ahead = (1, 0)  # (from, stop) of the last look-ahead (:meth:`_lone_closer`)
        self.lone_closer = False  # a string was read up to a lone closing delimiter

    def _delim_at(self, i: int) -> str | None:
        for d in _STRING_DELIMS:
            if self.text.startswith(d, i):
                return d
        return None

    def value(self, i: int, depth: int) -> tuple[Any, int]:
        t, n = self.text, self.n
        i = skip_ws(t, i)
        if i >= n:
            self.truncated = True
            return None, n
        d = self._delim_at(i)
        if d is not None:
            close = t.find(d, i + len(d))
            if close == -1:
                self.truncated = True
                return t[i + len(d) :], n
            return t[i + len(d) : close], close + len(d)
        ch = t[i]
        if ch == '"':
            j = i + 1
            while j < n and t[j] != '"':
                j += 2 if t[j] == "\\" else 1
            if j >= n:
                self.truncated = True
                return t[i + 1 :], n
            value = whole_json(t[i : j + 1])  # (between its quotes: no blank around it)
            return (t[i + 1 : j] if value is NOT_JSON else value), j + 1
        if ch == "{":
            return self.obj(i, depth + 1)
        if ch == "[":
            return self.arr(i, depth + 1)
        # a bare token: number, true/false/null, or unquoted text
        j = i
        while (
            j < n
            and t[j] not in ",}]"
            and self._delim_at(j) is None
            and not (t[j] == "<" and t.startswith(_ENDS, j))
        ):
            j += 1
        if j >= n:
            self.truncated = True
        closer = self._lone_closer(j)
        if closer != -1:
            # the string's opening delimiter was left out (or mistyped: ':\s*'<|"|>):
            # the value is the text as written up to its closing delimiter
            d = self._delim_at(closer)
            self.lone_closer = True
            return t[i:closer].strip(), closer + len(d or "")
        tok = t[i:j].strip()
        if len(tok) <= self.ctx.limits.max_number_chars:
            value = whole_json(tok)  # (stripped)
            if value is not NOT_JSON:
                return value, j
        return tok, j

    def _lone_closer(self, j: int) -> int:
        """Where a string delimiter that closes the bare value stopped at ``j`` begins, or
        -1. The model left the opening delimiter out (sglang#39240:
        ``query:Paris, France<|"|>,limit:5``) or wrote another quote
        (ollama#15315: ``pattern:':\\s*\\w+'<|"|>}``). Taken only when the delimiter
        is followed by what ends a value (``,``, ``}``, ``]``, an end token) and the
        text before it holds no key (``:``) and no bracket: then the delimiter can
        open no string, and the comma in the value is text."""
        t, n = self.text, self.n
        lo, c = self._ahead
        if not lo <= j <= c:
            # the first stop at or after j is the same for every j up to it: one scan
            # serves every bare value before it (linear, however many there are)
            c = j
            while c < n and t[c] not in _NO_VALUE_TEXT and self._delim_at(c) is None:
                c += 1
            self._ahead = (j, c)
        d = self._delim_at(c) if c < n else None
        if d is None:
            return -1
        e = skip_ws(t, c + len(d))
        if e < n and t[e] not in ",}]" and not t.startswith(_ENDS, e):
            return -1
        return c

    def _check(self, depth: int, i: int) -> None:
        if depth > self.ctx.limits.max_depth:
            raise NestingTooDeepError(
                f"Gemma arguments nest deeper than {self.ctx.limits.max_depth}",
                limit=self.ctx.limits.max_depth,
                actual=depth,
                raw=self.text[i : i + 200],
            )

    def _next_item(self, i: int, close: str) -> tuple[int, bool]:
        """Skip whitespace and commas from ``i``: ``(where the next item starts, True)``,
        or ``(the index after the container, False)`` at its ``close`` or at the end of
        the text (then it was cut off: ``truncated`` is set)."""
        t, n = self.text, self.n
        while True:
            i = skip_ws(t, i)
            if i >= n:
                self.truncated = True
                return n, False
            if t[i] == close:
                return i + 1, False
            if t[i] != ",":
                return i, True
            i += 1

    def obj(self, i: int, depth: int) -> tuple[dict[str, Any], int]:
        """``text[i] == "{"``: the object and the index after its ``}``."""
        self._check(depth, i)
        t, n = self.text, self.n
        out: dict[str, Any] = {}
        i += 1
        while True:
            i, more = self._next_item(i, "}")
            if not more:
                return out, i
            if t.startswith(_ENDS, i):
                return out, i  # a missing brace: the end token or the next call closes it
            d = self._delim_at(i)
            if d is not None:
                close = t.find(d, i + len(d))
                if close == -1:
                    self.truncated = True
                    return out, n
                key, i = t[i + len(d) : close], close + len(d)
            elif t[i] == '"':
                close = t.find('"', i + 1)
                if close == -1:
                    self.truncated = True
                    return out, n
                key, i = t[i + 1 : close], close + 1
            else:
                j = i
                while j < n and t[j] not in ":,}":
                    j += 1
                key, i = t[i:j].strip(), j
            i = skip_ws(t, i)
            if i >= n:
                self.truncated = True
                return out, n
            if t[i] != ":":
                if t[i] in ",}":
                    out[key] = None
                    continue
                i += 1  # stray character: skip it
                continue
            val, i = self.value(i + 1, depth)
            out[key] = val
            if self.truncated:
                return out, n

    def arr(self, i: int, depth: int) -> tuple[list[Any], int]:
        """``text[i] == "["``: the list and the index after its ``]``."""
        self._check(depth, i)
        t, n = self.text, self.n
        out: list[Any] = []
        i += 1
        while True:
            i, more = self._next_item(i, "]")
            if not more:
                return out, i
            if t[i] == "}" or t.startswith(_ENDS, i):
                return out, i  # a missing "]": the object's brace or an end token closes it
            val, i = self.value(i, depth)
            out.append(val)
            if self.truncated:
                return out, n


def parse_gemma_args(text: str, ctx: ScanContext | None = None) -> tuple[dict[str, Any], bool]:
    """Decode a ``{key:<escape>v<escape>,...}`` object: ``(arguments, truncated)``."""
    reader = _ArgReader(text, ctx or ScanContext())
    i = skip_ws(text, 0)
    if i >= len(text) or text[i] != "{":
        return {}, True
    args, _ = reader.obj(i, 1)
    return args, reader.truncated


def _bound_call(text: str, p: int, hi: int, ctx: ScanContext) -> tuple[str, int] | None:
    """``x = f(`` at ``p`` with ``f`` an offered tool: the name bound and where ``f`` starts.

    Gemma's ``tool_code`` fence is Python: a model binds the call's result and prints it
    (``summary = read_file(filename='notes.txt')`` then ``print(summary)``: the
    gemma-cookbook's Gemma 3 document summarizer; Gemma 4 e2b's ``tool_code =
    get_weather(...)``, waybarrios/vllm-mlx PR 623). Only a call of an offered tool is
    read through a binding; any other code keeps the fence out of the calls.
    """
    ne = read_dotted_name(text, p)
    if ne == p or "." in text[p:ne]:
        return None
    q = skip_ws(text, ne)
    if q >= hi or text[q] != "=" or text.startswith("==", q):
        return None
    c = skip_ws(text, q + 1)
    ce = read_dotted_name(text, c)
    if ce == c or ce >= hi or text[ce] != "(" or not ctx.is_tool(text[c:ce]):
        return None
    return text[p:ne], c


def _printed_name(text: str, p: int, hi: int, bound: set[str]) -> int | None:
    """The end of ``print(x)`` whose ``x`` (at ``p``, past ``print(``) is a bound name."""
    ne = read_dotted_name(text, p)
    if ne == p or text[p:ne] not in bound:
        return None
    q = skip_ws(text, ne)
    if q >= hi or text[q] != ")":
        return None
    return q + 1


#: One call of a ``tool_code`` fence: its start, name, arguments, whether it is cut off,
#: the error, the repairs made to read it.
_FenceCall = tuple[int, str, Any, bool, str | None, tuple[tuple[str, str], ...]]


class GemmaFormat(ToolCallFormat):
    """Gemma ```` ```tool_code ```` fences, FunctionGemma and Gemma 4 ``call:name{...}``."""

    name = "gemma"
    markers = ("tool_code", "call:", *BARE_MARKS, *(o for o, _ in _WRAPPERS))
    priority = 20
    source = (
        "https://ai.google.dev/gemma/docs/capabilities/function-calling; "
        "https://ai.google.dev/gemma/docs/functiongemma/formatting-and-best-practices; "
        "vllm-project/vllm vllm/tool_parsers/functiongemma_tool_parser.py, gemma4_tool_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        if "tool_code" in text:
            past = 0
            for fence in find_fences(text):
                if fence.start < past:
                    continue  # backticks in the string of a call read already
                if fence.lang == "tool_code":
                    fence = _python_fence(text, fence, ctx)
                    past = fence.end
                    out.extend(self._fence(text, fence, ctx))
                    self._check_count(out, ctx, text)
        if _CALL in text or any(o in text for o, _ in _WRAPPERS):
            headed = _CALL in text or any(m in text for m in BARE_MARKS)
            calls = self._calls(text, ctx) if headed else []
            unmarked = self._unmarked(text, ctx)
            calls = _outermost([*calls, *unmarked]) if unmarked else calls
            if out and calls:
                # a fence and a call that overlap: the one that starts first holds the
                # other in its text (a ```tool_code fence in a call's <escape> string, a
                # call: written in a fenced call's string), never a second call (issue 26)
                out = _outermost([*out, *calls])
            else:
                out.extend(calls)
        if len(out) > 1:
            out.sort(key=lambda c: c.start)
        self._check_count(out, ctx, text)
        return out

    def _check_count(self, out: list[Candidate], ctx: ScanContext, text: str) -> None:
        # called after appending: the call just taken must still be within the limit
        self.check_call_count(len(out) - 1, ctx, text)

    # ---- ```tool_code fences -------------------------------------------------------

    def _fence(self, text: str, fence: Fence, ctx: ScanContext) -> list[Candidate]:
        """The calls of one fence; their spans partition the fence."""
        start, lo, hi, end = fence.start, fence.body_start, fence.body_end, fence.end
        closed = fence.closed
        calls: list[_FenceCall] = []
        p = skip_ws(text, lo)
        if p < hi and (
            text[p] == "{" or (text[p] == "[" and text.startswith("{", skip_ws(text, p + 1)))
        ):
            # JSON in a tool_code fence (seen from Gemini/Gemma): hand it over as a payload
            body = text[p:hi].rstrip()
            trunc = (
                not closed
                or find_bracket_end(text, p, ctx.limits, stop=hi, reads=ctx.reads).truncated
            )
            return [self._make(text, start, end, trunc, where=_FENCED, payload=body)]
        in_list = False
        if p < hi and text[p] == "[":
            in_list, p = True, p + 1
        #: names bound to an offered tool's call in this fence (``x = f(...)``)
        bound: set[str] = set()
        while True:
            p = skip_ws(text, p)
            while p < hi and text[p] in ",;":
                p = skip_ws(text, p + 1)
            if p >= hi or (in_list and text[p] == "]"):
                break
            call_start = p
            wrapped = False
            if text.startswith("print(", p):
                wrapped, p = True, skip_ws(text, p + 6)
                shown = _printed_name(text, p, hi, bound)
                if shown is not None:
                    p = shown  # print(x) of a call's result bound above: bookkeeping
                    continue
            elif not in_list:
                target = _bound_call(text, p, hi, ctx)
                if target is not None:
                    bound.add(target[0])
                    p = target[1]
            ne = read_dotted_name(text, p)
            if ne == p or ne >= hi or text[ne] != "(":
                return []  # other code in the fence: not a tool call
            span = find_bracket_end(text, ne, ctx.limits, stop=hi, reads=ctx.reads)
            name = text[p:ne]
            if "." in name and not ctx.is_tool(name):
                name = name.rsplit(".", 1)[1]
            src = None if span.truncated else text[p : span.end]
            parsed = None if src is None else parse_call(src, ctx.limits, ctx.lone_param)
            error: str | None
            notes: tuple[tuple[str, str], ...] = ()
            if parsed is not None and parsed.arguments is not None:
                args: Any = parsed.arguments
                error, notes = None, parsed.notes  # (a value bound by position: recorded)
            else:
                # rejected or cut short: the raw call text, reported invalid with the reason
                args = text[p : span.end]
                error = (
                    "tool_code call cut off before its closing parenthesis"
                    if span.truncated
                    else rejection(parsed)
                )
            calls.append((call_start, name, args, span.truncated or not closed, error, notes))
            p = span.end
            if wrapped:
                p = skip_ws(text, p)
                if p < hi and text[p] == ")":
                    p += 1
        return self._fence_candidates(text, start, end, calls)

    def _fence_candidates(
        self, text: str, start: int, end: int, calls: list[_FenceCall]
    ) -> list[Candidate]:
        """The candidates of a fence's calls: their spans partition ``text[start:end]``."""
        out: list[Candidate] = []
        for k, (_cs, name, args, trunc, error, notes) in enumerate(calls):
            s = start if k == 0 else calls[k][0]
            e = end if k == len(calls) - 1 else calls[k + 1][0]
            out.append(
                self._make(
                    text,
                    s,
                    e,
                    trunc,
                    where=_FENCED,
                    extra=("pythonic",),
                    name=name,
                    arguments=args,
                    error=error,
                    notes=notes,
                )
            )
        return out

    # ---- call:name{...} --------------------------------------------------------------

    def _paren_call(
        self, text: str, c: int, ns: int, ne: int, name: str, ctx: ScanContext
    ) -> Candidate | None:
        start, closer = _wrapped_start(text, c)
        if not closer and not ctx.is_tool(name):
            return None  # "call:f(x)" in prose
        keyed = keyed_paren_span(text, ne)
        if keyed is not None:  # Gemma's key:value body in round brackets (gemma_shell)
            args, cut = parse_gemma_args("{" + text[ne + 1 : keyed[0]] + "}", ctx)
            end = keyed[0] + 1 if text.startswith(")", keyed[0]) else keyed[0]
            q = skip_ws(text, end)
            end = q + len(closer) if closer and text.startswith(closer, q) else end
            return self._make(text, start, end, keyed[1] or cut, name=name, arguments=args)
        span = find_bracket_end(text, ne, ctx.limits, reads=ctx.reads)
        parsed = (
            None if span.truncated else parse_call(text[ns : span.end], ctx.limits, ctx.lone_param)
        )
        end = span.end
        if closer:
            q = skip_ws(text, end)
            if text.startswith(closer, q):
                end = q + len(closer)
        ok = parsed is not None and parsed.arguments is not None
        return self._make(
            text,
            start,
            end,
            span.truncated,
            extra=("pythonic",),
            name=name,
            arguments=parsed.arguments if ok and parsed is not None else text[ns : span.end],
            error=None
            if ok
            else (
                "call cut off before its closing parenthesis"
                if span.truncated
                else rejection(parsed)
            ),
            notes=parsed.notes if ok and parsed is not None else (),
        )

    def _calls(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        n = len(text)
        pos = 0
        heads = CallHeads(text)
        while True:
            c, ns = heads.next(pos)  # call:, or a bare : after the opener (gemma_shell)
            if c == -1:
                break
            pos = ns
            ne = _name_end(text, ns, ctx)
            if ne == ns or ne >= n or text[ne] not in "{(":
                continue
            name = text[ns:ne]
            if text[ne] == "(":
                # Gemma 4 sometimes writes a Python-style call: call:f(a="x") (vllm-mlx #622)
                paren = self._paren_call(text, c, ns, ne, name, ctx)
                if paren is not None:
                    out.append(paren)
                    self._check_count(out, ctx, text)
                    pos = paren.end
                continue
            start, closer = c, ""
            for opener, close_tok in _WRAPPERS:
                lo = c - len(opener)
                if lo >= 0 and text.startswith(opener, lo):
                    start, closer = lo, close_tok
                    break
            if not closer and not ctx.is_tool(name):
                continue  # "call:" in prose
            reader = _ArgReader(text, ctx)
            args, e = reader.obj(ne, 1)
            truncated = reader.truncated
            end = e
            end = _closer_end(text, end, closer)
            notes = _LONE_CLOSER if reader.lone_closer else ()
            out.append(
                self._make(text, start, end, truncated, name=name, arguments=args, notes=notes)
            )
            self._check_count(out, ctx, text)
            pos = end
        return out

    def _unmarked(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """Calls whose ``call:`` was left out after the wrapper's opener
        (``<start_function_call>get_financial_overview{}``: Gemma 4 E2B prompted with
        FunctionGemma's markup, DenisovAV/flutter_gemma issue 238; Gemma 4 forgetting
        ``call:`` after ``<|tool_call>``, mattn/tensai PR 217): taken only when an
        offered name follows the opener, then its ``{``."""
        out: list[Candidate] = []
        for opener, closer in _WRAPPERS:
            pos = 0
            while (at := text.find(opener, pos)) != -1:
                ns = at + len(opener)
                pos = ns
                ne = _name_end(text, ns, ctx)
                if ne == ns or not text.startswith("{", ne) or not ctx.is_tool(text[ns:ne]):
                    continue
                reader = _ArgReader(text, ctx)
                args, e = reader.obj(ne, 1)
                end = _closer_end(text, e, closer)
                notes = (*(_LONE_CLOSER if reader.lone_closer else ()), _NO_CALL_WORD)
                out.append(
                    self._make(
                        text,
                        at,
                        end,
                        reader.truncated,
                        name=text[ns:ne],
                        arguments=args,
                        notes=notes,
                    )
                )
                self._check_count(out, ctx, text)
                pos = end
        return out


#: The record of a call whose ``call:`` was left out.
_NO_CALL_WORD = ("native_markup", "read a call whose call: was left out after its opener")
#: Characters a name is made of (with blanks between words: :func:`_name_end`).
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-. ")
_MAX_NAME = 256


def _name_end(text: str, ns: int, ctx: ScanContext) -> int:
    """Where the name that starts at ``ns`` ends: an identifier, or an offered name with
    spaces in it up to the ``{`` or ``(`` after it (an MCP tool named ``Answer Tool``:
    waybarrios/vllm-mlx issue 577; the same in harmony, lmstudio-bug-tracker 876)."""
    ne = read_identifier(text, ns, extra="_-.")
    if ne == ns or not text.startswith(" ", ne):
        return ne
    k = ne
    stop = min(len(text), ns + _MAX_NAME)
    while k < stop and text[k] in _NAME_CHARS:
        k += 1
    if k < stop and text[k] in "{(" and ctx.is_tool(text[ns:k].rstrip()):
        return ns + len(text[ns:k].rstrip())
    return ne


def _closer_end(text: str, end: int, closer: str) -> int:
    """``end`` moved past the wrapper's ``closer`` after the arguments, written as the
    family writes it or as an XML end tag (``</end_function_call>`` for
    ``<end_function_call>``: flutter_gemma issue 238); else ``end`` (the braces alone
    closed the call)."""
    if not closer:
        return end
    q = skip_ws(text, end)
    for tok in (closer, "</" + closer[1:]):
        if text.startswith(tok, q):
            return q + len(tok)
    return end


def _wrapped_start(text: str, c: int) -> tuple[int, str]:
    for opener, close_tok in _WRAPPERS:
        lo = c - len(opener)
        if lo >= 0 and text.startswith(opener, lo):
            return lo, close_tok
    return c, ""


def _python_fence(text: str, fence: Fence, ctx: ScanContext) -> Fence:
    """The fence whose body is the call it opens with: backticks inside the call's string
    literals (a value quoting a fenced example) do not close it (issue 26). The fence as
    found when its body does not open with ``name(`` or the call has no closer."""
    p = skip_ws(text, fence.body_start)
    if text.startswith("print(", p):
        p = skip_ws(text, p + 6)
    ne = read_dotted_name(text, p)
    if ne == p or ne >= len(text) or text[ne] != "(" or ne >= fence.body_end:
        return fence
    span = find_bracket_end(text, ne, ctx.limits, reads=ctx.reads)
    if span.truncated or span.end <= fence.body_end:
        return fence
    ticks = text[fence.body_end : fence.end]
    close = text.find(ticks, span.end)
    if close == -1:
        return fence
    return Fence(fence.start, fence.body_start, close, close + len(ticks), fence.lang, True)


def _outermost(cands: list[Candidate]) -> list[Candidate]:
    """The candidates no earlier one overlaps, in order (the first to start wins)."""
    kept: list[Candidate] = []
    end = -1
    for c in sorted(cands, key=lambda c: (c.start, -c.end)):
        if c.start >= end:
            kept.append(c)
            end = c.end
    return kept
