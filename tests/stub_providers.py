"""Provider-shaped bodies for the stub server of tests/openai_stub.py: OpenRouter's inline
errors and Anthropic server-side tool blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openai_stub import anthropic_message, openai_completion

__all__ = ["anthropic_web_search", "openrouter_inline_error", "responses_api_reply"]


def openrouter_inline_error(
    message: str = "Upstream provider error", code: int = 502, provider: str = "Fireworks"
) -> dict[str, Any]:
    """HTTP 200 with ``finish_reason: "error"`` and an ``error`` object in the choice."""
    body = openai_completion("")
    choice = body["choices"][0]
    choice["finish_reason"] = "error"
    choice["error"] = {"code": code, "message": message, "metadata": {"provider_name": provider}}
    return body


def anthropic_web_search(query: str, answer: str, *, id: str = "srvtoolu_01") -> dict[str, Any]:
    """A Messages response in which Anthropic ran its web search tool itself."""
    return anthropic_message(
        [
            {"type": "text", "text": "Searching. "},
            {"type": "server_tool_use", "id": id, "name": "web_search", "input": {"query": query}},
            {
                "type": "web_search_tool_result",
                "tool_use_id": id,
                "content": [
                    {
                        "type": "web_search_result",
                        "url": "https://example.org/weather",
                        "title": "Weather",
                        "encrypted_content": "ZW5jcnlwdGVk",
                        "page_age": None,
                    }
                ],
            },
            {"type": "text", "text": answer},
        ]
    )


def responses_api_reply(
    id: str, *, text: str | None = None, calls: Sequence[tuple[str, str, str]] = ()
) -> dict[str, Any]:
    """An OpenAI Responses API body: optional text, then function calls (call_id, name, args)."""
    output: list[dict[str, Any]] = []
    if text is not None:
        output.append(
            {
                "type": "message",
                "id": f"msg_{id}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    for call_id, name, args in calls:
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{call_id}",
                "call_id": call_id,
                "name": name,
                "arguments": args,
                "status": "completed",
            }
        )
    return {
        "id": id,
        "object": "response",
        "created_at": 1_700_000_000,
        "status": "completed",
        "model": "test-model",
        "output": output,
        "usage": {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14},
    }
