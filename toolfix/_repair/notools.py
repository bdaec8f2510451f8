"""``repair(text, [])``: no tools were offered, so no call is taken, but markup that
names tools is never passed over in silence (docs/guides/ids.md#no-tools)."""

from __future__ import annotations

from .._messages import FailureKind, RepairRecord
from .interpret import Interpreter
from .textscan import TextScanner

__all__ = ["no_tools_note"]


def no_tools_note(
    scanner: TextScanner, interp: Interpreter, text: str, seed: str
) -> RepairRecord | None:
    """A response-level record when ``text`` holds tool-call markup although no tools
    were offered (the text stays as it is: nothing can be validated, nothing is run)."""
    calls, _ = scanner.scan(text, interp, seed)
    if not calls:
        return None
    names = sorted({c.name for c in calls if c.name})
    named = f" naming {', '.join(names)}" if names else ""
    return RepairRecord(
        kind=FailureKind.UNKNOWN_NAME,
        detail=f"no tools were offered: the text holds {len(calls)} tool call(s) in "
        f"markup{named}; left in the text, nothing taken",
    )
