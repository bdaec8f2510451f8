"""Tool descriptions and the registry the fixer validates against.

A :class:`ToolDescriptor` is a name, a description and a JSON schema for the
arguments, plus an optional handler (a plain sync or async Python function).
The schema's validator is compiled once per tool.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, get_type_hints

import jsonschema
import jsonschema_rs
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from ._cache import WeightedLRU, estimate_weight, text_weight
from ._errors import ToolDefinitionError
from ._patterns import (
    PATTERN_INPUT_CAP,
    PATTERN_OPTIONS,
    bounded_additional_properties,
    bounded_pattern,
    bounded_pattern_properties,
)
from ._schema_check import NO_REMOTE, check_schema_depth, check_schema_safety

__all__ = ["ArgumentIssue", "ToolDescriptor", "ToolRegistry"]

ToolHandler = Callable[..., Any]

EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}

MAX_ISSUES = 10
"""Most schema violations :meth:`ToolDescriptor.validate_arguments` collects."""

#: Memory budget (estimated bytes) of the cache of tools built from dicts.
TOOL_CACHE_BUDGET = 32 * 1024 * 1024


@functools.lru_cache(maxsize=16)
def _validator_class(cap: int) -> Any:
    """Draft 2020-12 with every keyword that runs a user regex in the bounded engine."""
    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        {
            "pattern": bounded_pattern(cap),
            "patternProperties": bounded_pattern_properties(cap),
            "additionalProperties": bounded_additional_properties(cap),
        },
    )


@dataclass(frozen=True, slots=True)
class ArgumentIssue:
    """One schema violation: where (JSON path), what keyword failed, and the message."""

    path: str
    keyword: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass(frozen=True)
class ToolDescriptor:
    """A tool the model may call."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=lambda: dict(EMPTY_OBJECT_SCHEMA))
    handler: ToolHandler | None = field(default=None, compare=False, repr=False)
    strict: bool = False
    _validators: dict[int, Any] = field(init=False, repr=False, compare=False)
    _compiled: Any = field(init=False, repr=False, compare=False)
    _has_regex: bool = field(init=False, repr=False, compare=False)
    _weight: int = field(init=False, repr=False, compare=False)
    _properties: Mapping[str, Any] = field(init=False, repr=False, compare=False)
    _required: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ToolDefinitionError(
                f"a tool needs a non-empty string name, got {self.name!r}"[:300], tool_name=None
            )
        if not isinstance(self.parameters, Mapping):
            raise ToolDefinitionError(
                f"tool {self.name!r}: parameters must be a JSON schema object", tool_name=self.name
            )
        params = dict(self.parameters)
        if not params:
            params = dict(EMPTY_OBJECT_SCHEMA)
        object.__setattr__(self, "parameters", params)
        check_schema_depth(params, self.name)  # before anything that recurses per level
        try:
            Draft202012Validator.check_schema(params)
        except jsonschema.SchemaError as exc:
            raise ToolDefinitionError(
                f"tool {self.name!r}: invalid JSON schema: {exc.message}", tool_name=self.name
            ) from exc
        check_schema_safety(params, self.name)
        object.__setattr__(self, "_validators", {})
        # read on every call the fixer finishes: computed once
        props = params.get("properties", {})
        object.__setattr__(self, "_properties", props if isinstance(props, Mapping) else {})
        req = params.get("required", ())
        required = tuple(r for r in req if isinstance(r, str)) if isinstance(req, list) else ()
        object.__setattr__(self, "_required", required)
        object.__setattr__(self, "_compiled", _compile_rs(params))
        object.__setattr__(self, "_has_regex", "pattern" in json.dumps(params, default=repr))
        schema_weight = estimate_weight(params)
        # jsonschema-rs keeps its own copy of the schema in Rust memory, which tracemalloc
        # does not see: about the size of the Python one (13.5 MB RSS for a 100,000-value
        # enum estimated at 9.7 MB), so it counts once more.
        rs_weight = schema_weight if self._compiled is not None else 0
        object.__setattr__(self, "_weight", schema_weight + rs_weight + len(self.description))

    @property
    def weight(self) -> int:
        """An estimate of the memory this tool holds, in bytes (for the caches' budgets)."""
        return self._weight

    def _validator(self, max_pattern_chars: int) -> Any:
        found = self._validators.get(max_pattern_chars)
        if found is None:
            found = _validator_class(max_pattern_chars)(self.parameters, registry=NO_REMOTE)
            if len(self._validators) < 8:
                self._validators[max_pattern_chars] = found
        return found

    # ---- validation -------------------------------------------------------------------

    def is_valid(self, arguments: Any, *, max_pattern_chars: int = PATTERN_INPUT_CAP) -> bool:
        """True when ``arguments`` validates against the schema (the fast path).

        jsonschema-rs's compiled validator answers (every keyword, native speed, held to
        jsonschema's answers by a property test); jsonschema answers when it declined the
        schema, for values that are not JSON, and when a string is longer than
        ``max_pattern_chars`` (the cap it reports). Both run user regexes in the bounded
        engine. (The hand-written checker ``toolfix._repair.fastcheck`` answered here before; at
        1.3 µs against 0.13 µs a call it no longer earns this place, see
        benchmarks/results/perf.md.)"""
        compiled = self._compiled
        if compiled is not None and not (
            self._has_regex and _has_long_string(arguments, max_pattern_chars)
        ):
            try:
                return bool(compiled.is_valid(arguments))
            except (ValueError, TypeError, OverflowError):
                pass  # not JSON (a Python object, a non-string key): jsonschema answers
        return bool(self._validator(max_pattern_chars).is_valid(arguments))

    def validate_arguments(
        self, arguments: Any, *, max_pattern_chars: int = PATTERN_INPUT_CAP
    ) -> list[ArgumentIssue]:
        """The schema violations (at most :data:`MAX_ISSUES`, the first found, ordered by
        path); empty when valid. Bounded: validation stops after that many (an ``anyOf``
        of many branches failed by many items would otherwise build every branch's error
        for every item)."""
        errors = sorted(
            islice(self._validator(max_pattern_chars).iter_errors(arguments), MAX_ISSUES),
            key=lambda e: list(e.path),
        )
        return [
            ArgumentIssue(
                path=e.json_path if e.path else "", keyword=str(e.validator), message=e.message
            )
            for e in errors
        ]

    @property
    def required(self) -> tuple[str, ...]:
        """The names of the required parameters."""
        return self._required

    @property
    def properties(self) -> Mapping[str, Any]:
        """The schema's ``properties`` (``{}`` when it has none)."""
        return self._properties

    # ---- conversions ------------------------------------------------------------------

    @classmethod
    def from_openai(
        cls, tool: Mapping[str, Any], handler: ToolHandler | None = None
    ) -> ToolDescriptor:
        """From ``{"type": "function", "function": {...}}`` or the bare function object."""
        fn = tool.get("function", tool) if tool.get("type", "function") == "function" else tool
        if not isinstance(fn, Mapping) or "name" not in fn:
            raise ToolDefinitionError(f"not an OpenAI tool definition: {dict(tool)!r}"[:300])
        return cls(
            name=fn["name"],
            description=str(fn.get("description") or ""),
            parameters=fn.get("parameters") or dict(EMPTY_OBJECT_SCHEMA),
            handler=handler,
            strict=bool(fn.get("strict", False)),
        )

    @classmethod
    def from_anthropic(
        cls, tool: Mapping[str, Any], handler: ToolHandler | None = None
    ) -> ToolDescriptor:
        """From ``{"name", "description", "input_schema"}``."""
        if "name" not in tool:
            raise ToolDefinitionError(f"not an Anthropic tool definition: {dict(tool)!r}"[:300])
        return cls(
            name=tool["name"],
            description=str(tool.get("description") or ""),
            parameters=tool.get("input_schema") or dict(EMPTY_OBJECT_SCHEMA),
            handler=handler,
        )

    @classmethod
    def from_mcp(cls, tool: Any, handler: ToolHandler | None = None) -> ToolDescriptor:
        """From an MCP tool definition (``{"name", "description", "inputSchema"}``), as a
        dict or as the ``mcp`` SDK's ``Tool`` object."""
        if not isinstance(tool, Mapping):
            dump = getattr(tool, "model_dump", None)
            if dump is None:
                raise ToolDefinitionError(f"not an MCP tool definition: {tool!r}"[:300])
            tool = dump(by_alias=True, exclude_none=True)
        if "name" not in tool:
            raise ToolDefinitionError(f"not an MCP tool definition: {dict(tool)!r}"[:300])
        return cls(
            name=tool["name"],
            description=str(tool.get("description") or ""),
            parameters=tool.get("inputSchema")
            or tool.get("input_schema")
            or dict(EMPTY_OBJECT_SCHEMA),
            handler=handler,
        )

    @classmethod
    def from_function(
        cls, fn: ToolHandler, *, name: str | None = None, description: str | None = None
    ) -> ToolDescriptor:
        """From a typed Python function: schema from the type hints (via pydantic),
        description and parameter descriptions from the docstring (Google style)."""
        target, bound = _unwrap_partial(fn)
        tool_name = name or getattr(target, "__name__", None)
        if not tool_name or tool_name == "<lambda>":
            raise ToolDefinitionError("a function tool needs a name")
        summary, param_docs = _parse_docstring(inspect.getdoc(target) or "")
        try:
            hints = get_type_hints(target)
        except Exception as exc:  # unresolvable annotations
            raise ToolDefinitionError(
                f"tool {tool_name!r}: cannot resolve type hints: {exc}", tool_name=tool_name
            ) from exc
        fields: dict[str, Any] = {}
        for pname, param in inspect.signature(fn).parameters.items():
            if pname in bound:  # fixed by functools.partial: not the model's to choose
                continue
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise ToolDefinitionError(
                    f"tool {tool_name!r}: *args/**kwargs cannot be described", tool_name=tool_name
                )
            annotation = hints.get(pname, Any)
            default = ... if param.default is param.empty else param.default
            fields[pname] = (annotation, Field(default, description=param_docs.get(pname)))
        model = create_model(f"{tool_name}_args", __config__=ConfigDict(extra="forbid"), **fields)
        schema = model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)
        return cls(
            name=tool_name,
            description=description if description is not None else summary,
            parameters=schema,
            handler=fn,
        )

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": dict(self.parameters),
            },
        }

    def to_anthropic(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(self.parameters),
        }


def _unwrap_partial(fn: Callable[..., Any]) -> tuple[Callable[..., Any], frozenset[str]]:
    """The function a ``functools.partial`` wraps and the keywords it fixes (``fn`` itself
    and none for anything else)."""
    bound: set[str] = set()
    while isinstance(fn, functools.partial):
        bound.update(fn.keywords)
        fn = fn.func
    return fn, frozenset(bound)


def _refuse_uri(uri: str) -> Any:
    raise ValueError(f"tool schemas never reach the network or the disk: {uri}")


def _compile_rs(schema: Mapping[str, Any]) -> Any:
    """jsonschema-rs's compiled validator for ``schema`` (``None`` if it declines it).

    It answers "is this valid?" at native speed for every keyword; the error messages
    users see still come from jsonschema (``validate_arguments``), one source of text.
    Formats are annotations, as in jsonschema; no reference is ever retrieved."""
    try:
        return jsonschema_rs.Draft202012Validator(
            dict(schema),
            validate_formats=False,
            retriever=_refuse_uri,
            pattern_options=PATTERN_OPTIONS,
        )
    except Exception:  # an exotic schema jsonschema accepts: jsonschema answers alone
        return None


def _has_long_string(value: Any, cap: int) -> bool:
    """Whether a string (or key) longer than ``cap`` is anywhere in ``value``: the regex
    length cap applies there, which only the jsonschema path reports. One iterative walk
    (no recursion limit), stopping at the first long string; for the few values of a
    usual call it is three times cheaper than writing them out with ``json.dumps``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) > cap:
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _canonical(tool: Mapping[str, Any]) -> str | None:
    """A key that two equal tool dicts share (``None`` when it cannot be written)."""
    try:
        # Key order as given (equal dicts written in another order only miss the cache);
        # json's default encoder is the C one.
        return json.dumps(tool)
    except (TypeError, ValueError, RecursionError):
        return None


#: Deeper than any schema a tool may have (``MAX_SCHEMA_DEPTH``) plus the tool's own levels.
_SNAPSHOT_DEPTH = 100

_SCALARS = (str, int, float)
_UNSNAPPABLE: Any = object()


def _snapshot(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON-like value whose containers (dicts, lists, tuples) are new and whose
    leaves (strings, numbers, ``None``: immutable) are shared, so that ``snapshot == value``
    answers at C speed, mostly by identity, whether ``value`` changed anywhere since.
    ``_UNSNAPPABLE`` for anything else (another mapping type, an object, deeper than
    ``_SNAPSHOT_DEPTH``). ``value`` holds no cycle (json.dumps has refused those first)."""
    if value is None or isinstance(value, _SCALARS):
        return value
    if depth > _SNAPSHOT_DEPTH:
        return _UNSNAPPABLE
    if type(value) is dict:
        out: dict[Any, Any] = {}
        for k, v in value.items():
            if not (k is None or isinstance(k, _SCALARS)):
                return _UNSNAPPABLE
            snap = _snapshot(v, depth + 1)
            if snap is _UNSNAPPABLE:
                return _UNSNAPPABLE
            out[k] = snap
        return out
    if type(value) is list or type(value) is tuple:
        items = []
        for v in value:
            snap = _snapshot(v, depth + 1)
            if snap is _UNSNAPPABLE:
                return _UNSNAPPABLE
            items.append(snap)
        return items if type(value) is list else tuple(items)
    return _UNSNAPPABLE


def _tool_key(tool: Mapping[str, Any]) -> tuple[dict[str, Any], str] | None:
    """A private snapshot of one tool dict and its canonical JSON (``None`` when the dict
    holds something that is not plain JSON). The same dict object passed again answers
    from an identity cache after one C-speed comparison with its snapshot, so an edit in
    place, however deep, is a miss and never a stale hit."""
    found = _TOOL_KEYS.get(id(tool))
    if found is not None and found[0] == tool:
        return found
    key = _canonical(tool)  # first: it refuses cycles (the snapshot would loop)
    if key is None:
        return None
    snap = _snapshot(tool)
    if snap is _UNSNAPPABLE:
        return None
    return _TOOL_KEYS.put(id(tool), (snap, key), text_weight(key))


def cached_registry(tools: list[Any]) -> ToolRegistry | None:
    """The registry :meth:`ToolRegistry.of` built from this very list before, when the
    list still equals its snapshot then (every tool dict, at every depth); else ``None``."""
    seen = _BY_IDENTITY.get(id(tools))
    if seen is not None and seen[0] == tools:
        return seen[1]
    return None


def _descriptor_from_mapping(t: Mapping[str, Any]) -> ToolDescriptor:
    if "input_schema" in t and "function" not in t:
        return ToolDescriptor.from_anthropic(t)
    if "inputSchema" in t:
        return ToolDescriptor.from_mcp(t)
    return ToolDescriptor.from_openai(t)


#: Registries built from tool dicts, keyed by the dicts' canonical JSON: ``repair(msg, tools)``
#: with the same dicts costs what a prebuilt registry costs. Bounded by memory, not count.
#: They are built from the dicts' private snapshots, so a later edit of the user's dicts
#: never reaches a cached registry.
_REGISTRIES: WeightedLRU[tuple[str, ...], ToolRegistry] = WeightedLRU(TOOL_CACHE_BUDGET)
#: The same list object passed again (the common case): a C-speed equality check against
#: its snapshot answers before anything else. Keyed by ``id``; the snapshot comparison
#: makes a reused id or an in-place edit a miss, never a stale hit.
_BY_IDENTITY: WeightedLRU[int, tuple[list[Any], ToolRegistry]] = WeightedLRU(TOOL_CACHE_BUDGET // 4)
#: The same tool dict objects in a new list (``repair(msg, [TOOL_A, TOOL_B])``): each dict's
#: snapshot and canonical JSON, keyed by ``id`` and checked the same way.
_TOOL_KEYS: WeightedLRU[int, tuple[dict[str, Any], str]] = WeightedLRU(TOOL_CACHE_BUDGET // 4)


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Summary (text before the first section) and ``Args:`` entries of a Google docstring."""
    lines = doc.splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if stripped.rstrip(":").lower() in {
            "args",
            "arguments",
            "parameters",
            "params",
        } and stripped.endswith(":"):
            section, current = "args", None
            continue
        if stripped.endswith(":") and stripped[:-1].lower() in {
            "returns",
            "raises",
            "yields",
            "examples",
            "example",
            "note",
            "notes",
        }:
            section, current = "other", None
            continue
        if section is None:
            summary.append(stripped)
        elif section == "args" and stripped:
            head, sep, rest = stripped.partition(":")
            pname = head.split("(")[0].strip()
            if (
                sep
                and pname.isidentifier()
                and line[: len(line) - len(line.lstrip())] != ""
                and (
                    current is None or len(line) - len(line.lstrip()) <= _indent_of(lines, current)
                )
            ):
                current = pname
                params[pname] = rest.strip()
            elif current is not None:
                params[current] = (params[current] + " " + stripped).strip()
    return " ".join(s for s in summary if s).strip(), params


def _indent_of(lines: Sequence[str], pname: str) -> int:
    for line in lines:
        if line.strip().startswith(pname) and ":" in line:
            return len(line) - len(line.lstrip())
    return 0


class ToolRegistry(Mapping[str, ToolDescriptor]):
    """An ordered, read-only mapping of tool name to :class:`ToolDescriptor`."""

    def __init__(self, tools: Iterable[ToolDescriptor] = ()):
        self._tools: dict[str, ToolDescriptor] = {}
        for t in tools:
            if t.name in self._tools:
                raise ToolDefinitionError(f"duplicate tool name {t.name!r}", tool_name=t.name)
            self._tools[t.name] = t
        self._weight = sum(t.weight for t in self._tools.values())

    @property
    def weight(self) -> int:
        """An estimate of the memory the registry's tools hold, in bytes."""
        return self._weight

    # Mapping protocol
    def __getitem__(self, name: str) -> ToolDescriptor:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._tools)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolRegistry) and self._tools == other._tools

    __hash__ = None  # type: ignore[assignment]

    def lookup(self, name: str) -> ToolDescriptor | None:
        """The tool called ``name``, or ``None`` (a plain dict lookup, for hot paths)."""
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    @property
    def descriptors(self) -> list[ToolDescriptor]:
        return list(self._tools.values())

    def with_tools(self, *tools: ToolDescriptor | ToolHandler) -> ToolRegistry:
        """A new registry with more tools (descriptors or typed functions)."""
        extra = [
            t if isinstance(t, ToolDescriptor) else ToolDescriptor.from_function(t) for t in tools
        ]
        return ToolRegistry([*self._tools.values(), *extra])

    @classmethod
    def of(
        cls, tools: ToolRegistry | Iterable[ToolDescriptor | Mapping[str, Any] | ToolHandler] | None
    ) -> ToolRegistry:
        """Coerce whatever a user passes (registry, descriptors, OpenAI dicts, functions).

        Registries built from tool dicts are kept (bounded by memory) and found again by
        the list, by each dict and by their canonical JSON; a reuse is first checked
        against a private snapshot of the dicts, so an edit in place is always seen."""
        if type(tools) is ToolRegistry:  # (the common case first: a registry is itself)
            return tools
        if type(tools) is list:
            hit = cached_registry(tools)
            if hit is not None:
                return hit
        elif tools is None:
            return cls()
        elif isinstance(tools, ToolRegistry):
            return tools
        elif isinstance(tools, list):
            hit = cached_registry(tools)
            if hit is not None:
                return hit
        given = tools
        tools = list(tools)
        if tools and all(isinstance(t, Mapping) for t in tools):
            found = [_tool_key(t) for t in tools]  # type: ignore[arg-type]
            if None not in found:
                snaps = [f[0] for f in found]  # type: ignore[index]
                registry = _REGISTRIES.get_or_make(
                    tuple(f[1] for f in found),  # type: ignore[index]
                    lambda: _weighed(cls(_descriptor_from_mapping(t) for t in snaps)),
                )
                if isinstance(given, list):
                    _BY_IDENTITY.put(id(given), (snaps, registry), registry.weight)
                return registry
        out: list[ToolDescriptor] = []
        for t in tools:
            if isinstance(t, ToolDescriptor):
                out.append(t)
            elif isinstance(t, Mapping):
                out.append(_descriptor_from_mapping(t))
            elif callable(t):
                out.append(ToolDescriptor.from_function(t))
            else:
                raise ToolDefinitionError(f"cannot make a tool from {t!r}"[:300])
        return cls(out)

    @classmethod
    def from_openai(cls, tools: Iterable[Mapping[str, Any]]) -> ToolRegistry:
        return cls(ToolDescriptor.from_openai(t) for t in tools)

    @classmethod
    def from_anthropic(cls, tools: Iterable[Mapping[str, Any]]) -> ToolRegistry:
        return cls(ToolDescriptor.from_anthropic(t) for t in tools)

    @classmethod
    def from_mcp(cls, tools: Iterable[Any]) -> ToolRegistry:
        return cls(ToolDescriptor.from_mcp(t) for t in tools)

    @classmethod
    def from_functions(cls, *fns: ToolHandler) -> ToolRegistry:
        return cls(ToolDescriptor.from_function(f) for f in fns)

    def to_openai(self) -> list[dict[str, Any]]:
        return [t.to_openai() for t in self._tools.values()]

    def to_anthropic(self) -> list[dict[str, Any]]:
        return [t.to_anthropic() for t in self._tools.values()]


def _weighed(registry: ToolRegistry) -> tuple[ToolRegistry, int]:
    return registry, registry.weight


def python_arguments(tool: ToolDescriptor, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Convert validated JSON arguments to the handler's parameter types (pydantic)."""
    if tool.handler is None:
        return dict(arguments)
    hints = get_type_hints(_unwrap_partial(tool.handler)[0])
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        hint = hints.get(key)
        if hint is None:
            out[key] = value
        elif isinstance(hint, type) and issubclass(hint, BaseModel):
            out[key] = hint.model_validate(value)
        else:
            out[key] = TypeAdapter(hint).validate_python(value)
    return out
