"""The family registry, public: every tool-call family toolfix reads, and the models whose
chat template opens the reasoning block in the prompt.

- :func:`families` lists every family in detection order (name, the parser names
  engines give it, its source, openers, closers, how values are written, what can
  overturn a call, reasoning delimiters); :func:`family` finds one by name or alias.
- :data:`PREFILLED_MODELS` and :func:`reasoning_prefilled_for` say when
  ``FixConfig(reasoning_prefilled=True)`` applies; append your own
  :class:`PrefilledModel` entries.

docs/formats.md and docs/guides/streaming.md describe them.
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

__all__ = [
    "PREFILLED_MODELS",
    "Family",
    "PrefilledModel",
    "families",
    "family",
    "reasoning_prefilled_for",
]
