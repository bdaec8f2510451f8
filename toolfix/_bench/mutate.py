"""The mutation catalogue: realistic ways a model breaks a tool call.

A :class:`Draft` is a case under construction: the calls as the model will
emit them (:class:`~toolfix._bench.render.EmitCall`), the JSON style, the
calls it meant, and the tags. Each :class:`Mutation` checks whether it applies
to a draft and corrupts it, keeping the expected answer right; it carries the
failure class (tag) from the taxonomy in docs/design.md. Mutations in the same
``group`` are never combined.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .render import JSON_FORMATS, OBJECT_FORMATS, EmitCall, JsonStyle, Truncation

__all__ = ["CATALOGUE", "Draft", "Mutation", "edit_distance", "norm_name"]

_CONTENT_OBJECT = frozenset({"json_bare", "json_fence", "json_prose", "hermes", "mistral"})
_UNTYPED = frozenset({"qwen_xml", "glm"})
_ALL = frozenset({*JSON_FORMATS, "pythonic", "qwen_xml", "glm"})


@dataclass
class Draft:
    """A corpus case under construction."""

    fmt: str
    calls: list[EmitCall]
    expected: list[tuple[str, dict[str, Any]]]
    schemas: dict[str, dict[str, Any]]
    style: JsonStyle = field(default_factory=JsonStyle)
    tags: list[str] = field(default_factory=list)
    mutations: list[str] = field(default_factory=list)
    concatenated: bool = False
    expected_error: str | None = None
    reasoning_mode: int | None = None
    #: (written, offered) names whose letters differ: never renamed (promise 4), so the
    #: call is expected invalid (:meth:`settle_misnamed`, once every mutation is applied)
    misnamed: list[tuple[str, str]] = field(default_factory=list)

    def settle_misnamed(self) -> None:
        """Drop the calls to misnamed tools from what is expected; with none left, the
        case expects an invalid call (the LLM fixer's feedback names the tools)."""
        for written, offered in self.misnamed:
            self.expected = [e for e in self.expected if e[0] != offered]
            if not self.expected and self.expected_error is None:
                self.expected_error = (
                    f"{written!r} differs from the offered {offered!r} in its letters: it is "
                    "never renamed (promise 4); it comes back as an invalid unknown_name call "
                    "for the LLM fixer's feedback"
                )

    def add_tag(self, tag: str) -> None:
        if tag not in self.tags:
            self.tags.append(tag)

    def props(self, index: int) -> dict[str, Any]:
        schema = self.schemas.get(self.expected[index][0], {})
        props = schema.get("properties", {})
        return props if isinstance(props, dict) else {}


def norm_name(name: str) -> str:
    """Case- and separator-insensitive form of a tool name."""
    return "".join(ch for ch in name.casefold() if ch not in "-_. ")


def edit_distance(a: str, b: str) -> int:
    """Plain Levenshtein distance (names are short)."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


@dataclass(frozen=True)
class Mutation:
    """One corruption: where it applies, what it does, which failure class it is."""

    name: str
    tag: str
    group: str
    formats: frozenset[str]
    applies: Callable[[Draft], bool]
    apply: Callable[[Draft, random.Random], None]

    def can_apply(self, draft: Draft) -> bool:
        return draft.fmt in self.formats and self.applies(draft)


def _always(_: Draft) -> bool:
    return True


# ---- invalid_json -------------------------------------------------------------------


def _style(attr: str) -> Callable[[Draft, random.Random], None]:
    def apply(draft: Draft, rng: random.Random) -> None:
        setattr(draft.style, attr, True)

    return apply


def _walk(value: Any) -> list[Any]:
    out = [value]
    if isinstance(value, dict):
        for v in value.values():
            out.extend(_walk(v))
    elif isinstance(value, list):
        for v in value:
            out.extend(_walk(v))
    return out


def _has_literal(draft: Draft) -> bool:
    return any(v is None or isinstance(v, bool) for c in draft.calls for v in _walk(c.args))


def _free_text(prop: Any) -> bool:
    """A string property without enum/pattern/format: a newline in it stays valid."""
    return (
        isinstance(prop, dict)
        and prop.get("type") == "string"
        and not ({"enum", "pattern", "format", "const"} & prop.keys())
    )


def _spaced_strings(draft: Draft) -> list[tuple[int, str]]:
    return [
        (i, k)
        for i, c in enumerate(draft.calls)
        for k, v in c.args.items()
        if isinstance(v, str) and " " in v.strip() and _free_text(draft.props(i).get(k))
    ]


def _raw_newline_applies(draft: Draft) -> bool:
    return bool(_spaced_strings(draft))


def _raw_newline(draft: Draft, rng: random.Random) -> None:
    i, key = rng.choice(_spaced_strings(draft))
    value = draft.calls[i].args[key]
    pos = value.index(" ", 1) if " " in value[1:] else value.index(" ")
    new = value[:pos] + "\n" + value[pos + 1 :]
    draft.calls[i].args[key] = new
    draft.expected[i][1][key] = new
    draft.style.raw_newlines = True


def _escapable(draft: Draft) -> tuple[bool, bool]:
    """Whether some key or (object formats) name has ``_``; whether some string has ``'``."""
    idents = [k for c in draft.calls for v in _walk(c.args) if isinstance(v, dict) for k in v]
    if draft.fmt in OBJECT_FORMATS:
        idents.extend(c.name for c in draft.calls)
    texts = [v for c in draft.calls for v in _walk(c.args) if isinstance(v, str)]
    return any("_" in t for t in idents), any("'" in t for t in texts)


def _bad_escape_applies(draft: Draft) -> bool:
    return any(_escapable(draft))


def _bad_escape(draft: Draft, rng: random.Random) -> None:
    underscores, apostrophes = _escapable(draft)
    draft.style.escape_underscores = underscores
    draft.style.escape_apostrophes = apostrophes


def _missing_brace_applies(draft: Draft) -> bool:
    # Where nothing follows the arguments (a native arguments string, Mistral's last
    # ``[ARGS]``), a missing brace after a number reads as truncation: not unambiguous.
    if draft.fmt not in ("openai", "mistral_args"):
        return True
    args = draft.calls[-1].args
    if not args:
        return False
    last = list(args.values())[-1]
    return not (isinstance(last, int | float) and not isinstance(last, bool))


def _truncate_applies(draft: Draft) -> bool:
    last = draft.calls[-1]
    return bool(last.args) and not last.args_as_string and last.wrapper is None


def _truncate(draft: Draft, rng: random.Random) -> None:
    last = draft.calls[-1]
    keys = list(last.args)
    keep = rng.randrange(len(keys))
    partial = keys[keep][: max(1, len(keys[keep]) // 2)] if rng.random() < 0.5 else ""
    last.truncation = Truncation(keep=keep, partial_key=partial)
    # A call cut off before its closer is never run (docs/design.md#promise-9): it is expected
    # as an invalid ``truncated`` call; the calls that closed before the cut stay.
    name, _ = draft.expected.pop()
    if not draft.expected:
        kept = set(keys[:keep])
        required = draft.schemas.get(name, {}).get("required", [])
        lost = [r for r in required if r not in kept]
        draft.expected_error = (
            f"the response was cut off before required argument(s) {', '.join(lost)} "
            f"of {name} were written"
            if lost
            else f"the response was cut off inside the call to {name} (after {keep} "
            "complete argument(s)); a cut-off call is reported invalid, never run"
        )


# ---- shapes -------------------------------------------------------------------------

_NAME_ALIASES = ("function", "tool", "tool_name")
_ARG_ALIASES = ("parameters", "params", "args", "input")


def _key_alias(draft: Draft, rng: random.Random) -> None:
    which = rng.randrange(3)
    name_key = rng.choice(_NAME_ALIASES)
    args_key = rng.choice(_ARG_ALIASES)
    for c in draft.calls:
        if which in (0, 2):
            c.name_key = name_key
        if which in (1, 2):
            c.args_key = args_key


def _wrapper(draft: Draft, rng: random.Random) -> None:
    kind = rng.choice(("function", "type_function"))
    for c in draft.calls:
        c.wrapper = kind


def _args_string(draft: Draft, rng: random.Random) -> None:
    for c in draft.calls:
        c.args_as_string = True


def _concatenated(draft: Draft, rng: random.Random) -> None:
    draft.concatenated = True


# ---- values -------------------------------------------------------------------------


def _structured_fields(draft: Draft) -> list[tuple[int, str]]:
    return [
        (i, k)
        for i, c in enumerate(draft.calls)
        for k, v in c.args.items()
        if isinstance(v, dict | list) and v
    ]


def _field_string(draft: Draft, rng: random.Random) -> None:
    i, key = rng.choice(_structured_fields(draft))
    draft.calls[i].args[key] = json.dumps(draft.calls[i].args[key], ensure_ascii=False)


def _mismatch_targets(draft: Draft) -> list[tuple[int, str]]:
    out = []
    for i, c in enumerate(draft.calls):
        props = draft.props(i)
        for k, v in c.args.items():
            t = props.get(k, {}).get("type") if isinstance(props.get(k), dict) else None
            if (
                (t == "integer" and isinstance(v, int) and not isinstance(v, bool))
                or (t == "number" and isinstance(v, int | float) and not isinstance(v, bool))
                or (t == "boolean" and isinstance(v, bool))
                or (
                    t == "string"
                    and isinstance(v, str)
                    and v.isascii()
                    and v.isdigit()
                    and not v.startswith("0")
                    and len(v) < 15
                    and "enum" not in props[k]
                )
            ):
                out.append((i, k))
    return out


def _type_mismatch(draft: Draft, rng: random.Random) -> None:
    i, key = rng.choice(_mismatch_targets(draft))
    v = draft.calls[i].args[key]
    if isinstance(v, bool):
        draft.calls[i].args[key] = "true" if v else "false"
    elif isinstance(v, str):
        draft.calls[i].args[key] = int(v)
    else:
        draft.calls[i].args[key] = json.dumps(v)


def _enum_targets(draft: Draft) -> list[tuple[int, str, str]]:
    out = []
    for i, c in enumerate(draft.calls):
        props = draft.props(i)
        for k, v in c.args.items():
            enum = props.get(k, {}).get("enum") if isinstance(props.get(k), dict) else None
            if not isinstance(v, str) or not isinstance(enum, list):
                continue
            for changed in (v.upper(), v.lower(), v.title()):
                if (
                    changed != v
                    and sum(1 for e in enum if isinstance(e, str) and e.casefold() == v.casefold())
                    == 1
                ):
                    out.append((i, k, changed))
                    break
    return out


def _enum_case(draft: Draft, rng: random.Random) -> None:
    i, key, changed = rng.choice(_enum_targets(draft))
    draft.calls[i].args[key] = changed


_EXTRA_KEYS: tuple[tuple[str, Any], ...] = (
    ("verbose", True),
    ("format", "json"),
    ("language", "en"),
    ("max_results", 10),
    ("include_details", False),
    ("timeout", 30),
)


def _extra_keys(draft: Draft, rng: random.Random) -> None:
    i = rng.randrange(len(draft.calls))
    props = draft.props(i)
    options = [(k, v) for k, v in _EXTRA_KEYS if k not in props and k not in draft.calls[i].args]
    key, value = rng.choice(options)
    draft.calls[i].args[key] = value


# ---- names --------------------------------------------------------------------------


def _camel(name: str) -> str:
    parts = [p for p in name.replace("-", "_").split("_") if p]
    return parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:]) if parts else name


def _name_variants(draft: Draft, i: int) -> list[str]:
    name = draft.calls[i].name
    others = [norm_name(n) for n in draft.schemas if n != name]
    out: list[str] = []
    if norm_name(name) not in others:
        for v in (name.upper(), _camel(name), name.replace("_", "-")):
            if v != name and v not in out and (draft.fmt != "pythonic" or v.isidentifier()):
                out.append(v)
    norm = norm_name(name)
    if len(norm) >= 10:
        pos = len(name) // 2
        while pos < len(name) and not name[pos].isalpha():
            pos += 1
        if pos < len(name):
            ch = name[pos]
            repl = "e" if ch.lower() != "e" else "a"
            typo = name[:pos] + repl + name[pos + 1 :]
            if all(edit_distance(norm_name(typo), o) > 3 for o in others):
                out.append(typo)
    return out


def _unknown_name_applies(draft: Draft) -> bool:
    return any(_name_variants(draft, i) for i in range(len(draft.calls)))


def _unknown_name(draft: Draft, rng: random.Random) -> None:
    options = [i for i in range(len(draft.calls)) if _name_variants(draft, i)]
    i = rng.choice(options)
    name, variant = draft.calls[i].name, rng.choice(_name_variants(draft, i))
    draft.calls[i].name = variant
    if norm_name(variant) != norm_name(name):
        draft.misnamed.append((variant, name))


# ---- placement ----------------------------------------------------------------------


def _in_reasoning(draft: Draft, rng: random.Random) -> None:
    draft.reasoning_mode = rng.randrange(2)


CATALOGUE: tuple[Mutation, ...] = (
    Mutation(
        "single_quotes", "invalid_json", "text", JSON_FORMATS, _always, _style("single_quotes")
    ),
    Mutation(
        "trailing_commas", "invalid_json", "text", JSON_FORMATS, _always, _style("trailing_commas")
    ),
    Mutation(
        "unquoted_keys", "invalid_json", "text", JSON_FORMATS, _always, _style("unquoted_keys")
    ),
    Mutation(
        "python_literals",
        "invalid_json",
        "text",
        JSON_FORMATS,
        _has_literal,
        _style("python_literals"),
    ),
    Mutation(
        "raw_newline", "invalid_json", "text", JSON_FORMATS, _raw_newline_applies, _raw_newline
    ),
    Mutation("bad_escape", "invalid_json", "text", JSON_FORMATS, _bad_escape_applies, _bad_escape),
    Mutation(
        "missing_brace",
        "invalid_json",
        "text",
        JSON_FORMATS,
        _missing_brace_applies,
        _style("missing_brace"),
    ),
    Mutation("truncated", "truncated", "text", JSON_FORMATS, _truncate_applies, _truncate),
    Mutation(
        "concatenated",
        "concatenated",
        "shape",
        frozenset({"json_bare", "json_prose"}),
        lambda d: len(d.calls) > 1,
        _concatenated,
    ),
    Mutation("key_alias", "key_alias", "shape", _CONTENT_OBJECT, _always, _key_alias),
    Mutation(
        "wrapper",
        "wrapper",
        "shape",
        frozenset({"json_bare", "json_fence", "json_prose", "hermes"}),
        _always,
        _wrapper,
    ),
    Mutation(
        "args_string",
        "double_encoded",
        "shape",
        frozenset({*_CONTENT_OBJECT, "llama", "openai"}),
        _always,
        _args_string,
    ),
    Mutation(
        "field_string",
        "double_encoded",
        "value",
        _ALL - _UNTYPED,
        lambda d: bool(_structured_fields(d)),
        _field_string,
    ),
    Mutation(
        "type_mismatch",
        "type_mismatch",
        "value",
        _ALL - _UNTYPED,
        lambda d: bool(_mismatch_targets(d)),
        _type_mismatch,
    ),
    Mutation("enum_case", "enum_case", "value", _ALL, lambda d: bool(_enum_targets(d)), _enum_case),
    Mutation("extra_keys", "extra_keys", "value", _ALL, _always, _extra_keys),
    Mutation("unknown_name", "unknown_name", "name", _ALL, _unknown_name_applies, _unknown_name),
    Mutation(
        "in_reasoning",
        "in_reasoning",
        "placement",
        _ALL - {"openai", "harmony"},
        _always,
        _in_reasoning,
    ),
)

#: Pairs of mutations never combined (on top of the one-per-group rule).
CONFLICTS = frozenset(
    {
        frozenset({"truncated", "args_string"}),
        frozenset({"truncated", "wrapper"}),
        frozenset({"truncated", "concatenated"}),
        frozenset({"args_string", "field_string"}),
        frozenset({"missing_brace", "concatenated"}),
    }
)


def compatible(chosen: list[Mutation], candidate: Mutation) -> bool:
    """Whether ``candidate`` may be added to ``chosen``."""
    for m in chosen:
        if m.group == candidate.group or frozenset({m.name, candidate.name}) in CONFLICTS:
            return False
        if "text" in (m.group, candidate.group) and "args_string" in (m.name, candidate.name):
            return False
        truncating = "truncated" in (m.name, candidate.name)
        if truncating and "placement" not in (m.group, candidate.group):
            return False
    return True
