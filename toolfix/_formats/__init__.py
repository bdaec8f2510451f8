"""Native tool-call formats, one module per family, auto-detected by marker.

Adding a family: write ``toolfix/_formats/<family>.py`` with a
:class:`ToolCallFormat` subclass and add an instance to :data:`ALL_FORMATS`.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._errors import ConfigurationError
from ._base import Candidate, ScanContext, ToolCallFormat, normalise_name
from .deepseek import DeepSeekFormat
from .dsml import DsmlFormat
from .functionary import FunctionaryFormat
from .gemma import GemmaFormat
from .glm import GlmFormat
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
            DsmlFormat(),
            KimiFormat(),
            GlmFormat(),
            HarmonyFormat(),
            GemmaFormat(),
            GraniteFormat(),
            FunctionaryFormat(),
            XlamFormat(),
        ],
        key=lambda f: f.priority,
    )
)


def available_formats() -> list[str]:
    """Names of the formats toolfix recognises, in detection order."""
    return [f.name for f in ALL_FORMATS]


def get_formats(names: Iterable[str] | None = None) -> tuple[ToolCallFormat, ...]:
    """The formats to try: all of them, or the pinned ``names`` (generic JSON always last)."""
    if names is None:
        return ALL_FORMATS
    wanted = set(names)
    unknown = wanted - {f.name for f in ALL_FORMATS}
    if unknown:
        raise ConfigurationError(
            f"unknown format(s) {sorted(unknown)}; known: {available_formats()}"
        )
    return tuple(f for f in ALL_FORMATS if f.name in wanted)
