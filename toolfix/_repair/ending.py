"""How the output ended: a call whose closers are all that is missing at the end.

A reader marks a call ``truncated`` when the text ended before the call's own closer
(``</function>``, ``</tool_call>``, ``<|call|>``...). That text may have been cut off (the
token limit, a dropped connection: ``finish_reason: "length"``) or ended by the model
itself (``"stop"``, ``"end_turn"``, ``"eos"``...), which Qwen3-Coder, Qwen3.6 and GLM do in
Ollama, llama.cpp and LM Studio right after a call's last value. The text alone cannot
tell them apart; the response's declared finish reason can (docs/design.md#promise-9).

When it says the model stopped on its own, a call that runs to the end of the output is
closed there (:func:`closed_by_end`), provided its arguments are complete by structure:
nothing but closers is missing. No JSON string is left open, and a bracket left open
counts as a missing closer only after a value that closed (``{"function": {"name": "f",
"parameters": {}}``: the envelope's last ``}``); an output that ends in a string, a number
or a word may have been cut inside that value. Such a call
carries a ``truncated`` record naming the finish reason, and passes the admission gate
as any other. A ``"length"`` stop, or none known (a paste, a raw string), keeps the
invalid ``truncated`` call.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from .._messages import FailureKind
from .families import families, family
from .formats._base import Candidate
from .text import find_bracket_end

__all__ = ["NATURAL_STOPS", "closed_by_end", "natural_stop"]

#: Finish reasons that say the model ended its output itself (compared in lower case):
#: OpenAI chat, vLLM, SGLang, llama.cpp, LM Studio, Ollama (``done_reason``), Mistral
#: ``stop``; a tool-call stop (``tool_calls``, ``function_call``, Anthropic ``tool_use``);
#: Anthropic and Bedrock ``end_turn``/``stop_sequence``; Gemini ``STOP``; Cohere
#: ``COMPLETE``; Hugging Face TGI ``eos_token``; llama.cpp's ``eos``/``word`` stop types;
#: the OpenAI Responses API's ``completed`` status. Anything else (``length``,
#: ``max_tokens``, ``content_filter``, ``error``, ``incomplete``...) or ``None`` is not.
NATURAL_STOPS = frozenset(
    {
        "stop",
        "end_turn",
        "stop_sequence",
        "eos",
        "eos_token",
        "word",
        "tool_calls",
        "function_call",
        "tool_use",
        "complete",
        "completed",
    }
)

_OPENERS = "{["
_BETWEEN = frozenset(" \t\r\n,")


def natural_stop(finish_reason: str | None) -> str | None:
    """``finish_reason`` when it says the model stopped on its own, else ``None``."""
    if finish_reason is None or finish_reason.lower() not in NATURAL_STOPS:
        return None
    return finish_reason


def closed_by_end(c: Candidate, reason: str, text: str) -> Candidate:
    """``c`` closed by the end of the output the model ended itself (``reason``, its
    finish reason): no longer cut off, with a record naming ``reason``. ``c`` itself when
    it was not cut off, when anything but whitespace follows it, when the reader already
    judged it (``error``), when a closer of its family ends it (the call is damaged
    inside, not left open at the end) or the output ends inside one (``</tool_ca``: a cut
    inside a special token, rule G1), when it has no arguments, or when its arguments are not
    complete by structure: an open JSON string or bracket (a cut inside a value), in the
    arguments' JSON or in the last value written as text (``<parameter=items>["a``)."""
    if not c.truncated or c.error is not None or text[c.end :].strip():
        return c
    tail = c.raw.rstrip()
    if tail.endswith(_closers(c.format)):
        return c  # a closer of its family ends it: not missing at the end, damaged inside
    if tail.endswith(_closer_starts()):
        return c  # the output ended inside a closer token (``</tool_ca``): a cut (rule G1)
    body = c.payload if c.payload is not None else c.arguments
    if not body:
        return c
    if (
        isinstance(body, str)
        and _open_json(body, calls=c.payload is not None)
        and not _closers_only(body)
    ):
        return c
    last = _last_value(body)  # (the value the end of the output ended)
    if isinstance(last, str) and _open_json(last):
        return c  # ``<parameter=items>["a", "b``: a JSON value written as text, cut
    note = (
        FailureKind.TRUNCATED.value,
        f"closed the call at the end of the message: its closers were missing, and "
        f"finish_reason {reason!r} says the model ended the output itself",
    )
    return Candidate(
        c.start,
        c.end,
        c.format,
        c.raw,
        tuple(k for k in c.kinds if k != FailureKind.TRUNCATED),
        c.payload,
        c.name,
        c.arguments,
        c.string_values,
        c.id,
        False,  # truncated
        c.explicit,
        c.args_key,
        c.open_ended,
        c.error,
        (*c.notes, note),
        c.quoted,
    )


@functools.cache
def _closers(fmt: str) -> tuple[str, ...]:
    """The call closers the family registry declares for format ``fmt`` (none known:
    ``()``, which no text ends with)."""
    found = family(fmt)
    return found.closers if found is not None else ()


@functools.cache
def _closer_starts() -> tuple[str, ...]:
    """The proper beginnings of every family's markup closers (``<``, ``</tool_ca``...):
    an output that ends with one ended inside a closer token, which is a cut (rule G1),
    whatever the finish reason says. Any family's, not only the reading one's: a reader
    may take another family's elements (``<invoke>`` inside ``<minimax:tool_call>``).
    Closers that are not markup (a list's ``]``) have none: a value may end with their
    first character."""
    closers = {c for f in families() for c in f.closers if c.startswith("<")}
    return tuple({c[:k] for c in closers for k in range(1, len(c))})


def _last_value(body: str | Mapping[str, Any]) -> Any:
    """The last argument value of ``body`` (a mapping, or JSON text of an object a reader
    built from text values); ``None`` when there is none to tell."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return None
        if not isinstance(body, dict):
            return None
    values = list(body.values())
    return values[-1] if values else None


def _closers_only(body: str) -> bool:
    """Is all that the JSON ``body`` misses at its end the closers of the brackets it left
    open, after a value that closed (``{"function": {"name": "f", "parameters": {}}``)?
    It ends with a closed bracket, and the decoder reads it whole, wanting only more at
    its very end (where a container's ``,`` or closer would come). Not when it ends in a
    string, a number or a word (a value the end may have cut)."""
    tail = body.rstrip()
    if not tail.endswith(("}", "]")):
        return False
    try:
        json.loads(tail)
    except json.JSONDecodeError as exc:
        return exc.pos == len(tail)
    return False


def _open_json(body: str, *, calls: bool = False) -> bool:
    """Does the JSON-ish ``body`` leave a string or bracket open at its end? With
    ``calls`` (a list of call objects) the list's own ``]`` may be missing (it is a
    closer: Granite's, Nemotron's), but each of its items must close. Text that is not
    bracketed JSON (a value the schema types) is judged by the gate."""
    at = len(body) - len(body.lstrip())
    if at == len(body) or body[at] not in _OPENERS:
        return False
    span = find_bracket_end(body, at)
    if not span.truncated:
        return bool(body[span.end :].strip())
    if not calls or body[at] != "[":
        return True
    n = len(body)
    at += 1
    while True:  # the items of a list whose "]" is missing
        while at < n and body[at] in _BETWEEN:
            at += 1
        if at == n:
            return False
        if body[at] not in _OPENERS:
            return True  # an item that is no object or list: not judged here
        span = find_bracket_end(body, at)
        if span.truncated:
            return True
        at = span.end
