"""Promise 7 at process level: ``toolfix repair --jsonl`` prints the same lines
(``elapsed_us`` aside) across runs and across hash seeds."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import repair_jsonl_in_subprocess

CORPUS = Path(__file__).parent / "data" / "small_corpus.jsonl"
_CACHE: dict[str, list[dict[str, Any]]] = {}


def _run(hashseed: str) -> list[dict[str, Any]]:
    if hashseed in _CACHE and hashseed != "random":
        return _CACHE[hashseed]
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    stdout = repair_jsonl_in_subprocess(CORPUS, env)
    rows = [json.loads(line) for line in stdout.splitlines()]
    for row in rows:
        assert isinstance(row.pop("elapsed_us"), int)
    _CACHE[hashseed] = rows
    return rows


def test_output_is_complete() -> None:
    rows = _run("0")
    assert len(rows) == len([ln for ln in CORPUS.read_text("utf-8").splitlines() if ln.strip()])
    assert any(r["tool_calls"] for r in rows)  # the comparison below is not vacuous


@pytest.mark.parametrize("seed", ["1", "random", "12345"])
def test_same_output_across_hash_seeds(seed: str) -> None:
    assert _run(seed) == _run("0")
