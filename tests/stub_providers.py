"""Provider-shaped bodies for the stub server of tests/openai_stub.py: OpenRouter's inline
errors and Anthropic server-side tool blocks."""

from __future__ import annotations

from typing import Any

from openai_stub import anthropic_message, openai_completion

__all__ = ["anthropic_web_search", "openrouter_inline_error"]


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
