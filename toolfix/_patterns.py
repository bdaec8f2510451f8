"""User regexes from tool schemas, run under a deterministic bound.

A schema's ``pattern`` and ``patternProperties`` are third-party input (MCP
servers publish them), and JSON Schema validators hand them to a backtracking
engine: ``^(a+)+$`` on a 41-character key runs for minutes. toolfix runs them in
the engine of jsonschema-rs (Rust): patterns without lookaround or
backreferences go to the ``regex`` crate, which matches in linear time; the rest
to ``fancy-regex`` with a cap on backtracking *steps*. Neither bound reads a
clock, so the same input gets the same answer on an idle machine and on one
with every core busy (docs/design.md#promise-10). A pattern that exhausts its
step budget counts as no match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jsonschema_rs
from jsonschema.exceptions import ValidationError

from ._cache import WeightedLRU

__all__ = [
    "BACKTRACK_LIMIT",
    "PATTERN_INPUT_CAP",
    "PATTERN_OPTIONS",
    "PatternError",
    "bounded_additional_properties",
    "bounded_pattern",
    "bounded_pattern_properties",
    "compile_pattern",
    "pattern_search",
]

#: Longest model string a schema regex is run on (the default of Limits.max_pattern_input_chars).
PATTERN_INPUT_CAP = 10_000
#: Most backtracking steps one match may take (fancy-regex only; the linear engine needs none).
BACKTRACK_LIMIT = 100_000

PATTERN_OPTIONS = jsonschema_rs.FancyRegexOptions(backtrack_limit=BACKTRACK_LIMIT)
_COMPILED: WeightedLRU[str, Any] = WeightedLRU(budget=8 * 1024 * 1024)


class PatternError(ValueError):
    """A schema regex the engine cannot compile."""


def compile_pattern(pattern: str) -> Any:
    """The compiled matcher for ``pattern`` (cached, bounded by memory)."""
    hit = _COMPILED.get(pattern)
    if hit is not None:
        return hit
    try:
        matcher = jsonschema_rs.validator_for(
            {"type": "string", "pattern": pattern}, pattern_options=PATTERN_OPTIONS
        )
    except (ValueError, jsonschema_rs.ValidationError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise PatternError(first) from exc
    # A compiled regex costs a few hundred bytes plus its program, roughly its length x 64.
    return _COMPILED.put(pattern, matcher, 512 + 64 * len(pattern))


def pattern_search(pattern: str, value: str) -> bool:
    """Whether ``pattern`` matches anywhere in ``value`` (JSON Schema semantics).

    Raises :class:`PatternError` for a pattern that does not compile."""
    return bool(compile_pattern(pattern).is_valid(value))


# ---- jsonschema keywords that run user regexes, on the bounded engine ----------------


def bounded_pattern(cap: int) -> Callable[..., Iterator[ValidationError]]:
    def pattern(
        validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        """``pattern`` in the bounded engine, on model strings up to ``cap`` characters."""
        if not isinstance(instance, str):
            return
        if len(instance) > cap:
            yield ValidationError(
                f"string of {len(instance)} chars is too long to check against pattern {pattern!r}"
            )
            return
        if not pattern_search(pattern, instance):
            yield ValidationError(f"{instance[:200]!r} does not match {pattern!r}")

    return pattern


def _key_matches(pattern: str, key: str, cap: int) -> bool:
    return len(key) <= cap and pattern_search(pattern, key)


def bounded_pattern_properties(cap: int) -> Callable[..., Iterator[ValidationError]]:
    def pattern_properties(
        validator: Any, pattern_props: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        for pattern, subschema in pattern_props.items():
            for key, value in instance.items():
                if _key_matches(pattern, key, cap):
                    yield from validator.descend(value, subschema, path=key, schema_path=pattern)

    return pattern_properties


def bounded_additional_properties(cap: int) -> Callable[..., Iterator[ValidationError]]:
    def additional_properties(
        validator: Any, extra_schema: Any, instance: Any, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        """jsonschema's ``additionalProperties``, with the key patterns in the bounded engine."""
        if not validator.is_type(instance, "object"):
            return
        props = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        extras = [
            key
            for key in instance
            if key not in props and not any(_key_matches(p, key, cap) for p in patterns)
        ]
        if validator.is_type(extra_schema, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra_schema, path=key)
        elif not extra_schema and extras:
            listed = ", ".join(repr(k) for k in sorted(extras, key=str))
            if patterns:
                verb = "does" if len(extras) == 1 else "do"
                regexes = ", ".join(repr(p) for p in sorted(patterns))
                yield ValidationError(f"{listed} {verb} not match any of the regexes: {regexes}")
            else:
                verb = "was" if len(extras) == 1 else "were"
                yield ValidationError(
                    f"Additional properties are not allowed ({listed} {verb} unexpected)"
                )

    return additional_properties
