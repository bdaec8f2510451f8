"""A local OpenAI-compatible server that ignores ``tool_choice``, as many local servers do.

Every request that carries tools is answered with a tool call (even with
``tool_choice: "none"``); a request without tools is answered with a fixed text.
Scripted replies (``reply()``) are served first. Requests are recorded like the
stub in ``openai_stub.py``, whose request handler this one reuses.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

from openai_stub import StubServer, _handler_for, openai_completion

__all__ = ["NoncompliantServer", "run_noncompliant_server"]


@dataclass
class NoncompliantServer(StubServer):
    """The handle: set :attr:`call` and :attr:`answer`, read :attr:`requests`."""

    call: tuple[str, dict[str, Any]] = ("get_weather", {"city": "Paris"})
    """The call every request with tools gets, whatever its ``tool_choice``."""
    answer: str = "Yes."
    """The text every request without tools gets."""
    served: list[str] = field(default_factory=list)  # "call" / "text" / "scripted", in order

    def next_reply(self) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if self.replies:
                self.served.append("scripted")
                return self.replies.pop(0)
            body = self.requests[-1].body if self.requests else {}
            n = len(self.requests)
            if body.get("tools"):
                self.served.append("call")
                name, args = self.call
                tc = {"id": f"call_nc{n}", "name": name, "arguments": json.dumps(args)}
                return 200, openai_completion(None, [tc], id=f"chatcmpl-nc{n}")
            self.served.append("text")
            return 200, openai_completion(self.answer, id=f"chatcmpl-nc{n}")


def run_noncompliant_server() -> Iterator[NoncompliantServer]:
    """Generator for a pytest fixture: start the server, yield its handle, stop it."""
    state = NoncompliantServer()
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
