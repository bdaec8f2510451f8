"""Every text of the tuned corpora, with the names of the tools its case offers: the
inputs of the tests that check a format or a scan over real outputs (import it rather
than reading the corpus files again)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "benchmarks" / "corpora"


def corpus_texts() -> list[tuple[str, frozenset[str]]]:
    """``(text, offered tool names)`` for each content and reasoning text of each case."""
    texts: list[tuple[str, frozenset[str]]] = []
    for path in sorted(CORPORA.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            names = frozenset(t["function"]["name"] for t in case["tools"])
            for key in ("content", "reasoning_content"):
                if case["response"].get(key):
                    texts.append((case["response"][key], names))
    return texts


def corpus_cases(path: str, prefix: str | tuple[str, ...]) -> list[dict[str, object]]:
    """The cases of the corpus file ``path`` (from the repository's root) whose ids
    start with ``prefix`` (one, or any of several): a class's public sources, read as
    the tests' parameters."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    return [c for c in map(json.loads, lines) if str(c["id"]).startswith(prefix)]
