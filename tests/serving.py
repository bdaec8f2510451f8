"""Starting ``toolfix serve`` (the real CLI, as a subprocess) and the stub upstream it
runs in front of, on 127.0.0.1, for the tests that talk to it over HTTP:
``tests/test_proxy.py``, ``tests/test_serve_prefilled.py`` and the hostile generator's
proxy arm (``tests/hostile_proxy.py``, also run by ``benchmarks/hostile.py``).

Start every process first and wait for them together (:func:`wait_ready`): each takes
seconds to import its way up, and they start in parallel.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).parent
#: Settings that would change how ``toolfix serve`` authenticates or prints, from the
#: environment the tests run in: never passed on.
_DROPPED = ("LITELLM_MASTER_KEY", "TOOLFIX_PROXY_KEY", "OPENAI_API_KEY", "NO_COLOR")


#: Ports :func:`free_port` handed out in this process.
_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port nobody listens on now (the OS picks it) and that this process has not
    handed out before.

    The socket that found the port is closed before the server that will use it binds
    it, so the OS may give the same port to the next call. Servers started together
    (``test_serve_prefilled``'s three) then raced for one port: the loser exited, and
    its URL answered from the winner.
    """
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def serve_cmd(upstream: str, port: int, *extra: str, timeout: float = 3) -> list[str]:
    """``toolfix serve`` in front of ``upstream`` on ``port`` (``timeout``: seconds per
    upstream request), run by this interpreter."""
    return [
        sys.executable,
        "-c",
        "from toolfix._cli import main; main()",
        "serve",
        "--upstream",
        upstream,
        "--port",
        str(port),
        "--timeout",
        f"{timeout:g}",
        *extra,
    ]


def serve_env(**settings: str) -> dict[str, str]:
    """This process's environment for a ``toolfix serve`` child: the offline LiteLLM
    price table, none of the keys or switches in :data:`_DROPPED`, then ``settings``."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    return {**env, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **settings}


def start_serve(
    upstream: str,
    *extra: str,
    timeout: float = 3,
    env: dict[str, str] | None = None,
    stderr: IO[Any] | int | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """A ``toolfix serve`` process on a free port, and its base URL (not ready yet:
    :func:`wait_ready` on ``url + "/health/readiness"``)."""
    port = free_port()
    cmd = serve_cmd(upstream, port, *extra, timeout=timeout)
    proc = subprocess.Popen(cmd, env=serve_env() if env is None else env, stderr=stderr)
    return proc, f"http://127.0.0.1:{port}"


def start_stub() -> tuple[subprocess.Popen[bytes], str]:
    """The stub upstream of ``tests/proxy_stub.py`` on a free port, and its base URL
    (ready when ``url + "/_stub/requests"`` answers)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(HERE / "proxy_stub.py"), str(port)])
    return proc, f"http://127.0.0.1:{port}"


def wait_ready(url: str, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    """Wait until ``url`` answers; fail at once if ``proc`` exits first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - a URL built here
                return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(url)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate ``proc`` (kill it after 10 s) and reap it."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
