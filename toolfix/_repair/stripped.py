"""Tagged calls whose angle brackets were stripped, read by the registry's tag words.

A chat UI or a log viewer that renders markup drops a family's angle brackets (and
mangles its namespace prefix), leaving the tags as words at the starts of lines:

    DSML | invoke name="terminal"                  (DeepSeek V4 DSML through Telegram:
    DSML | parameter name="command" string="true"   NousResearch/hermes-agent 115475)
    ls -la
    DSML | /invoke

    invoke name="get_weather">                      (MiniMax through exo, its ``<`` lost:
    parameter name="location">Parisparameter>       exo-explore/exo issue 1882)
    invoke>

Nothing here names a family: the words are the declared tagged families' own (their
call, argument and section tag words, :class:`~toolfix._repair.spec.TaggedCalls`), the
noise is what is left of their namespace prefixes. :func:`restore` writes each such line
back as the tag it was (``<invoke name="terminal">``, ``</parameter>``), one line for one
line, so the family's own reader reads the call and every offset maps back to the
original by its line. A call is restored only from a line that opens a call tag with its
name attribute; the admission gate then asks of it what it asks of every call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .spec import FormatSpec, KeyValueCalls, TaggedCalls

__all__ = ["Restorer", "restore_equals_tags"]

#: The record of a key/value call read with its call tokens written back.
_NO_TOKENS = "read a key/value call whose call tokens were gone"
#: Lines restored in one text at most (the work is one pass over them, counted).
_MAX_LINES = 4096


@dataclass(frozen=True, slots=True)
class Restored:
    """A text with its stripped tags written back, line for line, and where each of its
    lines starts in the original and in the rebuilt text."""

    text: str
    starts: tuple[int, ...]  # (the original's line starts)
    rebuilt: tuple[int, ...]  # (the rebuilt text's line starts)
    length: int  # (the original's)
    note: str = "read tags whose angle brackets were stripped"
    """What was written back (the calls' repair record)."""
    hold: int = 0
    """Where a stream starts holding the text back, as far as what was written back
    tells (:attr:`Restorer.heads`, part of families.markup_start): a call read here
    starts there at the earliest; one that ends before it went out as prose."""
    inserted: tuple[int, int] | None = None
    """Where one token was written into the rebuilt text and its length, when that is
    all that was written: offsets then map back exactly, not by their lines."""

    def original(self, pos: int, end: bool) -> int:
        """``pos`` of the rebuilt text as an offset of the original: the start of its
        line, or (``end``) the end of the line it ends in (exact when one token was
        :attr:`inserted`)."""
        if self.inserted is not None:
            at, n = self.inserted
            return pos if pos <= at else max(at, pos - n)
        line = _line_of(self.rebuilt, pos - 1 if end else pos)
        if not end:
            return self.starts[line]
        return self.starts[line + 1] - 1 if line + 1 < len(self.starts) else self.length


def _line_of(starts: tuple[int, ...], pos: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= max(pos, 0):
            lo = mid
        else:
            hi = mid - 1
    return lo


class Restorer:
    """Writes back the stripped tags of the declared tagged families (one per scanner)."""

    def __init__(self, specs: Iterable[FormatSpec]) -> None:
        calls: set[str] = set()
        params: set[str] = set()
        sections: set[str] = set()
        cores: set[str] = set()
        attrs: set[str] = set()
        pairs: list[KeyValueCalls] = []
        for spec in specs:
            for g in (spec.grammar, *spec.alternatives):
                if isinstance(g, KeyValueCalls) and not g.name_end:
                    pairs.append(g)
                if not isinstance(g, TaggedCalls) or g.syntax.open != "<":
                    continue
                calls.add(g.call)
                attrs.add(g.name_attr)
                if g.param is not None:
                    params.add(g.param)
                cores.update(w for p in g.syntax.prefixes for w in re.findall(r"\w+", p))
            for opener, _closer in spec.wrappers:
                word = opener.strip("<>/ ")
                if re.fullmatch(r"[\w:]+", word) and opener.startswith("<"):
                    sections.add(word.rsplit("|", 1)[-1])
        self._pairs = tuple(pairs)
        self._params = frozenset(params)
        self._calls = frozenset(calls)
        words = "|".join(map(re.escape, sorted(calls | params | sections, key=len, reverse=True)))
        noise = "|".join(map(re.escape, sorted(cores, key=len, reverse=True)))
        lead = rf"(?:(?:{noise})\b|[|｜: \t])*" if noise else r"[ \t]*"
        # a line that is a stripped tag: prefix noise, ``/``, a tag word, its attributes,
        # ``>`` or ``/>``, then (an argument's) value on the same line
        self._line = re.compile(
            rf"{lead}(?P<slash>/)?(?P<word>{words})(?![\w:-])"
            r"""(?P<attrs>(?:[ \t]+[\w:-]+\s*=\s*"[^"\n]{0,200}")*)[ \t]*(?P<gt>/?>)?"""
        )
        names = "|".join(map(re.escape, sorted(attrs)))
        calls_re = "|".join(map(re.escape, sorted(calls)))
        # what makes a text worth restoring: a call tag with its name attribute at a
        # line's start, no ``<`` before it
        self._gate = (
            re.compile(rf"(?m)^{lead}(?:{calls_re})[ \t]+(?:{names})\s*=\s*\"") if calls else None
        )
        #: where the stream must hold such a call back (families.markup_start): the
        #: prefixes' words, and a call tag's word that starts a line and a blank after
        #: it (one word: the stream holds back a last word until the next comes)
        self.heads = (
            *(rf"\b{re.escape(c)}\b" for c in sorted(cores)),
            *(rf"(?<![^\n]){re.escape(c)}\s" for c in sorted(calls)),
        )
        self.head_letters = frozenset(w[0] for w in (*cores, *calls))
        self._heads = re.compile("|".join(self.heads)) if self.heads else None

    def may_open_before(self, text: str, pos: int) -> bool:
        """A call :meth:`restore` writes back may start before ``pos``: a stripped call
        tag starts a line (its section's line may come before it, so anywhere in the
        text), or a key/value family's key tag stands in the text (its name's line comes
        before it). ``pos`` itself is not looked at: the answer errs on the side of yes."""
        if self._gate is not None and "=" in text and self._gate.search(text):
            return True
        return any(_key_first(text, g) != -1 for g in self._pairs)

    def pairs_before(self, text: str, pos: int) -> bool:
        """A key/value family's key tag stands before ``pos`` with no call opener before
        it (looked for in ``text[:pos]`` only): :meth:`restore_pairs` may read a call
        whose opener is gone there."""
        return any(_key_first(text, g, pos) != -1 for g in self._pairs)

    def restore(self, text: str, is_tool: Callable[[str], bool]) -> Restored | None:
        """``text`` with its stripped markup written back, or ``None`` when no line of it
        opens a call tag whose brackets were stripped, nor starts with an offered name
        right before a key/value family's key tag (:meth:`restore_pairs`)."""
        return self._tags(text) or self.restore_pairs(text, is_tool)

    def _tags(self, text: str) -> Restored | None:
        """``text`` with its stripped tags written back (``None``: no line opens a call
        tag whose brackets were stripped). An argument's tag written alone on
        its line is joined to its value's lines (the line breaks around the value are the
        stripping's, not the value's)."""
        if self._gate is None or "=" not in text or self._gate.search(text) is None:
            return None
        lines = text.split("\n")
        if len(lines) > _MAX_LINES:
            return None
        pieces: list[str] = []
        seps: list[str] = []
        open_: list[str] = []  # the tags open, innermost last
        for line in lines:
            fixed, joins_before, joins_after = self._line_of(line, open_)
            if joins_before and seps:
                seps[-1] = ""
            pieces.append(fixed)
            seps.append("" if joins_after else "\n")
        done = _assemble(text, lines, pieces, seps)
        head = self._heads.search(text) if self._heads is not None else None
        hold = len(text) if head is None else head.start()
        return Restored(done.text, done.starts, done.rebuilt, done.length, done.note, hold)

    def restore_pairs(self, text: str, is_tool: Callable[[str], bool]) -> Restored | None:
        """A key/value family's call whose call tokens are gone (the engine took them and
        passed the body on: ``glob\n<arg_key>pattern</arg_key>\n<arg_value>…``, GLM
        through mlx-lm, ml-explore/mlx-lm issue 607; ``read<arg_key>filePath</arg_key>…``
        as the tool's name, zai-org/GLM-5 issue 84): an offered name that starts a line,
        then only blanks before the key tag, the pairs closed on a line of their own
        end, or by the call's closer the engine left (``bash<arg_key>…</arg_value></tool_call>
        <tool_call>…``: the first opener gone, anomalyco/opencode issue 14842; THUDM/GLM
        issue 224). Written back with the call tokens around it, the rest as it was."""
        for g in self._pairs:
            k = _key_first(text, g)
            if k == -1:
                continue
            line = text.rfind("\n", 0, k) + 1
            if line and not text[line:k].strip():
                line = text.rfind("\n", 0, line - 1) + 1  # (the name on the line before)
            name = text[line:k].strip()
            if not name or not is_tool(name) or text[line:k].lstrip() != text[line:k]:
                continue
            end = _pairs_end(text, k, g)
            if end == -1:
                continue
            closed = text.startswith(g.call[1], end)
            end += len(g.call[1]) if closed else 0  # (the closer left: kept, not added)
            nl = text.find("\n", end)
            if not closed and text[end : len(text) if nl == -1 else nl].strip():
                continue  # (more on the line of the last value: not the body's end)
            lines = text.split("\n")
            if len(lines) > _MAX_LINES:
                return None
            first = text.count("\n", 0, line)
            last = text.count("\n", 0, end)
            pieces = list(lines)
            pieces[first] = g.call[0] + pieces[first]
            if not closed:
                pieces[last] = pieces[last].rstrip() + g.call[1]
            done = _assemble(text, lines, pieces, ["\n"] * len(lines))
            at = (line, len(g.call[0])) if closed else None  # (the opener alone written)
            return Restored(done.text, done.starts, done.rebuilt, done.length, _NO_TOKENS, 0, at)
        return None

    def _line_of(self, line: str, open_: list[str]) -> tuple[str, bool, bool]:
        """One line written back (``open_``: the tags open before it, updated), whether it
        closes an argument's value the lines before hold, and whether it opens one the
        lines after hold."""
        m = self._line.match(line)
        if m is None or (m.group("gt") is None and m.end() != len(line.rstrip())):
            return line, False, False  # (not a tag line: a value's text, kept as written)
        word, attrs, gt = m.group("word"), m.group("attrs"), m.group("gt") or ">"
        rest = line[m.end() :]
        in_value = bool(open_) and open_[-1] in self._params
        closes = m.group("slash") is not None or (not attrs and word in open_ and not rest)
        if closes:
            while open_ and open_.pop() != word:
                pass
            return f"</{word}>{rest}", in_value and word in self._params, False
        head = ""
        if word in self._params and in_value:
            head = f"</{open_.pop()}>"  # (the argument before it left unclosed)
        if gt == "/>":
            return f"{head}<{word}{attrs}/>{rest}", bool(head), False
        open_.append(word)
        tail = f"{word}>"
        if word in self._params and rest.endswith(tail) and len(rest) > len(tail):
            open_.pop()  # (``Parisparameter>``: the value, then its closer)
            return f"{head}<{word}{attrs}>{rest[: -len(tail)]}</{word}>", bool(head), False
        joins = word in self._params and not rest.strip()
        return f"{head}<{word}{attrs}>{rest}", bool(head), joins


def _assemble(text: str, lines: list[str], pieces: list[str], seps: list[str]) -> Restored:
    """The rebuilt text of ``pieces`` (one per line of ``text``) joined by ``seps``."""
    starts: list[int] = []
    rebuilt: list[int] = []
    out: list[str] = []
    pos = new = 0
    for line, piece, sep in zip(lines, pieces, seps, strict=True):
        starts.append(pos)
        rebuilt.append(new)
        out.append(piece + sep)
        pos += len(line) + 1
        new += len(piece) + len(sep)
    joined = "".join(out)
    return Restored(joined[: new - len(seps[-1])], tuple(starts), tuple(rebuilt), len(text))


def _key_first(text: str, g: KeyValueCalls, stop: int | None = None) -> int:
    """Where ``g``'s first key tag stands (before ``stop``) when no call opener comes
    before it; -1 when there is none, or an opener does (the family's reader reads it)."""
    k = text.find(g.key[0], 0, len(text) if stop is None else stop)
    return -1 if k == -1 or text.find(g.call[0], 0, k) != -1 else k


#: Pairs read after a bare body's name at most (each turn moves on; counted).
_MAX_PAIRS = 256


def _pairs_end(text: str, k: int, g: KeyValueCalls) -> int:
    """Where the run of key/value pairs that starts at ``k`` ends (after its last value's
    closer); -1 when a pair is not closed."""
    end = -1
    for _ in range(_MAX_PAIRS):
        while k < len(text) and text[k] in " \t\r\n":
            k += 1
        if not text.startswith(g.key[0], k):
            return end
        ke = text.find(g.key[1], k)
        v = ke + len(g.key[1])
        while 0 < v < len(text) and text[v] in " \t\r\n":
            v += 1
        if ke == -1 or not text.startswith(g.value[0], v):
            return -1
        ve = text.find(g.value[1], v)
        if ve == -1:
            return -1
        k = end = ve + len(g.value[1])
    return end


#: A line that is one of Qwen3-Coder's tags written without its ``<`` (and a closer
#: without its ``</``): ``function=terminal>``, ``parameter=command>``, ``parameter>``,
#: ``function>`` (Qwen3.5 through exo: exo-explore/exo issue 1876). Group ``word`` and
#: ``arg`` for an opener, ``end`` for a closer.
_EQUALS_LINE = re.compile(
    r"[ \t]*(?:(?P<word>function|parameter)=(?P<arg>[^<>=\n]{1,256})>"
    r"|(?P<end>function|parameter)>)[ \t]*"
)
_WRAPPER_LINE = "<tool_call>"


def restore_equals_tags(text: str, is_tool: Callable[[str], bool]) -> Restored | None:
    """Qwen3-Coder's ``=``-style tags written back where each lost its ``<`` (and each
    closer its ``</``), one tag a line, as the template writes them: from a line
    ``function=NAME>`` right after a ``<tool_call>`` line, ``NAME`` an offered tool, to
    that call's ``function>`` line. ``None``: no such call. The same class as the tagged
    families' stripped tags (:class:`Restorer`, exo issue 1882), for the family whose
    tags carry their name after ``=``."""
    lines = text.split("\n")
    if len(lines) > _MAX_LINES:
        return None
    pieces = list(lines)
    inside = False
    found = False
    for i, line in enumerate(lines):
        m = _EQUALS_LINE.fullmatch(line)
        if m is None:
            continue
        word, arg, end = m.group("word", "arg", "end")
        if word == "function" and not inside:
            before = next((x.strip() for x in reversed(lines[:i]) if x.strip()), "")
            if before != _WRAPPER_LINE or not is_tool(arg.strip()):
                continue
            inside = found = True
        elif not inside:
            continue
        pieces[i] = f"<{word}={arg}>" if word else f"</{end}>"
        inside = end != "function"
    if not found:
        return None
    done = _assemble(text, lines, pieces, ["\n"] * len(lines))
    return Restored(done.text, done.starts, done.rebuilt, done.length)
