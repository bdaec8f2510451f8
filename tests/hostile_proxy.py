# ruff: noqa: S310 - urlopen on http://127.0.0.1 URLs built here
"""The proxy arm of the hostile-input generator (issue 26, "Must show", first bullet).

One ``toolfix serve`` process (the real CLI, as a subprocess) in front of an upstream on
127.0.0.1 that answers each request with the example the request carries: the last
user message is a JSON ``{"message": ..., "finish": ...}`` (non-stream: one chat
completion) or ``{"chunks": [...]}`` (stream: those chat-completion chunks as SSE, cut
at the example's cut points, as :func:`hostile.stream_chunks` cuts them for
``repair_stream``). :func:`check_proxy` sends an example through the proxy, reads what
a client receives (the message's ``tool_calls`` and the ``toolfix`` extension's invalid
calls; on a stream, the tool-call deltas added up and the last chunk's extension) and
checks the promises :func:`hostile.check_result` checks, plus: the calls equal what
``repair()`` gives for the same text and tools (names and arguments; ids are random per
response), and a stream never sends the inner call's name.

Anthropic messages (a signed thinking block) are not drawn here: the chat route's
upstream speaks OpenAI chat completions, which has no such block.

Used by ``tests/test_hostile.py`` (few examples) and ``benchmarks/hostile.py
--proxy-examples N``.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import hostile
from proxy_stub import Server
from serving import start_serve, stop, wait_ready

from toolfix import repair


class HostileUpstream(BaseHTTPRequestHandler):
    """Answers each chat completion with the example in its last user message."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # /v1/models and the readiness probe
        data = b'{"object": "list", "data": [{"id": "stub", "object": "model"}]}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        spec = json.loads(body["messages"][-1]["content"])
        base = {"id": "chatcmpl-hostile", "created": int(time.time()), "model": body.get("model")}
        if not body.get("stream"):
            choice = {"index": 0, "message": spec["message"], "finish_reason": spec["finish"]}
            data = json.dumps({**base, "object": "chat.completion", "choices": [choice]})
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data.encode())))
            self.end_headers()
            self.wfile.write(data.encode())
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        for chunk in spec["chunks"]:
            frame = {**chunk, **base, "object": "chat.completion.chunk"}
            self.wfile.write(f"data: {json.dumps(frame)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


@dataclass
class ProxyArm:
    """The running proxy (``url``) in front of the hostile upstream."""

    url: str

    def post(self, payload: dict[str, Any], stream: bool) -> bytes:
        body = {
            "model": "stub",
            "messages": [{"role": "user", "content": json.dumps(payload)}],
            "tools": hostile.TOOLS,
            "stream": stream,
        }
        req = urllib.request.Request(
            f"{self.url}/v1/chat/completions",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json", "authorization": "Bearer sk-client"},
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            return bytes(r.read())


@contextlib.contextmanager
def running_proxy() -> Iterator[ProxyArm]:
    """The hostile upstream (a thread) and one ``toolfix serve`` process in front of it."""
    upstream = Server(("127.0.0.1", 0), HostileUpstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    upstream_url = f"http://127.0.0.1:{upstream.server_address[1]}/v1"
    proc, url = start_serve(upstream_url, timeout=30, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"{url}/health/readiness", proc)
        yield ProxyArm(url)
    finally:
        stop(proc)
        upstream.shutdown()
        upstream.server_close()


# ---------------------------------------------------------------------------- checks


@dataclass
class _Call:
    name: str | None
    arguments: dict[str, Any]


@dataclass
class Received:
    """What a client received, shaped as :func:`hostile.check_result` reads a result."""

    tool_calls: list[_Call]
    invalid_tool_calls: list[_Call]


def _calls(raw: list[dict[str, Any]]) -> list[_Call]:
    out = []
    for c in raw:
        fn = c.get("function") or {}
        out.append(_Call(fn.get("name"), json.loads(fn.get("arguments") or "{}")))
    return out


def _invalid(ext: Any) -> list[_Call]:
    if not isinstance(ext, dict):
        return []
    found = ext.get("invalid_tool_calls")
    if found is None:  # the non-stream extension: per choice
        found = [p for ch in ext.get("choices") or [] for p in ch.get("invalid_tool_calls") or []]
    return [_Call(p.get("name"), {}) for p in found]


def received_whole(body: bytes) -> Received:
    """A non-stream answer: the message's calls and the extension's invalid calls."""
    data = json.loads(body)
    message = data["choices"][0]["message"]
    return Received(_calls(message.get("tool_calls") or []), _invalid(data.get("toolfix")))


def received_stream(body: bytes) -> tuple[Received, list[str]]:
    """A stream: the tool-call deltas added up by index (as clients add them), the last
    extension's invalid calls, and every name a delta carried (in order)."""
    slots: dict[int, dict[str, str]] = {}
    names: list[str] = []
    ext: Any = None
    for line in body.decode().splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[len("data: ") :])
        if "error" in chunk:
            raise RuntimeError(f"stream error: {chunk['error']}")
        ext = chunk.get("toolfix", ext)
        for choice in chunk.get("choices") or []:
            for tc in (choice.get("delta") or {}).get("tool_calls") or []:
                slot = slots.setdefault(tc.get("index", 0), {"name": "", "arguments": ""})
                fn = tc.get("function") or {}
                if fn.get("name"):
                    names.append(fn["name"])
                    slot["name"] += fn["name"]
                slot["arguments"] += fn.get("arguments") or ""
    calls = [{"function": s} for _, s in sorted(slots.items())]
    return Received(_calls(calls), _invalid(ext)), names


def _upstream_message(ex: hostile.Example) -> dict[str, Any]:
    message = hostile._completion(ex)["choices"][0]["message"]
    return dict(message)


def proxied(ex: hostile.Example) -> bool:
    """Whether the chat route can carry ``ex`` (not an Anthropic message)."""
    r = ex.response
    return not (isinstance(r, dict) and r.get("type") == "message")


def check_proxy(arm: ProxyArm, ex: hostile.Example, cuts: list[int] | None) -> str | None:
    """``ex`` through the proxy (``cuts`` None: non-stream; else a stream cut there):
    the promise on what the client receives, and the same calls as ``repair()``."""
    if not proxied(ex):
        return None
    if cuts is None:
        payload = {"message": _upstream_message(ex), "finish": ex.finish}
        got, names = received_whole(arm.post(payload, stream=False)), []
        where = "proxy"
    else:
        text = ex.response if isinstance(ex.response, str) else ""
        chunks = hostile.stream_chunks(ex, hostile.splits(text, cuts))
        got, names = received_stream(arm.post({"chunks": chunks}, stream=True))
        where = "proxy stream"
    why = hostile.check_result(ex, got)
    if why:
        return f"{where}: {why}"
    if ex.promise != "last" and hostile.INNER_NAME in names:
        return f"{where} sent the inner call"
    want = repair(hostile._completion(ex), hostile.TOOLS)
    if [(c.name, c.arguments) for c in got.tool_calls] != [
        (c.name, dict(c.arguments)) for c in want.tool_calls
    ]:
        return f"{where} and repair() differ in calls"
    if [c.name for c in got.invalid_tool_calls] != [c.name for c in want.invalid_tool_calls]:
        return f"{where} and repair() differ in invalid calls"
    return None
