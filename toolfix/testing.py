"""Executors for tests: scripted replies and replies computed by a function.

Neither one talks to a model. Use them to test processors, loops and your own
agent code deterministically::

    from toolfix import Prompt
    from toolfix.testing import ScriptedExecutor

    executor = ScriptedExecutor(["Hello!", "Bye!"])
    first = executor.execute_sync(Prompt.of("hi"), "test-model")
    assert first[0].text == "Hello!"
    assert len(executor.calls) == 1

A reply may be a :class:`~toolfix.Response`, a string (a text-only response),
an OpenAI chat assistant message dict (``{"content": ..., "tool_calls": [...]}``)
or a callable ``(prompt, model, tools) -> reply`` (sync or async) computing one
of those from the request.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any, TypeAlias

from ._convert import response_from_openai
from ._errors import ToolfixError
from ._messages import Prompt, Response, Usage
from ._pipeline.executor import PromptExecutor
from ._pipeline.processor import ToolsLike
from ._tools import ToolRegistry

__all__ = [
    "FunctionExecutor",
    "Reply",
    "ReplyValue",
    "ScriptExhaustedError",
    "ScriptedExecutor",
    "pinned_ids",
]

ReplyValue: TypeAlias = Response | str | Mapping[str, Any]
"""A finished reply: a Response, a text, or an OpenAI chat assistant message."""

Reply: TypeAlias = (
    ReplyValue | Callable[[Prompt, str, ToolRegistry], ReplyValue | Awaitable[ReplyValue]]
)
"""A reply, or a function computing one from ``(prompt, model, tools)``."""


class ScriptExhaustedError(ToolfixError):
    """A :class:`ScriptedExecutor` was called more often than it has replies."""


def to_response(value: ReplyValue, *, usage: Usage | None = None) -> Response:
    """A reply value as a :class:`~toolfix.Response` (``usage`` set when it has none)."""
    if isinstance(value, Response):
        resp = value
    elif isinstance(value, str):
        resp = Response.text_only(value)
    elif isinstance(value, Mapping):
        resp = response_from_openai(value)
    else:
        raise TypeError(f"a scripted reply must be a Response, str or dict, not {type(value)!r}")
    if usage is not None and resp.usage is None:
        resp = resp.model_copy(update={"usage": usage})
    return resp


async def _resolve(reply: Reply, prompt: Prompt, model: str, tools: ToolRegistry) -> ReplyValue:
    if isinstance(reply, Response | str | Mapping):
        return reply
    value = reply(prompt, model, tools)
    if inspect.isawaitable(value):
        value = await value
    return value


class _RecordingExecutor(PromptExecutor):
    """Shared bookkeeping: every request is recorded in :attr:`calls`."""

    def __init__(self, *, usage: Usage | None = None):
        self.calls: list[tuple[Prompt, str, ToolRegistry]] = []
        self.usage = usage

    @property
    def prompts(self) -> list[Prompt]:
        """The prompts received, in order."""
        return [p for p, _, _ in self.calls]

    @property
    def call_count(self) -> int:
        """How many requests were made."""
        return len(self.calls)


class ScriptedExecutor(_RecordingExecutor):
    """Returns scripted replies in order, one per request.

    Args:
        replies: The replies, consumed one per :meth:`execute` call.
        repeat_last: Once the script is used up, keep returning the last reply
            instead of raising :class:`ScriptExhaustedError`.
        usage: Token usage attached to every reply that carries none (handy to
            test cost accounting); ``None`` leaves replies as they are.

    Attributes:
        calls: ``(prompt, model, tools)`` of every request, in order.
    """

    def __init__(
        self,
        replies: Iterable[Reply],
        *,
        repeat_last: bool = False,
        usage: Usage | None = None,
    ):
        super().__init__(usage=usage)
        self.replies: list[Reply] = list(replies)
        self.repeat_last = repeat_last
        self._next = 0

    @property
    def remaining(self) -> int:
        """Replies not used yet."""
        return len(self.replies) - self._next

    async def execute(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        registry = ToolRegistry.of(tools)
        self.calls.append((prompt, model, registry))
        if self._next < len(self.replies):
            reply = self.replies[self._next]
            self._next += 1
        elif self.repeat_last and self.replies:
            reply = self.replies[-1]
        else:
            raise ScriptExhaustedError(
                f"ScriptedExecutor has no reply left for request #{len(self.calls)} "
                f"({len(self.replies)} scripted); add replies or pass repeat_last=True"
            )
        value = await _resolve(reply, prompt, model, registry)
        return [to_response(value, usage=self.usage)]

    def __repr__(self) -> str:
        return f"ScriptedExecutor({len(self.replies)} replies, {self.remaining} left)"


class FunctionExecutor(_RecordingExecutor):
    """Computes every reply with ``fn(prompt, model, tools)`` (sync or async).

    ``fn`` returns a Response, a string, an OpenAI assistant message dict, or a
    list of those (several choices).
    """

    def __init__(
        self,
        fn: Callable[[Prompt, str, ToolRegistry], Any],
        *,
        usage: Usage | None = None,
    ):
        super().__init__(usage=usage)
        self.fn = fn

    async def execute(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        registry = ToolRegistry.of(tools)
        self.calls.append((prompt, model, registry))
        value = self.fn(prompt, model, registry)
        if inspect.isawaitable(value):
            value = await value
        values = value if isinstance(value, list | tuple) else [value]
        return [to_response(v, usage=self.usage) for v in values]

    def __repr__(self) -> str:
        return f"FunctionExecutor({self.fn!r})"


@contextlib.contextmanager
def pinned_ids(seed: int | None = 0) -> Iterator[None]:
    """Within the block, every repair that has no ``FixConfig(id_seed=...)`` of its own
    uses ``seed``: the same input gives the same call ids (process-wide; for test
    suites that compare two repairs, never for serving: two turns would share ids).
    ``pinned_ids(None)``: fresh random ids within the block, as by default."""
    from ._repair import ids

    before = ids.pin(seed)
    try:
        yield
    finally:
        ids.pin(before)
