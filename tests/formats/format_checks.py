"""Shared checks for the format scanner tests in tests/formats/.

Every format test extracts candidates from a text and compares them with what the model
meant. The invariants every scanner must keep (spans match ``raw``, candidates come in order
and do not overlap, the format's own name is set) are checked here once, so each test file
only says which candidate fields it compares.

Imported by bare name (``from format_checks import remaining``): pytest's default
"prepend" import mode puts the test file's directory on ``sys.path``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from op_count import assert_linear

from toolfix._config import Limits
from toolfix._repair.formats._base import Candidate, ScanContext, ToolCallFormat

MEGABYTE = 1_000_000
"""Size of the "huge input" tests: scanners must stay linear on inputs this large."""

Fields = tuple[object, ...]
"""The compared fields of one candidate, in the order a test file chose."""


def check_candidates(
    text: str,
    cands: Sequence[Candidate],
    *,
    fmt: str | None = None,
    explicit: bool | None = None,
    where: Callable[[Candidate], bool] | None = None,
) -> None:
    """Assert the invariants every scanner keeps on the candidates it found in ``text``.

    Always: each ``raw`` is its span of ``text`` and the candidates are in order without
    overlap. Optionally: each candidate's ``format`` is ``fmt``, its ``explicit`` flag is
    ``explicit``, and the extra predicate ``where`` holds for it.
    """
    pos = 0
    for c in cands:
        assert c.start >= pos, "candidates overlap or are out of order"
        assert c.raw == text[c.start : c.end]
        if fmt is not None:
            assert c.format == fmt
        if explicit is not None:
            assert c.explicit is explicit
        if where is not None:
            assert where(c), c
        pos = c.end


def remaining(
    text: str,
    cands: Sequence[Candidate],
    *,
    fmt: str | None = None,
    explicit: bool | None = None,
) -> str:
    """``text`` with every candidate span removed, after :func:`check_candidates`."""
    check_candidates(text, cands, fmt=fmt, explicit=explicit)
    out, pos = [], 0
    for c in cands:
        out.append(text[pos : c.start])
        pos = c.end
    out.append(text[pos:])
    return "".join(out)


def fields(cands: Sequence[Candidate], *names: str) -> list[Fields]:
    """The named attributes of each candidate, as one tuple per candidate."""
    return [tuple(getattr(c, n) for n in names) for c in cands]


@dataclass(frozen=True)
class FormatRunner:
    """``run(text)``: detect, extract, check the invariants, return fields and the rest.

    Every candidate must carry ``format_name`` and satisfy ``where`` (if given). The
    returned pair is (one tuple of ``names`` per candidate, the text without the
    candidate spans), so a test can compare a whole scan with one ``==``.
    """

    fmt: ToolCallFormat
    ctx: ScanContext
    format_name: str
    names: tuple[str, ...]
    where: Callable[[Candidate], bool] | None = field(default=None)

    def __call__(self, text: str, ctx: ScanContext | None = None) -> tuple[list[Fields], str]:
        """Scan ``text`` with ``ctx`` (default: the runner's) and check the result."""
        assert self.fmt.detect(text.__contains__)
        cands = self.fmt.extract(text, self.ctx if ctx is None else ctx)
        check_candidates(text, cands, fmt=self.format_name, where=self.where)
        return fields(cands, *self.names), remaining(text, cands)


def many_calls_ctx(tool_names: frozenset[str] = frozenset()) -> ScanContext:
    """A context whose call limit does not stop thousands of calls."""
    return ScanContext(tool_names=tool_names, limits=Limits(max_calls=10**6))


def megabyte_of(unit: str) -> str:
    """``unit`` repeated until the text is at least one megabyte long."""
    text = unit * -(-MEGABYTE // len(unit))
    assert len(text) >= MEGABYTE
    return text


def assert_many_calls_linear(
    fmt: ToolCallFormat,
    one: str,
    ctx: ScanContext,
    *,
    before: str = "",
    after: str = "",
) -> None:
    """``n`` copies of the call ``one`` (between ``before`` and ``after``) yield ``n``
    calls, and the reader's work grows linearly with ``n``: operations counted
    (:func:`op_count.assert_linear`, 1,500 and 6,000 calls), never timed."""

    def run(n: int) -> None:
        assert len(fmt.extract(before + one * n + after, ctx)) == n

    assert_linear(run)
