"""Settings of the manual fixer: key aliases, limits, pinned formats, repair policy.

>>> from toolfix.config import FixConfig, Limits
>>> FixConfig(limits=Limits(max_repair_chars=10_000)).limits.max_repair_chars
10000
"""

from __future__ import annotations

from ._config import FixConfig, Limits, ToolCallJsonConfig

__all__ = ["FixConfig", "Limits", "ToolCallJsonConfig"]
