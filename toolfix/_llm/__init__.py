"""The LLM-based fixer, one job per module, in the order a response meets them.

- ``precheck``: :class:`IntentPrecheck`, a free look at a message with no call.
- ``intent``: the intent question, sent with no tools; read as yes / no / unclear.
- ``prompts``: :class:`FixerPrompts`, the texts sent (templates or functions of a
  :class:`FixFailure`).
- ``feedback``: what is wrong with one broken call, and the message that says it.
- ``match``: pair a reply's calls with the broken calls by id and tool name.
- ``session``: the fix conversation, up to ``max_retries`` fix calls.
- ``ledger``: the LLM calls spent, counted, and the ``llm_fix`` record.
- ``fixer``: :class:`LLMBasedToolCallFixProcessor`, which decides and assembles.
"""

from __future__ import annotations

from .fixer import LLMBasedToolCallFixProcessor, build_llm_processor
from .ledger import llm_calls_of
from .precheck import IntentPrecheck, PrecheckResult
from .prompts import FixerPrompts, FixFailure, PromptText

__all__ = [
    "FixFailure",
    "FixerPrompts",
    "IntentPrecheck",
    "LLMBasedToolCallFixProcessor",
    "PrecheckResult",
    "PromptText",
    "build_llm_processor",
    "llm_calls_of",
]
