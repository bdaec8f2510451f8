"""Every declared family, one spec each (docs/formats.md has the table).

Adding a family: declare a :class:`~toolfix._repair.spec.FormatSpec` in a module here,
with the source that defines the markup, add it to :data:`ALL_SPECS`, and add cases
from that source to ``benchmarks/corpora/conformance.jsonl``.
"""

from __future__ import annotations

from ..spec import FormatSpec
from . import hunyuan, json_sections, pythonic_sections
from .dsml import DSML
from .glm import GLM
from .kimi_k3 import KIMI_K3
from .minicpm import MINICPM
from .minimax import MINIMAX, MINIMAX_M3
from .seed import SEED_ATTRS
from .step3 import STEP3

__all__ = ["ALL_SPECS"]

ALL_SPECS: tuple[FormatSpec, ...] = (
    DSML,
    MINIMAX,
    MINIMAX_M3,
    STEP3,
    KIMI_K3,
    SEED_ATTRS,
    MINICPM,
    *hunyuan.SPECS,
    GLM,
    *json_sections.SPECS,
    *pythonic_sections.SPECS,
)
