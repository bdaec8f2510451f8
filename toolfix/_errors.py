"""Exceptions raised by toolfix.

Every exception toolfix raises on purpose derives from :class:`ToolfixError`,
and every one carries the raw model text it was looking at (``raw``) and the
tool name involved (``tool_name``), either of which may be ``None``::

    ToolfixError
    ├── LimitExceededError        input over a configured limit (checked before parsing)
    │   ├── InputTooLargeError      text longer than Limits.max_input_chars
    │   ├── NestingTooDeepError     brackets nested deeper than Limits.max_depth
    │   ├── TooManyCallsError       more calls in one message than Limits.max_calls
    │   └── NumberTooLongError      a numeric literal longer than Limits.max_number_chars
    ├── ToolCallError             a tool call that cannot be made valid
    │   ├── UnknownToolError        the name matches no tool in the registry
    │   ├── InvalidArgumentsError   the arguments do not validate against the schema
    │   └── MalformedToolCallError  the call text cannot be parsed at all
    ├── ToolDefinitionError       a tool definition or Python function cannot be described
    ├── UnsupportedInputError     a response or tools value of a shape toolfix cannot read
    ├── LoopAbortedError          a hook raised inside StepLoop (the cause is chained)
    ├── ConfigurationError        inconsistent settings
    └── ExecutorError             an LLM call failed
        ├── ProviderAuthenticationError
        ├── ProviderRateLimitError
        ├── ProviderTimeoutError
        ├── ContextLengthExceededError
        └── ProviderBadResponseError

Every ``ToolfixError`` that ends a ``StepLoop`` run carries ``partial_result``: the
:class:`~toolfix.LoopResult` so far (steps, messages, tool results), with
``stopped_reason == "error"``; ``None`` elsewhere.

The manual fixer does not raise :class:`ToolCallError` for model output it
cannot repair: it returns an :class:`~toolfix.InvalidToolCallPart` with the raw
text and the reason. The error classes are used for the ``reason`` and by
callers that prefer an exception (``Response.raise_for_invalid_calls()``).
"""

from __future__ import annotations

from typing import Any

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


class ToolfixError(Exception):
    """Root of every exception toolfix raises.

    Attributes:
        message: Human-readable description.
        raw: The raw model text involved, if any (possibly truncated for display).
        tool_name: The tool name involved, if any.
    """

    #: The StepLoop run so far, when this error ended one (a ``toolfix.LoopResult``).
    partial_result: Any = None

    def __init__(self, message: str, *, raw: str | None = None, tool_name: str | None = None):
        super().__init__(message)
        self.message = message
        self.raw = raw
        self.tool_name = tool_name

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[object, ...]:
        # Keep keyword-only attributes across pickling (Temporal, multiprocessing).
        return (_rebuild, (type(self), self.message, self.raw, self.tool_name))


def _rebuild(
    cls: type[ToolfixError], message: str, raw: str | None, tool_name: str | None
) -> ToolfixError:
    err = cls.__new__(cls)
    ToolfixError.__init__(err, message, raw=raw, tool_name=tool_name)
    return err


class LimitExceededError(ToolfixError):
    """Input exceeds a configured limit; raised before any recursive parser runs."""

    def __init__(
        self,
        message: str,
        *,
        limit: int,
        actual: int,
        raw: str | None = None,
        tool_name: str | None = None,
    ):
        super().__init__(message, raw=raw, tool_name=tool_name)
        self.limit = limit
        self.actual = actual

    def __reduce__(self) -> tuple[object, ...]:
        return (
            _rebuild_limit,
            (type(self), self.message, self.limit, self.actual, self.raw, self.tool_name),
        )


def _rebuild_limit(
    cls: type[LimitExceededError],
    message: str,
    limit: int,
    actual: int,
    raw: str | None,
    tool_name: str | None,
) -> LimitExceededError:
    return cls(message, limit=limit, actual=actual, raw=raw, tool_name=tool_name)


class InputTooLargeError(LimitExceededError):
    """The text is longer than ``Limits.max_input_chars``."""


class NestingTooDeepError(LimitExceededError):
    """Brackets nest deeper than ``Limits.max_depth``."""


class TooManyCallsError(LimitExceededError):
    """One message holds more calls than ``Limits.max_calls``."""


class NumberTooLongError(LimitExceededError):
    """A numeric literal is longer than ``Limits.max_number_chars``."""


class LoopAbortedError(ToolfixError):
    """Something other than a toolfix error (a hook that raised) ended a StepLoop run.

    The original exception is ``__cause__``; ``partial_result`` holds the run so far."""


class ToolCallError(ToolfixError):
    """A tool call that cannot be made valid."""


class UnknownToolError(ToolCallError):
    """The call names a tool that is not in the registry (and no unique close match)."""


class InvalidArgumentsError(ToolCallError):
    """The arguments do not validate against the tool's JSON schema."""


class MalformedToolCallError(ToolCallError):
    """The call text cannot be parsed into a call at all."""


class ToolDefinitionError(ToolfixError):
    """A tool definition (OpenAI, Anthropic, MCP dict or Python function) is unusable."""


class UnsupportedInputError(ToolfixError, TypeError):
    """A response (or tools value) whose shape toolfix does not read.

    ``shape`` names what was received (``"dict with keys ['foo']"``, ``"int"``, ...);
    ``raw`` holds a short ``repr`` of the value. Also a :class:`TypeError`, so code that
    caught the old ``AttributeError``/``TypeError`` of a wrong type keeps working.
    """

    def __init__(self, message: str, *, shape: str, raw: str | None = None):
        super().__init__(message, raw=raw)
        self.shape = shape

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_unsupported, (type(self), self.message, self.shape, self.raw))


def _rebuild_unsupported(
    cls: type[UnsupportedInputError], message: str, shape: str, raw: str | None
) -> UnsupportedInputError:
    return cls(message, shape=shape, raw=raw)


class ConfigurationError(ToolfixError):
    """Settings that contradict each other or are out of range."""


class ExecutorError(ToolfixError):
    """An LLM call failed. ``provider`` names the backend when known."""

    def __init__(
        self,
        message: str,
        *,
        raw: str | None = None,
        tool_name: str | None = None,
        provider: str | None = None,
        status_code: int | None = None,
    ):
        super().__init__(message, raw=raw, tool_name=tool_name)
        self.provider = provider
        self.status_code = status_code


class ProviderAuthenticationError(ExecutorError):
    """The provider rejected the credentials."""


class ProviderRateLimitError(ExecutorError):
    """The provider rate-limited the request."""


class ProviderTimeoutError(ExecutorError):
    """The request timed out."""


class ContextLengthExceededError(ExecutorError):
    """The prompt does not fit the model's context window."""


class ProviderBadResponseError(ExecutorError):
    """The provider answered with something that is not a usable response."""
