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

__all__ = ["command_data_spans"]

Span = tuple[int, int]

#: A command's quoted data argument: ``curl``'s request-body flags, or what ``echo`` and
#: ``printf`` print (read with :data:`_CURL_BEFORE` for ``curl``'s flags).
_DATA_RE = re.compile(
    r"(?:(?<![\w-])(?:-d|--data(?:-raw|-binary|-ascii)?|--json)(?:[ \t]+|=)"
    r"|\b(?:echo|printf)[ \t]+(?:-[neE]{1,3}[ \t]+)?)(['\"])(?=\s*[{\[])"
)
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
    spans: list[Span] = []
    pos = 0
    while (m := _DATA_RE.search(text, pos)) is not None:
        opener = m.start(1)
        if (
            text[m.start()] == "-"
            and "curl" not in text[max(0, m.start() - _CURL_BEFORE) : m.start()]
        ):
            pos = m.end()
            continue
        close = _closing_quote(text, opener)
        spans.append((opener + 1, close))
        pos = close + 1
    return spans


def _closing_quote(text: str, opener: int) -> int:
    """Where the shell argument opened by the quote at ``opener`` ends: the next ``'``
    for a single quote, the next ``"`` no backslash escapes for a double quote; the
    text's length when none is there yet."""
    quote = text[opener]
    k = text.find(quote, opener + 1)
    while quote == '"' and k != -1 and _escaped(text, k, opener):
        k = text.find(quote, k + 1)
    return len(text) if k == -1 else k


def _escaped(text: str, at: int, lo: int) -> bool:
    """Is the character at ``at`` escaped by an odd run of backslashes (down to ``lo``)?"""
    k = at
    while k > lo and text[k - 1] == "\\":
        k -= 1
    return (at - k) % 2 == 1
