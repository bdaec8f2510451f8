"""Calls written as the data of a shell command (issue 28's negative corpus).

A page, a README or a test script that shows how to send a call to a server writes the
call as the quoted argument of a command: the body of an HTTP request (``curl … -d
'{"method": "tools/call", …}'``, ``--data '…'``) or the text a script prints into a
program (``echo '{"jsonrpc": "2.0", … "tools/call" …}' | uv run server.py``). The call
is data the command sends; the writer makes no call. Sources (each independent;
``benchmarks/corpora/prose_negatives.jsonl`` ids ``prec7-``):

- ``curl`` request data: docs.getmcp.com's ``tools/call`` reference page (``--data '
  {… "name": "get_weather" …}'``), the val.town MCP tester's README (``-d '{"method":
  "call", "tool": "roll_dice", "args": {"count": 3}}'``);
- ``echo`` arguments: two MCP servers' test scripts on glama.ai (``echo '{… "tools/call"
  …}'`` piped into the server, in single and in double quotes).

Only an argument that is a JSON document counts (its first character past blanks is
``{`` or ``[``): ``echo "hello"`` in a call's own ``command`` value is text.
The span of each such argument runs from its opening quote to its closing quote (a
single-quoted one to the next ``'``, as the shell reads it; a double-quoted one to the
next ``"`` that no backslash escapes), or to the end of the text when it is not closed
yet (as a stream sees it). It is decided by what precedes the call (the command and the
quote that opens its argument), so a stream and a whole text agree.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from .text import escaped

__all__ = ["command_data_spans"]

Span = tuple[int, int]

#: A command's quoted data argument, matched where one of :data:`_HEADS` is found:
#: ``curl``'s request-body flags (read with :data:`_CURL_BEFORE`), or what ``echo`` and
#: ``printf`` print; the quote must open a JSON document.
_DATA_RE = re.compile(
    r"(?:(?:-d|--data(?:-raw|-binary|-ascii)?|--json)(?:[ \t]+|=)"
    r"|(?:echo|printf)[ \t]+(?:-[neE]{1,3}[ \t]+)?)(['\"])(?=\s*[{\[])"
)
#: Where a data argument's command or flag starts (each found with ``str.find``).
_HEADS = ("-d", "--data", "--json", "echo", "printf")
#: How far before a data flag its ``curl`` is looked for (continued lines included).
_CURL_BEFORE = 600
#: A head that ends where a quote starts (searched before a quote, up to it): group 1 is
#: a ``curl`` flag's, none an ``echo``/``printf`` head.
_HEAD_END_RE = re.compile(
    r"(?:(-d|--data(?:-raw|-binary|-ascii)?|--json)(?:[ \t]+|=)"
    r"|(?:echo|printf)[ \t]+(?:-[neE]{1,3}[ \t]+)?)\Z"
)
#: The longest word of a head (``--data-binary=``), and then some.
_HEAD_WORD = 16
#: What every command data argument needs (substring tests first: most texts hold none).
_HINTS = ("curl", "echo ", "printf ")


def command_data_spans(
    text: str,
    has: Callable[[str], bool] | None = None,
    positions: Callable[[str], list[int] | None] | None = None,
) -> list[Span]:
    """Sorted spans of the quoted data arguments of ``curl``, ``echo`` and ``printf``
    commands in ``text`` (inside the quotes). ``has`` answers ``marker in text`` (the
    scanner's indexed test for a long text); ``positions`` gives every index of a
    character in a long text, or ``None`` (the scanner's index): with it, the commands
    are looked for only before the quotes that open a JSON document, found from the
    indexed ``{`` and ``[``, and the text is not read whole."""
    quotes = _json_quotes(text, positions) if positions is not None else None
    if quotes is not None:
        heads = [m for m in map(functools.partial(_head_before, text), quotes) if m is not None]
    else:
        test = text.__contains__ if has is None else has
        if not any(map(test, _HINTS)):
            return []
        heads = _heads(text)
    spans: list[Span] = []
    for m in heads:
        if spans and m.start() < spans[-1][1]:
            continue  # (a command inside the data of one found already: its data)
        spans.append((m.start(1) + 1, _closing_quote(text, m.start(1))))
    return spans


def _heads(text: str) -> list[re.Match[str]]:
    """Every command data argument's head in ``text``, found by its command or flag."""
    heads: list[re.Match[str]] = []
    for head in _HEADS:
        k = text.find(head)
        while k != -1:
            m = _DATA_RE.match(text, k) if _starts_word(text, k) else None
            if m is not None and (head[0] != "-" or _after_curl(text, k)):
                heads.append(m)
            k = text.find(head, k + len(head))
    heads.sort(key=lambda m: m.start())
    return heads


def _json_quotes(text: str, positions: Callable[[str], list[int] | None]) -> list[int] | None:
    """The quotes of ``text`` that open a JSON document (a quote, blanks, then ``{`` or
    ``[``), sorted, found from the indexed positions of ``{`` and ``[``; ``None`` when
    either is not indexed (a short text, or too many of them)."""
    found: set[int] = set()
    for ch in "{[":
        at = positions(ch)
        if at is None:
            return None
        for p in at:
            k = p
            while k > 0 and text[k - 1].isspace():
                k -= 1
            if k > 0 and text[k - 1] in "'\"":
                found.add(k - 1)
    return sorted(found)


def _head_before(text: str, quote: int) -> re.Match[str] | None:
    """The command data head (:data:`_DATA_RE`) whose quote is the one at ``quote``:
    looked for in the window :func:`_head_window` gives, at a word's start."""
    k = _head_window(text, quote)
    while (m := _HEAD_END_RE.search(text, k, quote)) is not None:
        if _starts_word(text, m.start()) and (m.group(1) is None or _after_curl(text, m.start())):
            head = _DATA_RE.match(text, m.start())
            if head is not None and head.start(1) == quote:
                return head
        k = m.start() + 1
    return None


def _head_window(text: str, quote: int) -> int:
    """Where a head ending at ``quote`` can start at the earliest: back over blanks, a
    word (a flag, ``-n``), blanks and a word again, each word at most
    :data:`_HEAD_WORD` characters."""
    k = quote
    for _ in range(2):
        while k > 0 and text[k - 1] in " \t":
            k -= 1
        stop = max(0, k - _HEAD_WORD)
        while k > stop and text[k - 1] not in " \t":
            k -= 1
    return k


def _starts_word(text: str, at: int) -> bool:
    """Does a word (or a flag) start at ``at``: no letter, digit, ``_`` or ``-`` before?"""
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_-")


def _after_curl(text: str, flag: int) -> bool:
    """Is there a ``curl`` command in the :data:`_CURL_BEFORE` characters before ``flag``?"""
    return "curl" in text[max(0, flag - _CURL_BEFORE) : flag]


def _closing_quote(text: str, opener: int) -> int:
    """Where the shell argument opened by the quote at ``opener`` ends: the next ``'``
    for a single quote, the next ``"`` no backslash escapes for a double quote; the
    text's length when none is there yet."""
    quote = text[opener]
    k = text.find(quote, opener + 1)
    while quote == '"' and k != -1 and escaped(text, k, opener):
        k = text.find(quote, k + 1)
    return len(text) if k == -1 else k
