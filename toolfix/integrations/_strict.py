"""Strict-mode tool schemas (OpenAI structured outputs, the Agents SDK's default
``@function_tool``): every property is required and ``additionalProperties`` is false,
so an optional parameter is written as required, with its ``default`` kept or its type
made nullable. A model that omits such a parameter meant "the default": the call is
completed with the default (or ``null``), and the completion is recorded as a repair.

:func:`relaxed` gives the schema toolfix validates against (the omittable properties no
longer required); :func:`complete_call` fills what the call left out.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .._messages import FailureKind, RepairRecord, ToolCallPart, canonical_json

__all__ = ["complete_call", "omittable", "relaxed"]

_MISSING = object()


def _admits_null(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and any(
            isinstance(o, Mapping) and _admits_null(o) for o in options
        ):
            return True
    return False


def _is_strict(schema: Mapping[str, Any]) -> bool:
    props = schema.get("properties")
    required = schema.get("required")
    return (
        schema.get("additionalProperties") is False
        and isinstance(props, Mapping)
        and isinstance(required, list)
        and set(props) <= set(required)
    )


def omittable(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The properties of a strict object schema a call may leave out, each with the value
    it then takes (its ``default``, else ``None`` when its type admits null); empty for a
    schema that is not strict."""
    if not _is_strict(schema):
        return {}
    out: dict[str, Any] = {}
    for name, prop in schema["properties"].items():
        if not isinstance(prop, Mapping):
            continue
        if "default" in prop:
            out[name] = prop["default"]
        elif _admits_null(prop):
            out[name] = None
    return out


def relaxed(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with its omittable properties no longer required (a copy)."""
    fill = omittable(schema)
    out = dict(schema)
    if fill:
        out["required"] = [r for r in schema["required"] if r not in fill]
    return out


def complete_call(call: ToolCallPart, schema: Mapping[str, Any]) -> ToolCallPart:
    """``call`` with the omittable properties it left out filled in, and a record saying
    which; ``call`` itself when it left none out."""
    fill = omittable(schema)
    args = call.arguments
    if not fill or not isinstance(args, dict):
        return call
    added = {k: copy.deepcopy(v) for k, v in fill.items() if k not in args}
    if not added:
        return call
    done = {**args, **added}
    listed = ", ".join(f"{k}={canonical_json(v)}" for k, v in added.items())
    record = RepairRecord(
        kind=FailureKind.MISSING_REQUIRED,
        detail=f"strict schema: filled omitted {listed} (default or null)",
    )
    return call.model_copy(
        update={
            "arguments": done,
            "arguments_raw": canonical_json(done),
            "repairs": (*call.repairs, record),
        }
    )
