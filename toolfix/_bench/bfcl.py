"""Berkeley Function Calling Leaderboard data: loading and mapping to OpenAI tools.

The data ships in the ``bfcl-eval`` package (``bfcl_eval/data/``, Apache-2.0):
one JSON object per line with the question and the function docs, and in
``possible_answer/`` the ground truth, where every argument lists its
acceptable values (``""`` meaning "may be omitted").

BFCL quirks handled here:

* non-standard schema types: ``dict`` → ``object``, ``float`` → ``number``,
  ``tuple`` → ``array``, ``any`` → no type constraint; ``String``/``Integer``
  casing is folded;
* dotted function names (``math.factorial``) become ``math_factorial``, as
  BFCL itself does for OpenAI-style models (tool names must match
  ``^[a-zA-Z0-9_-]+$``);
* the top-level parameters object gets ``additionalProperties: false`` (the
  function takes exactly these parameters), so an extra hallucinated key is a
  schema violation;
* an argument's value is its first non-``""`` option; an argument whose only
  option is ``""`` is omitted.

A case that cannot be mapped cleanly (invalid schema, a required argument with
no value, ground truth that does not validate against the mapped schema) is
skipped and counted.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

__all__ = [
    "BFCL_SETS",
    "BfclCase",
    "LoadReport",
    "bfcl_data_dir",
    "load_bfcl",
    "map_schema",
    "map_tool",
    "pick_arguments",
    "tool_name",
]

#: The sets the generator reads: positives (with ground truth) and the irrelevance negatives.
BFCL_SETS: tuple[str, ...] = (
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
)

_TYPE_MAP = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "double": "number",
    "tuple": "array",
    "array": "array",
    "list": "array",
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "boolean": "boolean",
    "bool": "boolean",
    "null": "null",
}

_NAME_OK = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CHECKED: set[str] = set()  # schemas already checked (check_schema is slow)


class UnmappableError(ValueError):
    """A BFCL schema or answer that has no clean JSON-schema equivalent."""


@dataclass(frozen=True)
class BfclCase:
    """One BFCL entry mapped to OpenAI tools and expected calls (empty for irrelevance)."""

    id: str
    set_name: str
    question: str
    tools: list[dict[str, Any]]
    calls: list[tuple[str, dict[str, Any]]]

    @property
    def schemas(self) -> dict[str, dict[str, Any]]:
        """Tool name → parameters schema."""
        return {t["function"]["name"]: t["function"]["parameters"] for t in self.tools}


@dataclass
class LoadReport:
    """How many BFCL entries were read and skipped, per set and per reason."""

    read: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)

    def skip(self, case_id: str, reason: str) -> None:
        self.skipped[reason] += 1
        self.examples.setdefault(reason, case_id)


def bfcl_data_dir() -> Path:
    """The ``bfcl_eval/data`` directory of the installed ``bfcl-eval`` package."""
    try:
        import bfcl_eval
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            "the BFCL data comes from the bfcl-eval package: pip install --no-deps bfcl-eval"
        ) from exc
    return Path(bfcl_eval.__file__).parent / "data"


def tool_name(name: str) -> str:
    """BFCL's function name as an OpenAI tool name (dots become underscores)."""
    return name.replace(".", "_")


def map_schema(schema: Any) -> Any:
    """A BFCL parameter schema as standard JSON schema (recursively)."""
    if isinstance(schema, list):
        return [map_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            if isinstance(value, str):
                mapped = _TYPE_MAP.get(value.lower())
                if value.lower() == "any":
                    continue
                if mapped is None:
                    raise UnmappableError(f"unknown type {value!r}")
                out["type"] = mapped
            else:
                raise UnmappableError(f"type {value!r} is not a string")
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {k: map_schema(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict | list):
            out[key] = map_schema(value)
        elif key == "optional":
            continue  # BFCL annotation, not JSON schema
        else:
            out[key] = copy.deepcopy(value)
    if out.get("type") == "number" and "enum" in out:
        out["enum"] = [v for v in out["enum"] if isinstance(v, int | float)]
    return out


def map_tool(function: dict[str, Any]) -> dict[str, Any]:
    """A BFCL function doc as an OpenAI tool definition."""
    params = map_schema(function.get("parameters") or {"type": "object", "properties": {}})
    if params.get("type") != "object":
        raise UnmappableError("parameters is not an object schema")
    params.setdefault("properties", {})
    params["additionalProperties"] = False
    name = tool_name(str(function["name"]))
    if not _NAME_OK.match(name):
        raise UnmappableError(f"tool name {name!r} is not a valid OpenAI tool name")
    key = json.dumps(params, sort_keys=True)
    if key not in _CHECKED:
        Draft202012Validator.check_schema(params)
        _CHECKED.add(key)
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": str(function.get("description") or ""),
            "parameters": params,
        },
    }


def pick_arguments(options: dict[str, list[Any]]) -> dict[str, Any]:
    """The first non-``""`` option of every argument; arguments with only ``""`` are omitted."""
    out: dict[str, Any] = {}
    for arg, values in options.items():
        if not isinstance(values, list):
            raise UnmappableError(f"argument {arg!r} options are not a list")
        chosen = [v for v in values if v != ""]
        if chosen:
            out[arg] = copy.deepcopy(chosen[0])
    return out


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _question_text(question: Any) -> str:
    try:
        turns = question[0]
        return " ".join(str(m["content"]) for m in turns if m.get("role") == "user")
    except (IndexError, KeyError, TypeError):
        return ""


def _map_entry(entry: dict[str, Any], answer: dict[str, Any] | None, set_name: str) -> BfclCase:
    tools = [map_tool(f) for f in entry["function"]]
    names = [t["function"]["name"] for t in tools]
    if len(set(names)) != len(names):
        raise UnmappableError("duplicate tool names after mapping")
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    calls: list[tuple[str, dict[str, Any]]] = []
    if answer is not None:
        for item in answer["ground_truth"]:
            if not isinstance(item, dict) or len(item) != 1:
                raise UnmappableError("ground truth item is not one call")
            ((fname, options),) = item.items()
            name = tool_name(fname)
            if name not in schemas:
                raise UnmappableError(f"ground truth names unknown tool {name!r}")
            args = pick_arguments(options)
            error = next(iter(Draft202012Validator(schemas[name]).iter_errors(args)), None)
            if error is not None:
                raise UnmappableError(f"ground truth does not validate: {error.message}")
            calls.append((name, args))
        if not calls:
            raise UnmappableError("empty ground truth")
    return BfclCase(
        id=str(entry["id"]),
        set_name=set_name,
        question=_question_text(entry.get("question")),
        tools=tools,
        calls=calls,
    )


def load_bfcl(
    sets: tuple[str, ...] = BFCL_SETS, data_dir: Path | None = None
) -> tuple[list[BfclCase], LoadReport]:
    """Read and map the BFCL sets; returns the mapped cases and a skip report."""
    root = data_dir or bfcl_data_dir()
    report = LoadReport()
    cases: list[BfclCase] = []
    for set_name in sets:
        entries = _read_jsonl(root / f"BFCL_v4_{set_name}.json")
        answer_path = root / "possible_answer" / f"BFCL_v4_{set_name}.json"
        answers = {a["id"]: a for a in _read_jsonl(answer_path)} if answer_path.exists() else None
        for entry in entries:
            report.read[set_name] += 1
            answer = None
            if answers is not None:
                answer = answers.get(entry["id"])
                if answer is None:
                    report.skip(str(entry["id"]), "no ground truth")
                    continue
            try:
                cases.append(_map_entry(entry, answer, set_name))
            except (UnmappableError, jsonschema.SchemaError, KeyError, TypeError) as exc:
                reason = (
                    str(exc).split(":")[0]
                    if isinstance(exc, UnmappableError)
                    else (type(exc).__name__)
                )
                report.skip(str(entry["id"]), reason)
    return cases, report
