"""gpt-oss harmony messages: ``to=functions.NAME`` recipients, analysis/final channels.

The harmony response format (https://cookbook.openai.com/articles/openai-harmony,
``openai/harmony``; vLLM ``vllm/tool_parsers/openai_tool_parser.py``)::

    <|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
    <|message|>{"city":"Paris"}<|call|>

(each message on one line in the real output).

The recipient may also precede the channel
(``<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{...}``),
and engines that drop special tokens leave ``commentary to=functions.get_weather json{...}``.
llama.cpp also met names glued to the constraint (``to=functions.shelljson``):
the ``json`` suffix is dropped when the rest is a registry tool.

Only ``to=functions.NAME`` recipients become calls (built-in ``browser.*``/``python``
recipients are not function tools), and ``to=NAME`` without the namespace when NAME is
an offered tool and the header's ``<|message|>`` follows (:func:`_recipient`).
:func:`split_harmony` separates the analysis channel (reasoning) from the final answer
for the caller.

``to=functions.x`` in prose yields nothing unless a message marker or a JSON
value follows the header; a complete header + JSON quoted in a code block is
still taken (inherently ambiguous, and rare).
"""

from __future__ import annotations

from collections.abc import Callable

from ..text import MarkerFinder, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat, arguments_before

__all__ = ["HarmonyFormat", "split_harmony", "split_harmony_segments"]

_TO = "to="
_RECIPIENT = "to=functions."
_MESSAGE = "<|message|>"
_CALL = "<|call|>"
_TERMINATORS = ("<|call|>", "<|end|>", "<|return|>", "<|start|>")
# pieces a header may be made of, before and after the recipient
_HEADER_BEFORE = ("<|start|>", "<|channel|>", "assistant", "commentary", "analysis")
_HEADER_AFTER = ("<|channel|>", "<|constrain|>", "commentary", "analysis", "json", "code")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_MAX_NAME = 256
_BARE = (("native_markup", "read a recipient written without its functions. namespace"),)


def _header_start(text: str, at: int, floor: int) -> int:
    """Walk back from ``at`` over whitespace and header pieces; never below ``floor``.
    Bare words (``commentary``) count only after a special token (``<|channel|>``): a
    stream has already sent words that no token opened as prose (issue 28)."""
    p = start = at
    while True:
        q = p
        while q > floor and text[q - 1] in " \t\r\n":
            q -= 1
        for piece in _HEADER_BEFORE:
            if q - len(piece) >= floor and text.startswith(piece, q - len(piece)):
                p = q - len(piece)
                if piece.startswith("<|"):
                    start = p
                break
        else:
            # keep whitespace that separates the call from preceding text
            return p if start == p else start


class HarmonyFormat(ToolCallFormat):
    """gpt-oss harmony function calls (``to=functions.NAME``)."""

    name = "harmony"
    markers = ("to=functions.",)
    priority = 5
    channel_markup = True
    channel_markers = ("<|channel|>",)
    source = (
        "https://cookbook.openai.com/articles/openai-harmony; "
        "vllm-project/vllm vllm/tool_parsers/openai_tool_parser.py"
    )

    def detect(self, has: Callable[[str], bool]) -> bool:
        # the marker, or a recipient without its namespace inside a harmony header
        # (:func:`_recipient`): that needs the header's <|message|> token
        return has(_RECIPIENT) or (has(_MESSAGE) and has(_TO))

    def split_channels(self, text: str) -> tuple[str | None, list[tuple[str, bool]]] | None:
        return split_harmony_segments(text) if "<|channel|>" in text else None

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        n = len(text)
        finder = MarkerFinder(text)
        pos = floor = 0
        while True:
            r = text.find(_TO, pos)
            if r == -1:
                break
            name, ne = _recipient(text, r + len(_TO), ctx)
            pos = max(ne, r + len(_TO))
            if not name:
                continue
            bare = not text.startswith(_RECIPIENT, r)
            args_at = _arguments_at(text, ne, bare=bare)
            if args_at == -1:
                continue  # "to=functions.x" in prose
            if name.endswith("json") and not ctx.is_tool(name) and ctx.is_tool(name[:-4]):
                name = name[:-4]
            # ---- arguments
            stop, _ = finder.first(_TERMINATORS, args_at, n)
            arguments, end, truncated = arguments_before(text, args_at, stop, ctx.limits, ctx.reads)
            q = skip_ws(text, end)
            if text.startswith(_CALL, q):
                end = q + len(_CALL)
            start = _header_start(text, r, floor)
            self.check_call_count(len(out), ctx, text, start)
            notes = _BARE if bare else ()
            out.append(
                self._make(text, start, end, truncated, name=name, arguments=arguments, notes=notes)
            )
            pos = floor = end
        return out


def _recipient(text: str, ns: int, ctx: ScanContext) -> tuple[str, int]:
    """The function a ``to=`` at ``ns - 3`` addresses and where its name ends; ``""``
    when it addresses none. ``to=functions.NAME`` is the format; ``to=NAME`` without the
    namespace (gpt-oss in Kilo Code, kilocode#1775; harmony models whose tools carry
    no namespace, microsoft/foundry-local#973) only when NAME is an offered tool,
    undotted (``to=browser.search``,
    ``to=python`` are built-in recipients), and :func:`_arguments_at` finds the header's
    special tokens after it."""
    bare = not text.startswith("functions.", ns)
    if not bare:
        ns += len("functions.")
    n = len(text)
    ne = ns
    while ne < n and ne - ns <= _MAX_NAME and text[ne] in _NAME_CHARS:
        ne += 1
    name = text[ns:ne]
    if not name or ne - ns > _MAX_NAME:
        return "", ne
    if text.startswith(" ", ne) and not bare:
        name, ne = _spaced_name(text, ns, ne, ctx) or (name, ne)
    if bare and (text.startswith(".", ne) or not ctx.is_tool(name)):
        return "", ne
    return name, ne


def _spaced_name(text: str, ns: int, ne: int, ctx: ScanContext) -> tuple[str, int] | None:
    """An offered name with spaces in it (an MCP tool named ``Web Search``:
    lmstudio-bug-tracker issue 876) in the recipient that starts at ``ns``: the longest
    run of its words, up to the header's next token, that names an offered tool (the
    first word, ending at ``ne``, names none); ``None`` when none does."""
    if ctx.is_tool(text[ns:ne]):
        return None
    lt = text.find("<|", ne, ns + _MAX_NAME)
    words = text[ns : ns + _MAX_NAME if lt == -1 else lt].split("\n", 1)[0].split()
    for k in range(len(words), 1, -1):
        name = " ".join(words[:k])
        if all(c in _NAME_CHARS or c == " " for c in name) and ctx.is_tool(name):
            return name, ns + len(name)
    return None


def _arguments_at(text: str, p: int, *, bare: bool) -> int:
    """Where the arguments start after the rest of a header that ends at ``p`` (up to
    ``<|message|>`` or a bare JSON value); the end of the text when the header is cut
    off there; -1 when no header follows (prose). A ``bare`` recipient (no
    ``functions.``) needs the header's special tokens: ``<|message|>`` after it."""
    n = len(text)
    while True:
        p = skip_ws(text, p)
        if text.startswith(_MESSAGE, p):
            return skip_ws(text, p + len(_MESSAGE))
        if p < n and text[p] in "{[" and not bare:
            return p
        for piece in _HEADER_AFTER:
            if text.startswith(piece, p):
                p += len(piece)
                break
        else:
            return n if p >= n and not bare else -1


def split_harmony(text: str) -> tuple[str | None, str]:
    """Split harmony output into ``(reasoning, content)``.

    ``analysis`` message bodies become the reasoning (joined by newlines; ``None``
    when there is none). ``final`` bodies and ``commentary`` preambles (commentary
    without a recipient) become the content. Messages addressed to a recipient
    (``to=functions.x``) are kept verbatim in the content so that
    :class:`HarmonyFormat` finds the calls in it. Text outside any message is kept.
    Text without a ``<|channel|>`` token is returned unchanged as content.
    """
    reasoning, segments = split_harmony_segments(text)
    return reasoning, "".join(seg for seg, _ in segments)


def split_harmony_segments(text: str) -> tuple[str | None, list[tuple[str, bool]]]:
    """As :func:`split_harmony`, with the content as ``(text, addressed)`` segments.

    ``addressed`` is true for a message addressed to a recipient (``to=functions.x`` in
    the role header or after the channel, with or without the leading ``<|start|>``)
    and for text outside any message: only those may hold calls. ``final`` bodies and
    commentary preambles are the answer, never scanned for calls (issue 11); a
    ``final`` message is the answer even when its header names a recipient (issue 26,
    SECURITY.md: calls travel on the commentary channel only).
    """
    if "<|channel|>" not in text:
        return None, [(text, True)]
    reasoning: list[str] = []
    content: list[tuple[str, bool]] = []
    n = len(text)
    finder = MarkerFinder(text)
    pos = 0
    while pos < n:
        c = finder.find("<|channel|>", pos)
        if c == -1:
            content.append((text[pos:], True))
            break
        # the message header starts at a preceding <|start|> (role and recipient may sit
        # between), or, when the output starts mid-header, at a recipient just before it
        hs = c
        lo = max(pos, c - 512)
        s = text.rfind("<|start|>", lo, c)
        if s != -1 and "<|" not in text[s + len("<|start|>") : c]:
            hs = s
        else:
            t = text.rfind("to=", lo, c)
            if t != -1 and "<|" not in text[t:c] and "\n" not in text[t:c]:
                hs = t
        before = text[pos:hs]
        m = finder.find(_MESSAGE, c)
        nxt_channel = finder.find("<|channel|>", c + 11)
        if m == -1 or (nxt_channel != -1 and nxt_channel < m):
            # a header without a message: keep the text as it is
            content.append((text[pos : (nxt_channel if nxt_channel != -1 else n)], True))
            pos = nxt_channel if nxt_channel != -1 else n
            continue
        header = text[hs:m]
        body_start = m + len(_MESSAGE)
        stop, term = finder.first((*_TERMINATORS, "<|channel|>"), body_start, n)
        consumed = stop + (len(term) if term in ("<|call|>", "<|end|>", "<|return|>") else 0)
        body = text[body_start:stop]
        channel = text[c + len("<|channel|>") : m].strip().split(" ", 1)[0].split("<|", 1)[0]
        if before.strip():
            content.append((before, True))
        if "to=" in header and channel != "final":
            content.append((text[hs:consumed], True))
        elif channel == "analysis":
            reasoning.append(body)
        else:
            content.append((body, False))
        pos = consumed
    return ("\n".join(reasoning) if reasoning else None), content
