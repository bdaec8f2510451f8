"""Every ```python block in README.md and docs/ runs, so the examples cannot rot.

A block whose first line is ``# not-run`` is skipped (shown for reading only, e.g.
it needs a real model endpoint). Blocks in one page run in order in a shared
namespace, like a reader pasting them into one session; and every block runs on its
own too, in a fresh namespace, like a reader pasting only that one, unless its first
line is ``# continues`` (it says so to the reader, and then runs after the blocks
before it). A block whose first line is ``# Python 3.11+`` (and why) says so to the reader
too, and runs only there: on Python 3.10 it is not collected (not a skip: CI turns
skips into failures).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
CONTINUES = "# continues"
NEEDS_311 = "# Python 3.11+"


def _runs_here(block: str) -> bool:
    head = block.lstrip()
    if head.startswith("# not-run"):
        return False
    return sys.version_info >= (3, 11) or not head.startswith(NEEDS_311)


def _blocks(page: Path) -> list[str]:
    return [b for b in BLOCK.findall(page.read_text(encoding="utf-8")) if _runs_here(b)]


def _run(page: Path, i: int, src: str, namespace: dict[str, object]) -> None:
    code = compile(src, f"{page.relative_to(ROOT)}[block {i}]", "exec")
    exec(code, namespace)  # noqa: S102 - our own documentation, not model output


def _ident(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", [p for p in PAGES if _blocks(p)], ids=_ident)
def test_page_examples_run(page: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for i, src in enumerate(_blocks(page)):
        _run(page, i, src, namespace)


STANDALONE = [
    pytest.param(page, i, src, id=f"{_ident(page)}[block {i}]")
    for page in PAGES
    for i, src in enumerate(_blocks(page))
    if i > 0 and not src.lstrip().startswith(CONTINUES)  # block 0 runs alone above
]


@pytest.mark.parametrize(("page", "i", "src"), STANDALONE)
def test_block_runs_on_its_own(
    page: Path, i: int, src: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    _run(page, i, src, {"__name__": f"docs_{page.stem}_{i}"})


def test_private_modules_stay_out_of_the_docs() -> None:
    """Readers copy imports: the docs import only public names, even in blocks not run."""
    private = re.compile(r"^\s*(from|import)\s+toolfix(\.\w+)*\._", re.M)
    offenders = [
        f"{_ident(page)}: {m.group(0).strip()}"
        for page in PAGES
        for block in BLOCK.findall(page.read_text(encoding="utf-8"))
        for m in private.finditer(block)
    ]
    assert offenders == []


CITATION = re.compile(r"(?<![\w/.])docs/([\w./-]+\.md)(?:#([\w-]+))?")


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#+\s+(.+?)\s*$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}


def test_the_repo_cites_only_documents_it_contains() -> None:
    """Code, tests and scripts cite docs/ pages (and headings) that exist, and no outside
    design document."""
    missing: list[str] = []
    outside: list[str] = []
    for folder in ("toolfix", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            where = str(path.relative_to(ROOT))
            if re.search(r"\bDESIGN\b", text) and path != Path(__file__):
                outside.append(where)
            for page, anchor in CITATION.findall(text):
                target = ROOT / "docs" / page
                if not target.is_file():
                    missing.append(f"{where}: docs/{page}")
                elif anchor and anchor not in _anchors(target):
                    missing.append(f"{where}: docs/{page}#{anchor}")
    assert missing == []
    assert outside == []
