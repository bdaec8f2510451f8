"""Benchmark reports: terminal table (rich), JSON, Markdown and a PNG chart."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

from .runner import BenchResult
from .score import Breakdown, StrategySummary

__all__ = [
    "README_END",
    "README_START",
    "describe_machine",
    "print_table",
    "readme_block",
    "replace_readme_block",
    "to_json",
    "to_markdown",
    "update_readme_block",
    "write_json",
    "write_markdown",
    "write_png",
]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _us(value: float) -> str:
    return f"{value:,.0f} µs" if value >= 10 else f"{value:.1f} µs"


_HEADERS = (
    "strategy",
    "exact",
    "lenient",
    "valid",
    "abstain",
    "false",
    "intent",
    "invalid",
    "LLM/case",
    "tok/case",
    "median",
    "p99",
)
#: The columns kept when the terminal is narrower than :data:`WIDE`.
_COMPACT = ("strategy", "exact", "abstain", "false", "intent", "invalid", "median")
WIDE = 120
"""Terminals at least this wide get every column; narrower ones the compact table."""
_LEGEND = (
    "exact/lenient: recovery over positive cases; valid: schema-valid rate; abstain: negatives "
    "with no call; false: calls produced on negatives; intent: intent-only cases scored right "
    "(n/a: a baseline that cannot tell an announced call from a plain answer); "
    "invalid: invalid calls reported; median/p99: repair time per case."
)
_COMPACT_LEGEND = (
    "exact: recovery over positive cases; abstain: negatives with no call; false: calls made "
    "on negatives; intent: intent-only cases right (n/a: baseline cannot tell); invalid: "
    "invalid calls reported; median: time per case. Breakdowns: exact % · false calls."
)


def _intent(s: StrategySummary) -> str:
    return f"{s.intent_correct}/{s.n_intent_only}" if s.scores_intent_only else "n/a"


def _row(s: StrategySummary) -> list[str]:
    n = s.n_cases or 1
    return [
        s.strategy,
        _pct(s.exact_rate),
        _pct(s.lenient_rate),
        _pct(s.schema_valid_rate),
        _pct(s.abstention_rate),
        str(s.false_calls),
        _intent(s),
        str(s.invalid_calls),
        f"{s.llm_calls / n:.2f}",
        f"{s.tokens / n:.0f}",
        _us(s.median_us),
        _us(s.p99_us),
    ]


def _cell(s: StrategySummary, b: Breakdown, *, compact: bool) -> str:
    if b.n_positive and b.n_negative:
        tail = "" if compact else " false"
        return f"{_pct(b.exact / b.n_positive)} · {b.false_calls}{tail}"
    if b.n_positive:
        return _pct(b.exact / b.n_positive)
    if b.n_negative:
        return f"{b.false_calls} false"
    if b.n_intent_only:
        if not s.scores_intent_only:
            return "n/a"
        return f"{b.intent_correct}/{b.n_intent_only}" + ("" if compact else " ok")
    return "—"


def _breakdown_rows(
    result: BenchResult, attr: str, *, compact: bool = False
) -> tuple[list[str], list[tuple[str, int, int, list[str]]]]:
    keys: list[str] = sorted({k for s in result.summaries for k in getattr(s, attr)})
    rows = []
    for key in keys:
        cells: list[str] = []
        n_pos = n_neg = 0
        for s in result.summaries:
            b: Breakdown = getattr(s, attr).get(key, Breakdown())
            n_pos, n_neg = b.n_positive, b.n_negative
            cells.append(_cell(s, b, compact=compact))
        rows.append((key, n_pos, n_neg, cells))
    return [s.strategy for s in result.summaries], rows


def _console() -> Console:
    from rich.console import Console

    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=80)  # piped or captured: the width of a plain terminal
    return console


def print_table(
    result: BenchResult, *, breakdowns: bool = True, console: Console | None = None
) -> None:
    """Print the headline table (and per-corpus, per-tag, per-format breakdowns) with rich.

    Below :data:`WIDE` columns the tables are compact (fewer columns, shorter cells) so
    that they fit an 80-column terminal.
    """
    from rich import box
    from rich.table import Table

    console = console or _console()
    compact = console.width < WIDE
    headers = _COMPACT if compact else _HEADERS
    keep = [_HEADERS.index(h) for h in headers]
    style = box.SIMPLE_HEAD if compact else box.HEAVY_HEAD
    table = Table(title=f"toolfix bench: {result.n_cases} cases", box=style)
    for h in headers:
        table.add_column(h, justify="left" if h == "strategy" else "right")
    for s in result.summaries:
        row = _row(s)
        table.add_row(*(row[i] for i in keep))
    console.print(table)
    console.print(_COMPACT_LEGEND if compact else _LEGEND, style="dim")
    if breakdowns:
        for attr, title in (
            ("by_corpus", "corpus"),
            ("by_tag", "failure tag"),
            ("by_format", "source format"),
        ):
            names, rows = _breakdown_rows(result, attr, compact=compact)
            caption = "exact % · false calls" if compact else "exact recovery / false calls"
            t = Table(title=f"{caption} by {title}", box=style)
            t.add_column(title)
            t.add_column("pos", justify="right")
            t.add_column("neg", justify="right")
            for n in names:
                t.add_column(n, justify="right")
            for key, n_pos, n_neg, cells in rows:
                t.add_row(key, str(n_pos), str(n_neg), *cells)
            console.print(t)
    for path, line, why in result.load_errors[:10]:
        console.print(f"[yellow]skipped {path}:{line}: {why}[/yellow]")


def to_json(result: BenchResult) -> dict[str, Any]:
    """The whole result as JSON-ready data."""
    return {
        "command": result.command,
        "corpora": result.corpora,
        "cases": result.n_cases,
        "machine": result.machine,
        "load_errors": [
            {"corpus": p, "line": line, "error": why} for p, line, why in result.load_errors
        ],
        "strategies": [s.as_dict() for s in result.summaries],
    }


def write_json(result: BenchResult, path: str | Path) -> None:
    Path(path).write_text(json.dumps(to_json(result), indent=2, ensure_ascii=False) + "\n", "utf-8")


def _md_table(headers: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out.extend("| " + " | ".join(r) + " |" for r in rows)
    return "\n".join(out)


def to_markdown(result: BenchResult) -> str:
    """A Markdown report: headline table, then per-tag and per-format tables."""
    parts = ["# toolfix bench", ""]
    if result.command:
        parts += [f"Command: `{result.command}`", ""]
    parts += [
        f"Corpora: {', '.join(f'`{c}`' for c in result.corpora)}; {result.n_cases} cases.",
        "",
        f"Machine: {describe_machine(result.machine)}.",
        "",
    ]
    parts.append(_md_table(list(_HEADERS), [_row(s) for s in result.summaries]))
    parts += ["", _LEGEND, ""]
    for attr, title in (
        ("by_corpus", "corpus"),
        ("by_tag", "failure tag"),
        ("by_format", "source format"),
    ):
        names, rows = _breakdown_rows(result, attr)
        parts += [
            f"## By {title}",
            "",
            "Exact recovery over positive cases; false calls over negative cases.",
            "",
        ]
        parts.append(
            _md_table(
                [title, "positives", "negatives", *names],
                [[k, str(p), str(n), *cells] for k, p, n, cells in rows],
            )
        )
        parts.append("")
    return "\n".join(parts)


def write_markdown(result: BenchResult, path: str | Path) -> None:
    Path(path).write_text(to_markdown(result), "utf-8")


#: Corpora of real model or engine output, shown first (what users decide on), then the
#: hand-made ones, then the generated one; other corpora follow by name.
CORPUS_ORDER = (
    "verbatim_threads",
    "verbatim_anchored",
    "verbatim_public",
    "prose_negatives",
    "conformance",
    "curated",
    "bfcl_generated",
)


def corpus_order(keys: Any) -> list[str]:
    """``keys`` (corpus names) in :data:`CORPUS_ORDER`, the others after them by name."""
    rank = {k: i for i, k in enumerate(CORPUS_ORDER)}
    return sorted(set(keys), key=lambda k: (rank.get(k, len(rank)), k))


def write_png(result: BenchResult, path: str | Path) -> None:
    """Two panels per corpus (real-output corpora first), one bar per strategy: exact
    recovery over the cases with calls (``exact/n`` on each bar), and the calls wrongly
    produced on the cases without (plain answers and unrecoverable cases)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summaries = result.summaries
    corpora = corpus_order(k for s in summaries for k in s.by_corpus)
    first = summaries[0].by_corpus if summaries else {}
    labels = [
        f"{_README_LABELS.get(k, k)}\n{first.get(k, Breakdown()).n_positive} with calls · "
        f"{first.get(k, Breakdown()).n_negative} without"
        for k in corpora
    ]
    n = max(1, len(summaries))
    height = 0.8 / n
    size = (13, 1.8 + 0.9 * max(1, len(corpora)))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=size, sharey=True, gridspec_kw={"width_ratios": [3, 2]}
    )
    ys = list(range(len(corpora)))
    for i, s in enumerate(summaries):
        at = [y + (i - (n - 1) / 2) * height for y in ys]
        cells = [s.by_corpus.get(k, Breakdown()) for k in corpora]
        rates = [100 * b.exact / b.n_positive if b.n_positive else 0.0 for b in cells]
        bars = left.barh(at, rates, height=height, label=s.strategy)
        left.bar_label(
            bars, [f"{b.exact}/{b.n_positive}" for b in cells], padding=2, fontsize="x-small"
        )
        false = [b.false_calls for b in cells]
        bars = right.barh(at, false, height=height, label=s.strategy)
        right.bar_label(bars, [str(f) for f in false], padding=2, fontsize="x-small")
    left.set_yticks(ys, labels, fontsize="small")
    left.invert_yaxis()  # the first corpus on top
    left.set_xlim(0, 112)
    left.set_xlabel("exact recovery of cases with calls (%)")
    right.set_xlabel("false calls on cases without calls (fewer is better)")
    most = max([1] + [b.false_calls for s in summaries for b in s.by_corpus.values()])
    right.set_xlim(0, most * 1.25)
    handles, names = left.get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", ncol=n, bbox_to_anchor=(0.5, 0.94))
    fig.suptitle(f"toolfix bench: {result.n_cases} cases, real model outputs first")
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    fig.savefig(str(path), dpi=120)
    plt.close(fig)


def describe_machine(machine: dict[str, Any] | None) -> str:
    """``"4 logical CPUs, CPython 3.11.9 on Linux x86_64"`` from a result's ``machine``."""
    if not machine:
        return "not recorded"
    cpus = machine.get("cpu_count")
    head = f"{cpus} logical CPUs" if cpus else "CPU count unknown"
    impl = machine.get("implementation") or "Python"
    where = " ".join(str(machine[k]) for k in ("system", "machine") if machine.get(k))
    return f"{head}, {impl} {machine.get('python', '?')}" + (f" on {where}" if where else "")


README_START = "<!-- bench-table -->"
README_END = "<!-- /bench-table -->"
_README_LABELS = {
    "bfcl_generated": "BFCL-generated",
    "verbatim_public": "verbatim public outputs",
    "verbatim_threads": "outputs pasted in 2025-26 threads",
    "verbatim_anchored": "outputs pasted in 2025-26 threads, second harvest",
    "prose_negatives": "prose naming tools and parameters, no call",
    "conformance": "engine tests and templates",
    "curated": "hand-curated",
}


def _readme_cell(b: dict[str, Any], bold: bool) -> str:
    text = f"{_pct(b.get('exact_rate'))} · {b.get('false_calls', 0)} false"
    return f"**{text}**" if bold else text


def readme_block(data: dict[str, Any]) -> str:
    """The README's benchmark block (between :data:`README_START` and :data:`README_END`,
    markers excluded) made from a ``bench.json`` (:func:`to_json`) and nothing else."""
    strategies = data["strategies"]
    labels = {
        "strict": "strict parsing",
        "json-repair": "json-repair alone",
        "toolfix": "toolfix (manual fixer)",
    }
    corpora = corpus_order(k for s in strategies for k in s["by_corpus"])
    first = strategies[0]["by_corpus"]
    rows = []
    for key in corpora:
        b0 = first.get(key, {})
        label = _README_LABELS.get(key, key)
        cells = [
            _readme_cell(s["by_corpus"].get(key, {}), s["strategy"] == "toolfix")
            for s in strategies
        ]
        rows.append(
            [f"{label} (`{key}`)", f"{b0.get('n_positive', 0)} / {b0.get('n_negative', 0)}", *cells]
        )
    headers = ["corpus", "cases with calls / without"] + [
        labels.get(s["strategy"], s["strategy"]) for s in strategies
    ]
    times = ", ".join(f"{s['strategy']} {_us(float(s['median_us']))}" for s in strategies)
    intent = "; ".join(
        f"{s['strategy']} {s['intent_only_correct']}/{s['intent_only']}"
        if s.get("intent_only_correct") is not None
        else f"{s['strategy']} n/a"
        for s in strategies
    )
    lines = [
        f"Made with `{data['command']}`",
        f"({data['cases']:,} cases, offline; machine: {describe_machine(data.get('machine'))}).",
        "Exact recovery over cases with calls · calls wrongly produced on plain answers and",
        "unrecoverable cases:",
        "",
        _md_table(headers, rows),
        "",
        f"Median time per case in that run (each case once, with a fresh tool registry): {times}.",
        f"Intent-only messages (no call, one announced; right = no call without an LLM): {intent}.",
        "Regenerate this block with `python benchmarks/readme_table.py` after updating",
        "`benchmarks/results/bench.json`.",
    ]
    return "\n".join(lines)


def replace_readme_block(
    readme: str, block: str, markers: tuple[str, str] = (README_START, README_END)
) -> str:
    """``readme`` with the text between ``markers`` (the bench-table ones by default)
    replaced by ``block``."""
    opener, closer = markers
    start = readme.index(opener) + len(opener)
    end = readme.index(closer, start)
    return readme[:start] + "\n" + block + "\n" + readme[end:]


def update_readme_block(
    readme: Path, block: str, markers: tuple[str, str], what: str, *, check: bool
) -> int:
    """Write ``block`` between ``markers`` in ``readme`` (or, with ``check``, only say
    whether it is stale: exit status 1). ``what`` names the block in the messages."""
    current = readme.read_text(encoding="utf-8")
    wanted = replace_readme_block(current, block, markers)
    if current == wanted:
        print(f"{readme}: {what} up to date")
        return 0
    if check:
        print(f"{readme}: {what} differs from its results; run {sys.argv[0]}")
        return 1
    readme.write_text(wanted, encoding="utf-8")
    print(f"{readme}: {what} rewritten from its results")
    return 0
