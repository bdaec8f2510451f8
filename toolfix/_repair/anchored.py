"""The schema-anchored reader: the manual fixer's last stage (docs/finding-calls.md).

Where no family reader found a valid call, this reader looks for what the registry
declares instead of a family's markers: an offered tool's name (case, separators, a
``functions.`` or namespace prefix and markup glued to it allowed; never a name that
differs in its letters), then that tool's parameter names right after it, in whatever
syntax surrounds them (JSON-like objects, attribute pairs, one element per argument,
``key: value`` / ``key=value`` / ``key => value`` / ``--key value`` runs, keyword
arguments). Values are read by their own grammar (quoted strings, brackets) or, bare,
up to the next argument or the construct's closer; the interpreter then coerces and
validates them like every other candidate.

Precision first:

* the name must be placed by structure: nothing but markup, punctuation and call words
  (``name``, ``tool``, ``invoke``...) before it on its line, not inside inline code, and
  inside a code fence only when the fence is the whole message. "I'll call get_weather
  for Paris" stays text (an intent for the LLM-based fixer);
* the arguments form one run that starts right after the name: between the name and the
  first argument, and between arguments, only markup, punctuation and connector words
  (``args``, ``arguments``...) — so no argument comes from another construct;
* every required parameter is present, and the call validates; anything else stays
  text, exactly as it was.

The family registry's markers are skipped as noise, never read as grammar. One pass,
left to right: each name's run ends before the next name, so the work is linear.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._config import DEFAULT_ARGUMENT_KEYS, FixConfig, Limits
from .._errors import LimitExceededError, MalformedToolCallError
from .._messages import CallPart, FailureKind, InvalidToolCallPart, ToolCallPart
from .._tools import ToolRegistry
from .delimiters import brace_depth, glyph_led, past_closing, past_glyphs
from .elision import is_placeholder
from .families import markup_start
from .formats import Candidate
from .formats._base import make_candidate
from .formats.gemma_shell import keyed_paren_span
from .gate import ReadArguments, duplicate_keys
from .interpret import Interpreter
from .jsonparse import ScanReads, parse_lenient
from .names import normalise_name
from .nametable import MAX_NAME, NameTable, name_table, names_in
from .narration import narrated
from .posread import by_position
from .quotes import QUOTE_PAIRS, escaped_quoted
from .text import find_bracket_end, find_fences, remove_spans

__all__ = ["AnchoredReader"]


FORMAT = "schema_anchored"
_WHERE = ("call_in_content",)
_NOTE = ((FailureKind.SCHEMA_ANCHORED.value, "read the call by the tool's schema"),)

#: Words that may stand before a tool's name on its line (``"name": "x"``, ``<invoke
#: name="x">``, ``[Calling tool: x``, ``to=functions.x``).
_NAME_WORDS = frozenset(
    {
        "name",
        "tool",
        "tool_name",
        "toolname",
        "function",
        "function_name",
        "func",
        "call",
        "calling",
        "invoke",
        "action",
        "recipient",
        "to",
        "type",
        "functions",
        "tools",
        "default_api",
        "tool_call",
        "tool_use",
    }
)
#: Words that may join a name to its arguments (``args =>``, ``"arguments": {``): the
#: default argument keys (the config's own are added per reader), and a few more.
_CONNECTORS = frozenset({*DEFAULT_ARGUMENT_KEYS, "inputs", "with", "for"})
#: Where the stream starts holding content back: the family registry's
#: :func:`~toolfix._repair.families.markup_start`, which toolfix/_stream/core.py reads as
#: ``_MARKUP_START``. A call's name must come at or after the first match.
_STREAM_HOLD = markup_start()
_MAX_ANCHORS = 4096  # argument anchors read after one name
_MAX_PREFIX = 200  # a "prefix" longer than this is a sentence, not markup
_MAX_OPENER = 48  # how far before a name a call opener is looked for
_MAX_NOISE_LINES = 4  # markup-only lines taken into a call's span on either side
_WORD = re.compile(r"[^\W\d]\w*")  # (a word of any script: ``调用`` is one)
#: complete markup groups skipped as noise: <tag ...>, <|token|>, [MARKER]
_GROUP = re.compile(r"<[^<>\n]{0,80}>|\[[^\[\]\n]{0,40}\]")
#: A bare value a pythonic call may hold: a number, a boolean or a null (not a name).
_LITERAL = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|True|False|None|null")
_ABSENT = object()  # an empty element: no value written
_MAX_TABLES = 64  # names' tables kept (by their tuple of names)
#: An argument anchor at a position (``re.match``): a tag naming the argument, a flag,
#: or a key (quoted or bare) with its separator.
_KEY = re.compile(
    r"""<(?:parameter|param|arg|argument)\s*=\s*["'\u201c]?(?P<pattr>[\w.-]+)["'\u201d]?\s*>"""
    r"""|<(?:parameter|param|arg|argument)\s+name\s*=\s*["'\u201c](?P<pname>[\w.-]+)["'\u201d][^<>\n]{0,60}>"""
    r"""|<(?:[｜|]{0,2}[^\s<>=/|｜]{1,12}[｜|]{1,2})?(?P<tag>[^\W\d][\w.-]*)>"""
    r"""|(?:--|[\u2013\u2014])(?P<flag>[^\W\d][\w-]*)(?:[ \t]*=[ \t]*|[ \t]+)"""
    r"""|["'\u201c\u2018]?(?P<key>[^\W\d][\w.-]*)["'\u201d\u2019]?[ \t]*(?P<sep>=>|:|=)[ \t]*"""
    r"""|(?P<spaced>[^\W\d][\w.-]*)[ \t]+(?=["'\u201c\u2018])"""
)
#: Words of a line that shows an arguments object rather than sending one.
_DOCUMENTS = re.compile(r"(?i)\b(?:example|sample|schema|format|template|payload|e\.g\.)")
#: Names written as an argument's quoted value passed over by one run of arguments.
_MAX_QUOTED_NAMES = 4
#: What follows a name placed by its line's start alone (no markup at or before it)
#: when it is a call: blanks and a ``key=``.
_PLAIN_AFTER = re.compile(r"[ \t]+[^\W\d][\w.-]*[ \t]*=")
#: A bare value that is the null, for a parameter whose schema takes null.
_NULLS = frozenset({"null", "None"})
#: Openers that stand right before a name and are markup, not words of a sentence:
#: the name written as the first argument element's name (``<parameter=edit>``, then the
#: arguments as ``<parameter=...>`` elements: signalnine/q27 issues 24 and 38), and a
#: client's display header (``[Tool Use: ask_followup_question]``: RooCodeInc/Roo-Code
#: issues 10547 and 10459), and a call's own ``<function=`` opener that lost its ``>``
#: (``<function=write_file\n<parameter=...>``: gemma3 in junjihashimoto/louter, xalgorix
#: issue 243's scan logs): such a call ends at its wrapper's end tag, so an output cut
#: before it (``</parameter>\n</``) is cut off, as the family reader says of the same
#: call with its ``>`` (promise 9).
_OPENER_BEFORE_NAME = re.compile(
    r"""(?:<(?:parameter|param|function)\s*=\s*["']?|\[Tool Use:\s*"""
    r"""|<(?:[\w-]+:)?(?:invoke|function|tool_call)\s+name\s*=\s*["']?)$"""
)
#: A call's id written between its name and its arguments, as a client displays a call
#: it made and a model copies the display: ``[Tool Call: gateway (ID: gateway_17…_19)]
#: Arguments: {…}`` (gemini-3-flash in OpenClaw, openclaw/openclaw issue 893) and ``[Tool
#: Call] name=run-command id=3d4e… args={…}`` (Ornith-1.5-9B in Onyx,
#: onyx-dot-app/onyx issue 14931).
_CALL_ID = re.compile(
    r"""[ \t]*(?:\((?:call[ _]?)?id:[ \t]*[\w.:-]{1,80}\)"""
    r"""|(?:call_)?id[ \t]*=[ \t]*["']?[\w.:-]{1,80}["']?(?=[ \t]))""",
    re.IGNORECASE,
)
#: A name written as an element's ``name`` attribute, the element's word in group 1:
#: ``<invoke name="bash">`` (MiniMax, GLM), ``<tool name="bash" command="ls" />``
#: (MiniMax through oh-my-pi, issue 8837). The element is the call's construct: the call
#: ends at its ``/>`` or its end tag (or a call wrapper's), never before (promise 9).
_NAME_ATTRIBUTE = re.compile(r"""<((?:[\w-]+:)?[\w-]+)\s+name\s*=\s*["']?$""")
#: What closes a call written with no argument (``</function>``, ``</tool_call>``,
#: ``</invoke>``, ``/>``, ``()``): its name, then only this.
_WRAPPER_CLOSERS = frozenset({"function", "invoke", "tool_call"})
_EMPTY_CLOSER = re.compile(r"[\s>]*(?:</(?:function|tool_call|invoke)>|/>|\(\s*\))")
_NOISE = frozenset(" \t\r\n,;{}()[]|\"'`\u201c\u201d\u2018\u2019>")
_BARE_END = {
    ":": re.compile(r"[\n,}]"),
    "=>": re.compile(r"[\n,}]"),
    "=": re.compile(r"[\s,)}>]|/>"),
}
#: The tags of a fence around a call's JSON arguments (DeepSeek V3 writes its name, then
#: ```` ```json ````, then the object: vLLM's deepseekv3 tool parser; the same after
#: DSML's ``<｜DSML｜toolcall>Read``: vllm-project/vllm-ascend issue 13794).
_FENCE_TAGS = frozenset({"json", "JSON", "json5", "jsonc"})
#: Where a bare flag value ends: its line's end, or the next flag. A flag's ``--`` may
#: come as the en dash (or em dash) a chat UI's typographer renders it as, as it renders
#: quotes curly and joins soft line breaks (markdown-it ``typographer: true``, no
#: ``breaks``: AnythingLLM's chat, Mintplex-Labs/anything-llm issue 4675, showing the
#: ``[TOOL_CALL]`` flags block MiniMax writes: NousResearch/hermes-agent issue 11994,
#: zeroclaw-labs/zeroclaw issue 4758).
_FLAG_END = re.compile(r"\n|[ \t](?:--|[\u2013\u2014])[A-Za-z_]")
_TAG_END = re.compile(r"<")
#: The element's closer (or the next element) right after a bracketed value.
_AT_TAG_END = re.compile(r"\s*<")
#: A model's special token (``<|"|>``, ``<|tool_call>``, ``<tool_call|>``, Gemma's
#: ``<escape>``): a bare value holding one is a family's syntax the anchored reader does
#: not read. Gemma's string delimiters around an elided value (``<|"|>(...)<|"|>``),
#: refused by Gemma's reader, were read as the value with its tokens (found by prec7's
#: slot generator, on main too).
_SPECIAL_TOKEN = re.compile(r"<\|[^\s<>|]{1,32}\|?>|<[^\s<>|]{1,32}\|>|<escape>")
#: Where a bare ``key: value`` inside ``name(`` ends (Gemma's keyed body in round
#: brackets: ``call:search(query: "x")``, toolfix/_repair/formats/gemma_shell.py).
_KEYED_END = re.compile(r"[\n,)}]")
#: Bare words that name a parameter's type: a signature (``get_weather(city: string)``),
#: never a value the model sent.
_TYPE_WORDS = frozenset(
    {"string", "str", "number", "integer", "int", "float", "boolean", "bool", "object"}
    | {"array", "list", "dict", "any", "null", "none"}
)
#: What ends a sentence (a family marker after one opens a call: ``_after_sentence``).
_SENTENCE_END = (".", "!", "?", "\u3002", "\uff01", "\uff1f")


@dataclass(slots=True)
class _Tools:
    """What the reader needs of one registry: its names' table, and (on first need)
    each tool's parameters by their comparison form and its required ones."""

    registry: ToolRegistry
    names: NameTable
    schemas: dict[str, tuple[dict[str, str], tuple[str, ...], frozenset[str]]] = field(
        default_factory=dict
    )

    def schema(self, name: str) -> tuple[dict[str, str], tuple[str, ...], frozenset[str]]:
        """The tool's parameters by their comparison form, its required ones, and those
        whose schema takes null."""
        hit = self.schemas.get(name)
        if hit is None:
            tool = self.registry.lookup(name)
            props = tool.properties if tool is not None else {}
            required = tuple(tool.required) if tool is not None else ()
            params = {normalise_name(p, strip_prefix=False): p for p in props}
            nullable = frozenset(p for p, sch in props.items() if _takes_null(sch))
            hit = self.schemas[name] = (params, required, nullable)
        return hit


class AnchoredReader:
    """Reads calls anchored on the offered tools' names and parameters (one per
    :class:`~toolfix._repair.textscan.TextScanner`)."""

    def __init__(self, config: FixConfig, markers: Iterable[str]) -> None:
        self.limits: Limits = config.limits
        self._markers = tuple(sorted({m for m in markers if len(m) > 2}, key=len, reverse=True))
        by_first: dict[str, list[str]] = {}
        for m in self._markers:  # (longest first, as above)
            by_first.setdefault(m[0], []).append(m)
        self._by_first = {ch: tuple(ms) for ch, ms in by_first.items()}
        through: dict[str, list[tuple[str, int]]] = {}
        for m in self._markers:  # (each marker by the characters it holds past its first)
            for off in range(1, len(m)):
                through.setdefault(m[off], []).append((m, off))
        self._through = {ch: tuple(ms) for ch, ms in through.items()}
        self._tag_markers = tuple(
            m for m in self._markers if m[0] in "<[" and not m.startswith("</")
        )
        self._name_words = _NAME_WORDS | {k.casefold() for k in config.json_keys.name_keys}
        self._connectors = _CONNECTORS | {k.casefold() for k in config.json_keys.argument_keys}
        self._last: _Tools | None = None  # (the last registry's schemas)
        self._tables: dict[tuple[str, ...], NameTable] = {}  # names' tables by the names

    def read(
        self,
        content: str,
        interp: Interpreter,
        seed: str,
        protected: list[tuple[int, int]],
        family: list[int],
        family_valid: bool,
        quotes: Callable[[], list[tuple[int, int]]] | None = None,
        reads: ScanReads | None = None,
    ) -> list[tuple[int, int, CallPart]]:
        """The calls found in ``content`` with their spans, in order: valid, or invalid
        ``duplicate_argument`` (:meth:`_finish`). ``protected``: the spans the scan holds
        quoted (comments, blockquotes, markup shown as an example), and ``quotes()`` more
        of them, asked for only once an offered name stands outside the others: no call
        reaches into one, and no name in one is read. ``family``:
        the spans the family readers took (flat start, end pairs); a call's span never
        reaches back into one before its name, and when they hold a valid call
        (``family_valid``) no name inside one is read (their calls stand). ``reads``: the
        scan's :class:`ScanReads`, for the JSON values read (``None``: nothing remembered)."""
        # streamed prose goes out until markup may begin (toolfix/_stream/core.py): a
        # call is read only where that has happened at its name, so a stream never sends
        # text that repair() takes as a call
        tools = self._tools(interp.registry)
        if not tools.names.by_norm:
            return []
        # where the family readers' calls stand, they stand: only the text outside read;
        # quoted text is never read
        kept = list(zip(family[::2], family[1::2], strict=True)) if family_valid else []
        anchors, held, quoted, hits, markup = _to_read(
            content, tools.names, kept, sorted(protected), quotes
        )
        if not anchors:
            # (the tool named in prose, then its arguments object: _named_object)
            found = self._named_object(content, hits, held, quoted, family, tools, interp, seed)
            return [] if found is None else [found]
        ends = sorted(family[1::2])
        quoted_ends = sorted(e for _, e in quoted)
        fences = find_fences(content) if "```" in content or "~~~" in content else []
        out: list[tuple[int, int, CallPart]] = []
        taken_end = 0
        prefix = _PrefixDigest(content)
        for i, (start, end, name) in enumerate(anchors):
            if len(out) > self.limits.max_calls:
                break  # (the manual fixer reports the calls past max_calls)
            if start < taken_end:
                continue
            if not self._placed(content, start, fences, taken_end):
                continue
            stop = self._run_stop(content, anchors, i, fences, taken_end)
            stop = _next_start(quoted, start, stop)  # (a quote ends the run)
            # (placed by its line's start alone; ``⇬name⇬{``: by its delimiters)
            plain = (markup < 0 or end < markup) and not _glyph_delimited(content, start, end)
            if plain and _PLAIN_AFTER.match(content, end) is None:
                continue  # (neither ``key=`` nor the line's end after it: prose)
            read = self._call_at(content, start, end, stop, name, tools, interp, reads, plain)
            if read is None:
                continue  # a required argument missing, or cut off before the closer
            args, args_end, notes = read
            s, e = self._span(content, start, args_end, stop)
            # nothing already streamed, nothing of an earlier call
            s = max(s, taken_end, min(held, start), _last_before(ends, start))
            s = max(s, _last_before(quoted_ends, start))  # (nor of a quote)
            digest = f"{seed}:{prefix.upto(s)}"
            part = self._finish(content, s, e, name, args, interp, digest, notes)
            if part is not None:
                out.append((s, e, part))
                taken_end = e
        return out

    def _run_stop(
        self,
        text: str,
        anchors: list[tuple[int, int, str]],
        i: int,
        fences: list[Any],
        floor: int,
    ) -> int:
        """Where the run of arguments after the name ``anchors[i]`` must stop: the next
        name, unless that name is only an argument's quoted value on the same line and
        not placed as a call's name (``<tool_call>exec tool="exec" command="ls" />``:
        openclaw/openclaw issue 33258): then the one after it (at most
        :data:`_MAX_QUOTED_NAMES` such names are passed)."""
        line_end = -2  # (found once a quoted name asks)
        for j in range(i + 1, min(len(anchors), i + 1 + _MAX_QUOTED_NAMES)):
            s, e, _ = anchors[j]
            quoted = s > 0 and e < len(text) and text[s - 1] in "\"'" and text[e] == text[s - 1]
            if not quoted:
                return s
            if line_end == -2:
                line_end = text.find("\n", anchors[i][1])
            if line_end != -1 and s > line_end:
                return s
            if self._placed(text, s, fences, floor):
                return s
        j = i + 1 + _MAX_QUOTED_NAMES
        return anchors[j][0] if j < len(anchors) else len(text)

    def _call_at(
        self,
        text: str,
        start: int,
        end: int,
        stop: int,
        name: str,
        tools: _Tools,
        interp: Interpreter,
        reads: ScanReads | None,
        plain: bool,
    ) -> tuple[dict[str, Any], int, tuple[tuple[str, str], ...]] | None:
        """The arguments of the call whose (placed) name is ``text[start:end]``, where
        they end and the repairs made to read them; ``None`` when no complete call is
        there (a required argument missing, a value that cannot be read, a construct cut
        off before its closer).

        ``plain``: no markup stands at or before the name, only the start of its line
        (:func:`name_line_start`). Then the name is written as declared and the call is
        ``key=value`` pairs on the name's line (``execute_code code="..."``:
        hermes-agent issue 13031; ``web_fetch url="..."``: odysseus issue 2447), every
        parameter the tool declares written, the last value closed by its quote or
        followed by blanks (G1, with no closer: a cut between two arguments leaves one
        out, a cut in a bare value shortens it; either way no call is read)."""
        if text.startswith("(", end):
            # ``name("x")``: one value written by position (toolfix/_repair/positional.py),
            # before the run of keys reads a quoted value's ``'A:`` as a key
            bound = by_position(text, end, stop, name, interp.scan_context, reads)
            if bound is not None:
                return bound[0], bound[1], (*_NOTE, *bound[2])
        params, required, nullable = tools.schema(name)
        bracket = _bracket_opened(text, start)
        keyed = self._keyed_body(text, start, end)
        found = self._arguments(
            text,
            # (``name⇬{``: an invented delimiter skipped; ``name (ID: x)``: a call's id)
            past_glyphs(text, end if plain else _past_call_id(text, end, stop, params), stop),
            stop,
            params,
            reads,
            nullable,
            spaced=bracket,
            keyed=keyed,
        )
        if found is None:
            return None
        args, args_end, paren, modes, value_at = found
        if " " in modes and not _bracket_closes(text, args_end, stop):
            return None  # (``[name for key 'value'`` never closed: cut off)
        if plain and (
            len(args) != len(params)
            or not _plain_pairs(text, start, end, args_end, name, modes, value_at)
        ):
            return None  # (with no markup, only a whole and closed line of pairs)
        if not args and (bare := _bare_element(text, start, end, stop, interp, name)):
            args, args_end = bare  # (``<read_file> a.py </read_file>``)
        if not args:
            # a tool that takes no argument: its name, then the construct's closer
            closer = -1 if required else _empty_closer(text, end, stop, name)
            return None if closer == -1 else ({}, closer, _NOTE)
        element = _named_element(text, start)
        if any(r not in args for r in required) or not _closed(
            text,
            text[start:end],
            args_end,
            stop,
            _tag_opened(text, start),
            paren,
            element is not None or self._wrapped(text, start),
            self._past_markers,
            element,
        ):
            return None
        return args, args_end, _NOTE

    def _named_object(
        self,
        text: str,
        hits: list[tuple[int, int, str]],
        held: int,
        quoted: list[tuple[int, int]],
        family: list[int],
        tools: _Tools,
        interp: Interpreter,
        seed: str,
    ) -> tuple[int, int, CallPart] | None:
        """The call of a message that ends in a bare arguments object on lines of its
        own, when the line of prose just before it names exactly one offered tool and
        the object's keys are that tool's parameters, all the required ones among them
        ("Use web_search function.\n\n{"query": ...}": gpt-oss-20b in odysseus,
        odysseus-dev/odysseus issue 4085); ``None`` for anything else. The call is the
        object alone: the prose stays text (the stream sent it before the ``{``)."""
        body_end = len(text.rstrip(" \t\r\n"))
        if not text.endswith("}", 0, body_end):
            return None
        i = text.rfind("\n{", 0, body_end) + 1
        if i <= 0 or i < held:
            return None
        if any(s <= i < e for s, e in quoted) or any(
            s <= i < e for s, e in zip(family[::2], family[1::2], strict=True)
        ):
            return None
        prose_end = len(text[:i].rstrip())
        line = text.rfind("\n", 0, prose_end) + 1  # (the last line of prose)
        named = {n for s, _, n in hits if line <= s < prose_end}
        if len(named) != 1 or text.endswith(":", 0, prose_end):
            return None  # (no tool, or two, named; a lead-in to an example or a schema)
        if _DOCUMENTS.search(text, line, prose_end) or narrated(text, i):
            return None  # (the object shown as an example, or told about: not sent)
        (name,) = named
        try:
            span = find_bracket_end(text, i, self.limits)
            if span.truncated or span.end != body_end:
                return None
            parsed = parse_lenient(text[i:body_end], self.limits, cut=False)
        except (LimitExceededError, MalformedToolCallError):
            return None
        params, required, _ = tools.schema(name)
        value = parsed.value
        if not isinstance(value, dict) or not value:
            return None
        args = ReadArguments()
        for key, val in value.items():
            target = params.get(normalise_name(str(key), strip_prefix=False))
            if target is None:
                return None  # (a key the tool does not declare: not its arguments)
            if isinstance(val, str) and is_placeholder(val):
                return None  # (``"query": "..."``: a template, not a value)
            args[target] = val
        args.duplicates = duplicate_keys(text[i:body_end], value)
        if any(r not in args for r in required):
            return None
        digest = _PrefixDigest(text).upto(i)
        part = self._finish(text, i, body_end, name, args, interp, f"{seed}:{digest}")
        return None if part is None else (i, body_end, part)

    # ---- names ------------------------------------------------------------------------

    def _tools(self, registry: ToolRegistry) -> _Tools:
        """What the reader needs of ``registry``: kept for the last registry (an agent
        loop repairs with the same tools), its names' table for the last
        :data:`_MAX_TABLES` sets of names (a server gets the same tools anew with every
        request: the table is not built again for them)."""
        last = self._last
        if last is not None and last.registry is registry:
            return last
        key = tuple(registry)
        table = self._tables.get(key)
        if table is None:
            if len(self._tables) >= _MAX_TABLES:
                self._tables.clear()  # (bounded: a burst of new tool sets starts over)
            table = self._tables[key] = name_table(key)
        tools = _Tools(registry, table)
        self._last = tools  # one reference assignment: safe across threads
        return tools

    @staticmethod
    def _wrapped(text: str, start: int) -> bool:
        """An opener stands right before the name (:data:`_OPENER_BEFORE_NAME`), or the
        name opens the element a call wrapper opened (:func:`_wrapper_element`): the call
        ends at a call wrapper's end tag."""
        if _OPENER_BEFORE_NAME.search(text, max(0, start - 40), start) is not None:
            return True
        return _wrapper_element(text, start)

    def _keyed_body(self, text: str, start: int, end: int) -> bool:
        """The name ``text[start:end]`` opens Gemma's keyed body in round brackets
        (``name(key: value)``, closed: :func:`keyed_paren_span`, the format's own scan)
        and a family's call opener tag (``<tool_call>``, ``<|tool_call>``: the registry's
        markers) stands right before the name, blanks aside."""
        if not self._tag_markers or not text.startswith("(", end):
            return False
        before = text[max(0, start - _MAX_OPENER) : start].rstrip(" \t\r\n")
        if not before.endswith(self._tag_markers):
            return False
        body = keyed_paren_span(text, end)
        return body is not None and not body[1]

    def _placed(self, text: str, start: int, fences: list[Any], floor: int) -> bool:
        """The name at ``start`` stands where a call's name stands: at the start of its
        line (or right after the call that ends at ``floor``) once markup and call words
        are skipped, outside inline code, and inside a fence only when the fence is the
        whole message and closed."""
        lo = max(0, start - _MAX_PREFIX, floor)
        nl = text.rfind("\n", lo, start)
        line = nl + 1 if nl != -1 else lo
        if nl == -1 and lo not in (0, floor):
            return False  # no line start (nor an earlier call's end) within reach
        prefix = text[line:start]
        if prefix.endswith("</"):
            return False  # a closing tag: the end of a call, not a name that starts one
        if prefix.count("`") % 2:
            return False  # inside inline code: quoted, not sent
        if not self._call_words_only(prefix):
            after = self._after_sentence(prefix)
            if after is None or not self._call_words_only(after):
                return False
        for f in fences:
            if f.body_start <= start < f.body_end:
                # (a fence never closed is cut off: what it holds is not a call yet)
                whole = not text[: f.start].strip() and not text[f.end :].strip()
                return f.closed and whole
        return True

    def _call_words_only(self, prefix: str) -> bool:
        """Is ``prefix`` (what stands before a name on its line) only markup, the family
        registry's markers, punctuation and call words (words of any script count)?"""
        prefix = _GROUP.sub(" ", _OPENER_BEFORE_NAME.sub(" ", _open_tag_attributes(prefix)))
        for m in self._markers:
            if m[0] in prefix and m in prefix:
                prefix = _without(prefix, m)
        return all(w.casefold() in self._name_words for w in _WORD.findall(prefix))

    def _after_sentence(self, prefix: str) -> str | None:
        """What follows the last family opener tag in ``prefix`` (a marker written as a
        tag or a bracket: ``<tool_call>``, ``[TOOL_CALLS]``; not ``>>>`` or ``call:``,
        which prose and a REPL write too) when a finished sentence
        (:data:`_SENTENCE_END`) is all that stands before it: the tag opens a call after
        the model's sentence (``好的，我来排查。<tool_call>exec ...``,
        ``Let me check.<tool_call>exec ...``); else ``None``."""
        at = max((prefix.rfind(m) for m in self._tag_markers if m[0] in prefix), default=-1)
        if at == -1:
            return None
        before = prefix[:at].rstrip()
        return prefix[at:] if before.endswith(_SENTENCE_END) else None

    # ---- arguments --------------------------------------------------------------------

    def _arguments(
        self,
        text: str,
        pos: int,
        stop: int,
        params: Mapping[str, str],
        reads: ScanReads | None,
        nullable: frozenset[str] = frozenset(),
        *,
        spaced: bool = False,
        keyed: bool = False,
    ) -> tuple[dict[str, Any], int, bool, set[str], int] | None:
        """The run of arguments that starts right after a name (``pos``), up to
        ``stop``: the arguments found, where the last one ends, whether a ``(``
        opened them, how each argument's value was joined to its key (``=``, ``:``,
        ``tag``, ``flag``, or ``" "``: a key before its value with blanks only), and where
        the last one's value starts
        (``None``: a value that cannot be read, or an object the run was opened in
        never closed: cut off, the call is not taken). A key written twice is
        kept in the arguments' ``duplicates`` (the gate's G3), never silently dropped.
        A bare ``null`` (or ``None``) is no value for a parameter in ``nullable`` (its
        schema takes null): it is the null. ``spaced``: inside a bracket the name
        opened, a declared key may stand before its quoted value with only blanks
        between (``[tool_call: read_file for absolute_path 'a.txt']``). ``keyed``: a
        family's call opener stands right before the name, so ``name(key: value)`` is
        Gemma's keyed body in round brackets, whose bare words are values."""
        args = ReadArguments()
        last = start = pos
        open_style = False  # an element ended at the next one, not at its closer
        first, pythonic = True, False
        braces = 0  # ``{`` the run was opened in (skipped as markup) and not closed yet
        modes: set[str] = set()  # how the arguments' values were joined to their keys
        value_at = pos  # where the last argument's value starts
        for _ in range(_MAX_ANCHORS):  # (each turn moves ``pos`` on; counted, not timed)
            skipped = pos
            pos = self._skip_noise(text, pos, stop)
            m = _KEY.match(text, pos, stop) if pos < stop else None
            braces = brace_depth(text, skipped, pos, braces, more=m is not None)
            if m is None:
                break
            key, mode = _key_of(m)
            folded = key.casefold()
            target = params.get(normalise_name(key, strip_prefix=False))
            if mode == " " and (target is None or not spaced):
                break  # (a word before a quote is a key only for a declared one, bracketed)
            vstart = m.end()
            if target is None and self._connector(folded, mode, bool(args), text, vstart):
                pos = vstart
                continue
            if first:
                # ``name(``: a pythonic call, where a bare word is code, not a value
                pythonic, first = "(" in text[start:pos], False
            paren = ("keyed" if keyed and mode == ":" else "code") if pythonic else ""
            value = self._value(text, vstart, stop, mode, open_style, paren, reads)
            if value is None:
                return None
            val, end, open_style = value
            if text.startswith(("{", "["), vstart) and (
                twice := duplicate_keys(text[vstart:end], val)
            ):
                args.duplicates = (*args.duplicates, *twice)  # (inside an object value)
            pos = end
            if val is _ABSENT:
                continue
            if target is not None:
                if target in nullable and isinstance(val, str) and val in _NULLS:
                    val = None if _bare(text, vstart) else val  # (a bare null: the null)
                args[target] = val  # (written twice: noted for the gate)
                modes.add(mode)
                last, value_at = pos, vstart
            elif target is None and not args and mode != "tag" and not self._known(folded):
                break  # an unknown key before any argument: another construct
        if braces > 0 and args:
            return None  # an object opened around the arguments never closed: cut off
        return args, last, pythonic, modes, value_at

    def _known(self, folded: str) -> bool:
        return folded in self._connectors or folded in self._name_words

    def _connector(self, folded: str, mode: str, after_args: bool, text: str, at: int) -> bool:
        """The key is a connector: the arguments follow it (``args =>``, ``"arguments":
        {``, ``<args>``, or before the first argument any key whose value is an object,
        ``"inputs": {``)."""
        if mode == "tag":
            return self._known(folded)
        if mode == "flag":
            return False
        if after_args:
            return self._known(folded) and text.startswith("{", at)
        return text.startswith(("{", "(") if self._known(folded) else "{", at)

    def _skip_noise(self, text: str, pos: int, stop: int) -> int:
        """``pos`` moved past punctuation, closing tags, family markers and connector
        words (never past ``stop``)."""
        while pos < stop:
            ch = text[pos]
            if ch in _NOISE:
                pos += 1
                continue
            if ch == "<" and text.startswith("</", pos):
                close = text.find(">", pos, min(stop, pos + 80))
                if close == -1:
                    return pos
                pos = close + 1
                continue
            for m in self._by_first.get(ch, ()):
                if text.startswith(m, pos):
                    pos += len(m)
                    break
            else:
                if ch == "<" or ch == "[":
                    g = _GROUP.match(text, pos, stop)
                    if g is not None and _KEY.match(text, pos, stop) is None:
                        pos = g.end()
                        continue
                w = _WORD.match(text, pos, stop)
                if w is not None and text.startswith("```", pos - 3) and w.group() in _FENCE_TAGS:
                    pos = w.end()  # a fence's tag (DeepSeek's name, then ```json): skipped
                    continue
                if w is not None and w.group().casefold() in self._connectors:
                    after = w.end()
                    while after < stop and text[after] in "\"'\u201d\u2019":
                        after += 1
                    if self._peek(text, after, stop) not in (":", "="):
                        pos = w.end()  # a connector word (``with arguments``): skipped
                        continue
                return pos
        return pos

    def _past_markers(self, text: str, pos: int, stop: int) -> int:
        """``pos`` moved past blanks, stray brackets and the registry's noise tokens
        (MiniMax's garbled ``]<]minimax[>[`` before its ``</invoke>``), never past an end
        tag: what :func:`_closed` looks for comes next."""
        while pos < stop:
            for m in self._by_first.get(text[pos], ()):
                if not m.startswith("</") and text.startswith(m, pos):
                    pos += len(m)
                    break
            else:
                if text[pos] not in " \t\r\n]":
                    return pos
                pos += 1
        return pos

    @staticmethod
    def _peek(text: str, pos: int, stop: int) -> str:
        while pos < stop and text[pos] in " \t\r\n":
            pos += 1
        return text[pos] if pos < stop else ""

    def _bracketed(
        self, text: str, pos: int, stop: int, reads: ScanReads | None
    ) -> tuple[Any, int] | None:
        """The JSON value whose bracket opens at ``pos`` and where it ends; ``None`` when it
        is never closed (cut off, not a value to guess), over the limits or unreadable."""
        try:
            span = find_bracket_end(text, pos, self.limits, stop=stop, reads=reads)
            if span.truncated:
                return None
            parsed = parse_lenient(text[pos : span.end], self.limits, cut=False, reads=reads)
        except (LimitExceededError, MalformedToolCallError):
            return None
        return parsed.value, span.end

    def _value(
        self,
        text: str,
        pos: int,
        stop: int,
        mode: str,
        open_style: bool,
        paren: str,
        reads: ScanReads | None,
    ) -> tuple[Any, int, bool] | None:
        """The value that starts at ``pos``, where it ends, and whether the run writes
        its elements without closers (``open_style``: a value that reaches the end of the
        text unclosed is then complete, else cut off); ``None`` when the value cannot be
        read (cut off, a bracket over the limits, or a bare word in a pythonic call).
        ``paren``: ``"code"`` in ``name(`` (a bare word is a name in code, not a value),
        ``"keyed"`` in a keyed body ``name(key: value)`` a call opener put before the name
        (a bare word is a value, up to ``,`` or ``)``; a type's name is a signature)."""
        if mode == "tag":
            while pos < stop and text[pos] in " \t":
                pos += 1
            if text.startswith("\n", pos):
                pos += 1
        ch = text[pos] if pos < stop else ""
        if ch == "\\" and mode != "tag" and (q := escaped_quoted(text, pos, stop)):
            return q[0], q[1], open_style  # (``pattern: \\"train\\"``: quotes escaped)
        if ch in QUOTE_PAIRS and mode != "tag":
            q = _quoted(text, pos, stop, QUOTE_PAIRS[ch])
            return None if q is None else (q[0], q[1], open_style)
        if ch and ch in "{[":
            bracketed = self._bracketed(text, pos, stop, reads)
            if mode != "tag":
                return None if bracketed is None else (bracketed[0], bracketed[1], open_style)
            if bracketed is not None and _AT_TAG_END.match(text, bracketed[1]):
                # an element's text, its JSON read past any ``<`` inside it: the schema
                # types it (an array's decoded, a string's kept: ``<command>[1]</command>``)
                return text[pos : bracketed[1]], bracketed[1], open_style
            # an element's text that only opens with a bracket (``<command>[ -f x ] && ls``)
            # is read as text up to the element's closer, like any other element
        end_re = _TAG_END if mode == "tag" else _FLAG_END if mode == "flag" else _BARE_END[mode]
        if paren == "keyed":
            end_re = _KEYED_END
        m = end_re.search(text, pos, stop)
        end = m.start() if m is not None else stop
        if mode == "tag":
            if m is None and stop == len(text) and not open_style:
                return None  # an element cut off before its closer: not a value to guess
            open_style = m is not None and not text.startswith("</", end)
        if mode == "flag":
            end = _before_outer_brace(text, pos, end)  # (``--a null }}``: the run's closers)
        end = self._before_marker(text, pos, end)
        raw = text[pos:end]
        value = raw.strip()
        if not value:
            return _ABSENT, pos + len(raw.rstrip()), open_style  # (an empty element)
        if paren == "code" and not _LITERAL.fullmatch(value):
            return None  # ``f(city=x)``: a name in code, not a value (the pythonic rule)
        if paren == "keyed" and value.casefold() in _TYPE_WORDS:
            return None  # ``f(city: string)``: a signature, not a call
        if mode != "tag" and is_placeholder(value):
            return None  # ``query: ...``: a placeholder, not a value (elision.py)
        if mode != "tag" and "<" in value and _SPECIAL_TOKEN.search(value) is not None:
            return None  # ``<|"|>(...)<|"|>``: a family's own string, which its reader judged
        return value, pos + len(raw.rstrip()), open_style

    def _before_marker(self, text: str, pos: int, end: int) -> int:
        """``end``, or where a registry marker that reaches over it starts: a bare value
        never holds part of a family's token (``date]<]minimax[>[</command>``: MiniMax
        M3's namespace token before the closer, its ``]`` no letter of the value). Only
        the markers that hold ``text[end]`` past their first character are tried."""
        if end >= len(text):
            return end
        for m, off in self._through.get(text[end], ()):
            if off <= end - pos and text.startswith(m, end - off):
                return end - off
        return end

    # ---- the call ---------------------------------------------------------------------

    def _span(self, text: str, start: int, end: int, stop: int) -> tuple[int, int]:
        """The span a call takes out of the text: its name's line (and markup-only lines
        just before it) to the end of its arguments (and the closers after them)."""
        s = text.rfind("\n", max(0, start - _MAX_PREFIX), start) + 1
        if s == 0 and start > _MAX_PREFIX:
            # a long line: from the markup glued to the name (``<name``, ``[name``) on
            s = start
            while s > start - 8 and text[s - 1] in "<[{(\"'":
                s -= 1
            return s, self._span_end(text, end, stop)
        for _ in range(_MAX_NOISE_LINES):
            if s == 0:
                break
            prev = text.rfind("\n", max(0, s - 1 - _MAX_PREFIX), s - 1) + 1
            if (prev == 0 and s - 1 > _MAX_PREFIX) or not _noise_only(text[prev : s - 1]):
                break
            s = prev
        return s, self._span_end(text, end, stop)

    @staticmethod
    def _span_end(text: str, end: int, stop: int) -> int:
        """``end`` moved past the closers and markup-only lines after the arguments."""
        e = end
        while e < stop:
            nl = text.find("\n", e, stop)
            if nl == -1 and stop < len(text):
                return _closers_end(text, e, stop)  # (the next call's line: its closers only)
            line_end = stop if nl == -1 else nl
            if not _noise_only(text[e:line_end]):
                # (text follows on the line: the call's closers and delimiters go with it)
                e = past_closing(text, _closers_end(text, e, line_end), line_end)
                break
            e = line_end
            if nl == -1:
                break
            e += 1
        while e > end and text[e - 1].isspace():
            e -= 1
        return e

    def _finish(
        self,
        text: str,
        start: int,
        end: int,
        name: str,
        args: dict[str, Any],
        interp: Interpreter,
        seed: str,
        notes: tuple[tuple[str, str], ...] = _NOTE,
    ) -> CallPart | None:
        """The valid call of ``text[start:end]``, the gate's invalid call when it holds a
        parameter written twice (G3: the evidence is the construct's), or ``None`` (it
        stays text). Its id derives from ``seed``: the text before it, never what
        follows."""
        cand: Candidate = make_candidate(
            text, start, end, FORMAT, where=_WHERE, name=name, arguments=args, notes=notes
        )
        parts = interp.from_candidate(cand, f"{seed}:{FORMAT}", alone=True)
        if not parts or len(parts) != 1:
            return None
        part = parts[0]
        if isinstance(part, ToolCallPart) or part.kind == FailureKind.DUPLICATE_ARGUMENT:
            return part
        return None  # not a valid call: the text stays text


def _glyph_delimited(text: str, start: int, end: int) -> bool:
    """The name ``text[start:end]`` is set off by invented symbol delimiters on both
    sides, its object right after them (``⇬get_weather⇬{``: :mod:`.delimiters`)."""
    return glyph_led(text, start) != -1 and past_glyphs(text, end, len(text)) != end


def _without(text: str, marker: str) -> str:
    """``text`` with each ``marker`` in it blanked out, but one glued to a word before it
    (``call:`` stays in ``tool_call:``: a word of its own, read as a word)."""
    glued = marker[0].isalnum() or marker[0] == "_"
    out: list[str] = []
    pos = 0
    i = text.find(marker)
    while i != -1:
        if not (glued and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            out.append(text[pos:i] + " ")
            pos = i + len(marker)
        i = text.find(marker, i + len(marker))
    return "".join(out) + text[pos:]


#: An attribute pair of an open tag (``id="call_00_xxx"``), its value on one line.
_ATTRIBUTE = re.compile(r"""\s[\w:.-]+\s*=\s*(?:"[^"<>\n]{0,120}"|'[^'<>\n]{0,120}')""")


def _open_tag_attributes(prefix: str) -> str:
    """``prefix`` with the attribute pairs of the tag still open at its end blanked out:
    the name given as a tag's ``name`` attribute after others (``<tool_call
    id="call_00_xxx" name="wechat_get_chat_history">`` then a JSON body: DeepSeek V4 in
    Memoh, felinics/Memoh issue 435; the same tag-and-body shape is what agent clients
    parse, ``<tool_call name="x">{...}</tool_call>``) stands where a call's name stands."""
    lt = prefix.rfind("<")
    if lt == -1 or ">" in prefix[lt:]:
        return prefix
    return prefix[:lt] + _ATTRIBUTE.sub(" ", prefix[lt:])


def _plain_pairs(
    text: str, start: int, end: int, args_end: int, name: str, modes: set[str], value_at: int
) -> bool:
    """A call with no markup at or before its name is the declared name, then
    ``key=value`` pairs on its line (no ``key: value`` line of prose, no next line), the
    last value (at ``value_at``) not a bare one that runs to the end of the text or into
    something other than blanks (maybe cut)."""
    if text[start:end] != name or modes != {"="} or "\n" in text[end:args_end]:
        return False
    return not _bare(text, value_at) or (args_end < len(text) and text[args_end].isspace())


def _bare(text: str, at: int) -> bool:
    """The value at ``at`` is bare: not opened by a quote or a bracket."""
    opener = text[at : at + 1]
    return not opener or not (opener in QUOTE_PAIRS or opener in "{[")


def _takes_null(schema: Any) -> bool:
    """A parameter's schema takes null (``"type": "null"`` or a list naming it, or a
    ``null`` among its ``anyOf``/``oneOf`` options' types)."""
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    options = [*(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]
    return any(isinstance(o, Mapping) and o.get("type") == "null" for o in options)


def _bracket_opened(text: str, start: int) -> bool:
    """An ``[`` stands before the name on its line and is not closed before it
    (``[tool_call: read_file for ...``)."""
    line = text.rfind("\n", max(0, start - _MAX_PREFIX), start) + 1
    lb = text.rfind("[", line, start)
    return lb != -1 and text.find("]", lb, start) == -1


def _bracket_closes(text: str, pos: int, stop: int) -> bool:
    """The bracket a call was opened in closes right after its last argument."""
    while pos < stop and text[pos] in " \t":
        pos += 1
    return text.startswith("]", pos)


def _to_read(
    text: str,
    names: NameTable,
    kept: list[tuple[int, int]],
    quoted: list[tuple[int, int]],
    quotes: Callable[[], list[tuple[int, int]]] | None,
) -> tuple[list[tuple[int, int, str]], int, list[tuple[int, int]], list[tuple[int, int, str]], int]:
    """The names to read (:func:`_hits` outside ``kept`` and every quoted span, where the
    stream holds back and not a closer's), where the stream starts holding back, the
    quoted spans (``quoted`` and, once a name stands outside them, ``quotes()``), every
    name outside them (``hits``), and where markup may first begin (-1: none)."""
    hits = _hits(text, names, kept, quoted)
    more = quotes() if hits and quotes is not None else []
    if more:
        quoted = sorted(quoted + more)
        hits = _hits(text, names, kept, quoted)
    held = markup = _stream_hold(text, max(a[1] for a in hits)) if hits else -1
    # (a name that starts a line holds the stream there too: name_line_start)
    for s, _, _ in hits:  # (in order: only those before the markup hold matter)
        if 0 <= held <= s:
            break
        if s == 0 or text[s - 1] == "\n":
            held = s
            break
        if (lead := glyph_led(text, s)) != -1:  # (``⇬name``: from the line's start)
            held = lead
            break
    if held < 0:
        return [], held, quoted, hits, markup
    anchors = [
        a
        for a in hits
        # (a closer, maybe with a family's prefix: ``</｜DSML｜name>``)
        if a[1] >= held and _CLOSER_HEAD.search(text, max(0, a[0] - 14), a[0]) is None
    ]
    return anchors, held, quoted, hits, markup


#: What stands before a name in its closing tag: ``</`` and maybe a prefix (no blank).
_CLOSER_HEAD = re.compile(r"</[^\s<>]{0,12}$")


def _hits(
    text: str, names: NameTable, kept: list[tuple[int, int]], quoted: list[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """Where the offered names stand in ``text`` outside the ``kept`` and ``quoted``
    spans (:func:`_anchors`)."""
    off = [x for span in sorted(kept + quoted) for x in span]
    ranges = _gaps(off, 0, len(text))
    return _anchors(text, names, ranges) if ranges else []


def _anchors(
    text: str, tools: NameTable, ranges: list[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """Where the offered names stand in the ``ranges`` of ``text`` (start, end, tool
    name), in order (:func:`names_in`).

    Before any call is read, a name is placed only within :data:`_MAX_PREFIX` characters
    of its line's start (:meth:`AnchoredReader._placed`), and every later call follows
    one read before. So when the heads of a text's few lines hold no name, no call is
    read and the rest of each long line is not searched (a megabyte of prose on one line
    costs its heads, not a pass per name)."""
    heads = _line_heads(text, ranges)
    if heads is not None and heads != ranges and not names_in(text, tools, heads):
        return []
    return names_in(text, tools, ranges)


#: The lines whose heads :func:`_line_heads` looks at (past that, every range is read).
_MAX_HEADS = 64


def _line_heads(text: str, ranges: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """The parts of ``ranges`` within reach of a line's start (a name placed there, with
    the rest of its word), when ``text`` has at most :data:`_MAX_HEADS` lines; ``None``
    when it has more, or is short (then nearly all of it is within reach)."""
    reach = _MAX_PREFIX + 2 * MAX_NAME
    if len(text) <= 4 * reach:
        return None  # (a short text is read whole: its heads would be most of it)
    heads: list[tuple[int, int]] = []
    start = 0
    for _ in range(_MAX_HEADS):
        if heads and start <= heads[-1][1]:
            heads[-1] = (heads[-1][0], start + reach)  # (short lines: one stretch)
        else:
            heads.append((start, start + reach))
        nl = text.find("\n", start)
        if nl == -1:
            break
        start = nl + 1
    else:
        return None
    return [(max(a, h), min(b, e)) for a, b in ranges for h, e in heads if h < b and a < e]


#: How far past the last name :func:`_stream_hold` reads.
_HOLD_REACH = 1024
#: The fixed head of a markup start (``Observation``) is shorter than this; past it, a
#: match holds only a word opener's blanks and words (``Action   Input :``).
_HOLD_HEAD = 16
_HOLD_RUN = re.compile(r"[\sA-Za-z]*")


def _stream_hold(text: str, upto: int, reach: int = _HOLD_REACH) -> int:
    """Where :data:`_STREAM_HOLD` first matches, exactly when that is at or before
    ``upto`` (the end of the last name: a name ending before the hold is not read, so
    a later hold is as good as none); else past ``upto``, or -1.

    The search stops ``reach`` characters past ``upto``, so a long text with a name
    near its start is not searched whole. A match that starts by ``upto`` and runs past
    the stop is a word opener's run of blanks: from :data:`_HOLD_HEAD` characters past
    its start to the stop it holds only blanks and letters. Only when the text there is
    such a run is the rest searched too."""
    stop = upto + reach
    if stop < len(text) and _HOLD_RUN.fullmatch(text, upto + _HOLD_HEAD, stop) is not None:
        stop = len(text)
    m = _STREAM_HOLD.search(text, 0, stop)
    return -1 if m is None else m.start()


def _gaps(family: list[int], start: int, end: int) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` outside the ``family`` spans (flat pairs, by start)
    that could hold a name (longer than a few characters)."""
    out: list[tuple[int, int]] = []
    pos = start
    for s, e in zip(family[::2], family[1::2], strict=True):
        if s > pos:
            out.append((pos, s))
        pos = max(pos, e)
    if end > pos:
        out.append((pos, end))
    return [(a, b) for a, b in out if b - a > 2]


def _last_before(ends: list[int], pos: int) -> int:
    """The last of the sorted ``ends`` at or before ``pos`` (0 when none)."""
    i = bisect.bisect_right(ends, pos)
    return ends[i - 1] if i else 0


def _empty_closer(text: str, end: int, stop: int, name: str) -> int:
    """Where the construct a name (ending at ``end``) opened closes with nothing in it
    (-1: something else follows, or nothing closes it: no call of a tool without
    arguments is read from a name alone)."""
    m = _EMPTY_CLOSER.match(text, end, stop)
    if m is not None:
        return m.end()
    gt = end
    while gt < stop and text[gt] in " \t\r\n>":
        gt += 1
    close = f"</{text[end - len(name) : end]}>"
    return gt + len(close) if text.startswith(close, gt) else -1


def _bare_element(
    text: str, start: int, end: int, stop: int, interp: Interpreter, name: str
) -> tuple[dict[str, Any], int] | None:
    """The one argument of a tool that takes only one string, written bare in the
    element its name opens (``<read_file> rdt_engine.py </read_file>``: Devstral Medium
    in Cline, cline/cline issue 4839; GLM-4.5-Air wrote ``<write_file> path text`` there
    too, issue 5683), and where its end tag starts; ``None`` for anything else (another
    element inside, no end tag before ``stop``, a tool with more parameters)."""
    if not _tag_opened(text, start) or not text.startswith(">", end):
        return None
    tool = interp.registry.lookup(name)
    if tool is None or len(tool.properties) != 1 or len(tool.required) != 1:
        return None
    ((param, schema),) = tool.properties.items()
    if param != tool.required[0] or schema.get("type", "string") != "string":
        return None
    close = text.find(f"</{text[start:end]}>", end + 1, stop)
    value = text[end + 1 : close].strip() if close != -1 else ""
    if not value or "<" in value:
        return None
    return {param: value}, close  # (the end tag is the construct's closer: _closed)


#: A call wrapper's opener right before the ``<`` of a name's element: the Qwen XML
#: call whose ``<function=NAME>`` opener is written as ``<NAME>`` (anomalyco/opencode
#: issue 30061), the spelling next to ``<parameter=NAME>`` (:data:`_OPENER_BEFORE_NAME`).
_WRAPPER_BEFORE_ELEMENT = re.compile(r"<(?:[\w-]+:)?tool_call>\s*<$")


def _wrapper_element(text: str, start: int) -> bool:
    """The name at ``start`` opens an element right inside a call wrapper
    (``<tool_call>\\n<read>``): its call ends at the wrapper's end tags
    (``</function>``, ``</tool_call>``), not only at ``</read>``."""
    if not _tag_opened(text, start):
        return False
    if _PREFIXED_OPEN.search(text, max(0, start - 16), start) is not None:
        return True
    return _WRAPPER_BEFORE_ELEMENT.search(text, max(0, start - 40), start) is not None


def _past_call_id(text: str, pos: int, stop: int, params: dict[str, str]) -> int:
    """Where the arguments after a name at ``pos`` may start, past the call's id that a
    client's display line writes between the two (:data:`_CALL_ID`); ``pos`` when there
    is none, or when the tool declares a parameter named ``id`` (then it is one)."""
    found = _CALL_ID.match(text, pos, stop)
    if found is None or "id" in params or "callid" in params:
        return pos
    return found.end()


def _named_element(text: str, start: int) -> str | None:
    """The word of the element whose ``name`` attribute the name at ``start`` is
    (:data:`_NAME_ATTRIBUTE`), or ``None``."""
    found = _NAME_ATTRIBUTE.search(text, max(0, start - 48), start)
    return None if found is None else found.group(1)


def _tag_opened(text: str, start: int) -> bool:
    """The name opens an element (``<read_file``, or behind a family's prefix:
    ``<｜DSML｜read_file``): the call ends at ``/>`` or its end tag."""
    if start > 0 and text[start - 1] == "<":
        return True
    return _PREFIXED_OPEN.search(text, max(0, start - 16), start) is not None


#: A family's namespace prefix right after an element's ``<`` (``<｜DSML｜``,
#: ``<minimax:``), and the same at the head of an end tag's word.
_PREFIXED_OPEN = re.compile(r"<[^\s<>=/]{0,12}[｜|:]$")
_PREFIX_HEAD = re.compile(r"^[^\s<>=/]{0,12}[｜|:]")


def _closed(
    text: str,
    name: str,
    pos: int,
    stop: int,
    tag: bool,
    paren: bool,
    wrapped: bool = False,
    past: Callable[[str, int, int], int] | None = None,
    element: str | None = None,
) -> bool:
    """The construct the arguments were opened in is closed after the last one (``pos``):
    ``)`` for ``name(``, ``/>`` or ``</name>`` for ``<name``, a call wrapper's end tag
    (``</function>``, ``</invoke>``, ``</tool_call>``) for a name an opener put before
    (``wrapped``: ``<parameter=name>``, ``[Tool Use: name]``); other end tags between
    are the arguments' own; ``past`` skips the registry's noise tokens. ``element``: the
    name is that element's ``name`` attribute, and the call ends at the element's ``/>``
    or its end tag (past the ``>`` that ends its opening tag when the arguments were
    attributes). Anything else there means the call was cut off: not taken."""
    if not (tag or paren or wrapped):
        return True
    for _ in range(_MAX_ANCHORS):
        pos = pos if past is None else past(text, pos, stop)
        while pos < stop and text[pos] in " \t\r\n,;\"'}]":
            pos += 1
        pos = pos if past is None else past(text, pos, stop)
        if paren and text.startswith(")", pos):
            return True
        if (tag or element) and text.startswith("/>", pos):
            return True
        if element and text.startswith(">", pos):
            pos += 1  # (the opening tag ends after attribute pairs: its end tag follows)
            continue
        if not ((tag or wrapped) and text.startswith("</", pos)):
            return False
        gt = text.find(">", pos, min(stop, pos + MAX_NAME))
        if gt == -1:
            return False
        closer = text[pos + 2 : gt].strip()
        if tag and normalise_name(_PREFIX_HEAD.sub("", closer)) == normalise_name(name):
            return True
        if wrapped and _PREFIX_HEAD.sub("", closer) in _WRAPPER_CLOSERS:
            return True
        if element and closer == element:
            return True
        pos = gt + 1
    return False


def _before_outer_brace(text: str, pos: int, end: int) -> int:
    """``end``, or the first ``}`` in ``text[pos:end]`` that closes no ``{`` opened there:
    a bare flag value on the line that closes the object around the flags stops there
    (``--document_filename null }} [/TOOL_CALL]``); braces the value opens are its own
    (``--command awk '{print $1}'``)."""
    i = text.find("}", pos, end)
    if i == -1:
        return end
    depth = 0
    for k in range(pos, end):  # (one pass over the value, which the reader took anyway)
        ch = text[k]
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return k
            depth -= 1
    return end


def _key_of(m: re.Match[str]) -> tuple[str, str]:
    """The key an argument anchor names and how its value is written: ``tag`` (an
    element), ``flag`` (``--key value``) or its separator (``:``, ``=``, ``=>``)."""
    for group in ("pattr", "pname", "tag"):
        if m.group(group):
            return m.group(group), "tag"
    if m.group("flag"):
        return m.group("flag"), "flag"
    if m.group("spaced"):
        return m.group("spaced"), " "
    return m.group("key"), m.group("sep")


def _quoted(text: str, pos: int, stop: int, closer: str) -> tuple[str, int] | None:
    """The quoted string at ``pos`` (its escapes decoded when it is JSON) and its end."""
    i = pos + 1
    while i < stop:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == closer:
            raw = text[pos + 1 : i]
            if closer == '"' and "\\" in raw:
                try:
                    return str(json.loads(f'"{raw}"')), i + 1
                except ValueError:
                    pass
            return raw, i + 1
        if ch == "\n" and closer != '"':
            return None
        i += 1
    return None  # never closed: cut off, not a value to guess


def _closers_end(text: str, pos: int, stop: int) -> int:
    """``pos`` moved past the closers right after a call (``"``, ``)``, ``/>``, end
    tags...), never into the next call's markup (before ``stop``)."""
    while pos < stop:
        if text.startswith("</", pos):
            gt = text.find(">", pos, stop)
            if gt == -1:
                break
            pos = gt + 1
        elif text[pos] in ")]}\"'/>;,":
            pos += 1
        else:
            break
    return pos


def _noise_only(line: str) -> bool:
    """A line of markup and punctuation only (``[/TOOL_CALL]``, ``}}``, ``</invoke>``)."""
    rest = _GROUP.sub("", line)
    return not any(ch.isalnum() for ch in rest)


class _PrefixDigest:
    """Digests of ``text[:end]`` for growing ``end`` (one pass over the text): a call's id
    derives from the text before it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.hash = hashlib.sha256()

    def upto(self, end: int) -> str:
        if end > self.pos:
            self.hash.update(self.text[self.pos : end].encode("utf-8", "surrogatepass"))
            self.pos = end
        return self.hash.hexdigest()[:16]


def _next_start(spans: list[tuple[int, int]], pos: int, stop: int) -> int:
    """The first start of the sorted ``spans`` after ``pos`` (``stop`` when none is
    before it)."""
    i = bisect.bisect_right(spans, (pos, 1 << 62))
    return min(stop, spans[i][0]) if i < len(spans) else stop


def merge_anchored(
    content: str,
    calls: list[CallPart],
    remaining: str,
    used: list[int],
    found: list[tuple[int, int, CallPart]],
) -> tuple[list[CallPart], str]:
    """The family readers' result (``calls``, ``remaining``, their spans ``used``) with
    the anchored reader's calls (``found``) merged in. Where the families found only
    invalid calls that failed at reading the markup (:data:`_REREAD`), each span they
    took is read whole by one anchored call of the same tool (when they read its name)
    and no anchored call is only a piece of one, the anchored calls replace theirs;
    otherwise the families' calls stay and only the anchored calls outside their spans
    are added (a call inside another call's value is never a call). Nothing is dropped
    unseen."""
    if not found or (calls and not used):
        return calls, remaining  # (no used span: a limit report, kept as it is)
    family = list(zip(used[::2], used[1::2], strict=True))
    spans = [(s, e) for s, e, _ in found]
    if (
        family
        and all(isinstance(p, InvalidToolCallPart) and p.kind in _REREAD for p in calls)
        and all(p.name is None or p.name in {c.name for _, _, c in found} for p in calls)
        and all(
            _covers(content, s, e, fs, fe)
            for s, e in spans
            for fs, fe in family
            if s < fe and fs < e
        )
        and all(any(_covers(content, s, e, fs, fe) for s, e in spans) for fs, fe in family)
    ):
        parts: list[CallPart] = [p for _, _, p in found]
        return parts, _remove(content, family + spans)
    extra = [(s, e, p) for s, e, p in found if not any(s < fe and fs < e for fs, fe in family)]
    if not extra:
        return calls, remaining
    return [*calls, *(p for _, _, p in extra)], _remove(
        content, family + [(s, e) for s, e, _ in extra]
    )


def _covers(text: str, s: int, e: int, fs: int, fe: int) -> bool:
    """The span ``[s, e)`` holds all of ``text[fs:fe]`` but its surrounding whitespace."""
    body = text[fs:fe]
    lead = len(body) - len(body.lstrip())
    return s <= fs + lead and e >= fs + len(body.rstrip())


#: The only invalid calls of a family reader the anchored reader may replace: failures
#: to read the markup (broken JSON, no tool name found, an unreadable pythonic call;
#: arguments not where the family's grammar looks for them, so required ones missing or
#: the ones read undeclared). Every other kind is the gate's refusal on evidence
#: (``truncated``, ``quoted_call``, ``duplicate_argument``, ``unknown_name``,
#: ``limit_exceeded``, ``type_mismatch``/``enum_case`` of arguments it did read...): what
#: it reports is the answer (docs/finding-calls.md).
_REREAD = frozenset(
    {
        FailureKind.INVALID_JSON,
        FailureKind.KEY_ALIAS,
        FailureKind.PYTHONIC,
        FailureKind.MISSING_REQUIRED,
        FailureKind.EXTRA_KEYS,
    }
)


def _remove(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the (possibly overlapping) spans, as the family readers leave
    theirs (:func:`~toolfix._repair.text.remove_spans`)."""
    return remove_spans(text, [x for span in sorted(spans) for x in span])
