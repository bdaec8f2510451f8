"""Running ``toolfix repair --jsonl`` in a child process, shared by the CLI tests.

A plain module (not a conftest): test files import it by bare name, which works because
pytest's default "prepend" import mode puts the test file's directory on ``sys.path``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def repair_jsonl_in_subprocess(
    corpus: Path, env: Mapping[str, str] | None = None, extra: tuple[str, ...] = ()
) -> str:
    """Run ``toolfix repair --jsonl corpus`` with ``env`` (default: inherited); its stdout.

    Fails the test, showing stderr, when the command does not exit with status 0.
    """
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from toolfix._cli import main; main()",
            "repair",
            "--jsonl",
            str(corpus),
            *extra,
        ],
        capture_output=True,
        text=True,
        env=None if env is None else dict(env),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
