"""The README's benchmark block is what ``benchmarks/readme_table.py`` makes from the
committed ``benchmarks/results/bench.json``, and it states only what that file holds."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from toolfix._bench.report import README_END, README_START, readme_block, replace_readme_block

ROOT = Path(__file__).resolve().parents[2]
BENCH_JSON = ROOT / "benchmarks" / "results" / "bench.json"
README = ROOT / "README.md"


def _block(readme: str) -> str:
    return readme.split(README_START, 1)[1].split(README_END, 1)[0].strip("\n")


def test_readme_block_is_generated_from_the_committed_bench_json() -> None:
    data = json.loads(BENCH_JSON.read_text(encoding="utf-8"))
    assert _block(README.read_text(encoding="utf-8")) == readme_block(data)


def test_the_block_states_the_recorded_machine_and_figures() -> None:
    data = json.loads(BENCH_JSON.read_text(encoding="utf-8"))
    data["machine"] = {"cpu_count": 64, "python": "3.13.1", "implementation": "CPython"}
    data["cases"] = 12345
    block = readme_block(data)
    assert "64 logical CPUs, CPython 3.13.1" in block
    assert "12,345 cases" in block
    assert not re.search(r"\d+-core", block)
    del data["machine"]
    assert "machine: not recorded" in readme_block(data)


def test_check_mode_fails_on_a_stale_block(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "readme_table.py"
    stale = tmp_path / "README.md"
    stale.write_text(f"intro\n{README_START}\nold figures\n{README_END}\noutro\n", "utf-8")
    args = [sys.executable, str(script), "--readme", str(stale), "--json", str(BENCH_JSON)]
    check = subprocess.run([*args, "--check"], capture_output=True, text=True, check=False)
    assert check.returncode == 1, check.stdout
    assert "old figures" in stale.read_text("utf-8")
    subprocess.run(args, capture_output=True, text=True, check=True)
    data = json.loads(BENCH_JSON.read_text(encoding="utf-8"))
    text = stale.read_text("utf-8")
    assert text == replace_readme_block(
        f"intro\n{README_START}\nx\n{README_END}\noutro\n", readme_block(data)
    )
    assert text.startswith("intro\n")
    assert text.endswith("outro\n")
    check = subprocess.run([*args, "--check"], capture_output=True, text=True, check=False)
    assert check.returncode == 0
