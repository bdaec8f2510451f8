"""Every error toolfix raises derives from :class:`ToolfixError`.

>>> from toolfix.errors import ToolfixError, UnsupportedInputError
>>> issubclass(UnsupportedInputError, ToolfixError)
True
"""

from __future__ import annotations

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

__all__ = [
    "ConfigurationError",
    "ContextLengthExceededError",
    "ExecutorError",
    "InputTooLargeError",
    "InvalidArgumentsError",
    "LimitExceededError",
    "LoopAbortedError",
    "MalformedToolCallError",
    "NestingTooDeepError",
    "NumberTooLongError",
    "ProviderAuthenticationError",
    "ProviderBadResponseError",
    "ProviderRateLimitError",
    "ProviderTimeoutError",
    "TooManyCallsError",
    "ToolCallError",
    "ToolDefinitionError",
    "ToolfixError",
    "UnknownToolError",
    "UnsupportedInputError",
]
