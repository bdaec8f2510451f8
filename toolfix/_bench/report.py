"""Benchmark reports: terminal table (rich), JSON, Markdown and a PNG chart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .runner import BenchResult
from .score import Breakdown, StrategySummary

__all__ = ["print_table", "to_json", "to_markdown", "write_json", "write_markdown", "write_png"]


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
_LEGEND = (
    "exact/lenient: recovery over positive cases; valid: schema-valid rate; abstain: negatives "
    "with no call; false: calls produced on negatives; intent: intent-only cases scored right; "
    "invalid: invalid calls reported; median/p99: repair time per case."
)


def _row(s: StrategySummary) -> list[str]:
    n = s.n_cases or 1
    return [
        s.strategy,
        _pct(s.exact_rate),
        _pct(s.lenient_rate),
        _pct(s.schema_valid_rate),
        _pct(s.abstention_rate),
        str(s.false_calls),
        f"{s.intent_correct}/{s.n_intent_only}",
        str(s.invalid_calls),
        f"{s.llm_calls / n:.2f}",
        f"{s.tokens / n:.0f}",
        _us(s.median_us),
        _us(s.p99_us),
    ]


def _breakdown_rows(
    result: BenchResult, attr: str
) -> tuple[list[str], list[tuple[str, int, int, list[str]]]]:
    keys: list[str] = sorted({k for s in result.summaries for k in getattr(s, attr)})
    rows = []
    for key in keys:
        cells: list[str] = []
        n_pos = n_neg = 0
        for s in result.summaries:
            b: Breakdown = getattr(s, attr).get(key, Breakdown())
            n_pos, n_neg = b.n_positive, b.n_negative
            if b.n_positive and b.n_negative:
                cells.append(f"{_pct(b.exact / b.n_positive)} · {b.false_calls} false")
            elif b.n_positive:
                cells.append(_pct(b.exact / b.n_positive))
            elif b.n_negative:
                cells.append(f"{b.false_calls} false")
            elif b.n_intent_only:
                cells.append(f"{b.intent_correct}/{b.n_intent_only} ok")
            else:
                cells.append("—")
        rows.append((key, n_pos, n_neg, cells))
    return [s.strategy for s in result.summaries], rows


def print_table(result: BenchResult, *, breakdowns: bool = True) -> None:
    """Print the headline table (and per-tag / per-format exact recovery) with rich."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=150)
    table = Table(title=f"toolfix bench: {result.n_cases} cases")
    for h in _HEADERS:
        table.add_column(h, justify="left" if h == "strategy" else "right")
    for s in result.summaries:
        table.add_row(*_row(s))
    console.print(table)
    console.print(_LEGEND, style="dim")
    if not breakdowns:
        return
    for attr, title in (
        ("by_corpus", "corpus"),
        ("by_tag", "failure tag"),
        ("by_format", "source format"),
    ):
        names, rows = _breakdown_rows(result, attr)
        t = Table(title=f"exact recovery (positives) / false calls (negatives) by {title}")
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


def write_png(result: BenchResult, path: str | Path) -> None:
    """A grouped bar chart of exact recovery per failure tag, one bar per strategy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tags = sorted({k for s in result.summaries for k, b in s.by_tag.items() if b.n_positive})
    labels = ["overall", *tags]
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(labels) + 2), 4.8))
    width = 0.8 / max(1, len(result.summaries))
    for i, s in enumerate(result.summaries):
        values = [100 * (s.exact_rate or 0.0)]
        for tag in tags:
            b = s.by_tag.get(tag, Breakdown())
            values.append(100 * b.exact / b.n_positive if b.n_positive else 0.0)
        xs = [x + i * width for x in range(len(labels))]
        ax.bar(xs, values, width=width, label=s.strategy)
    ax.set_xticks([x + width * (len(result.summaries) - 1) / 2 for x in range(len(labels))])
    ax.set_xticklabels(labels, rotation=45, ha="right")
    ax.set_ylabel("exact recovery (%)")
    ax.set_ylim(0, 118)
    ax.set_title(f"toolfix bench: exact recovery by failure tag ({result.n_cases} cases)")
    ax.legend(loc="upper right", ncol=len(result.summaries), fontsize="small")
    fig.tight_layout()
    fig.savefig(str(path), dpi=120)
    plt.close(fig)
