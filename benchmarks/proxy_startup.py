# ruff: noqa: S310 - urlopen on http://127.0.0.1 URLs built here
"""Start-up time of ``toolfix serve``: launch to health, to the first chat answer and to
the first ``/v1/messages`` answer, against the local upstream stub.

    python benchmarks/proxy_startup.py --runs 3 [--python OTHER_VENV/bin/python] [--json F]

``--python`` runs another interpreter's ``toolfix`` (e.g. a checkout of main) for a
before/after comparison on the same machine; the runs alternate when both are given.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _until_ok(url: str, body: dict[str, Any] | None = None, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    data = json.dumps(body).encode() if body is not None else None
    headers = {"content-type": "application/json", "authorization": "Bearer sk-client"}
    while time.monotonic() < deadline:
        try:
            req = urllib.request.Request(url, data=data, headers=headers)
            with urllib.request.urlopen(req, timeout=60):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(url)


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used: a busy machine stretches wall
    time, much less CPU time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_start(python: str, upstream: str) -> dict[str, float]:
    """Seconds from launch to: health answered, first chat answer, first messages answer
    (wall time), and the proxy's CPU seconds at each."""
    port = _port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    cmd = [python, "-c", "from toolfix._cli import main; main()", "serve"]
    cmd += ["--upstream", upstream, "--port", str(port)]
    started = time.monotonic()
    # cwd outside any checkout: ``python -c`` imports from the cwd first, and each
    # interpreter must run its own installed toolfix
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    try:
        _until_ok(f"{base}/health/liveliness")
        out = {"health_s": time.monotonic() - started, "health_cpu_s": _cpu_s(proc.pid)}
        msgs = [{"role": "user", "content": "hi"}]
        _until_ok(f"{base}/v1/chat/completions", {"model": "stub", "messages": msgs})
        out |= {"first_chat_s": time.monotonic() - started, "first_chat_cpu_s": _cpu_s(proc.pid)}
        _until_ok(f"{base}/v1/messages", {"model": "stub", "max_tokens": 9, "messages": msgs})
        out |= {
            "first_messages_s": time.monotonic() - started,
            "first_messages_cpu_s": _cpu_s(proc.pid),
        }
    finally:
        proc.terminate()
        proc.wait(30)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--python", action="append", default=[])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    pythons = args.python or [sys.executable]
    sp = _port()
    stub = subprocess.Popen([sys.executable, str(ROOT / "tests/proxy_stub.py"), str(sp)])
    try:
        _until_ok(f"http://127.0.0.1:{sp}/_stub/requests")
        runs: dict[str, list[dict[str, float]]] = {p: [] for p in pythons}
        for _ in range(args.runs):
            for py in pythons:
                runs[py].append(one_start(py, f"http://127.0.0.1:{sp}/v1"))
    finally:
        stub.terminate()
    out = {
        py: {k: round(statistics.median(r[k] for r in rs), 2) for k in rs[0]}
        for py, rs in runs.items()
    }
    out["load_average"] = os.getloadavg()[0]  # type: ignore[assignment]
    out["command"] = "python benchmarks/proxy_startup.py " + " ".join(sys.argv[1:])  # type: ignore[assignment]
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
