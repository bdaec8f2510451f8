"""toolfix's logger: ``logging.getLogger("toolfix")``, silent unless the application
configures logging (a ``NullHandler``, as libraries do). DEBUG: one line per repaired
response; INFO: one line per call the LLM-based fixer makes (docs/guides/logging.md)."""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["log", "log_repair"]

log = logging.getLogger("toolfix")
log.addHandler(logging.NullHandler())


def log_repair(before: Any, after: Any) -> None:
    """The DEBUG line of one repaired response (the caller checks the level first)."""
    kinds = sorted({str(getattr(r.kind, "value", r.kind)) for r in after.all_repairs})
    log.debug(
        "repaired response %s: %d calls, %d invalid calls; repairs: %s",
        before.id or "-",
        len(after.tool_calls),
        len(after.invalid_tool_calls),
        ", ".join(kinds) or "none",
    )
