"""Tool-name repair: map a near-miss name onto the one registry name it clearly means.

:func:`resolve_name` tries, in order:

1. the exact name;
2. the *normalised* name: Unicode NFKC, casefolded, a leading namespace prefix
   models emit (``functions.``, ``tools.``, ``default_api.``) removed, and the
   separators ``-``, ``_``, ``.`` and whitespace dropped. ``getWeather``,
   ``Get-Weather`` and ``functions.get_weather`` all normalise to
   ``getweather``;
3. edit distance between normalised forms: optimal string alignment
   (Damerau-Levenshtein restricted so that no substring is edited twice; one
   adjacent transposition costs 1). A registry name is in reach when its
   distance is at most ``max_distance`` **and** at most
   ``floor(max_ratio * len(normalised registry name))``; there is no minimum
   of 1, so short names (``ab`` vs ``ac``) never resolve through distance
   with the default ratio 0.2 (a 10-letter name allows 2, a 5-letter one 1).

Each step must give exactly one registry name; two registry names sharing a
normal form, or tied at the best distance, give no match. A returned name is
always one of ``tool_names`` (docs/design.md#promise-4).

NFKC folds compatibility characters (full-width letters, ligatures) but not
look-alike letters from other scripts: a Cyrillic ``е`` in ``gеt_weather``
is a different letter. Such a name can only resolve through edit distance,
and the repair detail then names the non-ASCII characters involved.

Names longer than :data:`MAX_NAME_CHARS` never match and no distance is
computed for them (bounded time).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .._messages import FailureKind, RepairRecord

__all__ = ["MAX_NAME_CHARS", "NAMESPACE_PREFIXES", "NameMatch", "resolve_name"]

MAX_NAME_CHARS = 200
"""Longest name (input or registry) that is normalised and compared."""

NAMESPACE_PREFIXES = ("functions.", "tools.", "default_api.")
"""Prefixes (compared after casefolding) that models put before a tool name."""

_SEPARATORS = frozenset("-_.")
#: One markup tag: ``</arg_value>``, ``<tool_call>``, ``<|channel|>`` (no nested quantifier).
_TAG = re.compile(r"<\|?/?[A-Za-z_][\w:.-]{0,40}\|?>")
_MAX_CANDIDATES = 5


@dataclass(frozen=True, slots=True)
class NameMatch:
    """The outcome of :func:`resolve_name`.

    Attributes:
        name: The registry name, or ``None`` when there is no unique close match.
        repair: An ``unknown_name`` record when ``name`` differs from the input.
        candidates: The nearest registry names, best first, at most five (empty
            for an exact match and for over-long names).
    """

    name: str | None
    repair: RepairRecord | None
    candidates: tuple[str, ...]


def normalise_name(name: str, *, strip_prefix: bool = True) -> str:
    """The comparison form of a tool name (NFKC, casefold, no namespace prefix unless
    ``strip_prefix=False``, no separators)."""
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    for prefix in NAMESPACE_PREFIXES if strip_prefix else ():
        if text.startswith(prefix) and len(text) > len(prefix):
            text = text[len(prefix) :]
            break
    return "".join(ch for ch in text if ch not in _SEPARATORS and not ch.isspace())


def edit_distance(a: str, b: str, bound: int) -> int:
    """Optimal-string-alignment distance of ``a`` and ``b`` (``bound + 1`` when over ``bound``).

    Only the diagonal band ``|i - j| <= bound`` is computed (cells outside it are over
    ``bound`` anyway), with an early exit once a whole row is over ``bound``: at most
    O(len(a) * (2 * bound + 1)) steps.
    """
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    if a == b:
        return 0
    big = bound + 1
    m = len(b)
    prev2: list[int] = []
    prev = [min(j, big) for j in range(m + 1)]
    for i in range(1, len(a) + 1):
        cur = [big] * (m + 1)
        cur[0] = min(i, big)
        row_min = cur[0]
        for j in range(max(1, i - bound), min(m, i + bound) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, prev2[j - 2] + 1)
            cur[j] = min(best, big)
            row_min = min(row_min, cur[j])
        if row_min > bound:
            return big
        prev2, prev = prev, cur
    return prev[m]


def within_one_edit(a: str, b: str) -> bool:
    """``edit_distance(a, b, 1) <= 1``, read directly: equal, or one substitution, one
    insertion or deletion, or one swap of adjacent characters apart (the table costs
    microseconds; this compares the tails after the common head)."""
    if a == b:
        return True
    if len(a) > len(b):
        a, b = b, a
    n = len(a)
    if len(b) - n > 1:
        return False
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    if len(b) > n:  # one character more: the rest of ``b`` past it is the rest of ``a``
        return a[i:] == b[i + 1 :]
    return a[i + 1 :] == b[i + 1 :] or (
        i + 1 < n and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    )


def _allowed(registry_norm: str, max_distance: int, max_ratio: float) -> int:
    # The small epsilon keeps 0.2 * 10 == 2 despite binary floating point.
    return min(max_distance, int(max_ratio * len(registry_norm) + 1e-9))


def _non_ascii_note(name: str, target: str) -> str:
    odd = [ch for ch in dict.fromkeys(name) if ord(ch) > 127 and ch not in target]
    if not odd:
        return ""
    described = ", ".join(
        f"{ch!r} U+{ord(ch):04X} {unicodedata.name(ch, 'UNKNOWN')}" for ch in odd[:5]
    )
    return f"; look-alike non-ASCII characters: {described}"


def resolve_name(
    name: str,
    tool_names: Sequence[str],
    *,
    max_distance: int = 2,
    max_ratio: float = 0.2,
) -> NameMatch:
    """Map ``name`` to the one registry name it clearly means (see the module docs).

    Args:
        name: The tool name the model wrote.
        tool_names: The registry's names.
        max_distance: Largest edit distance accepted (after normalisation).
        max_ratio: Largest edit distance relative to the registry name's normalised length.

    Returns:
        A :class:`NameMatch`; ``name`` is ``None`` or one of ``tool_names``.
    """
    names = list(dict.fromkeys(n for n in tool_names if isinstance(n, str)))
    if name in names:
        return NameMatch(name, None, ())
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        return NameMatch(None, None, ())
    norm = normalise_name(name)
    comparable = [(n, normalise_name(n)) for n in names if len(n) <= MAX_NAME_CHARS]
    # A name written twice ("skills_listskills_list", a streaming-merge bug): unique,
    # unambiguous, and far beyond any edit-distance threshold.
    half = len(name) // 2
    if half and len(name) % 2 == 0 and name[:half] == name[half:] and name[:half] in names:
        return NameMatch(
            name[:half],
            RepairRecord(
                kind=FailureKind.UNKNOWN_NAME.value,
                detail=f"renamed {name!r} to {name[:half]!r} (name written twice)",
            ),
            (name[:half],),
        )

    # Markup tags glued to the name by an engine parser that split the call in the wrong
    # place ("tool_12</arg_value>", fireworks #119): the name without them, when exact.
    if "<" in name:
        bare = _TAG.sub("", name).strip()
        if bare != name and bare in names:
            return NameMatch(
                bare,
                RepairRecord(
                    kind=FailureKind.UNKNOWN_NAME.value,
                    detail=f"renamed {name!r} to {bare!r} (markup tags in the name)",
                ),
                (bare,),
            )

    # Distances to every registry name, for the candidate list (names are short); far
    # names stop early at ``bound + 1`` and keep registry order among themselves.
    bound = max(max_distance, 3, len(norm) // 3)
    scored = sorted(
        ((edit_distance(norm, n_norm, bound), i, n) for i, (n, n_norm) in enumerate(comparable)),
    )
    candidates = tuple(n for _, _, n in scored[:_MAX_CANDIDATES])
    if not norm:
        return NameMatch(None, None, candidates)

    same = [n for n, n_norm in comparable if n_norm == norm]
    if len(same) == 1:
        target = same[0]
        folded = unicodedata.normalize("NFKC", name).casefold().strip()
        target_folded = unicodedata.normalize("NFKC", target).casefold()
        why = (
            "namespace prefix"
            if any(
                folded.startswith(p) and not target_folded.startswith(p) for p in NAMESPACE_PREFIXES
            )
            else "case/separators"
        )
        return NameMatch(target, _record(name, target, why), candidates)
    if len(same) > 1:
        return NameMatch(None, None, candidates)

    in_reach = [
        (d, n) for d, _, n in scored if d <= _allowed(normalise_name(n), max_distance, max_ratio)
    ]
    if not in_reach:
        return NameMatch(None, None, candidates)
    best = in_reach[0][0]
    if sum(1 for d, _ in in_reach if d == best) > 1:
        return NameMatch(None, None, candidates)
    target = in_reach[0][1]
    why = f"edit distance {best}{_non_ascii_note(name, target)}"
    return NameMatch(target, _record(name, target, why), candidates)


def _record(name: str, target: str, why: str) -> RepairRecord:
    return RepairRecord(
        kind=FailureKind.UNKNOWN_NAME.value,
        detail=f"renamed {name!r} to {target!r} ({why})",
    )
