"""Every ```python block in README.md and docs/ runs, so the examples cannot rot.

A block whose first line is ``# not-run`` is skipped (shown for reading only, e.g.
it needs a real model endpoint). Blocks in one page run in order in a shared
namespace, like a reader pasting them into one session.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks(page: Path) -> list[str]:
    return [
        b
        for b in BLOCK.findall(page.read_text(encoding="utf-8"))
        if not b.lstrip().startswith("# not-run")
    ]


@pytest.mark.parametrize(
    "page", [p for p in PAGES if _blocks(p)], ids=lambda p: str(p.relative_to(ROOT))
)
def test_page_examples_run(page: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for i, src in enumerate(_blocks(page)):
        code = compile(src, f"{page.relative_to(ROOT)}[block {i}]", "exec")
        exec(code, namespace)  # noqa: S102 - our own documentation, not model output
