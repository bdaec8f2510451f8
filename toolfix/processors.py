"""The pipeline: processors (repair a model's responses) and executors (make one model
call), and how they combine.

A processor takes ``(executor, prompt, model, tools, responses)`` and returns
responses; processors chain with ``a + b``. An executor makes one LLM call;
``executor.with_processor(p)`` runs every response it returns through ``p``.
:func:`stream_through` runs any processor on a stream (docs/guides/streaming.md).

    >>> from toolfix.processors import IdentityProcessor, ManualToolCallFixProcessor
    >>> chain = ManualToolCallFixProcessor() + IdentityProcessor()
    >>> [type(p).__name__ for p in chain.processors]  # the identity drops out
    ['ManualToolCallFixProcessor']
"""

from __future__ import annotations

from ._llm import (
    FixerPrompts,
    FixFailure,
    IntentPrecheck,
    LLMBasedToolCallFixProcessor,
    PrecheckResult,
    llm_calls_of,
)
from ._pipeline.executor import ProcessingExecutor, PromptExecutor
from ._pipeline.litellm import LiteLLMExecutor
from ._pipeline.processor import (
    ChainProcessor,
    IdentityProcessor,
    ResponseProcessor,
    ResponsesLike,
    ToolsLike,
)
from ._repair.manual import ManualToolCallFixProcessor
from ._stream.api import stream_through

__all__ = [
    "ChainProcessor",
    "FixFailure",
    "FixerPrompts",
    "IdentityProcessor",
    "IntentPrecheck",
    "LLMBasedToolCallFixProcessor",
    "LiteLLMExecutor",
    "ManualToolCallFixProcessor",
    "PrecheckResult",
    "ProcessingExecutor",
    "PromptExecutor",
    "ResponseProcessor",
    "ResponsesLike",
    "ToolsLike",
    "llm_calls_of",
    "stream_through",
]
