"""Configuration: key aliases, limits, and the manual fixer's settings."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ._errors import ConfigurationError
from ._repair.spec import FormatSpec

__all__ = [
    "DEFAULT_ARGUMENT_KEYS",
    "DEFAULT_ID_KEYS",
    "DEFAULT_NAME_KEYS",
    "DEFAULT_WRAPPER_KEYS",
    "FixConfig",
    "Limits",
    "StrictSettings",
    "ToolCallJsonConfig",
    "as_fix_config",
    "check_registry_first",
    "unknown_field_error",
]

DEFAULT_ID_KEYS = ("id", "tool_call_id", "call_id")
DEFAULT_NAME_KEYS = ("name", "tool_name", "tool", "function_name", "function", "action")
DEFAULT_ARGUMENT_KEYS = (
    "arguments",
    "args",
    "parameters",
    "params",
    "tool_args",
    "tool_input",
    "input",
    "kwargs",
    "action_input",
)
DEFAULT_WRAPPER_KEYS = ("function", "function_call", "tool_call", "call")
"""The default key tuples of :class:`ToolCallJsonConfig`: extend them with
``ToolCallJsonConfig(name_keys=(*DEFAULT_NAME_KEYS, "command"))`` or
``ToolCallJsonConfig().extend(name_keys=["command"])``."""


def unknown_field_error(model: str, given: Iterable[str], valid: Iterable[str]) -> str | None:
    """The message for the first name of ``given`` that ``valid`` lacks, with the nearest
    valid name; ``None`` when every name is valid."""
    known = list(valid)
    for name in given:
        if name in known:
            continue
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        return f"{model} has no setting {name!r}{hint} (valid: {', '.join(sorted(known))})"
    return None


class StrictSettings(BaseModel):
    """Base of every settings model: frozen, and a misspelt field raises
    :class:`~toolfix.ConfigurationError` naming the nearest valid field (instead of
    being ignored)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _no_unknown_fields(cls, data: Any) -> Any:
        if isinstance(data, dict):
            valid = set(cls.model_fields)
            valid |= {f.alias for f in cls.model_fields.values() if f.alias}
            message = unknown_field_error(cls.__name__, (str(k) for k in data), valid)
            if message is not None:
                raise ConfigurationError(message)
        return data


class ToolCallJsonConfig(StrictSettings):
    """Which JSON keys hold a call's id, name and arguments.

    The first key of each tuple is the canonical one; the others are aliases the
    manual fixer accepts and records as ``key_alias`` repairs. ``wrapper_keys``
    name objects that wrap a whole call (``{"function": {"name": ..., ...}}``).

    Extend the defaults rather than replace them::

        config = ToolCallJsonConfig().extend(name_keys=["command"], argument_keys=["payload"])
        config = ToolCallJsonConfig(name_keys=(*ToolCallJsonConfig.DEFAULT_NAME_KEYS, "command"))

    The default tuples are class constants (Koog's ``ToolCallJsonConfig.defaultNameJsonKeys``
    and its siblings): ``DEFAULT_ID_KEYS``, ``DEFAULT_NAME_KEYS``, ``DEFAULT_ARGUMENT_KEYS``,
    ``DEFAULT_WRAPPER_KEYS``.
    """

    DEFAULT_ID_KEYS: ClassVar[tuple[str, ...]] = DEFAULT_ID_KEYS
    DEFAULT_NAME_KEYS: ClassVar[tuple[str, ...]] = DEFAULT_NAME_KEYS
    DEFAULT_ARGUMENT_KEYS: ClassVar[tuple[str, ...]] = DEFAULT_ARGUMENT_KEYS
    DEFAULT_WRAPPER_KEYS: ClassVar[tuple[str, ...]] = DEFAULT_WRAPPER_KEYS

    id_keys: tuple[str, ...] = DEFAULT_ID_KEYS
    name_keys: tuple[str, ...] = DEFAULT_NAME_KEYS
    argument_keys: tuple[str, ...] = DEFAULT_ARGUMENT_KEYS
    wrapper_keys: tuple[str, ...] = DEFAULT_WRAPPER_KEYS

    def extend(
        self,
        *,
        id_keys: Iterable[str] = (),
        name_keys: Iterable[str] = (),
        argument_keys: Iterable[str] = (),
        wrapper_keys: Iterable[str] = (),
    ) -> ToolCallJsonConfig:
        """A copy with extra aliases appended (duplicates ignored, order kept)."""

        def merged(old: tuple[str, ...], new: Iterable[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys((*old, *new)))

        return ToolCallJsonConfig(
            id_keys=merged(self.id_keys, id_keys),
            name_keys=merged(self.name_keys, name_keys),
            argument_keys=merged(self.argument_keys, argument_keys),
            wrapper_keys=merged(self.wrapper_keys, wrapper_keys),
        )

    @model_validator(mode="after")
    def _check(self) -> ToolCallJsonConfig:
        if not self.name_keys or not self.argument_keys:
            raise ConfigurationError("name_keys and argument_keys must not be empty")
        overlap = set(self.name_keys) & set(self.argument_keys)
        if overlap:
            raise ConfigurationError(f"keys used both for name and arguments: {sorted(overlap)}")
        return self


class Limits(StrictSettings):
    """Size limits checked before any recursive parser runs (docs/design.md#promise-2).

    Exceeding one raises a :class:`~toolfix.LimitExceededError` subclass inside the
    parser; the manual fixer reports the affected call as invalid with kind
    ``limit_exceeded`` instead of letting the error escape.
    """

    max_input_chars: int = Field(default=2_000_000, gt=0)
    """Longest text (content, reasoning or arguments string) the fixer will scan."""
    max_span_chars: int = Field(default=1_000_000, gt=0)
    """Longest single candidate span handed to json-repair or ``ast.parse``."""
    max_repair_chars: int = Field(default=65_536, gt=0)
    """Longest broken span handed to json-repair, whose time grows faster than linearly
    on some inputs; longer spans get only toolfix's own linear repairs."""
    max_depth: int = Field(default=64, gt=0)
    """Deepest bracket nesting in a candidate span."""
    max_calls: int = Field(default=128, gt=0)
    """Most calls recovered from one message."""
    max_number_chars: int = Field(default=400, gt=0)
    """Longest numeric literal (guards int() against huge digit strings)."""
    max_pattern_input_chars: int = Field(default=10_000, gt=0)
    """Longest string a schema ``pattern`` is matched against."""
    max_pythonic_chars: int = Field(default=100_000, gt=0)
    """Longest text handed to ``ast.parse`` for pythonic calls."""


class FixConfig(StrictSettings):
    """Settings of :class:`~toolfix.ManualToolCallFixProcessor` (and of the LLM fixer's
    default preprocessor). Both fixers also accept a bare :class:`ToolCallJsonConfig`
    as ``config``: it stands for ``FixConfig(json_keys=...)``."""

    json_keys: ToolCallJsonConfig = ToolCallJsonConfig()
    limits: Limits = Limits()
    formats: tuple[str, ...] | None = None
    """Pin the native formats to look for (names from ``toolfix.available_formats()``);
    ``None`` auto-detects all of them."""
    custom_formats: tuple[FormatSpec, ...] = ()
    """Families you declare yourself (docs/formats.md#adding-a-family), read by the same
    scanner in the same pass as the built-in ones. Names must not clash with
    ``toolfix.available_formats()`` (a clash raises ``ConfigurationError`` when a fixer
    is built with this configuration)."""
    reasoning_calls: Literal["ignore", "promote", "when_no_answer"] = "when_no_answer"
    """Calls found only inside reasoning: promote them only when the response has no
    call and no visible answer at all (default: engines' reasoning parsers swallow calls
    that way), always promote them, or leave them."""
    coerce_arguments: bool = True
    """Coerce arguments to the schema (numeric strings, enum case, stringified JSON...)."""
    drop_extra_keys: Literal["when_forbidden", "always", "never"] = "when_forbidden"
    """Remove argument keys that the schema does not declare: only when the schema sets
    ``additionalProperties: false`` (default), always, or never."""
    name_aliases: tuple[tuple[str, str], ...] = ()
    """Names a model writes for a tool, as ``(alias, registry name)`` pairs: read as that
    tool (recorded). Besides these, a name is repaired only in how it is written (case,
    separators, a namespace prefix, markup glued to it), never in its letters."""
    argument_aliases: tuple[tuple[str, str], ...] = ()
    """Argument keys a model writes for a parameter, as ``(alias, parameter)`` pairs
    (``("target_file", "path")``): the key is read as that parameter when the called tool
    declares it and not the alias, the call lacks it and no other key takes it
    (recorded). Besides these, a key is repaired only in how it is written."""
    accept_flat_arguments: bool = True
    """Accept ``{"name": "tool", "city": "Paris"}`` (arguments beside the name) when the
    name is a registry tool."""
    reasoning_prefilled: bool | None = None
    """Whether the chat template opened a reasoning block in the prompt
    (``toolfix.formats.reasoning_prefilled_for(model, chat_template_kwargs)`` knows which
    templates do). ``True``: the output starts inside reasoning; text up to the first
    ``</think>`` (or all of it when none comes, unless the response carries reasoning the
    server split out: then such a text is the answer) is reasoning, and streams release
    calls and prose once that closer has passed. ``None`` (default): not known; a lone
    ``</think>`` that is the text's first reasoning markup still closes a block the prompt
    opened, so a stream with tools holds everything until the first reasoning token has
    passed or the stream ends. ``False``: known that the prompt opened none (a model that
    never reasons in its text, or a server that splits reasoning out: vLLM/SGLang with a
    reasoning parser, Ollama, hosted APIs); a lone closer is content, kept as written, and
    streams release as soon as the other holds allow (docs/guides/streaming.md)."""
    truncated: Literal["invalid", "keep_complete_members"] = "invalid"
    """A call cut off before its own closer (``finish_reason=length``, or no finish
    reason known: a raw string, a paste): report it as an invalid call of kind
    ``truncated`` with the partial arguments attached (default), or keep the members
    that were complete and validate them (the old behaviour; a cut-off
    ``delete_files(path="/tmp/x", dry_run=`` then runs without ``dry_run``). A call whose
    closers are all that is missing at the end of an output the model ended itself
    (``finish_reason`` ``stop``, ``end_turn``, ``eos``...) is not cut off: the end of the
    message closes it, whichever this says, unless a JSON string is left open in its
    arguments or a bracket is open after anything but a value that closed
    (docs/failure-classes.md#the-truncation-policy)."""
    id_seed: int | None = None
    """Make the ids of recovered calls a function of the input and this seed (tests,
    golden files). ``None`` (default): every response gets fresh random ids, so the same
    output in two turns never repeats an id (docs/guides/ids.md)."""
    schema_anchored: bool = True
    """Where no family reader found a valid call, read calls anchored on the offered
    tools' names and parameter names (docs/finding-calls.md); their repair kind is
    ``schema_anchored``. ``False`` turns the reader off."""


def as_fix_config(config: FixConfig | ToolCallJsonConfig | None, owner: str) -> FixConfig:
    """The :class:`FixConfig` of a fixer's ``config`` argument: a ``ToolCallJsonConfig``
    (custom keys, as in Koog) becomes ``FixConfig(json_keys=config)``.

    Raises :class:`~toolfix.ConfigurationError` for anything else, naming ``owner``."""
    if config is None:
        return FixConfig()
    if isinstance(config, FixConfig):
        return config
    if isinstance(config, ToolCallJsonConfig):
        return FixConfig(json_keys=config)
    raise ConfigurationError(
        f"{owner}(registry, config): config must be a FixConfig or a ToolCallJsonConfig, "
        f"not {type(config).__name__}"
    )


def check_registry_first(registry: object, owner: str) -> None:
    """Refuse a configuration passed where the registry goes: the fixers take
    ``(registry, config)``, in Koog's order (the manual fixer used to take the config
    first, so an old call site fails loudly here instead of half-working)."""
    if isinstance(registry, FixConfig | ToolCallJsonConfig):
        raise ConfigurationError(
            f"{owner} takes the registry first and the configuration second "
            f"({owner}(registry, config), as in Koog): got a {type(registry).__name__} "
            f"as the registry; pass it as config=..."
        )
