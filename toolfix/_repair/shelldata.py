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
#: What every command data argument needs (substring tests first: most texts hold none).
_HINTS = ("curl", "echo ", "printf ")


def command_data_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """Sorted spans of the quoted data arguments of ``curl``, ``echo`` and ``printf``
    commands in ``text`` (inside the quotes). ``has`` answers ``marker in text`` (the
    scanner's indexed test for a long text)."""
    test = text.__contains__ if has is None else has
    if not any(map(test, _HINTS)):
        return []
    heads: list[re.Match[str]] = []
    for head in _HEADS:
        k = text.find(head)
        while k != -1:
            m = _DATA_RE.match(text, k) if _starts_word(text, k) else None
            if m is not None and (head[0] != "-" or _after_curl(text, k)):
                heads.append(m)
            k = text.find(head, k + len(head))
    heads.sort(key=lambda m: m.start())
    spans: list[Span] = []
    for m in heads:
        if spans and m.start() < spans[-1][1]:
            continue  # (a command inside the data of one found already: its data)
        spans.append((m.start(1) + 1, _closing_quote(text, m.start(1))))
    return spans


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
