"""The ``bench`` and ``corpus generate`` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from bench_cases import tiny_lines, write_tiny
from typer.testing import CliRunner

import toolfix
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


def test_bench_llm_unavailable_is_a_clear_error(
    app: typer.Typer, tiny_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(toolfix, "LLMBasedToolCallFixProcessor", raising=False)
    result = CliRunner().invoke(app, ["bench", str(tiny_corpus), "--llm", "x/y", "--quiet"])
    assert result.exit_code == 2
    assert "LLMBasedToolCallFixProcessor" in result.output


def test_bench_missing_file(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["bench", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2
    assert "not found" in result.output


def test_default_corpora_from_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "benchmarks" / "corpora"
    folder.mkdir(parents=True)
    (folder / "b.jsonl").write_text("")
    (folder / "a.jsonl").write_text("")
    assert default_corpora(tmp_path) == [folder / "a.jsonl", folder / "b.jsonl"]


def test_default_corpora_next_to_source(tmp_path: Path) -> None:
    found = default_corpora(tmp_path)  # nothing in tmp_path: falls back to the checkout
    assert found
    assert all(p.parent.name == "corpora" for p in found)


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
