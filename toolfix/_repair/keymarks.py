"""Quotes and punctuation glued to an argument key: the key is the parameter it spells.

A model that loses track of its quotes writes ``{"data':[1, 2]}``; json-repair reads
the key as ``data'`` (llama3.2:3b in llama-stack's recordings). Other slips glue a
colon, an equals sign or a backtick to the key (``"city:"``, ``"`path`"``). The
letters are those of a declared parameter; only how the key is written differs, so
the key is read as that parameter (docs/design.md, rule G4: a key equal to a parameter
once glued markup is set aside). Kept as written it would be a new undeclared key,
which a schema that admits other keys lets through beside a missing parameter: a call
the model did not write. Read as the parameter, its value meets the parameter's
schema, or the call is invalid (never admitted under a key the model did not mean).

Only quote marks, backticks, ``:``, ``=`` and blanks at the key's two ends are set
aside; the rest must equal a declared parameter exactly (case and separators are
:func:`~toolfix._repair.finish`'s near-key rule). A parameter the call already has,
or one that two keys would write, is left alone. Each rename is recorded.
"""

from __future__ import annotations

from typing import Any

from .._messages import RepairRecord
from .._tools import ToolDescriptor
from .keyalias import renamed

__all__ = ["GLUED_MARKS", "unglue_keys"]

GLUED_MARKS = "\"'`\u2018\u2019\u201c\u201d:= \t\r\n"
"""What a key may carry glued to its ends and still be read as the parameter it spells."""

_MAX_KEY = 200


def unglue_keys(
    args: dict[str, Any], tool: ToolDescriptor, repairs: list[RepairRecord]
) -> dict[str, Any]:
    """``args`` with each undeclared key that is a declared parameter plus glued quotes
    or punctuation renamed to that parameter (see the module); ``args`` when none is."""
    props = tool.properties
    renames: dict[str, str] = {}
    for key in args:
        if key in props or len(key) > _MAX_KEY:
            continue
        bare = key.strip(GLUED_MARKS)
        if bare != key and bare in props and bare not in args:
            renames[key] = bare
    return renamed(args, renames, repairs, "glued quotes")
