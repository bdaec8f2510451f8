"""toolfix: repair malformed LLM tool calls.

Quick start::

    from toolfix import repair
    fixed = repair(model_message, tools)      # OpenAI/Anthropic/Ollama dicts or SDK objects,
                                              # Responses-API output, Response, or raw text
    fixed.tool_calls                          # valid calls, each with .repairs
    fixed.invalid_tool_calls                  # what could not be repaired, with raw text

The pipeline pieces (processors, executors, registry, message model) are
re-exported here; everything else lives in private modules.
"""

from __future__ import annotations

from ._api import arepair, as_response, as_tools, repair
from ._config import FixConfig, Limits, ToolCallJsonConfig
from ._convert import (
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
from ._errors import (
    ConfigurationError,
    ContextLengthExceededError,
    ExecutorError,
    InputTooLargeError,
    InvalidArgumentsError,
    LimitExceededError,
    LoopAbortedError,
    MalformedToolCallError,
    NestingTooDeepError,
    NumberTooLongError,
    ProviderAuthenticationError,
    ProviderBadResponseError,
    ProviderRateLimitError,
    ProviderTimeoutError,
    ToolCallError,
    ToolDefinitionError,
    ToolfixError,
    TooManyCallsError,
    UnknownToolError,
    UnsupportedInputError,
)
from ._llm import (
    FixerPrompts,
    FixFailure,
    IntentPrecheck,
    LLMBasedToolCallFixProcessor,
    PrecheckResult,
)
from ._loop.steploop import (
    LoopControl,
    LoopHooks,
    LoopResult,
    Step,
    StepLoop,
    StopLoop,
    ToolRun,
    run_tool_calls,
    run_tool_calls_sync,
)
from ._loop.stream import LoopEvent
from ._messages import (
    FailureKind,
    InvalidToolCallPart,
    Message,
    Part,
    Prompt,
    ReasoningPart,
    RepairRecord,
    Response,
    TextPart,
    ToolCallPart,
    ToolChoice,
    ToolResultPart,
    Usage,
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
from ._repair.formats import Candidate, ScanContext, ToolCallFormat, available_formats
from ._repair.manual import ManualToolCallFixProcessor
from ._repair.spec import FormatSpec, JsonSection, KeyValueCalls, TaggedCalls, TagSyntax
from ._stream.core import accumulate, arepair_stream, repair_stream
from ._tools import ArgumentIssue, ToolDescriptor, ToolRegistry

__version__ = "0.1.0"

__all__ = [
    "ArgumentIssue",
    "Candidate",
    "ChainProcessor",
    "ConfigurationError",
    "ContextLengthExceededError",
    "ExecutorError",
    "FailureKind",
    "FixConfig",
    "FixFailure",
    "FixerPrompts",
    "FormatSpec",
    "IdentityProcessor",
    "InputTooLargeError",
    "IntentPrecheck",
    "InvalidArgumentsError",
    "InvalidToolCallPart",
    "JsonSection",
    "KeyValueCalls",
    "LLMBasedToolCallFixProcessor",
    "LimitExceededError",
    "Limits",
    "LiteLLMExecutor",
    "LoopAbortedError",
    "LoopControl",
    "LoopEvent",
    "LoopHooks",
    "LoopResult",
    "MalformedToolCallError",
    "ManualToolCallFixProcessor",
    "Message",
    "NestingTooDeepError",
    "NumberTooLongError",
    "Part",
    "PrecheckResult",
    "ProcessingExecutor",
    "Prompt",
    "PromptExecutor",
    "ProviderAuthenticationError",
    "ProviderBadResponseError",
    "ProviderRateLimitError",
    "ProviderTimeoutError",
    "ReasoningPart",
    "RepairRecord",
    "Response",
    "ResponseProcessor",
    "ResponsesLike",
    "ScanContext",
    "Step",
    "StepLoop",
    "StopLoop",
    "TagSyntax",
    "TaggedCalls",
    "TextPart",
    "TooManyCallsError",
    "ToolCallError",
    "ToolCallFormat",
    "ToolCallJsonConfig",
    "ToolCallPart",
    "ToolChoice",
    "ToolDefinitionError",
    "ToolDescriptor",
    "ToolRegistry",
    "ToolResultPart",
    "ToolRun",
    "ToolfixError",
    "ToolsLike",
    "UnknownToolError",
    "UnsupportedInputError",
    "Usage",
    "__version__",
    "accumulate",
    "arepair",
    "arepair_stream",
    "as_response",
    "as_tools",
    "available_formats",
    "message_to_openai",
    "messages_from_openai",
    "prompt_to_openai",
    "repair",
    "repair_stream",
    "response_from_anthropic",
    "response_from_ollama",
    "response_from_openai",
    "response_from_openai_responses",
    "response_to_anthropic",
    "response_to_ollama",
    "response_to_openai",
    "response_to_openai_completion",
    "response_to_openai_responses",
    "run_tool_calls",
    "run_tool_calls_sync",
]
