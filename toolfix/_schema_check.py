"""Checks a tool's JSON schema once, when the tool is built, before any validation.

Tool schemas are third-party input (MCP servers publish them), so a schema is
refused with a :class:`~toolfix.ToolDefinitionError` naming the tool when:

* a reference is not local: ``$ref`` (``$dynamicRef``, ``$recursiveRef``) must start
  with ``#``; a schema never makes toolfix read the network or the disk
  (docs/design.md#promise-10);
* a local reference points at nothing (``#/$defs/Missing``), which would otherwise
  surface as jsonschema's internal error at the first repair;
* references loop without reading into the value (``a`` → ``b`` → ``a``, or
  ``allOf: [{"$ref": "#"}]``): validation would recurse forever. A schema that
  refers to itself *through* ``properties`` or ``items`` (a tree) is fine: each step
  reads one level deeper into the value, which is finite;
* a ``pattern`` or ``patternProperties`` regex does not compile in the bounded
  engine (``toolfix._patterns``);
* ``unevaluatedProperties`` meets ``patternProperties``: jsonschema evaluates that
  pair with Python's backtracking ``re``, which no bound reaches;
* it nests objects and arrays deeper than :data:`MAX_SCHEMA_DEPTH` (checked first,
  without recursion): jsonschema's own schema check and validator recurse per level
  and would raise ``RecursionError`` from about 160 levels (``allOf`` chains, deep
  ``properties``, or a Python dict that contains itself).

The walk is iterative, so a deeply nested schema cannot exhaust the stack.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote

import referencing.exceptions
from referencing import Registry, Resource

from ._errors import ToolDefinitionError
from ._patterns import PatternError, compile_pattern

__all__ = [
    "MAX_SCHEMA_DEPTH",
    "MISSING",
    "NO_REMOTE",
    "check_schema_depth",
    "check_schema_safety",
    "pointer_target",
]


def _refuse_retrieval(uri: str) -> Resource[Any]:
    """The schema registry's fetcher: never the network, never the disk (promise 10)."""
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


#: Resolves nothing outside the schema itself; ``check_schema_safety`` already refused
#: non-local references, this makes sure no path of jsonschema's can fetch one either.
NO_REMOTE: Registry[Any] = Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]

_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")
# Keywords whose subschemas apply to the same value (a loop through them never ends).
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_LIST = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas",)
# Keywords whose subschemas apply to a part of the value (or are only definitions).
_NESTED_ONE = (
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
)
_NESTED_MAP = ("properties", "patternProperties", "$defs", "definitions")
_NESTED_LIST = ("prefixItems",)


def _children(node: Mapping[str, Any]) -> Iterator[tuple[str, Any, bool]]:
    """``(pointer step, subschema, applies in place)`` for each subschema of ``node``."""
    for key in _IN_PLACE_ONE:
        if key in node:
            yield key, node[key], True
    yield from _listed(node, _IN_PLACE_LIST, _IN_PLACE_MAP, True)
    deps = node.get("dependencies")
    if isinstance(deps, Mapping):
        for name, sub in deps.items():
            if isinstance(sub, Mapping):
                yield f"dependencies/{_escape(str(name))}", sub, True
    for key in _NESTED_ONE:
        if key in node:
            yield key, node[key], False
    items = node.get("items")
    if isinstance(items, list):
        for i, sub in enumerate(items):
            yield f"items/{i}", sub, False
    elif items is not None:
        yield "items", items, False
    yield from _listed(node, _NESTED_LIST, _NESTED_MAP, False)


def _listed(
    node: Mapping[str, Any], list_keys: tuple[str, ...], map_keys: tuple[str, ...], in_place: bool
) -> Iterator[tuple[str, Any, bool]]:
    """The subschemas ``node`` holds in lists under ``list_keys``, then in mappings under
    ``map_keys``, as :func:`_children` gives them."""
    for key in list_keys:
        seq = node.get(key)
        if isinstance(seq, list):
            for i, sub in enumerate(seq):
                yield f"{key}/{i}", sub, in_place
    for key in map_keys:
        sub_map = node.get(key)
        if isinstance(sub_map, Mapping):
            for name, sub in sub_map.items():
                yield f"{key}/{_escape(str(name))}", sub, in_place


def _escape(step: str) -> str:
    return step.replace("~", "~0").replace("/", "~1")


def pointer_target(root: Any, pointer: str) -> Any:
    """The node the JSON pointer ``pointer`` (``/a/b``, already without ``#``) names in
    ``root``, or :data:`MISSING`."""
    node = root
    if not pointer:
        return node
    for raw in pointer.split("/")[1:]:
        step = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return MISSING
    return node


#: What :func:`pointer_target` answers for a pointer that names nothing.
MISSING = object()

MAX_SCHEMA_DEPTH = 64
"""Deepest nesting of objects and arrays in a tool schema (32 levels of ``properties``)."""


def check_schema_depth(schema: Any, tool_name: str, limit: int = MAX_SCHEMA_DEPTH) -> None:
    """Refuse ``schema`` when it nests deeper than ``limit`` (iterative, depth first).

    Depth first with an early exit, so a Python object that contains itself is refused
    after ``limit`` steps down its loop, whatever its width.
    """
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: the schema nests objects and arrays deeper than "
                f"{limit} levels",
                tool_name=tool_name,
            )
        children = node.values() if isinstance(node, Mapping) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, Mapping | list | tuple))


def check_schema_safety(schema: Mapping[str, Any], tool_name: str) -> None:
    """Raise :class:`ToolDefinitionError` when ``schema`` breaks one of the rules above."""

    def refuse(why: str) -> ToolDefinitionError:
        return ToolDefinitionError(f"tool {tool_name!r}: {why}", tool_name=tool_name)

    # 1. Walk every subschema once, noting its resource root (the nearest "$id").
    nodes: list[tuple[Mapping[str, Any], Mapping[str, Any], str]] = []  # (node, resource, path)
    anchors: dict[tuple[int, str], Mapping[str, Any]] = {}
    seen: set[int] = set()
    stack: list[tuple[Any, Mapping[str, Any] | None, str]] = [(schema, None, "#")]
    uses_unevaluated = uses_pattern_props = False
    while stack:
        node, resource, path = stack.pop()
        if not isinstance(node, Mapping) or id(node) in seen:
            continue
        seen.add(id(node))
        if resource is None or isinstance(node.get("$id"), str):
            resource = node
        nodes.append((node, resource, path))
        anchor = node.get("$anchor") or node.get("$dynamicAnchor")
        if isinstance(anchor, str):
            anchors[(id(resource), anchor)] = node
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            _compile(pattern, path, refuse)
        pattern_props = node.get("patternProperties")
        if isinstance(pattern_props, Mapping):
            uses_pattern_props = True
            for pat in pattern_props:
                _compile(str(pat), path, refuse)
        uses_unevaluated = uses_unevaluated or "unevaluatedProperties" in node
        for step, sub, _ in _children(node):
            stack.append((sub, resource, f"{path}/{step}"))
    if uses_unevaluated and uses_pattern_props:
        raise refuse(
            "'unevaluatedProperties' together with 'patternProperties' is not supported "
            "(that pair is evaluated with an unbounded regex engine)"
        )

    # 2. Resolve every reference; each must be local and point at a schema.
    targets: dict[int, list[Mapping[str, Any]]] = {}
    for node, resource, path in nodes:
        for key in _REF_KEYS:
            ref = node.get(key)
            if ref is None:
                continue
            if not isinstance(ref, str) or not ref.startswith("#"):
                raise refuse(
                    f"{key} {ref!r} at {path} is not local; tool schemas may only refer "
                    "inside themselves ('#/...'), they never reach the network or the disk"
                )
            fragment = ref[1:]
            if fragment == "" or fragment.startswith("/"):
                target = pointer_target(resource, fragment)
            else:
                target = anchors.get((id(resource), unquote(fragment)), MISSING)
            if target is MISSING or not isinstance(target, Mapping | bool):
                raise refuse(f"{key} {ref!r} at {path} points at nothing in the schema")
            if isinstance(target, Mapping):
                targets.setdefault(id(node), []).append(target)

    # 3. A loop of in-place edges (references, allOf, not, ...) never reads the value.
    _check_loops(nodes, targets, refuse)


def _compile(pattern: str, path: str, refuse: Any) -> None:
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        raise refuse(f"regex {pattern!r} at {path} is not valid: {exc}") from None


def _check_loops(
    nodes: list[tuple[Mapping[str, Any], Mapping[str, Any], str]],
    targets: dict[int, list[Mapping[str, Any]]],
    refuse: Any,
) -> None:
    paths = {id(n): p for n, _, p in nodes}

    def in_place(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        out = [sub for _, sub, here in _children(node) if here and isinstance(sub, Mapping)]
        return out + targets.get(id(node), [])

    state: dict[int, int] = {}  # 1: on the current path, 2: done
    for start, _, _ in nodes:
        if state.get(id(start)):
            continue
        stack: list[tuple[Mapping[str, Any], Iterator[Mapping[str, Any]]]] = [
            (start, iter(in_place(start)))
        ]
        state[id(start)] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[id(node)] = 2
                stack.pop()
                continue
            mark = state.get(id(nxt))
            if mark == 1:
                raise refuse(
                    f"references loop at {paths.get(id(nxt), '#')} without reading into the "
                    "value; validation would never end"
                )
            if mark is None:
                state[id(nxt)] = 1
                stack.append((nxt, iter(in_place(nxt))))
