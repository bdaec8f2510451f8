"""Tool-call formats: the family registry, and how to declare a family of your own.

    >>> from toolfix.formats import available_formats, family
    >>> "hermes" in available_formats()
    True
    >>> family("qwen3_coder").name  # the parser names engines use are aliases
    'qwen_xml'

- :func:`families` lists every family in detection order (name, the parser names
  engines give it, its source, openers, closers, how values are written, what can
  overturn a call, reasoning delimiters); :func:`family` finds one by name or alias.
- :data:`PREFILLED_MODELS` and :func:`reasoning_prefilled_for` say when
  ``FixConfig(reasoning_prefilled=True)`` applies; append your own
  :class:`PrefilledModel` entries.
- A family of your own is a :class:`FormatSpec` passed in
  ``FixConfig(custom_formats=...)`` (docs/formats.md#adding-a-family).
"""

from __future__ import annotations

from ._repair.families import (
    PREFILLED_MODELS,
    Family,
    PrefilledModel,
    families,
    family,
    reasoning_prefilled_for,
)
from ._repair.formats import available_formats
from ._repair.spec import FormatSpec, JsonSection, KeyValueCalls, TaggedCalls, TagSyntax

__all__ = [
    "PREFILLED_MODELS",
    "Family",
    "FormatSpec",
    "JsonSection",
    "KeyValueCalls",
    "PrefilledModel",
    "TagSyntax",
    "TaggedCalls",
    "available_formats",
    "families",
    "family",
    "reasoning_prefilled_for",
]
