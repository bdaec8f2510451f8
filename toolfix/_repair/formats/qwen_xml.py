"""Qwen3-Coder XML calls, and the ``<function=name>{json}</function>`` form.

Qwen3-Coder writes::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

The ``<tool_call>`` wrapper is optional, several ``<function=`` blocks may share
one wrapper, and a missing ``</parameter>``, ``</function>`` or ``</tool_call>``
is tolerated (a value then runs to the next tag). Values are untyped text
(``string_values=True``) with ONE leading and ONE trailing newline removed, as
vLLM does. When the body after ``<function=name>`` is JSON instead of parameter
tags (Functionary v3.1 / Llama 3.1 ``<function=name>{"a": 1}</function>``), the
arguments are that JSON text.

Sources: vLLM ``qwen3coder_tool_parser.py``
(https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/tool_parsers/qwen3coder_tool_parser.py),
the Qwen3-Coder chat template
(https://huggingface.co/Qwen/Qwen3-Coder-30B-A3B-Instruct/blob/main/chat_template.jinja),
and Meta's Llama 3.1 prompt format for ``<function=...>``
(https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_1/).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import ClassVar

from ..gate import ReadArguments
from ..stripped import restore_equals_tags
from ..text import MarkerFinder, find_bracket_end
from ._base import Candidate, ScanContext, ToolCallFormat, respan

__all__ = ["QwenXmlFormat"]

WRAP_OPEN = "<tool_call>"
WRAP_CLOSE = "</tool_call>"
#: ByteDance Seed-OSS writes the same calls in its own wrapper
#: (https://huggingface.co/ByteDance-Seed/Seed-OSS-36B-Instruct, chat_template.jinja).
SEED_OPEN = "<seed:tool_call>"
SEED_CLOSE = "</seed:tool_call>"
FUNC = "<function="
FUNC_CLOSE = "</function>"
FUNC_SPACED = "<function "
PARAM = "<parameter="
PARAM_CLOSE = "</parameter>"
#: A ``function=`` tag that lost its ``<``, on a line of its own.
_BARE_FUNC = "\nfunction="
_MAX_TAG_NAME = 256
# what ends a parameter value when its </parameter> is missing
_VALUE_ENDS = (PARAM_CLOSE, PARAM, FUNC_CLOSE, WRAP_CLOSE, SEED_CLOSE, FUNC)
# the same, at the start of a line (after the layout's indentation, maybe none): where a
# value written on its own lines ends
_LINE_END = re.compile(r"\n[ \t]*(" + "|".join(re.escape(tag) for tag in _VALUE_ENDS) + ")")


def _tag_name(text: str, i: int, stop: int) -> int:
    """Index of the ``>`` closing ``<function=NAME>`` / ``<parameter=NAME>``, or -1."""
    m = _TAG_NAME_RUN.match(text, i, min(stop, i + _MAX_TAG_NAME))
    return -1 if m is None else m.end()  # (None too when the limit is before ``i``)


#: The characters of a tag's name, followed by its ``>`` before the limit (a ``<`` or a
#: line break first: no tag).
_TAG_NAME_RUN = re.compile(r"[^<>\n]*(?=>)")
#: The indentation of the line a value's closer starts (the value's last line).
_CLOSER_INDENT = re.compile(r"\n([ \t]+)\Z")
#: White space (``\s`` is ``str.isspace``).
_SPACE = re.compile(r"\s")
#: A run of white space, maybe empty (:func:`skip_ws` as one match, where the index is
#: in the text; after a tag, a line break is usually there).
_BLANKS = re.compile(r"\s*").match


def _trim_newline(value: str) -> str:
    """One leading and one trailing newline off (the template's layout). A one-line value
    padded with spaces on both sides (``<parameter=p> SOUL.md </parameter>``, the whole
    call written on one line) loses the padding: that layout's separators. A value whose
    closer is indented (``\\n  </parameter>``: the call written indented) loses that
    indentation, and its lines lose it too when every line carries it."""
    if "\n" not in value and value[:1] == " " and value[-1:] == " ":
        return value.strip(" ")
    indent = _CLOSER_INDENT.search(value)
    if indent is not None:
        pad, value = indent.group(1), value[: indent.start() + 1]
        lines = value.split("\n")
        if all(line.startswith(pad) for line in lines if line):
            value = "\n".join(line[len(pad) :] for line in lines)
    if value.startswith("\n"):
        value = value[1:]
    if value.endswith("\n"):
        value = value[:-1]
    return value


class _Balance:
    """Where ``</parameter>`` closers outnumber ``<parameter=`` openers after a point.

    An output with more closers than openers has closers written as text inside a value
    (a value that quotes a whole call and its closers: seed_oss engine tests). A value's
    own closer is then one after which the closers left and the openers left match up,
    so the quoted call and closers stay text of the value (docs/design.md#promise-9).
    Built only for such outputs; one pass, binary search per value."""

    __slots__ = ("closers", "openers")

    def __init__(self, closers: list[int], openers: list[int]) -> None:
        self.closers = closers
        self.openers = openers

    @classmethod
    def of(cls, text: str) -> _Balance | None:
        if text.count(PARAM_CLOSE) <= text.count(PARAM):
            return None
        return cls(_positions(text, "\n" + PARAM_CLOSE, 1), _positions(text, PARAM, 0))

    def own_closer(self, vend: int) -> int:
        """The line-start closer at or after ``vend`` that leaves as many closers as
        openers after it; ``vend`` itself when none does (the first closer wins)."""
        i = bisect.bisect_left(self.closers, vend)
        for k in range(i, min(len(self.closers), i + _MAX_CLOSERS)):
            at = self.closers[k]
            left = len(self.closers) - k - 1
            opened = len(self.openers) - bisect.bisect_right(self.openers, at)
            if left <= opened:
                return at
        return vend


#: Closers a value may hold as text before its first closer wins (keeps it linear).
_MAX_CLOSERS = 64

#: The elements a value may hold whole (a quoted call of this family or of an XML one):
#: their openers and their closer.
_NESTED = (
    (("<parameter=", "<parameter "), PARAM_CLOSE),
    ((FUNC, FUNC_SPACED), FUNC_CLOSE),
    ((WRAP_OPEN,), WRAP_CLOSE),
    ((SEED_OPEN,), SEED_CLOSE),
)


#: Any of :data:`_NESTED`'s openers (one search over a value).
_NESTED_OPEN = re.compile("|".join(re.escape(o) for opens, _ in _NESTED for o in opens))


class _Nesting:
    """Where a value that holds whole elements ends (issue 26: a Qwen3-Coder, Hermes,
    GLM, Hunyuan or MiniMax call quoted in a value, inline or on its own lines).

    A value's own ``</parameter>`` is the first one before which every element opened
    inside the value is closed again, provided the value opens one at all: the value
    grammar is nested, as the markup it quotes is. A value that opens nothing before
    its first closer, or whose elements never close, ends by the flat rule (the first
    closer or tag, a missing closer tolerated). Most values open nothing: a few bounded
    substring tests say so; the tags' positions are listed (once per text) only for a
    value that does, and counted by binary search."""

    __slots__ = ("_pairs", "closers", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.closers: list[int] = []
        self._pairs: list[tuple[list[int], list[int]]] | None = None

    @classmethod
    def of(cls, text: str) -> _Nesting | None:
        return cls(text) if PARAM_CLOSE in text else None

    def own_closer(self, vstart: int) -> int:
        """The value's own closer when it holds whole elements; -1 otherwise."""
        text = self.text
        first = text.find(PARAM_CLOSE, vstart)
        if first == -1 or _NESTED_OPEN.search(text, vstart, first) is None:
            return -1  # nothing opened before the first closer: the flat rule's end
        if self._pairs is None:
            self.closers = _positions(text, PARAM_CLOSE, 0)
            self._pairs = [
                (sorted(p for o in opens for p in _positions(text, o, 0)), _positions(text, c, 0))
                for opens, c in _NESTED
            ]
        i = bisect.bisect_left(self.closers, vstart)
        for at in self.closers[i : i + _MAX_CLOSERS]:
            nested = False
            for opens, closes in self._pairs:
                o = bisect.bisect_left(opens, at) - bisect.bisect_left(opens, vstart)
                c = bisect.bisect_left(closes, at) - bisect.bisect_left(closes, vstart)
                if o != c:
                    break
                nested = nested or o > 0
            else:
                return at if nested else -1
        return -1


def _positions(text: str, marker: str, shift: int) -> list[int]:
    out: list[int] = []
    k = text.find(marker)
    while k != -1:
        out.append(k + shift)
        k = text.find(marker, k + 1)
    return out


def _value_end(
    text: str, finder: MarkerFinder, vstart: int, ends: tuple[_Balance | None, _Nesting | None]
) -> tuple[int, str]:
    """Where the value starting at ``vstart`` ends, and the tag that ends it ("" at the
    end of the text)."""
    balance, nesting = ends
    n = len(text)
    own = -1 if nesting is None else nesting.own_closer(vstart)
    if own != -1:
        return own, PARAM_CLOSE  # the value holds whole elements
    if not text.startswith("\n", vstart):
        return finder.first(_VALUE_ENDS, vstart, n)
    # the template's layout: the value on its own lines, so it ends only at a tag that
    # starts a line (indented or not: some models indent every line of the call); tags
    # written inside the value are text
    hit = _LINE_END.search(text, vstart)
    vend, vwhich = (n, "") if hit is None else (hit.start(1), hit.group(1))
    if vwhich != PARAM_CLOSE:
        # "</parameter>" at the end of the value's last line also closes it
        tail = text[vstart:vend].rstrip()
        if tail.endswith(PARAM_CLOSE):
            vend, vwhich = vstart + len(tail) - len(PARAM_CLOSE), PARAM_CLOSE
    elif balance is not None:
        own = balance.own_closer(vend)
        if text[vend:own].replace(PARAM_CLOSE, "").strip():
            vend = own  # the closers it passes over close a call the value quotes
        # else: nothing but blanks and more closers between the value's first closer and
        # the one the balance picks (``</parameter>`` written twice: llama-swap #856): a
        # stutter of its own closer, so the value ends at the first and never keeps its
        # family's closer as text (issue 28)
    return vend, vwhich


class QwenXmlFormat(ToolCallFormat):
    """``<function=name><parameter=key>value</parameter></function>`` (Qwen3-Coder)."""

    name = "qwen_xml"
    markers = (FUNC, FUNC_SPACED)
    spans_start_at_markers = True
    priority = 10
    source: ClassVar[str] = (
        "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
        "tool_parsers/qwen3coder_tool_parser.py; https://github.com/vllm-project/vllm/blob/"
        "main/vllm/entrypoints/openai/tool_parsers/seed_oss_tool_parser.py"
    )

    def detect(self, has: Callable[[str], bool]) -> bool:
        """Its markers, or a ``<tool_call>`` wrapper whose ``function=`` tag lost its
        ``<`` (:func:`~toolfix._repair.stripped.restore_equals_tags`)."""
        return super().detect(has) or (has(WRAP_OPEN) and has(_BARE_FUNC))

    def may_open_before(self, text: str, pos: int) -> bool:
        """Its markers' rule, or a ``<tool_call>`` wrapper before ``pos`` in a text whose
        ``function=`` tag lost its ``<`` (that call's span starts at the wrapper)."""
        if super().may_open_before(text, pos):
            return True
        return text.find(WRAP_OPEN, 0, pos) != -1 and _BARE_FUNC in text

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """One candidate per ``<function=...>`` block, in order; with none, the calls
        whose tags lost their ``<`` (read as written back, offsets mapped by line)."""
        out = self._extract(text, ctx)
        if out or _BARE_FUNC not in text:
            return out
        restored = restore_equals_tags(text, ctx.is_tool)
        if restored is None:
            return out
        for c in self._extract(restored.text, ctx):
            s, e = restored.original(c.start, False), restored.original(c.end, True)
            found = respan(c, s, e, text[s:e])
            found.notes = (*found.notes, ("native_markup", restored.note))
            out.append(found)
        return out

    def _extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """One candidate per ``<function=...>`` block, in order."""
        out: list[Candidate] = []
        finder = MarkerFinder(text)
        balance = _Balance.of(text)
        nesting = _Nesting.of(text)
        n = len(text)
        pos = 0
        spaced = "<function " in text  # sglang #38894: ``<function bash>`` for ``=``
        while pos < n:
            at = finder.find(FUNC, pos)
            opener = FUNC
            if spaced:
                sp = self._spaced_opener(text, finder, pos, out[-1].end if out else 0)
                if sp != -1 and (at == -1 or sp < at):
                    at, opener = sp, FUNC_SPACED
            if at == -1:
                break
            name_start = at + len(opener)
            gt = _tag_name(text, name_start, n)
            if gt == -1:
                pos = name_start
                continue
            name = text[name_start:gt].strip().strip("\"'")
            if not name or _SPACE.search(name):
                pos = gt + 1
                continue
            start = self._wrapper_start(text, at, out[-1].end if out else 0)
            cand = self._function(text, finder, start, name, gt + 1, ctx, (balance, nesting))
            if cand is None:
                pos = gt + 1
                continue
            out.append(cand)
            pos = cand.end
        return out

    def _spaced_opener(self, text: str, finder: MarkerFinder, pos: int, lo: int) -> int:
        """The next ``<function NAME>`` written right inside a ``<tool_call>`` wrapper (a
        space where the template writes ``=``); -1 if none. Without the wrapper, an HTML
        or prose ``<function ...>`` is text."""
        while True:
            at = finder.find(FUNC_SPACED, pos)
            if at == -1 or self._wrapper_start(text, at, lo) != at:
                return at
            pos = at + 1

    @staticmethod
    def _wrapper_start(text: str, at: int, lo: int) -> int:
        """Include a ``<tool_call>`` (and whitespace) just before ``<function=``."""
        j = lo + len(text[lo:at].rstrip())  # (``str.rstrip`` strips what isspace() is)
        for wrap in (WRAP_OPEN, SEED_OPEN):
            if text.endswith(wrap, lo, j):
                return j - len(wrap)
        return at

    def _function(
        self,
        text: str,
        finder: MarkerFinder,
        start: int,
        name: str,
        body: int,
        ctx: ScanContext,
        ends: tuple[_Balance | None, _Nesting | None] = (None, None),
    ) -> Candidate | None:
        n = len(text)
        first = _BLANKS(text, body).end()  # type: ignore[union-attr]  # (past a '>')
        if first < n and text[first] in "{[":
            # <function=name>{json}</function>: Functionary v3.1 / Llama 3.1 style
            stop, closer = finder.first((FUNC_CLOSE, WRAP_CLOSE, SEED_CLOSE, FUNC), first, n)
            if not self._bare_value(text, name, first, stop, ctx):
                span = find_bracket_end(text, first, ctx.limits, stop=stop, reads=ctx.reads)
                end = self._close_tags(text, span.end)
                # unbalanced JSON before </function> is broken JSON, not a cut-off output
                cut = span.truncated and closer == ""
                return self._make(
                    text,
                    start,
                    end,
                    cut,
                    name=name,
                    arguments=text[first : span.end],
                    string_values=False,
                )
        args: dict[str, str] = ReadArguments()  # (a key written twice: noted, gate G3)
        p = body
        truncated = False
        while True:
            nxt, which = finder.first((PARAM, FUNC_CLOSE, WRAP_CLOSE, SEED_CLOSE, FUNC), p, n)
            if which != PARAM and p == body and (sole := ctx.sole_string(name)) is not None:
                close = text.find(PARAM_CLOSE, body, n if which == "" else nxt)
                if close != -1:
                    # the parameter's opener left out: a one-string tool's value
                    args[sole] = _trim_newline(text[body:close])
                    p = close + len(PARAM_CLOSE)
                    continue
            if which != PARAM:
                # </function>, </tool_call>, the next <function=, or the end of the text
                if which == "":
                    # the output ended before </function>: cut off (issue 11)
                    truncated = True
                    end = n
                elif which == FUNC:
                    end = nxt
                else:
                    end = self._close_tags(text, nxt)
                break
            pname_start = nxt + len(PARAM)
            gt = _tag_name(text, pname_start, n)
            if gt == -1:
                p = pname_start
                continue
            vstart = gt + 1
            vend, vwhich = _value_end(text, finder, vstart, ends)
            value = _trim_newline(text[vstart:vend])
            if vwhich != PARAM_CLOSE and "\n" not in value:
                # no closer of its own (the next tag or the end ended it): a one-line
                # value's spaces are the layout's (``<parameter=p> v\n<parameter=q>``)
                value = value.strip(" ")
            args[text[pname_start:gt].strip()] = value
            if vwhich == PARAM_CLOSE:
                p = vend + len(PARAM_CLOSE)
            elif vwhich == "":
                truncated = True
                p = n
            else:
                p = vend
        if not args and which in ("", FUNC) and not ctx.is_tool(name):
            return None  # "<function=name>" mentioned in prose: no parameters, never closed
        return self._make(
            text, start, end, truncated, name=name, arguments=args, string_values=True
        )

    @staticmethod
    def _bare_value(text: str, name: str, first: int, stop: int, ctx: ScanContext) -> bool:
        """The body is a one-string tool's value written without its parameter opener and
        closed by ``</parameter>`` before the call's end (``stop``): a value that starts
        with a bracket is text there, not Functionary's JSON body."""
        return ctx.sole_string(name) is not None and text.find(PARAM_CLOSE, first, stop) != -1

    @staticmethod
    def _close_tags(text: str, i: int) -> int:
        """Consume ``</function>`` and then ``</tool_call>`` (with whitespace) after ``i``."""
        j = _BLANKS(text, i).end()  # type: ignore[union-attr]  # (i: a span's end, a tag's)
        if text.startswith(FUNC_CLOSE, j):
            i = j + len(FUNC_CLOSE)
            j = _BLANKS(text, i).end()  # type: ignore[union-attr]
        for wrap in (WRAP_CLOSE, SEED_CLOSE):
            if text.startswith(wrap, j):
                return j + len(wrap)
        return i
