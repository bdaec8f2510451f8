"""``StrEnum``: an enum whose members are strings and print as their values.

The standard library has ``enum.StrEnum`` from Python 3.11 on; this is the same class
for every supported Python (3.10 included), written the way the standard library's is:
a ``str`` mixin whose ``str()`` and ``format()`` are the value's.
"""

from __future__ import annotations

import enum

__all__ = ["StrEnum"]


class StrEnum(str, enum.Enum):
    """Members are ``str`` instances: ``Kind.X == "x"``, ``str(Kind.X) == "x"``,
    ``f"{Kind.X}" == "x"`` and JSON output is the value."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, format_spec: str) -> str:
        return str.__format__(self, format_spec)
