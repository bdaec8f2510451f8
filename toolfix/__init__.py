"""toolfix: repair malformed LLM tool calls.

Quick start::

    from toolfix import repair
    fixed = repair(model_message, tools)      # OpenAI/Anthropic/Ollama dicts or SDK objects,
                                              # Responses-API output, Response, or raw text
    fixed.tool_calls                          # valid calls, each with .repairs
    fixed.invalid_tool_calls                  # what could not be repaired, with raw text

The front door is here; everything else lives in public submodules:
:mod:`toolfix.messages`, :mod:`toolfix.tools`, :mod:`toolfix.config`,
:mod:`toolfix.errors`, :mod:`toolfix.processors`, :mod:`toolfix.streams`,
:mod:`toolfix.formats`, :mod:`toolfix.convert`, :mod:`toolfix.loop`,
:mod:`toolfix.testing`, :mod:`toolfix.temporal` and :mod:`toolfix.integrations`
(docs/api.md).

Sync and async: the unmarked name is the form most callers want, and its twin is named
by a suffix: ``_async`` for the awaitable twin of a blocking function (``repair`` /
``repair_async``, ``repair_stream`` / ``repair_stream_async``), ``_sync`` for the
blocking twin of a coroutine method (``process`` / ``process_sync``, ``execute`` /
``execute_sync``, ``run`` / ``run_sync``, ``run_tool_calls`` / ``run_tool_calls_sync``).
"""

from __future__ import annotations

from ._api import as_response, as_tools, repair, repair_async
from ._config import FixConfig, Limits
from ._errors import ToolfixError
from ._llm import LLMBasedToolCallFixProcessor
from ._loop.steploop import LoopResult, StepLoop, run_tool_calls
from ._messages import (
    FailureKind,
    InvalidToolCallPart,
    Message,
    Prompt,
    RepairRecord,
    Response,
    ToolCallPart,
)
from ._pipeline.executor import PromptExecutor
from ._pipeline.litellm import LiteLLMExecutor
from ._pipeline.processor import ResponseProcessor
from ._repair.manual import ManualToolCallFixProcessor
from ._stream.api import accumulate, repair_stream, repair_stream_async
from ._tools import ToolRegistry

__version__ = "0.1.0"

__all__ = [
    "FailureKind",
    "FixConfig",
    "InvalidToolCallPart",
    "LLMBasedToolCallFixProcessor",
    "Limits",
    "LiteLLMExecutor",
    "LoopResult",
    "ManualToolCallFixProcessor",
    "Message",
    "Prompt",
    "PromptExecutor",
    "RepairRecord",
    "Response",
    "ResponseProcessor",
    "StepLoop",
    "ToolCallPart",
    "ToolRegistry",
    "ToolfixError",
    "__version__",
    "accumulate",
    "as_response",
    "as_tools",
    "repair",
    "repair_async",
    "repair_stream",
    "repair_stream_async",
    "run_tool_calls",
]
