"""Schema-driven argument coercion: make near-miss argument values fit the tool's schema.

:func:`coerce_arguments` walks the JSON schema and the arguments together and
returns a new dict (the input is never mutated). A value that already fits
its subschema is left exactly as it is; only values that do not fit are
changed, and each change is recorded as a :class:`~toolfix.RepairRecord`
whose detail names the path (``'days': "5" → 5 (integer)``).

Rules (the value does not fit its subschema in every case below):

* numeric strings become numbers: ``"5"`` → ``5`` for ``integer``; ``"5.0"``
  and ``"1e3"`` → ``5`` and ``1000`` for ``integer`` only when integral;
  ``"3.14"`` → ``3.14`` for ``number``. Only plain decimal literals (sign,
  digits, point, exponent; at most :data:`MAX_NUMBER_CHARS` chars, finite)
  are read: no ``inf``/``nan``/underscores/hex;
* an integral float becomes an int for ``integer`` (``5.0`` → ``5``);
* ``"true"``/``"false"`` (any case, surrounding whitespace ignored) become
  booleans; ``"yes"``, ``1`` and ``0`` do not (too lossy);
* ``"null"``/``"none"`` (any case) become ``null`` where null is allowed;
* numbers and booleans become strings where a string is required
  (``5`` → ``"5"``, ``True`` → ``"true"``), as JSON spells them;
* a JSON string holding an object or array is decoded where an object or
  array is required (``double_encoded``), with ``json.loads`` and then
  json-repair (strings starting with ``{``/``[``, shorter than
  ``Limits.max_repair_chars``, nested at most ``Limits.max_depth`` deep);
* a single value where an array is required becomes ``[value]`` when it
  fits the items schema as it is;
* enum case: ``"celsius"`` → ``"Celsius"`` when the ASCII-case- and
  whitespace-insensitive match is unique (``enum_case``); ``"2"`` → ``2``
  and ``2`` → ``"2"`` against numeric / numeric-string enums (and ``const``);
* a ``null`` for an optional property whose schema does not allow null is
  dropped (``type_mismatch``); a required one is left for validation;
* keys not in ``properties`` are dropped (``extra_keys``) when
  ``drop_extra_keys`` is ``"always"`` or (default) ``"when_forbidden"`` and
  the schema sets ``additionalProperties: false``. Never when
  ``patternProperties`` is present or ``additionalProperties`` is a schema
  (extra values are then coerced to that schema), and ``"always"`` does not
  empty an object schema that declares no ``properties`` at all.
  ``"always"`` also applies to objects that otherwise validate;
* nested objects, ``items``/``prefixItems``, local ``$ref`` (``#/$defs/X``,
  ``#/definitions/X``, any local JSON pointer), ``allOf`` (each branch in
  turn), ``anyOf``/``oneOf`` (first branch the value fits; else the first
  branch a coercion makes it fit; else, when exactly one branch admits the
  value's JSON type, that branch's partial coercion), ``type`` lists and
  ``const``.

Schema ``pattern``\\ s are never run here (validation runs them, on capped
lengths). Recursion stops at :data:`MAX_DEPTH`; deeper values are left as is.

``string_values=True`` is for formats whose values arrive as untyped text
(``<parameter=days>3</parameter>``): each top-level string value is typed by
its property's schema (integer, number, boolean, null, or JSON for objects
and arrays) without a repair record, because that is how the format is
read. A string that fits the schema stays exactly as it is, even when it
looks like JSON or a number (``anyOf: [string, integer]`` keeps ``"3"``).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Any, Literal

import json_repair
import jsonschema
from jsonschema import Draft202012Validator

from .._cache import WeightedLRU, estimate_weight
from .._config import Limits
from .._messages import FailureKind, RepairRecord, repair_record
from .._patterns import PATTERN_INPUT_CAP, bounded_additional_properties
from .._schema_check import NO_REMOTE, pointer_target
from .elision import elided_at, elided_container
from .fastcheck import ANNOTATIONS, TYPE_CHECKS, compile_checker
from .names import _ASCII_LOWER

__all__ = [
    "CoerceResult",
    "Coercer",
    "coerce_arguments",
    "decode_double_encoded",
    "schema_coercer",
    "text_keys",
]

_DICT_OR_LIST = (dict, list)  # ``isinstance(x, A | B)`` would build the union on every call
_INT_OR_FLOAT = (int, float)
#: A mapping, a ``dict`` first: schemas are dicts, and a ``dict`` answers without the ABC
#: machinery (``isinstance(x, Mapping)`` goes through ``ABCMeta.__instancecheck__``).
_MAPPING = (dict, Mapping)

_DEFAULT_LIMITS = Limits()
MAX_DEPTH = _DEFAULT_LIMITS.max_depth
"""Deepest schema/value nesting a coercion walks and deepest JSON it decodes, by default
(``Limits.max_depth``; a walk given other limits uses theirs)."""
MAX_NUMBER_CHARS = _DEFAULT_LIMITS.max_number_chars
"""Longest numeric string converted to a number (``Limits.max_number_chars``'s default)."""
MAX_RECORDS = 50
"""Most repairs listed one by one; the rest are counted in one record per kind."""
_MAX_REF_HOPS = 32
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_NO_VALUE: Any = object()
_JSON_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


def _ignore_pattern(*_args: Any) -> Any:
    """Coercion never runs user regexes (``pattern``, ``patternProperties``); validation does."""
    return iter(())


_FitValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {
        "pattern": _ignore_pattern,
        "patternProperties": _ignore_pattern,
        # which keys are "additional" depends on patternProperties: bounded engine
        "additionalProperties": bounded_additional_properties(PATTERN_INPUT_CAP),
    },
)


@dataclass(slots=True)  # not frozen: built on the hot path (docs/design.md#speed)
class CoerceResult:
    """Coerced arguments (a new dict) and the repairs made, in walk order."""

    arguments: dict[str, Any]
    repairs: tuple[RepairRecord, ...]


def decode_double_encoded(value: Any, limits: Limits = _DEFAULT_LIMITS) -> tuple[Any, bool]:
    """Decode a JSON string that holds an object or array.

    Returns ``(decoded, True)`` when ``value`` is a string whose stripped text
    starts with ``{`` or ``[`` and decodes (``json.loads``, then json-repair)
    to a dict or list; otherwise ``(value, False)``. Strings nested deeper than
    ``limits.max_depth`` are not decoded, and broken ones longer than
    ``limits.max_repair_chars`` are not handed to json-repair.
    """
    if not isinstance(value, str):
        return value, False
    text = value.strip()
    if not text or text[0] not in "{[":
        return value, False
    # The strict decoder first: for JSON, the depth of the value it gives is the depth
    # of the text, told by counting brackets (at C speed) rather than by the linear scan.
    if elided_at(text) >= 0:  # ``[...]``, ``["..."]``: a placeholder (elision.py)
        return value, False
    try:
        decoded = json.loads(text)
    except (ValueError, RecursionError):
        if len(text) > limits.max_repair_chars or _nesting(text) > limits.max_depth:
            return value, False
        if '"' not in text and _ENTITY_START.search(text) is not None:
            return _entity_escaped(value, text)
        try:
            decoded = json_repair.loads(text)
        except (ValueError, RecursionError, TypeError):
            return value, False
    else:
        depth = limits.max_depth
        if text.count("[") + text.count("{") > depth and _deeper_than(decoded, depth):
            return value, False
    if isinstance(decoded, _DICT_OR_LIST):
        return decoded, True
    return value, False


#: An entity's start (``&quot``, ``&#34``): text with one and no quote is entity-escaped.
_ENTITY_START = re.compile(r"&[#A-Za-z]")


def _entity_escaped(value: str, text: str) -> tuple[Any, bool]:
    """JSON written with its quotes as HTML/XML entities (``[&quot;ui&quot;]``: Seed-OSS
    36B in LM Studio, workunit-benchmarks; the class ``formats/tool_tags.py`` reads in
    XML values) read through the entities once, strictly; never handed to json-repair,
    which reads ``&quot;`` as text and keeps pieces of it (``['quot;ui&quot;']``)."""
    try:
        decoded = json.loads(html.unescape(text))
    except (ValueError, RecursionError):
        return value, False
    return (decoded, True) if isinstance(decoded, _DICT_OR_LIST) else (value, False)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value``, decoded from JSON, nests containers more than ``limit`` deep:
    what :func:`_nesting` says of its text (one walk over its containers only)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in item.values() if type(item) is dict else item:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


def _nesting(text: str) -> int:
    """Deepest bracket nesting outside JSON strings (linear scan)."""
    depth = deepest = 0
    quote = ""
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "}]":
            depth = max(0, depth - 1)
    return deepest


def coerce_arguments(
    arguments: Mapping[str, Any],
    schema: Mapping[str, Any],
    *,
    drop_extra_keys: Literal["when_forbidden", "always", "never"] = "when_forbidden",
    string_values: bool = False,
    limits: Limits = _DEFAULT_LIMITS,
) -> CoerceResult:
    """Coerce ``arguments`` to ``schema`` (see the module docs for the rules).

    Args:
        arguments: The parsed arguments object (never mutated).
        schema: The tool's JSON schema for its arguments.
        drop_extra_keys: When to drop keys the schema does not declare.
        string_values: Top-level values are untyped text to be typed by the schema.
        limits: ``max_depth`` and ``max_repair_chars`` of the strings it decodes.

    Returns:
        The new arguments dict and the repairs made.
    """
    return _walk_arguments(
        _Walker(schema, drop_extra_keys, limits), arguments, schema, string_values
    )


#: :func:`coerce_arguments` of one schema and ``drop_extra_keys``: ``(arguments,
#: string_values) -> (coerced arguments, repairs)``.
Coercer = Callable[[Mapping[str, Any], bool], tuple[dict[str, Any], tuple[RepairRecord, ...]]]


def schema_coercer(
    schema: Mapping[str, Any],
    drop_extra_keys: Literal["when_forbidden", "always", "never"],
    limits: Limits = _DEFAULT_LIMITS,
) -> Coercer:
    """:func:`coerce_arguments` for one schema and mode (the finisher keeps one per
    tool)."""

    # what typing a text by each subschema tries (:meth:`_Walker.type_text`), worked out
    # once: it depends on the schema alone, and the schema does not change
    plans: dict[int, _TextPlan] = {}

    def coerce(
        arguments: Mapping[str, Any], string_values: bool
    ) -> tuple[dict[str, Any], tuple[RepairRecord, ...]]:
        walker = _Walker(schema, drop_extra_keys, limits, plans)
        result = _walk_arguments(walker, arguments, schema, string_values)
        return result.arguments, result.repairs

    return coerce


def text_keys(
    schema: Mapping[str, Any], drop_extra_keys: Literal["when_forbidden", "always", "never"]
) -> frozenset[str]:
    """The properties whose untyped text the coercion keeps as it is, with no record: a
    plain ``{"type": "string"}`` schema (annotations aside) in a plain object schema
    (:data:`_PLAIN_ROOT_KEYS`). Arguments of these keys only, every value a ``str``,
    come out of :func:`schema_coercer`'s coercion with ``string_values`` equal and in
    the same order, with no repairs: the gate skips it for them (tests/test_coerce.py
    holds the two to one answer)."""
    if (
        drop_extra_keys == "always"
        or schema.get("type") != "object"
        or not schema.keys() <= _PLAIN_ROOT_KEYS
    ):
        return frozenset()
    props = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties")
    if (
        not isinstance(props, _MAPPING)
        or not isinstance(required, list)
        or not all(isinstance(r, str) for r in required)
        or not (extra is None or extra is True or extra is False)
    ):
        return frozenset()
    return frozenset(
        key
        for key, sub in props.items()
        if isinstance(sub, _MAPPING) and sub.get("type") == "string" and sub.keys() <= _ANNOTATIONS
    )


#: Root keys of a plain object schema (:func:`text_keys`); ``$defs`` only serve
#: ``$ref``\ s. Any other key (``allOf``, ``patternProperties``, ``$ref``...) can
#: change what a string parameter's text becomes.
_PLAIN_ROOT_KEYS = ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "$defs",
    "definitions",
    "$schema",
}


def _walk_arguments(
    walker: _Walker, arguments: Mapping[str, Any], schema: Mapping[str, Any], string_values: bool
) -> CoerceResult:
    """:func:`coerce_arguments`: the string_values pre-pass, then the walk from the root."""
    args = dict(arguments)
    root = walker.resolve(schema) if isinstance(schema, _MAPPING) else None
    if string_values and root is not None:
        props = root.get("properties")
        if isinstance(props, _MAPPING):
            for key, val in args.items():
                sub = props.get(key)
                if not isinstance(sub, _MAPPING):
                    continue
                if isinstance(val, str):
                    args[key] = walker.type_text(val, sub)
                elif isinstance(val, (list, dict)) and _all_text(val, 0):
                    args[key] = _type_texts(walker, val, sub, 0)
    out = walker.walk(args, schema, "", 0)
    return CoerceResult(dict(out) if isinstance(out, dict) else args, walker.records())


def _type_texts(walker: _Walker, value: Any, schema: Mapping[str, Any], depth: int) -> Any:
    """A list or object of text only (:func:`_all_text`: a value written as child
    elements) typed by ``schema`` leaf by leaf: ``<mode>null</mode>`` inside a list item
    is untyped text like a top-level value. A value holding anything but text was typed
    by its reader (JSON): the caller leaves it to the walk."""
    if isinstance(value, str):
        return walker.type_text(value, schema)
    sub = walker.resolve(schema)
    if sub is None:
        return value
    if isinstance(value, list):
        items = sub.get("items")
        if not isinstance(items, _MAPPING):
            return value
        return [_type_texts(walker, v, items, depth + 1) for v in value]
    props = sub.get("properties")
    if not isinstance(props, _MAPPING):
        return value
    return {
        k: _type_texts(walker, v, props[k], depth + 1) if isinstance(props.get(k), _MAPPING) else v
        for k, v in value.items()
    }


def _all_text(value: Any, depth: int) -> bool:
    """``value`` is a list or object whose leaves are all text (what an element reader
    builds); bounded by ``MAX_DEPTH``."""
    if isinstance(value, str):
        return True
    if depth >= MAX_DEPTH:
        return False
    if isinstance(value, list):
        return all(_all_text(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(_all_text(v, depth + 1) for v in value.values())
    return False


def _render(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def _types(schema: Mapping[str, Any]) -> set[str]:
    """JSON types the schema admits by ``type`` (else by its enum/const members; else all)."""
    t = schema.get("type")
    choices = schema["enum"] if "enum" in schema else [schema.get("const")]
    if isinstance(t, str):
        names = {t}
    elif isinstance(t, list):
        names = {x for x in t if isinstance(x, str)}
    elif ("enum" in schema or "const" in schema) and isinstance(choices, list):
        names = {_json_type(c) for c in choices}
    else:
        names = set(_JSON_TYPES)
    if "number" in names:
        names.add("integer")  # every integer is a JSON number
    return names


#: Keywords that never change validity, ``type`` aside: a schema of only these is
#: answered by its type check alone (the one table, :mod:`.fastcheck`'s).
_ANNOTATIONS = ANNOTATIONS | {"type"}


def _is_type(value: Any, type_name: str) -> bool:
    """JSON Schema's ``type`` check (an integral float is an integer; a bool is no number)."""
    check = TYPE_CHECKS.get(type_name)
    return check is not None and check(value)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else "unknown"


def _parse_number(text: str, integer: bool) -> Any:
    """A finite int (integer literals, or integral values when ``integer``) or float, or
    ``_NO_VALUE`` for anything but a plain decimal literal."""
    s = text.strip()
    if not s or len(s) > MAX_NUMBER_CHARS or not set(s) <= _NUMBER_CHARS:
        return _NO_VALUE
    if s.isdigit():  # (ASCII digits only, by the test above) what Decimal gives, faster
        return int(s)
    try:
        dec = Decimal(s)
    except InvalidOperation:
        return _NO_VALUE
    if not dec.is_finite() or abs(dec.adjusted()) > MAX_NUMBER_CHARS:
        return _NO_VALUE
    integral = dec == dec.to_integral_value()
    if integral and (integer or not set(s) & {".", "e", "E"}):
        return int(dec)  # "5" → 5 always; "5.0" and "1e3" → int only for integer
    if integer:
        return _NO_VALUE
    num = float(dec)
    return num if math.isfinite(num) else _NO_VALUE


#: Compiled checkers of subschemas, keyed by the subschema's id; each entry keeps its
#: schema alive so the id cannot be reused. Bounded by the schemas' size, not their count.
_CHECKERS: WeightedLRU[int, tuple[Mapping[str, Any], Callable[[Any], bool] | None]] = WeightedLRU(
    16 * 1024 * 1024
)


def _fast_checker(schema: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """The compiled checker of a subschema (cached), or ``None`` when jsonschema must answer."""
    entry = _CHECKERS.get(id(schema))
    if entry is None or entry[0] is not schema:
        entry = (schema, compile_checker(schema))
        _CHECKERS.put(id(schema), entry, estimate_weight(schema))
    return entry[1]


#: Most :class:`_TextPlan`\ s one coercion keeps (one per parameter typed from text).
_MAX_PLANS = 1024

MAX_BRANCH_TRIALS = 8
"""Most ``anyOf``/``oneOf`` branches coercion tries on one value (each try walks it)."""
_DROPPED_SHOWN = 20


def _fold(text: str) -> str:
    """An enum member's comparison form: blanks around it and ASCII case set aside (no
    Unicode folding: ``"\u212a"``, the Kelvin sign, is not ``"k"``)."""
    return text.strip().translate(_ASCII_LOWER)


def _dropped_detail(dropped: list[str]) -> str:
    """The record of undeclared keys dropped: the first :data:`_DROPPED_SHOWN` named."""
    names = ", ".join(repr(k) for k in dropped[:_DROPPED_SHOWN])
    more = len(dropped) - _DROPPED_SHOWN
    return f"dropped extra keys {names}" + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True, slots=True)
class _EnumIndex:
    """An enum's members by folded text, by number, and its numeric texts by number."""

    folded: dict[str, list[str]]
    numbers: dict[Any, list[Any]]
    numeric_texts: dict[Any, list[str]]


@dataclass(frozen=True, slots=True)
class _TextPlan:
    """What :meth:`_Walker.type_text` tries for one subschema, read from the schema alone:
    the subschema (kept alive: plans are found by its id), and its resolved branches that
    admit no string with the types each admits (``None``: a ``$ref`` that does not
    resolve)."""

    schema: Mapping[str, Any]
    branches: tuple[tuple[Mapping[str, Any], set[str]], ...] | None


class _Walker:
    """One coercion run: the root schema, compiled fit checks, and the repairs so far.
    ``plans``: the :class:`_TextPlan` of each subschema typed so far, kept by the
    coercion of one schema across its runs (a fresh dict: none kept)."""

    def __init__(
        self,
        root: Mapping[str, Any],
        drop_extra_keys: str,
        limits: Limits = _DEFAULT_LIMITS,
        plans: dict[int, _TextPlan] | None = None,
    ) -> None:
        self.root = root
        self._plans: dict[int, _TextPlan] = {} if plans is None else plans
        self.drop_extra_keys = drop_extra_keys
        self.limits = limits
        self.repairs: list[tuple[FailureKind, str]] = []
        self._root_validator: Any = None  # built on first need (most fits are compiled)
        self._validators: dict[int, tuple[Any, Any]] = {}
        self._enums: dict[int, tuple[list[Any], _EnumIndex]] = {}
        self._branch_types: dict[tuple[int, str], tuple[list[Any], list[Any]]] = {}
        self.steps = 0
        """Walk steps taken (values walked, branches and enum members looked at): the
        tests bound the work of a coercion by counting them (never by timing)."""

    # ---- helpers ----------------------------------------------------------------------

    def fits(self, value: Any, schema: Any) -> bool:
        """Whether ``value`` validates against ``schema`` (a subschema of the root)."""
        if schema is True or (not isinstance(schema, _MAPPING) and schema is not False):
            return True
        if schema is False or not isinstance(self.root, _MAPPING):
            return False
        declared = schema.get("type")
        if isinstance(declared, str) and schema.keys() <= _ANNOTATIONS:
            return _is_type(value, declared)
        fast = _fast_checker(schema)
        if fast is not None:
            return fast(value)
        cached = self._validators.get(id(schema))
        if cached is not None and cached[0] is schema:
            validator = cached[1]
        else:
            if self._root_validator is None:
                self._root_validator = _FitValidator(self.root, registry=NO_REMOTE)
            validator = self._root_validator.evolve(schema=schema)
            # Keep the schema alive so that its id cannot be reused during this run.
            self._validators[id(schema)] = (schema, validator)
        try:
            return bool(validator.is_valid(value))
        except Exception:  # recursive or unresolvable schema: treat as not fitting
            return False

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """Follow local ``$ref``\\ s (siblings override); ``None`` on a cycle or a bad ref."""
        for _ in range(_MAX_REF_HOPS):
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                return schema
            target = self._lookup(ref)
            if target is None:
                return None
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings}
        return None

    def _lookup(self, ref: str) -> Mapping[str, Any] | None:
        if not ref.startswith("#"):
            return None
        node = pointer_target(self.root, ref[1:])
        return node if isinstance(node, _MAPPING) else None

    def record(self, kind: FailureKind, path: str, what: str | Callable[[], str]) -> None:
        """Note one repair; details past :data:`MAX_RECORDS` are not rendered (see ``records``)."""
        if len(self.repairs) >= MAX_RECORDS:
            self.repairs.append((kind, ""))
            return
        where = f"{path!r}: " if path else ""
        self.repairs.append((kind, f"{where}{what if isinstance(what, str) else what()}"))

    def records(self) -> tuple[RepairRecord, ...]:
        """The repairs as records; those past :data:`MAX_RECORDS` summed up per kind."""
        if not self.repairs:
            return ()
        out = [repair_record(k, d) for k, d in self.repairs[:MAX_RECORDS]]
        rest: dict[FailureKind, int] = {}
        for kind, _ in self.repairs[MAX_RECORDS:]:
            rest[kind] = rest.get(kind, 0) + 1
        out.extend(
            repair_record(k, f"{n} more {k.value} repairs not listed") for k, n in rest.items()
        )
        return tuple(out)

    def trial(self, fn: Callable[[], Any], schema: Any) -> Any:
        """Run ``fn``; keep its result and repairs only when the result fits ``schema``."""
        mark = len(self.repairs)
        result = fn()
        if result is not _NO_VALUE and self.fits(result, schema):
            return result
        del self.repairs[mark:]
        return _NO_VALUE

    # ---- the walk ---------------------------------------------------------------------

    def walk(self, value: Any, schema: Any, path: str, depth: int) -> Any:
        """``value`` coerced towards ``schema``; unchanged when it fits or cannot be helped."""
        self.steps += 1
        if depth > self.limits.max_depth or not isinstance(schema, _MAPPING):
            return value
        fits = self.fits(value, schema)
        if fits and self.drop_extra_keys != "always":
            return value
        resolved = self.resolve(schema)
        if resolved is None:
            return value
        if fits:
            # Valid, but "always" still drops undeclared keys of the objects inside.
            return self._container(value, resolved, path, depth)
        value = self._own(value, resolved, path, depth)
        for branch in resolved.get("allOf", ()) if isinstance(resolved.get("allOf"), list) else ():
            value = self.walk(value, branch, path, depth + 1)
        for key in ("anyOf", "oneOf"):
            branches = resolved.get(key)
            if isinstance(branches, list) and branches:
                value = self._choose(value, branches, path, depth)
        return value

    def _container(self, value: Any, schema: Mapping[str, Any], path: str, depth: int) -> Any:
        if isinstance(value, dict):
            return self._object(value, schema, path, depth)
        if isinstance(value, list):
            return self._array(value, schema, path, depth)
        return value

    def _choose(self, value: Any, branches: list[Any], path: str, depth: int) -> Any:
        """``value`` coerced to the first branch it can be made to fit. One pass: a fit
        check per branch, then coercion tried on at most :data:`MAX_BRANCH_TRIALS`
        branches (each a walk of ``value``): an ``anyOf`` of b branches costs
        O(b + MAX_BRANCH_TRIALS * |value|), not O(b * |value|)."""
        for branch in branches:
            self.steps += 1
            if self.fits(value, branch):
                return value
        kind = _json_type(value)
        admitting = self._admitting(branches, kind)
        for branch in branches[:MAX_BRANCH_TRIALS]:
            result = self.trial(partial(self.walk, value, branch, path, depth + 1), branch)
            if result is not _NO_VALUE:
                return result
        if len(admitting) == 1:
            return self.walk(value, admitting[0], path, depth + 1)
        return value

    def _admitting(self, branches: list[Any], kind: str) -> list[Any]:
        """The branches whose types admit a value of JSON type ``kind`` (made once per
        ``anyOf`` and type in a run: an array of n items reads them once, not n times)."""
        key = (id(branches), kind)
        found = self._branch_types.get(key)
        if found is not None and found[0] is branches:
            return found[1]
        admitting = [
            b
            for b in branches
            if isinstance(b, _MAPPING) and kind in _types(self.resolve(b) or {"type": []})
        ]
        self._branch_types[key] = (branches, admitting)
        return admitting

    def _own(self, value: Any, schema: Mapping[str, Any], path: str, depth: int) -> Any:
        """Coerce by the schema's own keywords (type, enum, const, properties, items)."""
        allowed = _types(schema)
        if "enum" in schema or "const" in schema:
            choices = schema["enum"] if "enum" in schema else [schema["const"]]
            if isinstance(choices, list):
                fixed = self._enum(value, choices, path)
                if fixed is not _NO_VALUE or not isinstance(value, _DICT_OR_LIST):
                    # Only conversions that land on a member; else leave it to validation.
                    return value if fixed is _NO_VALUE else fixed
        if isinstance(value, str) and "string" not in allowed:
            fixed = self._from_string(value, schema, allowed, path, depth, quiet=False)
            if fixed is not _NO_VALUE:
                return fixed
        elif isinstance(value, bool):
            if "string" in allowed and "boolean" not in allowed:
                return self.convert(value, "true" if value else "false", "string", path)
        elif (
            isinstance(value, _INT_OR_FLOAT)
            and _json_type(value) not in allowed
            and "string" in allowed
        ):
            # (Integral floats such as 5.0 already validate as JSON Schema integers.)
            return self.convert(value, json.dumps(value), "string", path)
        if (isinstance(value, dict) and "object" in allowed) or (
            isinstance(value, list) and "array" in allowed
        ):
            return self._container(value, schema, path, depth)
        declared = schema.get("type")
        wants_array = declared == "array" or (isinstance(declared, list) and "array" in declared)
        if wants_array and not isinstance(value, list) and not schema.get("prefixItems"):
            if isinstance(value, str) and elided_container(value):
                return value  # ``[...]``: a placeholder, not one item (elision.py)
            items = schema.get("items", True)
            mark = len(self.repairs)
            keep = self.fits(value, items) and self.drop_extra_keys != "always"
            item = value if keep else self.walk(value, items, path, depth + 1)
            if self.fits(item, items) and self.fits([item], schema):
                del self.repairs[mark:]
                self.record(
                    FailureKind.TYPE_MISMATCH,
                    path,
                    lambda: f"{_render(value)} → [{_render(item)}] (array)",
                )
                return [item]
            del self.repairs[mark:]
        return value

    def convert(self, old: Any, new: Any, type_name: str, path: str) -> Any:
        """``new`` in place of ``old``, recorded as a type mismatch."""
        self.record(
            FailureKind.TYPE_MISMATCH,
            path,
            lambda: f"{_render(old)} → {_render(new)} ({type_name})",
        )
        return new

    def _enum_index(self, choices: list[Any]) -> _EnumIndex:
        """``choices`` indexed for :meth:`_enum` (made once per enum and run): enum case
        repair is a hash lookup, so n items against an enum of n members is linear."""
        found = self._enums.get(id(choices))
        if found is not None and found[0] is choices:
            return found[1]
        folded: dict[str, list[str]] = {}
        numbers: dict[Any, list[Any]] = {}
        numeric_texts: dict[Any, list[str]] = {}
        for c in choices:
            if isinstance(c, str):
                folded.setdefault(_fold(c), []).append(c)
                number = _parse_number(c, integer=False)
                if number is not _NO_VALUE:
                    numeric_texts.setdefault(number, []).append(c)
            elif isinstance(c, _INT_OR_FLOAT) and not isinstance(c, bool):
                numbers.setdefault(c, []).append(c)
        index = _EnumIndex(folded, numbers, numeric_texts)
        self._enums[id(choices)] = (choices, index)
        return index

    def _enum(self, value: Any, choices: list[Any], path: str) -> Any:
        self.steps += 1
        index = self._enum_index(choices)
        if isinstance(value, str):
            same = index.folded.get(_fold(value), ())
            if len(same) == 1 and same[0] != value:
                choice = same[0]
                self.record(
                    FailureKind.ENUM_CASE,
                    path,
                    lambda: f"{_render(value)} → {_render(choice)} (enum)",
                )
                return same[0]
            number = _parse_number(value, integer=False)
            if number is not _NO_VALUE:
                nums = index.numbers.get(number, ())
                if len(nums) == 1:
                    return self.convert(value, nums[0], "enum", path)
        elif isinstance(value, _INT_OR_FLOAT) and not isinstance(value, bool):
            strs = index.numeric_texts.get(value, ())
            if len(strs) == 1:
                return self.convert(value, strs[0], "enum", path)
        return _NO_VALUE

    def _from_string(
        self,
        value: str,
        schema: Mapping[str, Any],
        allowed: set[str],
        path: str,
        depth: int,
        *,
        quiet: bool,
    ) -> Any:
        """``value`` read as the first non-string type the schema admits, or ``_NO_VALUE``."""
        stripped = value.strip()
        if stripped[:1] in ("{", "[") and ({"object", "array"} & allowed):
            decoded, changed = decode_double_encoded(stripped, self.limits)
            if changed and _json_type(decoded) in allowed:
                if quiet:  # the main walk coerces (and records) inside it later
                    return decoded
                kind = "object" if isinstance(decoded, dict) else "array"
                self.record(FailureKind.DOUBLE_ENCODED, path, f"decoded JSON string to {kind}")
                return self.walk(decoded, schema, path, depth + 1)
        candidates: list[tuple[Any, str]] = []
        if "integer" in allowed or "number" in allowed:
            number = _parse_number(stripped, integer="number" not in allowed)
            if number is not _NO_VALUE:
                candidates.append((number, "integer" if isinstance(number, int) else "number"))
        folded = stripped.casefold()
        if "boolean" in allowed and folded in ("true", "false"):
            candidates.append((folded == "true", "boolean"))
        if "null" in allowed and folded in ("null", "none"):
            candidates.append((None, "null"))
        if not candidates:
            return _NO_VALUE
        # Prefer a reading that fits; else the first one of an admitted type (the
        # remaining violation, such as a minimum, is then reported on the typed value).
        # (One reading, the usual: it is the answer either way.)
        new, type_name = candidates[0]
        if len(candidates) > 1:
            for n, t in candidates:
                if self.fits(n, schema):
                    new, type_name = n, t
                    break
        if not quiet:
            self.convert(value, new, type_name, path)
        return new

    def type_text(self, value: str, schema: Mapping[str, Any]) -> Any:
        """Type an untyped text value by ``schema`` (``string_values``), recording nothing.
        ``null`` where the schema admits null is null (templates write None that way)."""
        if value.strip() == "null" and self.fits(None, schema):
            return None
        if self.fits(value, schema):
            return value
        branches = self._text_plan(schema).branches
        if branches is None:
            return value
        for sub, allowed in branches:
            mark = len(self.repairs)
            typed = self._from_string(value, sub, allowed, "", 1, quiet=True)
            del self.repairs[mark:]
            if typed is not _NO_VALUE:
                return typed
        return value

    def _text_plan(self, schema: Mapping[str, Any]) -> _TextPlan:
        """The branches :meth:`type_text` reads a text by (worked out once per schema):
        the resolved schema and its ``anyOf``/``oneOf`` members, each resolved, those
        that admit a string left out (a text fits them as it is)."""
        plan = self._plans.get(id(schema))
        if plan is not None and plan.schema is schema:
            return plan
        resolved = self.resolve(schema)
        branches: list[tuple[Mapping[str, Any], set[str]]] | None = None
        if resolved is not None:
            members = [resolved]
            for key in ("anyOf", "oneOf"):
                if isinstance(resolved.get(key), list):
                    members += [b for b in resolved[key] if isinstance(b, _MAPPING)]
            branches = []
            for branch in members:
                sub = self.resolve(branch)
                if sub is not None and "string" not in (allowed := _types(sub)):
                    branches.append((sub, allowed))
        plan = _TextPlan(schema, None if branches is None else tuple(branches))
        if len(self._plans) >= _MAX_PLANS:
            self._plans.clear()  # (bounded, whatever the schema: a plan is remade at need)
        self._plans[id(schema)] = plan
        return plan

    # ---- containers -------------------------------------------------------------------

    def _object(
        self, value: dict[str, Any], schema: Mapping[str, Any], path: str, depth: int
    ) -> Any:
        props = schema.get("properties")
        props = props if isinstance(props, _MAPPING) else {}
        required = schema.get("required")
        required = set(required) if isinstance(required, list) else set()
        extra_schema = schema.get("additionalProperties")
        droppable = (
            "patternProperties" not in schema
            and not isinstance(extra_schema, _MAPPING)
            and (
                (self.drop_extra_keys == "when_forbidden" and extra_schema is False)
                or (
                    self.drop_extra_keys == "always"
                    and ("properties" in schema or extra_schema is False)
                )
            )
        )
        out: dict[str, Any] = {}
        dropped: list[str] = []
        for key, val in value.items():
            sub_path = f"{path}.{key}" if path else key
            if key in props:
                sub = props[key]
                if val is None and key not in required and not self.fits(None, sub):
                    self.record(
                        FailureKind.TYPE_MISMATCH, "", f"dropped null for optional {sub_path!r}"
                    )
                    continue
                if type(val) is dict and self._spilled(value, props, sub):
                    out[key] = val  # not wrapped: validation names the object (promise 6)
                    continue
                out[key] = self.walk(val, sub, sub_path, depth + 1)
            elif droppable:
                dropped.append(key)
            elif isinstance(extra_schema, _MAPPING):
                out[key] = self.walk(val, extra_schema, sub_path, depth + 1)
            else:
                out[key] = val
        if dropped:
            self.record(FailureKind.EXTRA_KEYS, path, _dropped_detail(dropped))
        return out

    def _spilled(self, obj: dict[str, Any], props: Mapping[str, Any], sub: Any) -> bool:
        """A lone object given where ``sub`` wants an array of objects, beside keys of
        ``obj`` that ``obj``'s schema does not declare and the array's items do: the list's
        next member spilled into ``obj`` when its brackets were lost
        (``{"todos": {"content": "a", ...}, "content": "b", ...}``, opencode#12812 and
        #24566). Wrapping the object into a one-item list would keep one member and leave
        the other as junk beside it, so the object is left for validation to refuse."""
        resolved = self.resolve(sub)
        if resolved is None or "array" not in _types(resolved):
            return False
        items = resolved.get("items")
        items = self.resolve(items) if isinstance(items, _MAPPING) else None
        item_props = items.get("properties") if items is not None else None
        if not isinstance(item_props, _MAPPING):
            return False
        return any(k not in props and k in item_props for k in obj)

    def _array(self, value: list[Any], schema: Mapping[str, Any], path: str, depth: int) -> Any:
        prefix = schema.get("prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        items = schema.get("items")
        out: list[Any] = []
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else items
            out.append(
                self.walk(item, sub, f"{path}[{i}]", depth + 1)
                if isinstance(sub, _MAPPING)
                else item
            )
        return out
