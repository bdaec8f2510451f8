"""A call displayed with its result record and the answer drawn from it (issue 28).

A walkthrough of a tool-use exchange shows the call, then the record the tool returned,
then the answer the model gave from it: the answer restates the record's values, which
nothing before the record holds (the model could only learn them from the result). The
call is one the walkthrough tells of, answered, not one the message makes. Sources (each
independent): Agentic Academy's tool-use flow (numbered steps: the call, the order data
returned, then the reply quoting its carrier and tracking number:
``ev8hf-agentic-academy-tool-use-flow-call-result-answer``), and the corpus's answered
JSON transcripts (``tests/test_rendered_transcripts.py``: one source so far).

A model's own call followed by a result it made up and nothing after it (NextChat#6373:
``fresh5cn-nextchat-6373-deepseek-reasoner-jsonrpc-write-file``) stays a call: no
answer restates the record. A record is a JSON object opening a line that is not a call
(none of :data:`_CALL_KEYS`); its call is the JSON object opening a line right before
it, with a tool's name and its arguments (:func:`_is_call`). Decided by what follows
the call, so only calls that wait for the end of a stream are refused
(``textscan._shown``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

from .._errors import LimitExceededError
from .text import find_bracket_end

__all__ = ["restated_spans"]

Span = tuple[int, int]

#: The keys that make an object a call (or a list of calls' item), not a result record.
_CALL_KEYS = frozenset(
    ("name", "tool", "tool_name", "function", "action", "arguments", "parameters", "input",
     "args", "tool_calls", "recipient_name", "method")
)  # fmt: skip
#: A call object's keys: its tool's name, and its arguments.
_NAME_KEYS = frozenset(("name", "tool", "tool_name", "function", "action", "recipient_name"))
_ARGUMENT_KEYS = frozenset(("arguments", "parameters", "input", "args", "action_input"))
#: The most line-opening objects read in one text.
_MAX_OBJECTS = 32
#: The most characters of an object parsed.
_MAX_CHARS = 20_000
#: The shortest value of a record that an answer's restating of is telling.
_MIN_CHARS = 4


def restated_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """Sorted spans of the calls answered by a result record whose values the text after
    it restates: each from the call object's start to the record's. ``has`` answers
    ``marker in text`` (the scanner's indexed test for a long text). An object is parsed
    only when text follows it and the object before it: a lone call is never decoded
    here (its value is decoded once, by the reader)."""
    if not (text.__contains__ if has is None else has)("{"):
        return []
    spans: list[Span] = []
    previous: Span | None = None
    for start, end in _line_objects(text):
        if previous is not None and text[end:].strip():
            record = _parsed(text, start, end)
            if (
                isinstance(record, dict)
                and _CALL_KEYS.isdisjoint(record)
                and _restated(text, start, end, record)
                and _is_call(_parsed(text, *previous))
            ):
                spans.append((previous[0], start))
        previous = (start, end)
    return spans


def _parsed(text: str, start: int, end: int) -> object:
    """The JSON value of ``text[start:end]``; ``None`` when it does not parse or holds
    more than :data:`_MAX_CHARS` characters (a record shown in a walkthrough is short)."""
    if end - start > _MAX_CHARS:
        return None
    try:
        value: object = json.loads(text[start:end])
    except ValueError:
        return None
    return value


def _is_call(value: object) -> bool:
    """Is ``value`` a call object: a name (:data:`_NAME_KEYS`) and arguments
    (:data:`_ARGUMENT_KEYS`), or a ``function`` object holding both?"""
    if not isinstance(value, dict):
        return False
    inner = value.get("function")
    if isinstance(inner, dict) and _is_call(inner):
        return True
    return not _NAME_KEYS.isdisjoint(value) and not _ARGUMENT_KEYS.isdisjoint(value)


def _line_objects(text: str) -> Iterator[Span]:
    """The spans of the JSON objects that open a line of ``text`` (after blanks), in
    order, among its first :data:`_MAX_OBJECTS` ``{`` read."""
    k = text.find("{")
    for _ in range(_MAX_OBJECTS):
        if k == -1:
            return
        bol = text.rfind("\n", 0, k) + 1
        if text[bol:k].strip(" \t"):
            k = text.find("{", k + 1)
            continue
        try:
            end = find_bracket_end(text, k).end
        except LimitExceededError:
            return
        yield k, end
        k = text.find("{", end)


def _restated(text: str, start: int, end: int, record: dict[str, object]) -> bool:
    """Does the text after the record (``text[start:end]``) restate one of its values
    that the text before it does not hold?"""
    before, after = text[:start], text[end:]
    return any(v in after and v not in before for v in _values(record))


def _values(value: object) -> Iterator[str]:
    """The string values of a parsed record, at least :data:`_MIN_CHARS` long."""
    if isinstance(value, str):
        if len(value.strip()) >= _MIN_CHARS:
            yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v)
