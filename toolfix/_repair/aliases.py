"""The names users already know for toolfix's format families: the tool-call parser
names of vLLM and SGLang (``--tool-call-parser``) and names toolfix itself used before
(the bench's ``seed_oss``).

A view on the family registry (:mod:`.families`, each family's ``aliases``), read by
``toolfix formats``, ``toolfix repair --format`` and the bench's format labels
(:func:`resolve_format`); the table itself is written once, there.
"""

from __future__ import annotations

from collections.abc import Mapping

from .families import families

__all__ = ["FORMAT_ALIASES", "aliases_of", "resolve_format"]


def _key(name: str) -> str:
    """``name`` as compared: without regard to case, ``-`` and ``_``."""
    return name.strip().lower().replace("-", "_")


#: family name -> the other names it answers to (a family's own name left out).
FORMAT_ALIASES: Mapping[str, tuple[str, ...]] = {
    f.name: tuple(a for a in f.aliases if a != f.name) for f in families() if f.aliases
}


def aliases_of(family: str) -> tuple[str, ...]:
    """The other names of ``family`` (none for a family without any)."""
    return FORMAT_ALIASES.get(family, ())


def resolve_format(name: str, known: list[str]) -> str | None:
    """The family ``name`` stands for (itself, or the family it is an alias of), or
    ``None`` when it names none of ``known``."""
    key = _key(name)
    for family in known:
        if key == _key(family):
            return family
    for family, names in FORMAT_ALIASES.items():
        if family in known and any(key == _key(a) for a in names):
            return family
    return None
