"""Native tool-call formats: the declared families and the hand-written readers.

Families whose markup a grammar can declare are specs in :mod:`toolfix._repair.specs`,
all read in one pass by one :class:`~toolfix._repair.scanner.SpecScanner`. The modules
here read the families whose markup no declared grammar covers yet (docs/formats.md
says which). Adding a family: declare a spec (docs/formats.md#adding-a-family); only
when no grammar fits, write ``toolfix/_repair/formats/<family>.py`` with a
:class:`ToolCallFormat` subclass and add an instance to :data:`ALL_FORMATS`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..._errors import ConfigurationError
from ..names import normalise_name
from ..scanner import SpecScanner
from ..spec import FormatSpec
from ..specs import ALL_SPECS
from ._base import Candidate, ScanContext, ToolCallFormat
from .deepseek import DeepSeekFormat
from .functionary import FunctionaryFormat
from .gemma import GemmaFormat
from .granite import GraniteFormat
from .harmony import HarmonyFormat
from .hermes import HermesFormat
from .json_text import JsonTextFormat
from .kimi import KimiFormat
from .llama import LlamaFormat
from .mistral import MistralFormat
from .pythonic import PythonicFormat
from .qwen_xml import QwenXmlFormat
from .react import ReactFormat
from .tool_tags import ToolTagsFormat
from .xlam import XlamFormat

__all__ = [
    "ALL_FORMATS",
    "Candidate",
    "ScanContext",
    "ToolCallFormat",
    "available_formats",
    "get_formats",
    "normalise_name",
]

#: Every known format, in the order they are tried (stable sort by priority).
ALL_FORMATS: tuple[ToolCallFormat, ...] = tuple(
    sorted(
        [
            JsonTextFormat(),
            HermesFormat(),
            MistralFormat(),
            LlamaFormat(),
            PythonicFormat(),
            QwenXmlFormat(),
            ReactFormat(),
            DeepSeekFormat(),
            SpecScanner(ALL_SPECS),
            KimiFormat(),
            HarmonyFormat(),
            GemmaFormat(),
            GraniteFormat(),
            FunctionaryFormat(),
            XlamFormat(),
            ToolTagsFormat(),
        ],
        key=lambda f: f.priority,
    )
)


def available_formats() -> list[str]:
    """Names of the formats toolfix recognises, in detection order."""
    names: list[str] = []
    for f in ALL_FORMATS:
        names.extend(f.spec_names if isinstance(f, SpecScanner) else [f.name])
    return names


def get_formats(
    names: Iterable[str] | None = None, custom: Iterable[FormatSpec] = ()
) -> tuple[ToolCallFormat, ...]:
    """The formats to try: all of them, or the pinned ``names`` (generic JSON always last),
    with the ``custom`` declared families read in the same pass as the built-in ones."""
    extra = tuple(custom)
    if extra:
        clash = {s.name for s in extra} & set(available_formats())
        if clash or len({s.name for s in extra}) < len(extra):
            raise ConfigurationError(
                f"custom format name(s) {sorted(clash) or 'repeated'} clash with the known "
                f"formats {available_formats()} or with each other"
            )
        mine = {s.name for s in extra}
        rest = None if names is None else set(names) - mine
        base = get_formats(rest) if rest is None or rest else ()
        specs = [s for f in base if isinstance(f, SpecScanner) for s in f.specs]
        others = [f for f in base if not isinstance(f, SpecScanner)]
        merged: list[ToolCallFormat] = [SpecScanner((*specs, *extra)), *others]
        return tuple(sorted(merged, key=lambda f: f.priority))
    if names is None:
        return ALL_FORMATS
    wanted = set(names)
    unknown = wanted - set(available_formats())
    if unknown:
        raise ConfigurationError(
            f"unknown format(s) {sorted(unknown)}; known: {available_formats()}"
        )
    out: list[ToolCallFormat] = []
    for f in ALL_FORMATS:
        if isinstance(f, SpecScanner):
            specs = [s for s in f.specs if s.name in wanted]
            if specs:
                out.append(SpecScanner(specs))
        elif f.name in wanted:
            out.append(f)
    return tuple(out)
