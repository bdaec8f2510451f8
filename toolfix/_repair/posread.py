"""The schema-anchored reader's positional call: an offered tool's placed name, then
``("value")`` (``invoke read_file("gradle.properties")`` in a ``<tool_calls>`` wrapper:
devoxx/DevoxxGenieIDEAPlugin issue 1288), read by the pythonic walker
(:func:`~toolfix._repair.formats.pythonic.parse_call`, no evaluation) and bound by
:mod:`toolfix._repair.positional`'s rule only; a lone object that holds the tool's one
required parameter is the arguments object (``exec({"command": "pwd", "description":
"…"})``: openclaw/openclaw issue 41297), its undeclared keys kept."""

from __future__ import annotations

from typing import Any

from .._errors import ToolfixError
from .formats import ScanContext
from .formats.pythonic import parse_call
from .jsonparse import ScanReads
from .positional import KIND
from .text import find_bracket_end

__all__ = ["by_position"]


def by_position(
    text: str, open_at: int, stop: int, name: str, ctx: ScanContext, reads: ScanReads | None
) -> tuple[dict[str, Any], int, tuple[tuple[str, str], ...]] | None:
    """For ``text[open_at] == "("`` right after tool ``name``: the arguments bound from
    the one value written by position, where the ``)`` closing them ends, and the
    repairs to record; ``None`` when the brackets are not closed before ``stop``, or
    the call is not one value the tool's declaration binds."""
    span = find_bracket_end(text, open_at, ctx.limits, reads=reads)
    if span.truncated or span.end > stop:
        return None  # (cut off, or reaching into the next call)
    try:
        call = parse_call(name + text[open_at : span.end], ctx.limits, ctx.lone_param, objects=True)
    except ToolfixError:
        return None
    if call is None or call.arguments is None:
        return None
    if not any(kind == KIND for kind, _ in call.notes):
        return None  # (keywords: the anchored reader's own run reads those)
    return call.arguments, span.end, call.notes  # (a ReadArguments: G3's evidence kept)
