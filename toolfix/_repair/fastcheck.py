"""A fast "is this valid?" for the schemas tools usually have.

jsonschema is the reference validator (every error message and every schema
feature comes from it), but its generality costs about 10 µs per call even for
``{"type": "object", "properties": {...}, "required": [...]}``. Most tool schemas
use only a handful of keywords, so for those a checker made of plain closures is
compiled once per tool and answers ``is_valid`` in about a microsecond. A schema
with any other keyword gets no checker, and jsonschema answers instead. The
property test ``tests/test_fastcheck.py`` holds the two to the same answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

__all__ = ["ANNOTATIONS", "TYPE_CHECKS", "compile_checker", "is_integer"]

Checker = Callable[[Any], bool]

#: Keywords that never change validity (annotations; ``format`` too, since toolfix's
#: validator runs without a format checker, as jsonschema does by default).
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$schema",
        "$id",
        "format",
    }
)
#: Bounds on a number (other instances pass): when an instance breaks each one, written
#: as jsonschema writes it (so that a NaN, for which every comparison is false, passes).
_NUMBER_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda v, b: v < b,
    "maximum": lambda v, b: v > b,
    "exclusiveMinimum": lambda v, b: v <= b,
    "exclusiveMaximum": lambda v, b: v >= b,
}
#: Bounds on a length: the type they apply to, and whether the bound is a minimum.
_LENGTH_BOUNDS: dict[str, tuple[type[str | list[Any]], bool]] = {
    "minLength": (str, True),
    "maxLength": (str, False),
    "minItems": (list, True),
    "maxItems": (list, False),
}
_SUPPORTED = (
    frozenset(
        {"type", "properties", "required", "additionalProperties", "items", "enum", "const"}
        | {"anyOf", "oneOf"}
    )
    | _NUMBER_BOUNDS.keys()
    | _LENGTH_BOUNDS.keys()
    | ANNOTATIONS
)
_MAX_DEPTH = 16


def is_integer(v: Any) -> bool:
    """JSON Schema's integer: an ``int`` (not a bool) or an integral float."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    return isinstance(v, float) and v.is_integer()


#: JSON Schema's ``type`` checks (an integral float is an integer; a bool is no number);
#: the coercion (:mod:`.coerce`) asks the same table.
TYPE_CHECKS: dict[str, Checker] = {
    "string": lambda v: isinstance(v, str),
    "integer": is_integer,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema defines it (``True != 1``, ``1 == 1.0``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _json_key(v: Any) -> tuple[str, Any] | None:
    """A hashable key that is equal for two scalars exactly when :func:`_json_equal`
    says so (``1`` and ``1.0`` share one, ``True`` and ``1`` do not); ``None`` for a
    container (compared member by member)."""
    t = type(v)
    if t is str:
        return ("s", v)
    if t is bool:
        return ("b", v)
    if v is None:
        return ("n", None)
    if t is int or t is float:
        return ("d", v)
    return None


def _enum_index(options: list[Any]) -> tuple[frozenset[tuple[str, Any]], tuple[Any, ...]]:
    """An enum's scalar members as :func:`_json_key` keys, and its other members."""
    keys = []
    rest = []
    for o in options:
        k = _json_key(o)
        if k is None:
            rest.append(o)
        else:
            keys.append(k)
    return frozenset(keys), tuple(rest)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _check_bound(breaks: Callable[[Any, Any], bool], bound: Any, v: Any) -> bool:
    return not _is_number(v) or not breaks(v, bound)


def _check_length(kind: type[str | list[Any]], is_min: bool, size: int, v: Any) -> bool:
    if not isinstance(v, kind):
        return True
    return not (len(v) < size if is_min else len(v) > size)


def _any_of(branches: tuple[Checker, ...], v: Any) -> bool:
    return any(b(v) for b in branches)


def _one_of(branches: tuple[Checker, ...], v: Any) -> bool:
    return sum(1 for b in branches if b(v)) == 1


def compile_checker(schema: Any, depth: int = 0) -> Checker | None:
    """A closure equivalent to jsonschema's ``is_valid`` for ``schema``, or ``None`` when
    the schema uses a keyword this module does not implement."""
    if schema is True or schema == {}:
        return lambda v: True
    if schema is False:
        return lambda v: False
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return None
    if any(k not in _SUPPORTED for k in schema):
        return None
    checks: list[Checker] = []

    scalar = _scalar_checks(schema)
    if scalar is None:
        return None
    checks.extend(scalar)

    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            if not isinstance(options, list) or not options:
                return None
            branches: list[Checker] = []
            for option in options:
                branch = compile_checker(option, depth + 1)
                if branch is None:
                    return None
                branches.append(branch)
            checks.append(partial(_any_of if key == "anyOf" else _one_of, tuple(branches)))

    props = schema.get("properties", {})
    required = schema.get("required", [])
    additional = schema.get("additionalProperties", True)
    if not isinstance(props, Mapping) or not isinstance(required, list):
        return None
    if props or required or additional is not True:
        check_object = _object_checker(props, required, additional, depth)
        if check_object is None:
            return None
        checks.append(check_object)

    if "items" in schema:
        item_check = compile_checker(schema["items"], depth + 1)
        if item_check is None:
            return None

        def check_array(v: Any) -> bool:
            return not isinstance(v, list) or all(item_check(x) for x in v)

        checks.append(check_array)

    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    all_checks = tuple(checks)
    return lambda v: all(c(v) for c in all_checks)


def _object_checker(
    props: Mapping[str, Any], required: list[Any], additional: Any, depth: int
) -> Checker | None:
    """The check of ``properties``, ``required`` and ``additionalProperties`` (``None``:
    a subschema uses a keyword this module does not implement)."""
    prop_checks: dict[str, Checker] = {}
    for name, sub in props.items():
        c = compile_checker(sub, depth + 1)
        if c is None:
            return None
        prop_checks[name] = c
    extra = compile_checker(additional, depth + 1)
    if extra is None:
        return None
    req = tuple(required)

    def check_object(v: Any) -> bool:
        if not isinstance(v, dict):
            return True  # object keywords do not apply to other types
        for r in req:
            if r not in v:
                return False
        for k, item in v.items():
            c = prop_checks.get(k)
            if c is not None:
                if not c(item):
                    return False
            elif not extra(item):
                return False
        return True

    return check_object


def _scalar_checks(schema: Mapping[str, Any]) -> list[Checker] | None:
    """The checks of ``type``, ``enum``, ``const`` and the bounds (``None``: a keyword's
    value this module does not implement)."""
    checks: list[Checker] = []
    t = schema.get("type")
    if t is not None:
        names = [t] if isinstance(t, str) else t
        if not isinstance(names, list) or not all(
            isinstance(n, str) and n in TYPE_CHECKS for n in names
        ):
            return None
        preds = [TYPE_CHECKS[n] for n in names]
        if len(preds) == 1:
            checks.append(preds[0])
        else:
            any_type = tuple(preds)

            def check_types(v: Any) -> bool:
                return any(p(v) for p in any_type)

            checks.append(check_types)

    if "enum" in schema:
        options = schema["enum"]
        if not isinstance(options, list):
            return None
        keys, rest = _enum_index(options)

        def check_enum(v: Any) -> bool:
            # a scalar: one hash lookup (an enum of n members against n items is linear)
            k = _json_key(v)
            if k is not None and k in keys:
                return True
            return any(_json_equal(v, o) for o in rest)

        checks.append(check_enum)

    if "const" in schema:
        const = schema["const"]
        checks.append(lambda v: _json_equal(v, const))

    for key, compare in _NUMBER_BOUNDS.items():
        if key in schema:
            bound = schema[key]
            if not _is_number(bound):
                return None
            checks.append(partial(_check_bound, compare, bound))

    for key, (kind, is_min) in _LENGTH_BOUNDS.items():
        if key in schema:
            size = schema[key]
            if not is_integer(size) or size < 0:
                return None
            checks.append(partial(_check_length, kind, is_min, size))
    return checks
