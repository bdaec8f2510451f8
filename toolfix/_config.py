"""Configuration: key aliases, limits, and the manual fixer's settings."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ._errors import ConfigurationError
from ._repair.spec import FormatSpec

__all__ = ["FixConfig", "Limits", "ToolCallJsonConfig"]

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


class ToolCallJsonConfig(BaseModel):
    """Which JSON keys hold a call's id, name and arguments.

    The first key of each tuple is the canonical one; the others are aliases the
    manual fixer accepts and records as ``key_alias`` repairs. ``wrapper_keys``
    name objects that wrap a whole call (``{"function": {"name": ..., ...}}``).

    Extend the defaults rather than replace them::

        config = ToolCallJsonConfig().extend(name_keys=["command"], argument_keys=["payload"])
    """

    model_config = ConfigDict(frozen=True)

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


class Limits(BaseModel):
    """Size limits checked before any recursive parser runs (docs/design.md#promise-2).

    Exceeding one raises a :class:`~toolfix.LimitExceededError` subclass inside the
    parser; the manual fixer reports the affected call as invalid with kind
    ``limit_exceeded`` instead of letting the error escape.
    """

    model_config = ConfigDict(frozen=True)

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


class FixConfig(BaseModel):
    """Settings of :class:`~toolfix.ManualToolCallFixProcessor`."""

    model_config = ConfigDict(frozen=True)

    json_keys: ToolCallJsonConfig = ToolCallJsonConfig()
    limits: Limits = Limits()
    formats: tuple[str, ...] | None = None
    """Pin the native formats to look for (names from ``toolfix.available_formats()``);
    ``None`` auto-detects all of them."""
    custom_formats: tuple[FormatSpec, ...] = ()
    """Families you declare yourself (docs/formats.md#adding-a-family), read by the same
    scanner in the same pass as the built-in ones. Names must not clash with
    ``toolfix.available_formats()``."""
    reasoning_calls: Literal["ignore", "promote", "when_no_answer"] = "when_no_answer"
    """Calls found only inside reasoning: promote them only when the response has no
    call and no visible answer at all (default: engines' reasoning parsers swallow calls
    that way), always promote them, or leave them."""
    coerce_arguments: bool = True
    """Coerce arguments to the schema (numeric strings, enum case, stringified JSON...)."""
    drop_extra_keys: Literal["when_forbidden", "always", "never"] = "when_forbidden"
    """Remove argument keys that the schema does not declare: only when the schema sets
    ``additionalProperties: false`` (default), always, or never."""
    name_max_distance: int = Field(default=2, ge=0)
    """Largest edit distance for tool-name repair, after normalising case and separators."""
    name_max_ratio: float = Field(default=0.2, ge=0.0, le=1.0)
    """Largest edit distance relative to the name's length."""
    accept_flat_arguments: bool = True
    """Accept ``{"name": "tool", "city": "Paris"}`` (arguments beside the name) when the
    name is a registry tool."""
    truncated: Literal["invalid", "keep_complete_members"] = "invalid"
    """A call cut off before its own closer (``finish_reason=length``): report it as an
    invalid call of kind ``truncated`` with the partial arguments attached (default), or
    keep the members that were complete and validate them (the old behaviour; a cut-off
    ``delete_files(path="/tmp/x", dry_run=`` then runs without ``dry_run``)."""
    schema_anchored: bool = True
    """Where no family reader found a valid call, read calls anchored on the offered
    tools' names and parameter names (docs/finding-calls.md); their repair kind is
    ``schema_anchored``. ``False`` turns the reader off."""

    @model_validator(mode="after")
    def _check_custom_formats(self) -> FixConfig:
        if self.custom_formats:
            from ._repair.formats import get_formats  # the formats import this module

            get_formats(self.formats, self.custom_formats)  # raises on a name clash
        return self
