"""Conversions between toolfix's message model and the providers' wire shapes
(OpenAI chat and Responses API, Anthropic Messages, Ollama), and the readers of
whatever a user holds.

    >>> from toolfix.convert import response_from_openai, response_to_anthropic
    >>> r = response_from_openai({"role": "assistant", "content": "hi"})
    >>> response_to_anthropic(r)["content"]
    [{'type': 'text', 'text': 'hi'}]
"""

from __future__ import annotations

from ._api import ResponseInput, ToolsInput, as_response, as_tools
from ._convert import (
    ModelDumpable,
    message_to_openai,
    messages_from_openai,
    prompt_to_openai,
    response_from_anthropic,
    response_from_ollama,
    response_from_openai,
    response_from_openai_responses,
    response_to_anthropic,
    response_to_ollama,
    response_to_openai,
    response_to_openai_completion,
    response_to_openai_responses,
)

__all__ = [
    "ModelDumpable",
    "ResponseInput",
    "ToolsInput",
    "as_response",
    "as_tools",
    "message_to_openai",
    "messages_from_openai",
    "prompt_to_openai",
    "response_from_anthropic",
    "response_from_ollama",
    "response_from_openai",
    "response_from_openai_responses",
    "response_to_anthropic",
    "response_to_ollama",
    "response_to_openai",
    "response_to_openai_completion",
    "response_to_openai_responses",
]
