"""A key that holds JSON punctuation is the remains of broken structure, not a name.

A repair that loses track of a text's quotes can glue its structure into a key:
json-repair reads ``{"name":"f","parameters{"a"]=["A"]}}`` as
``{"name": "f", 'parameters{"a"]=["A': ''}`` (llama3.2:3b in llama-stack's recordings
wrote such envelopes; the project's hypothesis generator in
``tests/test_repair_drops_arguments.py`` drew this one). A schema that admits
undeclared keys would then let the fragment through as an argument: a call the model
did not write (docs/design.md, promises 4 and 11). An argument key that no schema of
the tool declares and that holds ``{``, ``}``, ``[``, ``]`` or ``"`` is junk, and the
call is invalid (its raw text kept, for the LLM fixer), never admitted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["JUNK_MARKS", "junk_key"]

JUNK_MARKS = frozenset('{}[]"')
"""JSON's structural punctuation: no undeclared key that holds one is a name."""


def junk_key(args: Mapping[str, Any], declared: Mapping[str, Any]) -> str | None:
    """The first key of ``args`` that ``declared`` (the tool's parameters) does not hold
    and that holds JSON punctuation, or ``None``."""
    for key in args:
        if key not in declared and not JUNK_MARKS.isdisjoint(key):
            return key
    return None
