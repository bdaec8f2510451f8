"""Running one tool call: validate, convert arguments, call the Python function.

Shared by the in-process :class:`~toolfix.StepLoop` and the Temporal tool
activity. :func:`prepare_call` never raises for model mistakes (unknown tool,
unparseable or invalid arguments): it returns a :class:`ToolRun` error result
to feed back. :func:`invoke` runs the function and lets its exceptions
propagate (the Temporal activity needs them for its retry policy);
:func:`run_call` is the in-process combination that turns exceptions and
timeouts into error results.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import to_jsonable_python

from .._messages import Message, ToolCallPart, ToolResultPart
from .._tools import ToolDescriptor, ToolRegistry, python_arguments

__all__ = [
    "PreparedCall",
    "ToolRun",
    "error_run",
    "exception_content",
    "invoke",
    "prepare_call",
    "render_result",
    "run_call",
    "timeout_content",
]

#: Longest raw model text quoted back to the model in an error result.
MAX_QUOTED_RAW = 2_000


ToolErrorType = Literal[
    "invalid_call",
    "unknown_tool",
    "invalid_arguments",
    "no_handler",
    "timeout",
    "exception",
    "stopped",
]
"""Why a tool call gave an error result (:attr:`ToolRun.error_type`)."""


class ToolRun(BaseModel):
    """One tool call's outcome, as fed back to the model, with its timing.

    ``error_type`` is ``None`` on success, else one of ``"invalid_call"``,
    ``"unknown_tool"``, ``"invalid_arguments"``, ``"no_handler"``, ``"timeout"``,
    ``"exception"`` or ``"stopped"``. ``exception_type`` names the exception class a
    tool raised. ``duration_s`` is the wall time of the function call (0 when it
    did not run).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    call_id: str
    name: str
    arguments: dict[str, Any] | None = None
    content: str
    is_error: bool = False
    error_type: ToolErrorType | None = None
    exception_type: str | None = None
    duration_s: float = 0.0

    def to_part(self) -> ToolResultPart:
        """The tool-result part sent back to the model."""
        return ToolResultPart(
            tool_call_id=self.call_id, name=self.name, content=self.content, is_error=self.is_error
        )

    def to_message(self) -> Message:
        """The tool message sent back to the model."""
        return Message(role="tool", parts=(self.to_part(),))


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """A call ready to run: its tool and the arguments converted to the handler's types."""

    call: ToolCallPart
    tool: ToolDescriptor
    json_arguments: dict[str, Any]
    python_arguments: dict[str, Any]


def error_run(
    call_id: str,
    name: str,
    content: str,
    error_type: ToolErrorType,
    arguments: dict[str, Any] | None = None,
    exception_type: str | None = None,
) -> ToolRun:
    """An error result (``is_error=True``)."""
    return ToolRun(
        call_id=call_id,
        name=name,
        arguments=arguments,
        content=content,
        is_error=True,
        error_type=error_type,
        exception_type=exception_type,
    )


def quote_raw(raw: str) -> str:
    """Raw model text, capped for quoting in an error result."""
    if len(raw) <= MAX_QUOTED_RAW:
        return raw
    return raw[:MAX_QUOTED_RAW] + f"... [{len(raw) - MAX_QUOTED_RAW} more chars]"


def _parse_arguments(call: ToolCallPart) -> dict[str, Any] | None:
    if call.arguments is not None:
        return dict(call.arguments)
    raw = call.arguments_raw.strip() or "{}"
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def prepare_call(registry: ToolRegistry, call: ToolCallPart) -> PreparedCall | ToolRun:
    """Check a call against the registry; an error :class:`ToolRun` for model mistakes."""
    tool = registry.get(call.name)
    if tool is None:
        available = ", ".join(registry.names) or "(none)"
        return error_run(
            call.id,
            call.name,
            f"Error: unknown tool {call.name!r}. Available tools: {available}.",
            "unknown_tool",
        )
    args = _parse_arguments(call)
    if args is None:
        return error_run(
            call.id,
            call.name,
            f"Error: the arguments of your call to {call.name!r} are not a JSON object: "
            f"{quote_raw(call.arguments_raw)}\nCall the tool again with a JSON object "
            "matching its schema.",
            "invalid_arguments",
        )
    issues = tool.validate_arguments(args)
    if issues:
        listed = "; ".join(str(i) for i in issues[:10])
        return error_run(
            call.id,
            call.name,
            f"Error: invalid arguments for tool {call.name!r}: {listed}. "
            f"Arguments received: {quote_raw(call.arguments_raw)}",
            "invalid_arguments",
            arguments=args,
        )
    if tool.handler is None:
        return error_run(
            call.id,
            call.name,
            f"Error: tool {call.name!r} has no implementation in this agent.",
            "no_handler",
            arguments=args,
        )
    try:
        py_args = python_arguments(tool, args)
    except ValidationError as exc:
        return error_run(
            call.id,
            call.name,
            f"Error: invalid arguments for tool {call.name!r}: "
            f"{exc.error_count()} error(s): {_short_pydantic(exc)}",
            "invalid_arguments",
            arguments=args,
        )
    return PreparedCall(call=call, tool=tool, json_arguments=args, python_arguments=py_args)


def _short_pydantic(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:10]:
        loc = ".".join(str(x) for x in err.get("loc", ()))
        parts.append(f"{loc}: {err.get('msg', '')}" if loc else str(err.get("msg", "")))
    return "; ".join(parts)


def render_result(value: Any) -> str:
    """A tool's return value as the text sent back: strings as-is, the rest as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(to_jsonable_python(value), ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


async def invoke(prepared: PreparedCall) -> tuple[Any, float]:
    """Call the tool's function (sync ones in a thread); return (value, seconds).

    Exceptions raised by the function propagate.
    """
    handler = prepared.tool.handler
    assert handler is not None  # noqa: S101 - guaranteed by prepare_call
    start = time.perf_counter()
    if inspect.iscoroutinefunction(handler):
        value = await handler(**prepared.python_arguments)
    else:
        value = await _in_daemon_thread(handler, prepared.python_arguments, prepared.call.name)
        if inspect.isawaitable(value):
            value = await value
    return value, time.perf_counter() - start


def _in_daemon_thread(fn: Callable[..., Any], kwargs: dict[str, Any], name: str) -> Any:
    """Run a sync tool in a daemon thread of its own; a future for its result.

    Not ``asyncio.to_thread``: the loop's default executor is joined when
    ``asyncio.run`` ends, so a timed-out ``time.sleep(20)`` would hold ``run`` and
    ``run_sync`` for 20 s. A daemon thread is never joined: the loop returns on time,
    and a tool that never returns does not keep the process alive at exit. Python
    cannot stop a thread; the tool keeps running until it returns, and what it
    returns then is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: Any) -> None:
        if future.done():  # cancelled: the call timed out or the loop was stopped
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def target() -> None:
        try:
            result = context.run(fn, **kwargs)
        except BaseException as exc:  # handed to the awaiting task, like to_thread does
            outcome: tuple[bool, Any] = (False, exc)
        else:
            outcome = (True, result)
        # RuntimeError: the loop has closed meanwhile, nobody waits any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=target, name=f"toolfix-tool-{name}"[:60], daemon=True).start()
    return future


def success_run(prepared: PreparedCall, value: Any, duration_s: float) -> ToolRun:
    """The result of a call that returned ``value``."""
    return ToolRun(
        call_id=prepared.call.id,
        name=prepared.call.name,
        arguments=prepared.json_arguments,
        content=render_result(value),
        duration_s=duration_s,
    )


def safe_str(value: object) -> str:
    """``str(value)``, or a placeholder when its ``__str__`` raises (tool output is untrusted)."""
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__} whose str() raised>"


def exception_content(name: str, exception_type: str, message: str) -> str:
    """The text fed back when a tool raised."""
    return f"Error: tool {name!r} raised {exception_type}: {message}"


def timeout_content(name: str, timeout: float | None) -> str:
    """The text fed back when a tool ran out of time."""
    after = f" after {timeout:g}s" if timeout is not None else ""
    return f"Error: tool {name!r} timed out{after}."


async def run_call(
    registry: ToolRegistry, call: ToolCallPart, *, timeout: float | None = None
) -> ToolRun:
    """Prepare and run one call in-process; failures become error results.

    What a tool raises is its failure, fed back as an ``exception`` result: any
    ``Exception``, and also ``SystemExit`` (``argparse`` exits on a bad argument),
    other ``BaseException`` subclasses, and a ``CancelledError`` the tool raised itself.
    Two things propagate: ``KeyboardInterrupt`` (the user stopping the process) and
    the cancellation of the task running the loop (an outer ``asyncio.timeout``,
    ``task.cancel()``), even when the tool swallows its own cancellation. A tool that
    finishes after ``timeout`` seconds is a timeout, whatever it returns (an async tool
    that blocks the event loop cannot be interrupted). A tool that times out is
    cancelled and the call returns at once: an async tool that swallows the
    cancellation, like a sync function (Python cannot stop a thread), runs on, and
    what it returns is discarded.

    The tool runs in a task of its own (in a copy of the caller's context, as
    ``asyncio`` tasks do): its outcome, whatever it raises, comes back as a value, so
    the deadline, the tool's own exceptions and a cancellation from outside are told
    apart without ``asyncio.timeout`` (Python 3.11+) on every supported Python.
    """
    prepared = prepare_call(registry, call)
    if isinstance(prepared, ToolRun):
        return prepared
    start = time.perf_counter()
    tool = asyncio.ensure_future(_outcome(prepared))
    try:
        done, _ = await asyncio.wait((tool,), timeout=timeout)
    except BaseException:  # the task running the call was cancelled: so is the tool
        tool.cancel()
        raise
    elapsed = time.perf_counter() - start
    if not done or (timeout is not None and elapsed > timeout):
        tool.cancel()  # (no-op when it is done)
        return _timeout_run(prepared, timeout, elapsed)  # late: what it returned is dropped
    outcome = tool.result()
    if isinstance(outcome, BaseException):
        if isinstance(outcome, (KeyboardInterrupt, GeneratorExit)):
            raise outcome
        return _exception_run(prepared, outcome, elapsed)
    value, duration = outcome
    try:
        return success_run(prepared, value, duration)
    except Exception as exc:  # the result's __str__ / serialisation raised
        return error_run(
            call.id,
            call.name,
            f"Error: tool {call.name!r} returned a {type(value).__name__} that cannot be "
            f"shown as text ({type(exc).__name__}: {safe_str(exc)})",
            "exception",
            arguments=prepared.json_arguments,
            exception_type=type(exc).__name__,
        ).model_copy(update={"duration_s": duration})


async def _outcome(prepared: PreparedCall) -> tuple[Any, float] | BaseException:
    """:func:`invoke`'s ``(value, seconds)``, or what the tool raised (any
    ``BaseException``: a ``SystemExit`` or ``KeyboardInterrupt`` that left a task would
    stop the event loop; :func:`run_call` decides what each one becomes)."""
    try:
        return await invoke(prepared)
    except BaseException as exc:  # handed to run_call, which re-raises what must propagate
        return exc


def _timeout_run(prepared: PreparedCall, timeout: float | None, duration_s: float) -> ToolRun:
    call = prepared.call
    return error_run(
        call.id,
        call.name,
        timeout_content(call.name, timeout),
        "timeout",
        arguments=prepared.json_arguments,
    ).model_copy(update={"duration_s": duration_s})


def _exception_run(prepared: PreparedCall, exc: BaseException, duration_s: float) -> ToolRun:
    call = prepared.call
    return error_run(
        call.id,
        call.name,
        exception_content(call.name, type(exc).__name__, safe_str(exc)),
        "exception",
        arguments=prepared.json_arguments,
        exception_type=type(exc).__name__,
    ).model_copy(update={"duration_s": duration_s})
