"""The ``toolfix bench`` and ``toolfix corpus generate`` commands (see :func:`register`)."""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from .._cli_options import ApiBaseOption, LlmOption

__all__ = ["default_png", "register", "require_bench_extra"]


def default_png() -> Path:
    """Where ``toolfix bench`` puts its chart unless told otherwise (``--png``,
    ``--no-png``): the temporary directory, never the current one (a run in a clone
    leaves it clean); the command prints the path."""
    return Path(tempfile.gettempdir()) / "toolfix-bench.png"


BENCH_EXTRA = 'pip install "toolfix[bench]"'


def require_bench_extra(*, chart: bool = True) -> None:
    """Exit with the install command when a package of the bench extra is missing."""
    import importlib

    needed = ["rich"] + (["matplotlib"] if chart else [])
    for module in needed:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            typer.echo(f"error: toolfix bench needs {module}: {BENCH_EXTRA}", err=True)
            raise typer.Exit(2) from exc


def _progress_runner(
    paths: list[Path],
    llm: str | None,
    api_base: str | None,
    concurrency: int,
    limit: int | None,
    quiet: bool,
) -> object:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from .runner import load_all, run_bench
    from .strategies import LLMStrategy, LLMUnavailableError, Strategy, default_strategies

    strategies: list[Strategy] = default_strategies()
    if llm is not None:
        try:
            strategies.append(LLMStrategy(llm, api_base))
        except LLMUnavailableError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
    cases, _ = load_all(paths)
    total = len(cases) if limit is None else min(limit, len(cases))
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        transient=True,
        disable=quiet,
    ) as progress:
        tasks = {s.name: progress.add_task(s.name, total=total) for s in strategies}

        def advance(name: str, n: int) -> None:
            progress.advance(tasks[name], n)

        return run_bench(paths, strategies, concurrency=concurrency, progress=advance, limit=limit)


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def bench(
    corpora: Annotated[
        list[Path] | None,
        typer.Argument(metavar="CORPUS.jsonl", show_default=False, hidden=True),
    ] = None,
    llm: LlmOption = None,
    api_base: ApiBaseOption = None,
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency", min=1, metavar="N", help="Cases in flight for LLM strategies."
        ),
    ] = 8,
    json_path: Annotated[
        Path | None, typer.Option("--json", metavar="FILE", help="Write JSON results here.")
    ] = None,
    markdown_path: Annotated[
        Path | None,
        typer.Option("--markdown", metavar="FILE", help="Write a Markdown report here."),
    ] = None,
    png_path: Annotated[
        Path | None,
        typer.Option(
            "--png",
            metavar="FILE",
            help="Where the chart (PNG) goes; default: toolfix-bench.png in the temporary "
            "directory (printed).",
            show_default=False,
        ),
    ] = None,
    no_png: Annotated[bool, typer.Option("--no-png", help="Do not make the chart.")] = False,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, metavar="N", help="Only the first N cases.")
    ] = None,
    breakdowns: Annotated[
        bool, typer.Option("--breakdowns/--no-breakdowns", help="Per-tag and per-format tables.")
    ] = True,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Run repair strategies side by side on broken-tool-call corpora and score them.

    CORPUS.jsonl: corpus files (default: the corpora bundled with toolfix).
    """
    require_bench_extra(chart=not no_png)
    from .report import print_table, write_json, write_markdown, write_png
    from .runner import PACKAGED_CORPORA, SOURCE_CORPORA, BenchResult, default_corpora

    paths = list(corpora or default_corpora())
    if not paths:
        typer.echo(
            f"error: no corpus given and no bundled corpora found in {PACKAGED_CORPORA} "
            f"or {SOURCE_CORPORA} (a broken install? pass corpus files)",
            err=True,
        )
        raise typer.Exit(2)
    for p in paths:
        if not p.is_file():
            typer.echo(f"error: corpus file not found: {p}", err=True)
            raise typer.Exit(2)
    result = _progress_runner(paths, llm, api_base, concurrency, limit, quiet)
    assert isinstance(result, BenchResult)  # noqa: S101 - narrows the lazily imported type
    result.corpora = [_display(p) for p in paths]
    result.command = "toolfix " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    print_table(result, breakdowns=breakdowns)
    if json_path is not None:
        write_json(result, json_path)
    if markdown_path is not None:
        write_markdown(result, markdown_path)
    if not no_png:
        png_path = png_path or default_png()
        try:
            write_png(result, png_path)
        except OSError as exc:
            typer.echo(
                f"error: cannot write the chart to {png_path} ({exc}); pass --png PATH or --no-png",
                err=True,
            )
            raise typer.Exit(1) from exc
        typer.echo(f"chart: {png_path.resolve()}")


def generate(
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="Output JSONL file.")] = Path(
        "benchmarks/corpora/bfcl_generated.jsonl"
    ),
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="Random seed (same seed, same file).")
    ] = 0,
    max_cases: Annotated[
        int | None,
        typer.Option(
            "--max-cases", min=1, metavar="N", help="Keep at most N cases (seeded sample)."
        ),
    ] = None,
) -> None:
    """Generate the broken-tool-call corpus from BFCL ground truth (needs bfcl-eval)."""
    from .generate import generate as run_generate
    from .generate import write_corpus

    try:
        result = run_generate(seed=seed, max_cases=max_cases)
    except RuntimeError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    write_corpus(result, out)
    skipped = sum(result.load_report.skipped.values())
    typer.echo(
        f"wrote {len(result.lines)} cases to {out} "
        f"(BFCL entries read: {sum(result.load_report.read.values())}, skipped: {skipped})"
    )
    for reason, count in sorted(result.load_report.skipped.items()):
        example = result.load_report.examples.get(reason, "")
        typer.echo(f"  skipped {count}: {reason} (e.g. {example})")


def register(app: typer.Typer) -> None:
    """Add ``bench`` and the ``corpus`` sub-app (``generate``) to the main CLI."""
    app.command("bench", short_help="Benchmark repair strategies on broken-call corpora.")(bench)
    corpus_app = typer.Typer(help="Broken-tool-call corpora.", no_args_is_help=True)
    corpus_app.command("generate")(generate)
    app.add_typer(corpus_app, name="corpus")
