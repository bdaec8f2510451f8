"""A scripted OpenAI- and Anthropic-compatible HTTP server on 127.0.0.1 for tests.

Serves ``POST /v1/chat/completions`` (and ``/chat/completions``) and
``POST /v1/messages``. Each request pops the next scripted reply (status + JSON
body) and is recorded (path, headers, JSON body) so tests can assert what was
sent. Runs in a daemon thread on an ephemeral port; nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "RecordedRequest",
    "StubServer",
    "anthropic_message",
    "openai_completion",
    "openai_error",
    "openai_sse",
    "run_stub_server",
]


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class StubServer:
    """Handle of a running stub: script replies with :meth:`reply`, read :attr:`requests`."""

    port: int = 0
    replies: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base(self) -> str:
        return f"{self.base_url}/v1"

    def reply(self, body: dict[str, Any], status: int = 200) -> StubServer:
        """Queue one reply."""
        with self.lock:
            self.replies.append((status, body))
        return self

    def next_reply(self) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if not self.replies:
                return 500, {"error": {"message": "stub server: no scripted reply left"}}
            return self.replies.pop(0)


def openai_completion(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    *,
    reasoning_content: str | None = None,
    finish_reason: str | None = None,
    id: str = "chatcmpl-stub",
    model: str = "test-model",
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
) -> dict[str, Any]:
    """A chat completion body with one choice."""
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        msg["tool_calls"] = [
            {
                "id": tc.get("id", f"call_{i}"),
                "type": "function",
                "function": {"name": tc["name"], "arguments": tc["arguments"]},
            }
            for i, tc in enumerate(tool_calls)
        ]
    if reasoning_content is not None:
        msg["reasoning_content"] = reasoning_content
    return {
        "id": id,
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": msg,
                "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def openai_error(
    message: str, *, type: str = "invalid_request_error", code: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "code": code, "param": None}}


def anthropic_message(
    blocks: list[dict[str, Any]],
    *,
    id: str = "msg_stub",
    stop_reason: str = "end_turn",
    input_tokens: int = 13,
    output_tokens: int = 5,
) -> dict[str, Any]:
    """An Anthropic Messages response body."""
    return {
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def _handler_for(state: StubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_unparsed": raw.decode("utf-8", "replace")}
            state.requests.append(
                RecordedRequest(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
            )
            status, reply = state.next_reply()
            delay = reply.pop("__delay__", 0) if isinstance(reply, dict) else 0
            if delay:
                time.sleep(float(delay))
            if isinstance(reply, dict) and "__sse__" in reply:
                self._send_events(status, reply["__sse__"])
                return
            data = json.dumps(reply).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                return  # the client gave up (timeout tests)

        def _send_events(self, status: int, chunks: list[dict[str, Any]]) -> None:
            """Server-sent events, one ``data:`` line per chunk, then ``[DONE]``."""
            try:
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


def openai_sse(content_pieces: list[str], *, model: str = "stub-model") -> dict[str, Any]:
    """A streamed reply (``stream=true``): the content in these pieces, as SSE chunks."""
    base = {
        "id": "chatcmpl-stream",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
    }
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
        *(
            {**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
            for p in content_pieces
        ),
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return {"__sse__": chunks}


def run_stub_server() -> Iterator[StubServer]:
    """Generator for a pytest fixture: start the stub, yield its handle, stop it."""
    state = StubServer()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(state))
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
