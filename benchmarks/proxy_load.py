"""Load on 127.0.0.1: the proxy with the toolfix hook against the proxy without it.

Starts the upstream stub (tests/proxy_stub.py) and two ``toolfix serve``
proxies (one with ``--no-hook``), then sends rounds of N concurrent
non-streaming chat requests whose upstream answer is a broken call in
content. Prints p50/p99 latency per proxy, the difference, and the proxies'
RSS after warm-up and after the last round.

    python benchmarks/proxy_load.py --concurrency 200 --rounds 4 \
        --json benchmarks/results/proxy_load.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - 127.0.0.1
                return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(url)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


HOOK_US: list[int] = []  # the hook's own time per response (its ``toolfix.elapsed_us``)


async def _round(
    client: httpx.AsyncClient, url: str, n: int, content: str, hook: bool
) -> list[float]:
    body = {"model": "stub", "messages": [{"role": "user", "content": content}], "tools": TOOLS}

    async def one() -> float:
        t = time.perf_counter()
        r = await client.post(url, json=body)
        r.raise_for_status()
        got = r.json()
        calls = got["choices"][0]["message"].get("tool_calls")
        if hook:
            HOOK_US.append(int(got["toolfix"]["elapsed_us"]))
        if bool(calls) != hook:
            raise RuntimeError(f"hook={hook} but tool_calls={calls!r}")
        return (time.perf_counter() - t) * 1000

    return list(await asyncio.gather(*(one() for _ in range(n))))


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    sp = _port()
    procs = [subprocess.Popen([sys.executable, str(ROOT / "tests/proxy_stub.py"), str(sp)])]
    ports = {"hook": _port(), "no-hook": _port()}
    try:
        for name, port in ports.items():
            cmd = [sys.executable, "-c", "from toolfix._cli import main; main()", "serve"]
            cmd += [
                "--upstream",
                f"http://127.0.0.1:{sp}/v1",
                "--port",
                str(port),
                "--timeout",
                "300",
            ]
            cmd += ["--no-hook"] if name == "no-hook" else []
            procs.append(subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL))
        for port in ports.values():
            _wait(f"http://127.0.0.1:{port}/health/liveliness")
        limits = httpx.Limits(max_connections=args.concurrency * 2)
        out: dict[str, Any] = {"concurrency": args.concurrency, "rounds": args.rounds}
        rss: dict[str, list[float]] = {k: [] for k in ports}
        lat: dict[str, list[float]] = {k: [] for k in ports}
        for i in range(args.rounds + 1):
            # alternate which proxy goes first so neither always gets the warmer machine
            order = list(ports.items()) if i % 2 == 0 else list(reversed(ports.items()))
            for name, port in order:
                url = f"http://127.0.0.1:{port}/v1/chat/completions"
                # a fresh client per round: uvicorn closes idle keep-alive connections
                async with httpx.AsyncClient(timeout=300, limits=limits) as client:
                    xs = await _round(client, url, args.concurrency, "broken", name == "hook")
                if i > 0:  # round 0 is warm-up
                    lat[name].extend(xs)
            for name, pid in zip(ports, (p.pid for p in procs[1:]), strict=True):
                rss[name].append(_rss_mb(pid))
        for name in ports:
            out[name] = {
                "p50_ms": round(_pct(lat[name], 50), 1),
                "p99_ms": round(_pct(lat[name], 99), 1),
                "mean_ms": round(statistics.fmean(lat[name]), 1),
                "requests": len(lat[name]),
                "rss_mb_after_warmup": round(rss[name][0], 1),
                "rss_mb_after_last_round": round(rss[name][-1], 1),
                "rss_mb_per_round": [round(x, 1) for x in rss[name]],
            }
        out["hook_own_time_us"] = {
            "p50": _pct([float(x) for x in HOOK_US], 50),
            "p99": _pct([float(x) for x in HOOK_US], 99),
        }
        out["added_p50_ms"] = round(out["hook"]["p50_ms"] - out["no-hook"]["p50_ms"], 1)
        out["added_p99_ms"] = round(out["hook"]["p99_ms"] - out["no-hook"]["p99_ms"], 1)
        out["machine"] = (
            f"{os.cpu_count()} logical CPUs, CPython {platform.python_version()} on "
            f"{platform.system()} {platform.machine()}"
        )
        return out
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out = asyncio.run(_main(args))
    out["command"] = "python benchmarks/proxy_load.py " + " ".join(sys.argv[1:])
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
