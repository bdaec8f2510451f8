"""A local OpenAI-compatible upstream that answers with broken tool calls in content.

Run as ``python tests/proxy_stub.py PORT``; stdlib only (threading HTTP server).
The reply depends on the last user message: ``broken`` → a call as text with
single quotes and a trailing comma; ``valid`` → a proper tool call; ``slow`` →
sleeps 30 s; ``drop`` → closes the connection unanswered; ``null`` → a choice whose
``message`` is ``null``; ``think`` → reasoning closed by a lone ``</think>`` (a call
quoted in it), then the answer (:data:`PREFILLED`); anything else → plain text.
``stream: true`` answers as SSE.

``GET /v1/models`` lists :data:`MODELS`. Every other request is recorded (method,
path, ``authorization`` and ``x-api-key``) and the record is served on
``GET /_stub/requests``, so tests can check what reached the upstream.
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODELS = ["stub", "stub-coder-7b"]
SEEN: list[dict[str, Any]] = []

BROKEN = "Sure!\n<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '3',}}"

# the raw output of a template that opened <think> in the prompt (DeepSeek-R1, QwQ...)
PREFILLED = (
    'Maybe <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    " fits, but the city is unclear.</think>Which city do you mean?"
)


def _reply(body: dict[str, Any]) -> dict[str, Any]:
    last = str(body["messages"][-1].get("content") or "")
    if "valid" in last:
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                }
            ],
        }
    if "broken" in last:
        return {"role": "assistant", "content": BROKEN}
    if "think" in last:
        return {"role": "assistant", "content": PREFILLED}
    return {"role": "assistant", "content": "Hello there."}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _json(self, code: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> None:
        SEEN.append(
            {
                "method": self.command,
                "path": self.path,
                "authorization": self.headers.get("authorization"),
                "x-api-key": self.headers.get("x-api-key"),
            }
        )

    def do_GET(self) -> None:
        if self.path == "/_stub/requests":
            self._json(200, SEEN)
            return
        self._record()
        if self.path.rstrip("/").endswith("/models"):
            models = [{"id": m, "object": "model", "owned_by": "stub"} for m in MODELS]
            self._json(200, {"object": "list", "data": models})
            return
        self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        self._record()
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        last = str(body["messages"][-1].get("content") or "")
        if "slow" in last:
            time.sleep(30)
        if "drop" in last:  # the upstream goes away mid-request
            self.close_connection = True
            return
        msg = _reply(body)
        base = {"id": "chatcmpl-stub", "created": int(time.time()), "model": body.get("model")}
        if "null" in last and not body.get("stream"):
            choice = {"index": 0, "message": None, "finish_reason": "stop"}
            self._json(200, {**base, "object": "chat.completion", "choices": [choice]})
            return
        finish = "tool_calls" if msg.get("tool_calls") else "stop"
        if not body.get("stream"):
            self._json(
                200,
                {
                    **base,
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
                },
            )
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        if msg.get("tool_calls"):
            tc = msg["tool_calls"][0]
            deltas.append({"tool_calls": [{"index": 0, **tc}]})
        else:
            text = msg["content"]
            deltas += [{"content": text[i : i + 7]} for i in range(0, len(text), 7)]
        for d in deltas:
            chunk = {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": d, "finish_reason": None}],
            }
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        end = {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
        }
        self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
        self.wfile.flush()
        self.close_connection = True


class Server(ThreadingHTTPServer):
    request_queue_size = 1024  # 200 concurrent connections in the load benchmark
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away (the proxy's timeout): nothing to report


if __name__ == "__main__":
    server = Server(("127.0.0.1", int(sys.argv[1])), Handler)
    print("ready", flush=True)
    server.serve_forever()
