"""The ``bench`` and ``corpus generate`` commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from bench_cases import tiny_lines, write_tiny
from typer.testing import CliRunner

from toolfix._bench import runner
from toolfix._bench.cli import register
from toolfix._bench.runner import default_corpora


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    return write_tiny(tmp_path)


@pytest.fixture(name="tiny_lines")
def _tiny_lines() -> list[dict[str, Any]]:
    return tiny_lines()


@pytest.fixture
def app() -> typer.Typer:
    a = typer.Typer()

    @a.callback()
    def _root() -> None:
        """root"""

    register(a)
    return a


def test_bench_writes_reports(app: typer.Typer, tiny_corpus: Path, tmp_path: Path) -> None:
    out_json, out_md, out_png = tmp_path / "b.json", tmp_path / "b.md", tmp_path / "b.png"
    result = CliRunner().invoke(
        app,
        [
            "bench",
            str(tiny_corpus),
            "--quiet",
            "--json",
            str(out_json),
            "--markdown",
            str(out_md),
            "--png",
            str(out_png),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "toolfix" in result.output
    assert f"chart: {out_png.resolve()}" in result.output
    data = json.loads(out_json.read_text())
    assert data["cases"] == 7
    by = {s["strategy"]: s for s in data["strategies"]}
    assert by["toolfix"]["exact_recovery"] == 1.0
    assert by["strict"]["exact_recovery"] == 0.5
    assert by["toolfix"]["false_calls"] == 0
    assert by["toolfix"]["intent_only"] == 1
    assert by["toolfix"]["intent_only_correct"] == 1
    assert "parallel" in by["toolfix"]["by_tag"]
    md = out_md.read_text()
    assert md.startswith("# toolfix bench")
    assert "| toolfix | 100.0% |" in md
    assert out_png.read_bytes()[:4] == b"\x89PNG"


def test_bench_llm_without_litellm_names_the_extra(
    app: typer.Typer, tiny_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # as if the extra were not installed
    result = CliRunner().invoke(app, ["bench", str(tiny_corpus), "--llm", "x/y", "--quiet"])
    assert result.exit_code == 2
    assert 'pip install "toolfix[litellm]"' in result.output


def test_bench_without_matplotlib_names_the_extra(
    app: typer.Typer, tiny_corpus: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["bench", str(tiny_corpus), "--quiet"])
    assert result.exit_code == 2
    assert 'pip install "toolfix[bench]"' in result.output
    # the chart is the only thing that needs matplotlib
    result = CliRunner().invoke(app, ["bench", str(tiny_corpus), "--quiet", "--no-png"])
    assert result.exit_code == 0, result.output
    assert "chart:" not in result.output


def test_bench_makes_the_chart_by_default(
    app: typer.Typer, tiny_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    work, temp = tmp_path / "clone", tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    result = CliRunner().invoke(app, ["bench", str(tiny_corpus), "--quiet", "--no-breakdowns"])
    assert result.exit_code == 0, result.output
    chart = temp / "toolfix-bench.png"  # the temporary directory, printed
    assert chart.read_bytes()[:4] == b"\x89PNG"
    assert f"chart: {chart.resolve()}" in result.output
    assert list(work.iterdir()) == []  # the current directory (a clone) stays clean


def test_bench_chart_path_that_cannot_be_written(
    app: typer.Typer, tiny_corpus: Path, tmp_path: Path
) -> None:
    target = tmp_path / "no-such-dir" / "chart.png"
    result = CliRunner().invoke(app, ["bench", str(tiny_corpus), "--quiet", "--png", str(target)])
    assert result.exit_code == 1
    assert "--no-png" in result.output
    assert "toolfix bench: 7 cases" in result.output  # the table came first


def test_bench_table_fits_80_columns(app: typer.Typer, tiny_corpus: Path) -> None:
    result = CliRunner().invoke(
        app, ["bench", str(tiny_corpus), "--quiet", "--no-png"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    strict = next(line for line in lines if line.strip().startswith("strict"))
    toolfix_row = next(
        line for line in lines if line.split()[:1] == ["toolfix"] and "bench:" not in line
    )
    assert "n/a" in strict.split()  # a baseline cannot express an intent-only case
    assert "1/1" in toolfix_row.split()


def test_bench_table_wide_terminal_has_every_column(app: typer.Typer, tiny_corpus: Path) -> None:
    result = CliRunner().invoke(
        app, ["bench", str(tiny_corpus), "--quiet", "--no-png"], env={"COLUMNS": "160"}
    )
    assert result.exit_code == 0, result.output
    assert "lenient" in result.output
    assert "p99" in result.output


def test_bench_missing_file(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["bench", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2
    assert "not found" in result.output


def test_default_corpora_from_an_installed_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = tmp_path / "pkg"
    packaged.mkdir()
    (packaged / "b.jsonl").write_text("")
    (packaged / "a.jsonl").write_text("")
    (packaged / "SOURCES.md").write_text("")
    monkeypatch.setattr(runner, "SOURCE_CORPORA", tmp_path / "no-checkout")
    monkeypatch.setattr(runner, "PACKAGED_CORPORA", packaged)
    assert default_corpora() == [packaged / "a.jsonl", packaged / "b.jsonl"]


def test_default_corpora_in_a_checkout_are_the_committed_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The committed copy wins over a stray packaged copy, and the working directory
    plays no part."""
    for decoy in (tmp_path / "benchmarks" / "corpora", tmp_path / "pkg"):
        decoy.mkdir(parents=True)
        (decoy / "decoy.jsonl").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "PACKAGED_CORPORA", tmp_path / "pkg")
    found = default_corpora()
    assert [p.name for p in found] == [
        "bfcl_generated.jsonl",
        "conformance.jsonl",
        "curated.jsonl",
        "prose_negatives.jsonl",
        "verbatim_anchored.jsonl",
        "verbatim_public.jsonl",
        "verbatim_threads.jsonl",
    ]
    assert all(p.parent == runner.SOURCE_CORPORA for p in found)


def test_no_corpora_anywhere_is_a_clear_error(
    app: typer.Typer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "SOURCE_CORPORA", tmp_path / "a")
    monkeypatch.setattr(runner, "PACKAGED_CORPORA", tmp_path / "b")
    result = CliRunner().invoke(app, ["bench", "--quiet", "--no-png"])
    assert result.exit_code == 2
    assert "no bundled corpora" in result.output


def test_corpus_generate_command(app: typer.Typer, tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    out = tmp_path / "gen.jsonl"
    args = ["corpus", "generate", "--seed", "0", "--max-cases", "20", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "wrote 20 cases" in result.output
    assert "skipped" in result.output
    first = out.read_bytes()
    assert len(first.splitlines()) == 20
    assert CliRunner().invoke(app, args).exit_code == 0
    assert out.read_bytes() == first
