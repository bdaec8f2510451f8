"""Kimi call ids written without their separators: ``functions_Bash_2``, ``functionsexec5``.

Kimi K2's chat template writes a call's id as ``functions.NAME:N``
(:mod:`toolfix._repair.formats.kimi`): the ``functions`` namespace, a ``.``, the tool's
name, a ``:`` and the call's counter. Kimi K2.5 and K2.7 checkpoints are seen writing
the two separators as ``_`` or leaving them out (llama.cpp #24658 ``functions_Bash_2``,
exo #2281 ``functions_get_weather_1``, sglang #21377 ``functionsexec5``); the engines'
parsers then leave the whole call in the content.

:func:`damaged_id_name` reads such an id by the id's own syntax and the normalisation
rules of docs/design.md#promise-4 only: the ``functions`` prefix with whatever separator
follows it (or none), the trailing digits as the counter with whatever separator comes
before them (or none), and the rest compared with the offered names as
:func:`~toolfix._repair.names.normalise_name` writes them (case and the separators
``-``, ``_``, ``.`` ignored, never a letter). Every way of splitting the id is tried; the
id names a tool only when all the readings that name an offered tool name the same one.
An id that names no offered tool stays unread (the call keeps its unknown name and is
refused by the gate, rule G4); a name whose trailing digits could be the counter or part
of the name of two different tools is ambiguous and stays unread too.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..names import MAX_NAME_CHARS, normalise_name

__all__ = ["damaged_id_name"]

_PREFIX = "functions"
#: What models write between the parts of a damaged id (``.`` and ``:`` are the template's).
_SEPARATORS = ".:_-"


def _bodies(call_id: str) -> Iterable[str]:
    """The id with its prefix taken off or kept, then its counter taken off or kept."""
    heads = [call_id]
    if call_id[: len(_PREFIX)].lower() == _PREFIX:
        rest = call_id[len(_PREFIX) :]
        heads.append(rest[1:] if rest[:1] in _SEPARATORS else rest)
    for head in heads:
        digits = len(head) - len(head.rstrip("0123456789"))
        for k in range(digits + 1):  # the counter's length: none, then each digit more
            body = head[: len(head) - k]
            if k and body[-1:] in _SEPARATORS:
                body = body[:-1]
            if body:
                yield body


def damaged_id_name(call_id: str, tool_names: Iterable[str]) -> str | None:
    """The offered tool a damaged Kimi id names, or ``None`` (see the module docs).

    >>> damaged_id_name("functions_Bash_2", ["Bash", "Read"])
    'Bash'
    >>> damaged_id_name("functionsexec5", ["exec"])
    'exec'
    >>> damaged_id_name("functions_rm_0", ["exec"]) is None
    True
    """
    call_id = call_id.strip()
    if not call_id or len(call_id) > MAX_NAME_CHARS or any(c.isspace() for c in call_id):
        return None
    by_form: dict[str, list[str]] = {}
    for tool in tool_names:
        by_form.setdefault(normalise_name(tool, strip_prefix=False), []).append(tool)
    found: set[str] = set()
    for body in _bodies(call_id):
        tools = by_form.get(normalise_name(body, strip_prefix=False), [])
        found.update(tools)
        if len(found) > 1:
            return None  # two offered tools share a reading: no guess
    return next(iter(found)) if found else None
