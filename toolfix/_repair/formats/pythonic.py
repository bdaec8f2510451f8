"""Pythonic calls ``[f(a=1), g(b='x')]`` (Llama 3.2 / Llama 4), read by a whitelist walker.

Model text is never evaluated: each call's source goes through
:func:`ast.parse` (AST only, after the ``Limits.max_pythonic_chars`` cap) and a
walker that accepts only plain or dotted names called with keyword arguments
whose values are literals (strings, numbers, booleans, ``None``/``null``, lists,
tuples, dicts with string keys, signed numbers). Anything else (positional
arguments, ``**kwargs``, nested calls, attributes, operators, f-strings...) makes
that call invalid: it is still reported, with its raw text as arguments and the
reason in ``Candidate.error``, so the interpreter reports it instead of repairing it.

Gating, so that prose never yields calls:

(a) a list ``[name(...), ...]`` whose items are all calls, when it starts a line
    or names a registry tool: ``explicit=True``;
(b) a single ``name(...)`` on its own line whose name is a registry tool:
    ``explicit=False``;
(c) the body of an untagged or ``python`` fence made only of (a)/(b) calls (any
    other code in the fence: the fence is left alone): ``explicit=True``.

A list cut short (``finish_reason=length``) keeps the calls before the cut; the
cut one is reported ``truncated`` with its raw text.

Sources: vLLM ``pythonic_tool_parser.py`` / ``llama4_pythonic_tool_parser.py``
(https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/tool_parsers/pythonic_tool_parser.py)
and Meta's Llama 3.2 prompt format
(https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_2/).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from keyword import iskeyword
from typing import Any, ClassVar

from ..._config import Limits
from ..._errors import InputTooLargeError, ToolfixError
from ..gate import ReadArguments, differing, duplicates_detail
from ..positional import bind_object, bind_positional
from ..text import (
    ExtendBudget,
    find_bracket_end,
    line_start_before,
    next_fence,
    read_identifier,
    skip_ws,
)
from ._base import Candidate, ScanContext, ToolCallFormat, make_candidate

__all__ = ["PyCall", "PythonicFormat", "parse_call", "read_dotted_name", "rejection"]

PYTHON_FENCE_LANGS = frozenset({"", "python", "py", "python3"})
_KINDS = ("call_in_content", "pythonic")
_JSON_NAMES: dict[str, Any] = {"true": True, "false": False, "null": None}
# A model's own wrapper token glued to a call on its line counts as the line's edge:
# a special token (``<|begin_of_box|>``) or a bare tag (``<answer>``, ``</answer>``) that is
# no HTML formatting element (``<code>get_weather(...)</code>`` is a mention, as a
# backtick span is). Tags with attributes or ``=`` (``<parameter=x>``) are not edges.
_EDGE_TAG = r"(?:<\|/?[A-Za-z_][\w.-]*\|>|</?[A-Za-z_][\w.-]*>)"
_EDGE = re.compile(rf"[ \t;]*(?:{_EDGE_TAG}[ \t;]*)*")
_TAG_NAME = re.compile(r"</?([A-Za-z_][\w.-]*)>")
_HTML = frozenset(
    {
        *("a", "b", "i", "u", "s", "p", "q", "em", "tt", "kbd", "samp", "var", "code", "pre"),
        *("span", "div", "li", "ul", "ol", "td", "th", "tr", "dd", "dt", "strong", "mark"),
        *("small", "sub", "sup", "del", "ins", "cite", "blockquote", "details", "summary"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "br", "hr"),
    }
)
# a list opener, or the first letter of a line (after indentation and edge tokens)
_TRIGGER = re.compile(rf"\[|^[ \t]*(?:{_EDGE_TAG}[ \t]*)*[A-Za-z_]", re.MULTILINE)


class _Reject(Exception):
    """A construct outside the whitelist."""


@dataclass(frozen=True, slots=True)
class PyCall:
    """One pythonic call: ``arguments`` is ``None`` when the walker rejected it (``reason``)."""

    name: str
    arguments: dict[str, Any] | None
    reason: str | None = None
    notes: tuple[tuple[str, str], ...] = ()
    """Repairs made to read it, ``(kind, detail)`` (a string requoted), as
    :attr:`Candidate.notes <toolfix._repair.formats.Candidate.notes>`."""


def read_dotted_name(text: str, i: int) -> int:
    """End of a plain or dotted name (``get_weather``, ``brave_search.call``) at ``i``."""
    end = read_identifier(text, i)
    while end > i and end + 1 < len(text) and text[end] == ".":
        nxt = read_identifier(text, end + 1)
        if nxt == end + 1:
            break
        end = nxt
    return end


def _func_name(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, float) and not math.isfinite(v):
            raise _Reject("non-finite number")
        if v is None or isinstance(v, str | bool | int | float):
            return v
        raise _Reject(f"unsupported literal {type(v).__name__}")
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for key, value in _members(node):
            if key in out and (twice := differing(((key, out[key], value),))):
                raise _Reject(duplicates_detail(twice))  # (G3: no second value silently wins)
            out[key] = value
        return out
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
        and not isinstance(node.operand.value, bool)
    ):
        num = node.operand.value
        return -num if isinstance(node.op, ast.USub) else num
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    raise _Reject(f"{type(node).__name__} is not a literal")


def _members(node: ast.Dict) -> Iterator[tuple[str, Any]]:
    """The members of a dict literal, their keys strings, their values read by
    :func:`_value` (a key written twice comes twice: the caller judges it)."""
    for key, item in zip(node.keys, node.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            raise _Reject("dict keys must be strings")
        yield key.value, _value(item)


def parse_call(
    src: str,
    limits: Limits,
    lone: Callable[[str], str | None] | None = None,
    *,
    objects: bool = False,
) -> PyCall | None:
    """Read one ``name(key=value, ...)`` without executing anything.

    Returns ``None`` when ``src`` is not a call with a plain or dotted name at all
    (syntax error, other expression), and a :class:`PyCall` with ``arguments=None``
    and a ``reason`` when it is a call outside the whitelist.

    ``lone``: the parameter a lone value written by position binds to, per tool
    (:mod:`toolfix._repair.positional`); ``None``: positions are never bound.
    ``objects``: a lone object written by position that holds that parameter is the
    arguments object (the schema-anchored reader's, which reads objects of arguments:
    :func:`~toolfix._repair.positional.bind_object`).

    Raises:
        InputTooLargeError: ``src`` is longer than ``limits.max_pythonic_chars``.
    """
    if len(src) > limits.max_pythonic_chars:
        raise InputTooLargeError(
            f"pythonic call longer than {limits.max_pythonic_chars} characters",
            limit=limits.max_pythonic_chars,
            actual=len(src),
            raw=src[:200],
        )
    simple = _simple_call(src.strip())
    if simple is not None:
        return simple
    notes: tuple[tuple[str, str], ...] = ()
    tree = _parse(src.strip())
    if tree is None:
        # LFM2 (vLLM's tests): a line break, or the string's own quote, written raw
        # inside a string (``command='sed -n '1,5p' f'``)
        fixed = _requote(src.strip())
        tree = None if fixed is None else _parse(fixed)
        if tree is None:
            return None
        notes = (
            ("invalid_json", "escaped quotes and line breaks written raw inside a Python string"),
        )
    node = tree.body
    if not isinstance(node, ast.Call):
        return None
    name = _func_name(node.func)
    if name is None:
        return None
    try:
        if node.args:
            bound = None if lone is None else _bind(name, node, lone, objects)
            if bound is None:
                raise _Reject("positional arguments are not supported")
            return PyCall(name, bound[0], None, (*notes, bound[1]))
        args: dict[str, Any] = ReadArguments()  # (a key written twice: noted, gate G3)
        for kw in node.keywords:
            if kw.arg is None:
                raise _Reject("**kwargs is not supported")
            args[kw.arg] = _value(kw.value)
    except _Reject as exc:
        return PyCall(name, None, str(exc), notes)
    return PyCall(name, args, None, notes)


def _bind(
    name: str, node: ast.Call, lone: Callable[[str], str | None], objects: bool
) -> tuple[dict[str, Any], tuple[str, str]] | None:
    """The call's values written by position bound to the tool's parameter, with the
    note to record (:func:`~toolfix._repair.positional.bind_positional`), or ``None``."""
    try:
        if objects and not node.keywords and len(node.args) == 1:
            (obj,) = node.args
            if isinstance(obj, ast.Dict):
                # ``exec({"command": "pwd"})``: the arguments object itself, by position
                members: dict[str, Any] = ReadArguments()  # (a key written twice: noted, G3)
                for key, value in _members(obj):
                    members[key] = value
                return bind_object(name, members, lone)
        values = tuple(_value(a) for a in node.args)
    except _Reject:
        return None  # (``*args``, a name, an expression: not a value)
    return bind_positional(name, values, len(node.keywords), lone)


#: ``name(`` of a call :func:`_simple_call` reads: a plain or dotted ASCII name.
_SIMPLE_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\([ \t\n]*")
#: One ``key=value`` argument (and the comma after it) whose value is a literal that
#: reads the same in Python and by hand: a string without escapes, control characters
#: or surrogates (which the parser refuses), a decimal integer or a plain decimal
#: fraction of a few digits, or a constant name; lists and string-keyed dicts of them
#: are read by :func:`_simple_container`. Anything else (escapes, exponents, ``0x``,
#: ``1_000``, ``5j``, tuples, sets, expressions...) is left to :func:`ast.parse`.
_LITERAL = (
    r"(?:\"([^\"\\\x00-\x1f\ud800-\udfff]*)\""
    r"|'([^'\\\x00-\x1f\ud800-\udfff]*)'"
    r"|(-?(?:0|[1-9][0-9]{0,15}))(?![0-9.eExXjJ_oObB])"
    r"|(-?(?:0|[1-9][0-9]{0,15})\.[0-9]{1,15})(?![0-9eEjJ_])"
    r"|(True|False|None|true|false|null)(?![A-Za-z0-9_]))"
)
_SIMPLE_ARG = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*=[ \t\n]*" + _LITERAL + r"[ \t\n]*(,[ \t\n]*)?"
)
#: One such literal alone (inside a list or dict).
_SIMPLE_SCALAR = re.compile(_LITERAL)
_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None, **_JSON_NAMES}
#: ``key=`` before a list or dict value (the value is read by :func:`_simple_container`).
_SIMPLE_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t\n]*=[ \t\n]*(?=[\[{])")
#: Blanks, then what may follow a value inside a list or dict: a comma (and blanks) or
#: the closer.
_SIMPLE_SEP = re.compile(r"[ \t\n]*(?:(,)[ \t\n]*)?")
#: Blanks (inside brackets, where the parser also takes line breaks).
_SIMPLE_BLANKS = re.compile(r"[ \t\n]*")
#: Blanks, then ``:`` and blanks (between a dict's key and its value).
_SIMPLE_COLON = re.compile(r"[ \t\n]*:[ \t\n]*")
#: Nesting :func:`_simple_container` reads (deeper values go to the parser).
_SIMPLE_DEPTH = 8


def _simple_call(src: str) -> PyCall | None:
    """``src`` read without the parser when it is a call whose arguments are all simple
    literals (``get_weather(city="Paris", days=3)``, the common case; ``ast.parse``
    costs far more); ``None`` when it is anything else (the parser then reads it). Gives
    what :func:`parse_call` gives through the parser: the same name, values and order
    (a repeated key keeps its first place and its last value)."""
    head = _SIMPLE_HEAD.match(src)
    if head is None:
        return None
    name = head.group(1)
    if iskeyword(name) if "." not in name else any(map(iskeyword, name.split("."))):
        return None
    args: dict[str, Any] = ReadArguments()  # (a key written twice: noted, gate G3)
    pos = head.end()
    last = len(src) - 1
    while pos < last:
        m = _SIMPLE_ARG.match(src, pos, last)
        if m is None:
            # a list or dict of such literals (``steps=[]``, ``address={'city': 'X'}``)
            k = _SIMPLE_KEY.match(src, pos, last)
            if k is None or iskeyword(k.group(1)):
                return None
            got = _simple_container(src, k.end(), last, 0)
            if got is None:
                return None
            args[k.group(1)], pos = got
            sep = _SIMPLE_SEP.match(src, pos, last)
            pos = sep.end()  # type: ignore[union-attr]
            if sep.group(1) is None:  # type: ignore[union-attr]
                break
            continue
        key, dq, sq, integer, fraction, constant, comma = m.groups()
        if iskeyword(key):
            return None
        args[key] = _scalar(dq, sq, integer, fraction, constant)
        pos = m.end()
        if comma is None:
            break
    if pos != last or src[last] != ")":
        return None
    return PyCall(name, args)


def _scalar(
    dq: str | None, sq: str | None, integer: str | None, fraction: str | None, constant: str
) -> Any:
    """The value of one literal matched by :data:`_SIMPLE_SCALAR` (its groups)."""
    if dq is not None:
        return dq
    if sq is not None:
        return sq
    if integer is not None:
        return int(integer)
    if fraction is not None:
        return float(fraction)
    return _CONSTANTS[constant]


def _simple_container(src: str, pos: int, end: int, depth: int) -> tuple[Any, int] | None:
    """The list or dict at ``src[pos]`` (before ``end``) when it holds only simple
    literals, lists and string-keyed dicts, as the parser and :func:`_value` read it
    (a trailing comma allowed): ``(value, index past it)``; ``None`` for anything else
    (a tuple, a set, a non-string key, an expression, a dict key written twice), which
    the parser then reads (:func:`_value` refuses a dict key written twice with two
    values: rule G3)."""
    if depth >= _SIMPLE_DEPTH:
        return None
    is_list = src[pos] == "["
    closer = "]" if is_list else "}"
    items: list[Any] = []
    members: dict[str, Any] = {}
    p = _SIMPLE_BLANKS.match(src, pos + 1, end).end()  # type: ignore[union-attr]
    while True:
        if p >= end:
            return None
        if src[p] == closer:
            return (items if is_list else members), p + 1
        if is_list:
            got = _simple_item(src, p, end, depth)
            if got is None:
                return None
            value, p = got
            items.append(value)
        else:
            key = _SIMPLE_SCALAR.match(src, p, end)
            if key is None or (key.group(1) is None and key.group(2) is None):
                return None  # a dict key is a string
            colon = _SIMPLE_COLON.match(src, key.end(), end)
            if colon is None:
                return None
            got = _simple_item(src, colon.end(), end, depth)
            if got is None:
                return None
            value, p = got
            name = key.group(1) if key.group(1) is not None else key.group(2)
            if name in members:
                return None  # (a key written twice: the parser's walk judges it, G3)
            members[name] = value
        sep = _SIMPLE_SEP.match(src, p, end)
        p = sep.end()  # type: ignore[union-attr]
        if sep.group(1) is None and (p >= end or src[p] != closer):  # type: ignore[union-attr]
            return None  # no comma and no closer: some expression goes on


def _simple_item(src: str, p: int, end: int, depth: int) -> tuple[Any, int] | None:
    """One value inside a list or dict: a literal, or a list or dict of them."""
    if p < end and src[p] in "[{":
        return _simple_container(src, p, end, depth + 1)
    m = _SIMPLE_SCALAR.match(src, p, end)
    if m is None:
        return None
    return _scalar(*m.groups()), m.end()


def _parse(src: str) -> ast.Expression | None:
    try:
        return ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _requote(src: str) -> str | None:
    """``src`` with every string literal's raw line breaks and control characters
    escaped, and each quote
    inside it escaped unless what follows can only come after a closed string (a comma
    and the next argument, a closing bracket, the end); ``None`` when a string never
    closes. One pass, linear."""
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        q = src[i]
        if q not in "\"'":
            out.append(q)
            i += 1
            continue
        buf = [q]
        j = i + 1
        while True:
            if j >= n:
                return None
            c = src[j]
            if c == "\\" and j + 1 < n:
                buf.append(src[j : j + 2])
                j += 2
            elif c == q and _closes(src, j + 1):
                break
            else:
                buf.append("\\" + q if c == q else _ESCAPED.get(c, c) if c < " " else c)
                j += 1
        buf.append(q)
        out.append("".join(buf))
        i = j + 1
    return "".join(out)


#: Control characters a Python string cannot hold raw (a NUL, a line break), escaped.
_ESCAPED = {chr(i): f"\\x{i:02x}" for i in range(32) if chr(i) != "\t"} | {"\n": "\\n"}

#: What may follow a closed string: an argument's ``name=``, a value, a closer.
_AFTER_STRING = re.compile(r"[ \t]*(?:$|[)\]}:]|,\s*(?:[A-Za-z_]\w*\s*=|[\"'\[{(\-\d)\]}]|$))")


def _closes(src: str, k: int) -> bool:
    return _AFTER_STRING.match(src, k) is not None


@dataclass(frozen=True, slots=True)
class _Item:
    start: int
    end: int
    name: str
    cut: bool


def complete_members(raw: str, limits: Limits) -> dict[str, Any] | None:
    """The keyword arguments of a cut-off call ``f(a=1, b="x", c=`` that were complete
    (``{"a": 1, "b": "x"}``), read by the whitelist walker; ``None`` when they cannot be
    read. Only what precedes the last top-level comma is kept."""
    open_at = raw.find("(")
    if open_at == -1 or len(raw) > limits.max_pythonic_chars:
        return None
    n = len(raw)
    i = open_at + 1
    last_comma = -1
    while i < n:
        ch = raw[i]
        if ch in "([{":
            span = find_bracket_end(raw, i, limits)
            if span.truncated:
                break
            i = span.end
        elif ch in "\"'":
            j = i + 1
            while j < n and raw[j] != ch:
                j += 2 if raw[j] == "\\" else 1
            if j >= n:
                break
            i = j + 1
        else:
            if ch == ",":
                last_comma = i
            i += 1
    if last_comma == -1:
        return {}
    try:
        call = parse_call(raw[:last_comma] + ")", limits)
    except ToolfixError:
        return None
    return None if call is None or call.arguments is None else dict(call.arguments)


def _candidate(
    text: str,
    start: int,
    end: int,
    item: _Item,
    call: PyCall | None,
    explicit: bool,
    limits: Limits,
) -> Candidate:
    raw_call = text[item.start : item.end]
    arguments: str | dict[str, Any] = raw_call
    error: str | None
    if item.cut:
        name = item.name
        partial = complete_members(raw_call, limits)
        arguments = raw_call if partial is None else partial
        error = "pythonic call cut off before its closing parenthesis"
    else:
        name = item.name if call is None else call.name
        if call is not None and call.arguments is not None:
            arguments = call.arguments
        error = rejection(call)
    return make_candidate(
        text,
        start,
        end,
        "pythonic",
        where=_KINDS,
        truncated=item.cut,
        name=name,
        arguments=arguments,
        explicit=explicit,
        error=error,
        notes=() if call is None or item.cut else call.notes,
    )


#: A call written as Gemini's ``tool_code`` statement, ``print(default_api.f(a=1))``
#: (google-gemini/cookbook issue 929), also with the fence's ``tool_code`` tag glued to it
#: when the fence's backticks and line break were lost (``tool_codeprint(...)``:
#: microsoft/autogen issue 6505). Inside a ``tool_code`` fence the Gemma format reads it.
_PRINT_HEADS = frozenset({"print", "tool_codeprint"})


def _line_head(text: str, i: int) -> int:
    """Where the line holding ``i`` starts."""
    return text.rfind("\n", 0, i) + 1


def _edges_only(text: str, a: int, b: int) -> bool:
    """Is ``text[a:b]`` only blanks, ``;`` and wrapper tokens (:data:`_EDGE_TAG`) that
    are no HTML formatting element?"""
    if a == b:
        return True
    m = _EDGE.match(text, a, b)
    if m is None or m.end() != b:
        return False
    return "<" not in text[a:b] or not any(
        t.lower() in _HTML for t in _TAG_NAME.findall(text, a, b)
    )


def _rest_edges(text: str, pos: int, hi: int) -> bool:
    """Does the line from ``pos`` hold only what :func:`_edges_only` allows?"""
    end = pos
    while end < hi and text[end] in " \t;":
        end += 1
    if end >= hi or text[end] in "\r\n":
        return True
    if text[end] != "<":
        return False
    stop = min(x for x in (text.find("\n", end, hi), text.find("\r", end, hi), hi) if x >= 0)
    return _edges_only(text, end, stop)


def _line_rest_blank(text: str, pos: int, hi: int) -> bool:
    """Nothing but blanks and ``;`` from ``pos`` to the end of its line."""
    while pos < hi and text[pos] in " \t;":
        pos += 1
    return pos >= hi or text[pos] in "\r\n"


def _printed_call(
    text: str, start: int, open_at: int, hi: int, ctx: ScanContext, fenced: bool
) -> list[Candidate]:
    """The call ``print(name(...))`` on its own line starting at ``start`` (``open_at``:
    the ``(`` after ``print``): one call of an offered tool (a namespace such as
    ``default_api.`` before its name allowed) and nothing else inside ``print(...)``, and
    nothing after it on the line; no candidate otherwise (``print(x)`` is code)."""
    outer = find_bracket_end(text, open_at, ctx.limits, stop=hi, reads=ctx.reads)
    if outer.truncated or not _line_rest_blank(text, outer.end, hi):
        return []
    inner = skip_ws(text, open_at + 1)
    inner_end = read_dotted_name(text, inner)
    name = text[inner:inner_end]
    if inner_end >= hi or text[inner_end] != "(":
        return []
    if not ctx.is_tool(name) and not ("." in name and ctx.is_tool(name.rsplit(".", 1)[1])):
        return []
    cs = find_bracket_end(text, inner_end, ctx.limits, stop=hi, reads=ctx.reads)
    if cs.truncated or skip_ws(text, cs.end) != outer.end - 1:
        return []  # (more than the one call inside print(...))
    call = parse_call(text[inner : cs.end], ctx.limits, ctx.lone_param)
    item = _Item(inner, cs.end, name, False)
    return [_candidate(text, start, outer.end, item, call, fenced, ctx.limits)]


def rejection(call: PyCall | None) -> str | None:
    """The reason a parsed (or unparseable) pythonic call is invalid, ``None`` if it is fine."""
    if call is None:
        return "not a valid Python call expression"
    if call.arguments is None:
        return f"pythonic call outside the literal whitelist: {call.reason}"
    return None


class PythonicFormat(ToolCallFormat):
    """Python-style call lists and single tool calls on their own line."""

    name = "pythonic"
    markers = ("(",)
    priority = 60
    span_openers = "("
    source: ClassVar[str] = (
        "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
        "tool_parsers/pythonic_tool_parser.py; "
        "https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_2/"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """Pythonic calls in prose and in python/untagged fences, in order."""
        out: list[Candidate] = []
        n = len(text)
        budget = ExtendBudget(16)
        pos = 0
        while True:
            fence = next_fence(text, pos)
            if fence is None:
                break
            found = self._scan(text, pos, fence.start, ctx, fenced=False)
            if found and found[-1].truncated and budget.left > 0:
                # backticks inside a string of a call in prose open no fence
                budget.left -= 1
                held: list[Candidate] = []
                for c in self._scan(text, pos, n, ctx, fenced=False):
                    held.append(c)
                    if c.end > fence.start:
                        break
                if held and held[-1].end > fence.start and not held[-1].truncated:
                    out.extend(held)
                    pos = held[-1].end
                    continue
            out.extend(found)
            pos = fence.end
            if fence.lang not in PYTHON_FENCE_LANGS:
                continue  # json, bash, tool_code...: other formats' business
            inner = self._scan(text, fence.body_start, fence.body_end, ctx, fenced=True)
            if inner and self._covers(text, fence.body_start, fence.body_end, inner):
                last = len(inner) - 1
                for idx, c in enumerate(inner):
                    start = fence.start if idx == 0 else out[-1].end
                    end = fence.end if idx == last else c.end
                    out.append(
                        replace(
                            c,
                            start=start,
                            end=end,
                            raw=text[start:end],
                            kinds=(*_KINDS, "code_fence", *c.kinds[len(_KINDS) :]),
                        )
                    )
        out.extend(self._scan(text, pos, len(text), ctx, fenced=False))
        return out

    @staticmethod
    def _covers(text: str, lo: int, hi: int, cands: list[Candidate]) -> bool:
        """Is everything in ``text[lo:hi]`` outside the candidates whitespace or ``;``?"""
        pos = lo
        for c in [*cands, None]:
            stop = hi if c is None else c.start
            if text[pos:stop].strip(" \t\r\n;"):
                return False
            if c is not None:
                pos = c.end
        return True

    def _scan(
        self, text: str, lo: int, hi: int, ctx: ScanContext, *, fenced: bool
    ) -> list[Candidate]:
        out: list[Candidate] = []
        i = lo
        while i < hi:
            m = _TRIGGER.search(text, i, hi)
            if m is None:
                break
            if text[m.start()] == "[":
                found, i = self._list_at(text, m.start(), lo, hi, ctx, fenced)
            else:
                found, i = self._line_call_at(text, m.end() - 1, hi, ctx, fenced)
            out.extend(found)
        return out

    def _list_at(
        self, text: str, lb: int, lo: int, hi: int, ctx: ScanContext, fenced: bool
    ) -> tuple[list[Candidate], int]:
        first = skip_ws(text, lb + 1)
        if first >= hi or read_dotted_name(text, first) == first:
            return [], lb + 1
        name_end = read_dotted_name(text, first)
        if name_end < hi and text[name_end] != "(":
            return [], name_end
        span = find_bracket_end(text, lb, ctx.limits, stop=hi, reads=ctx.reads)
        if not span.truncated and text[span.end - 1] != "]":
            return [], span.end
        inner_hi = span.end if span.truncated else span.end - 1
        items = self._items(text, lb + 1, inner_hi, ctx)
        if not items:
            return [], span.end
        any_tool = any(ctx.is_tool(it.name) for it in items)
        if not (any_tool or fenced or line_start_before(text, lb, lo)):
            return [], span.end  # mid-line list of unknown names: prose, never parsed
        calls = [
            None if it.cut else parse_call(text[it.start : it.end], ctx.limits, ctx.lone_param)
            for it in items
        ]
        clean = all(
            c is not None and c.arguments is not None
            for c, it in zip(calls, items, strict=True)
            if not it.cut
        )
        if not (any_tool or clean):
            return [], span.end
        out: list[Candidate] = []
        for idx, (it, call) in enumerate(zip(items, calls, strict=True)):
            start = lb if idx == 0 else out[-1].end
            end = span.end if idx == len(items) - 1 else it.end
            out.append(_candidate(text, start, end, it, call, True, ctx.limits))
        return out, span.end

    def _items(self, text: str, p: int, hi: int, ctx: ScanContext) -> list[_Item] | None:
        """The ``name(...)`` items of a list body, or ``None`` if an item is something else."""
        items: list[_Item] = []
        while True:
            p = skip_ws(text, p)
            if p >= hi:
                return items
            name_end = read_dotted_name(text, p)
            if name_end == p:
                return None
            if name_end >= hi:  # cut inside the name
                if not items:
                    return None
                items.append(_Item(p, hi, text[p:hi], True))
                return items
            if text[name_end] != "(":
                return None
            cs = find_bracket_end(text, name_end, ctx.limits, stop=hi, reads=ctx.reads)
            if cs.truncated:
                items.append(_Item(p, hi, text[p:name_end], True))
                return items
            items.append(_Item(p, cs.end, text[p:name_end], False))
            q = skip_ws(text, cs.end)
            if q >= hi:
                return items
            if text[q] != ",":
                return None
            p = q + 1

    def _line_call_at(
        self, text: str, start: int, hi: int, ctx: ScanContext, fenced: bool
    ) -> tuple[list[Candidate], int]:
        name_end = read_dotted_name(text, start)
        name = text[start:name_end]
        if name in _PRINT_HEADS and name_end < hi and text[name_end] == "(":
            return _printed_call(text, start, name_end, hi, ctx, fenced), name_end + 1
        if name_end >= hi or text[name_end] != "(" or not ctx.is_tool(name):
            return [], max(name_end, start + 1)
        cs = find_bracket_end(text, name_end, ctx.limits, stop=hi, reads=ctx.reads)
        if cs.truncated:
            item = _Item(start, hi, name, True)
            return [_candidate(text, start, hi, item, None, fenced, ctx.limits)], hi
        if not (
            _edges_only(text, _line_head(text, start), start) and _rest_edges(text, cs.end, hi)
        ):
            return [], cs.end  # more text on the line: prose that mentions the tool
        item = _Item(start, cs.end, name, False)
        call = parse_call(text[start : cs.end], ctx.limits, ctx.lone_param)
        return [_candidate(text, start, cs.end, item, call, fenced, ctx.limits)], cs.end
