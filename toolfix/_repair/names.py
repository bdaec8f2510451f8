"""Tool-name repair: a name changes only in how it is written, never in its letters.

:func:`resolve_name` maps the name a model wrote onto a registry name only when the two
are the same word written differently (docs/design.md#the-admission-gate, rule G4):

1. the exact name;
2. a configured alias (``FixConfig.name_aliases``);
3. markup glued to the name by an engine parser (``tool_12</arg_value>``), removed, with
   the header word a harmony header token carries (``f<|channel|>commentary``);
4. the *normalised* name: ASCII letters lower-cased, a leading namespace prefix models
   emit (``functions.``, ``tools.``, ``default_api.``) removed, and the separators
   ``-``, ``_``, ``.`` and whitespace dropped. ``getWeather``, ``Get-Weather`` and
   ``functions.get_weather`` all normalise to ``getweather``.

Nothing else: a name that differs in its letters (``uninstall_package`` for
``install_package``, a typo, a look-alike letter from another script, a Kelvin sign
for a ``K``) is an unknown name, reported with the closest registry names (by edit
distance, for the LLM fixer's feedback only). Only ASCII letters are case-folded, so
no Unicode folding (NFKC, ``casefold``) can turn one letter into another. Each step must
give exactly one registry name; two registry names sharing a normal form give no
match. A returned name is always one of ``tool_names`` (docs/design.md#promise-4).

Names longer than :data:`MAX_NAME_CHARS` never match and no distance is computed for
them (bounded time).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .._messages import FailureKind, RepairRecord

__all__ = [
    "MAX_NAME_CHARS",
    "NAMESPACE_PREFIXES",
    "NameMatch",
    "looks_like_a_tool",
    "lower_keeping_offsets",
    "resolve_name",
]

MAX_NAME_CHARS = 200
"""Longest name (input or registry) that is normalised and compared."""

NAMESPACE_PREFIXES = ("functions.", "tools.", "default_api.")
"""Prefixes (compared after casefolding) that models put before a tool name."""

#: ``str.translate`` table dropping the separators ``-``, ``_`` and ``.``.
_NO_SEPARATORS = str.maketrans("", "", "-_.")
#: One markup tag: ``</arg_value>``, ``<tool_call>``, ``<|channel|>`` (no nested quantifier).
#: A harmony header token takes the header word written after it (``<|channel|>commentary``,
#: ``<|constrain|>json``): harmony puts the recipient first (``to=functions.f<|channel|>
#: commentary``), so a parser that splits there glues token and word to the name.
_TAG = re.compile(r"<\|(?:channel|constrain)\|>[A-Za-z]{0,20}|<\|?/?[A-Za-z_][\w:.-]{0,40}\|?>")
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
    """The comparison form of a tool name: ASCII letters lower-cased, no namespace
    prefix unless ``strip_prefix=False``, no separators (``-``, ``_``, ``.``,
    whitespace). Other characters are kept as they are: no Unicode folding."""
    text = name.strip().translate(_ASCII_LOWER)
    for prefix in NAMESPACE_PREFIXES if strip_prefix else ():
        if text.startswith(prefix) and len(text) > len(prefix):
            text = text[len(prefix) :]
            break
    # (``split()`` drops what ``str.isspace`` calls whitespace: one C pass each)
    return "".join(text.translate(_NO_SEPARATORS).split())


#: ``str.lower`` for ASCII letters only (``"K"`` KELVIN SIGN stays itself).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower_keeping_offsets(text: str) -> str | None:
    """``text.lower()`` with one character for each of ``text``'s, so an index into one
    is an index into the other; ``None`` if no such lowering exists. ``str.lower`` maps
    one character to two: ``"\u0130"`` (``İ``, dotted capital I) becomes ``"i\u0307"``.
    It is kept as itself (the prefilter that uses this compares runs of a name's
    letters, and a name is matched on the original text: rule G4, no Unicode folding).
    One ``str.lower`` pass; a second only for a text that holds ``İ``."""
    low = text.lower()
    if len(low) == len(text):
        return low
    low = "\u0130".join(part.lower() for part in text.split("\u0130"))
    return low if len(low) == len(text) else None


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


def resolve_name(
    name: str,
    tool_names: Sequence[str],
    *,
    aliases: Mapping[str, str] | None = None,
) -> NameMatch:
    """Map ``name`` to the registry name it is a way of writing (see the module docs).

    Args:
        name: The tool name the model wrote.
        tool_names: The registry's names.
        aliases: Configured aliases, alias to registry name (``FixConfig.name_aliases``).

    Returns:
        A :class:`NameMatch`; ``name`` is ``None`` or one of ``tool_names``.
    """
    names = list(dict.fromkeys(n for n in tool_names if isinstance(n, str)))
    if name in names:
        return NameMatch(name, None, ())
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        return NameMatch(None, None, ())
    if aliases:
        target = aliases.get(name)
        if target is not None and target in names:
            return NameMatch(target, _record(name, target, "configured alias"), (target,))
    # Markup tags glued to the name by an engine parser that split the call in the wrong
    # place ("tool_12</arg_value>", fireworks #119): the name without them, when exact
    # (or written differently only, below).
    bare = name
    if "<" in name:
        bare = _TAG.sub("", name).strip()
        if bare != name and bare in names:
            return NameMatch(bare, _record(name, bare, "markup tags in the name"), (bare,))
    norm = normalise_name(bare)
    comparable = [(n, normalise_name(n)) for n in names if len(n) <= MAX_NAME_CHARS]
    if norm:
        same = [n for n, n_norm in comparable if n_norm == norm]
        if len(same) == 1:
            target = same[0]
            folded = bare.strip().translate(_ASCII_LOWER)
            target_folded = target.translate(_ASCII_LOWER)
            why = (
                "namespace prefix"
                if any(
                    folded.startswith(p) and not target_folded.startswith(p)
                    for p in NAMESPACE_PREFIXES
                )
                else "case/separators"
            )
            if bare != name:
                why = f"markup tags in the name, {why}"
            return NameMatch(target, _record(name, target, why), candidates=(target,))
    return NameMatch(None, None, _closest(norm, comparable))


def _closest(norm: str, comparable: list[tuple[str, str]]) -> tuple[str, ...]:
    """The registry names nearest ``norm`` by edit distance, best first (feedback only:
    a name is never renamed to one of them). Far names stop early at ``bound + 1`` and
    keep registry order among themselves."""
    bound = max(3, len(norm) // 3)
    scored = sorted(
        (edit_distance(norm, n_norm, bound), i, n) for i, (n, n_norm) in enumerate(comparable)
    )
    return tuple(n for _, _, n in scored[:_MAX_CANDIDATES])


def looks_like_a_tool(name: str, tool_names: Sequence[str]) -> bool:
    """Is ``name`` a registry name written differently, or a near miss of one (edit
    distance at most 2, and at most a fifth of the name's length)? A *sign* that a
    text means a tool (the LLM fixer's intent precheck), never a rename: a near miss
    is not resolved (:func:`resolve_name`)."""
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        return False
    if resolve_name(name, tool_names).name is not None:
        return True
    norm = normalise_name(name)
    for n in tool_names:
        if isinstance(n, str) and len(n) <= MAX_NAME_CHARS:
            n_norm = normalise_name(n)
            allowed = min(2, int(0.2 * len(n_norm) + 1e-9))
            if allowed and edit_distance(norm, n_norm, allowed) <= allowed:
                return True
    return False


def _record(name: str, target: str, why: str) -> RepairRecord:
    return RepairRecord(
        kind=FailureKind.UNKNOWN_NAME.value,
        detail=f"renamed {name!r} to {target!r} ({why})",
    )
