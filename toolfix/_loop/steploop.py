"""The agent loop: call the model, run its tool calls, feed results back, repeat.

The loop logic is split in two so that the in-process :class:`StepLoop` and the
durable Temporal workflow (:mod:`toolfix.temporal`) run exactly the same steps:

- pure functions (:func:`next_prompt`, :func:`plan_calls`, :func:`step_messages`,
  :func:`update_failures`, :func:`stop_reason`) build the next request and the
  conversation from results, with no I/O, clock or randomness;
- :func:`drive` is the async driver that uses them. It is given two callables,
  "make one LLM call" and "run one tool call"; the :class:`StepLoop` passes
  in-process ones, the Temporal workflow passes activity calls.

Model mistakes never raise: invalid calls, unknown tools, arguments that do not
validate, tool exceptions and timeouts become tool-result messages with
``is_error=True``, so the model can correct itself. A per-tool budget of
consecutive failures (``max_tool_retries``) ends a loop that goes nowhere.
"""

from __future__ import annotations

import asyncio
import enum
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from pydantic import BaseModel, ConfigDict

from .._errors import (
    ConfigurationError,
    LoopAbortedError,
    ProviderBadResponseError,
    ToolfixError,
)
from .._messages import (
    InvalidToolCallPart,
    Message,
    Prompt,
    RepairRecord,
    Response,
    ToolCallPart,
    ToolChoice,
    Usage,
)
from .._pipeline.executor import PromptExecutor
from .._pipeline.processor import IdentityProcessor, ResponseProcessor
from .._stream.api import accumulate, stream_through
from .._sync import run_sync
from .._tools import ToolDescriptor, ToolHandler, ToolRegistry
from .stream import LoopEvent
from .tools import ToolRun, error_run, quote_raw, run_call, safe_str

__all__ = [
    "LoopControl",
    "LoopHooks",
    "LoopResult",
    "Step",
    "StepLoop",
    "StopLoop",
    "StopReason",
    "StopWhen",
    "ToolChoiceSpec",
    "ToolRun",
    "call_model",
    "drive",
    "hook_stop_reason",
    "next_prompt",
    "plan_calls",
    "run_tool_calls",
    "run_tool_calls_sync",
    "step_messages",
    "stop_reason",
    "update_failures",
]

StopReason = Literal["answer", "max_steps", "stop_condition", "tool_retry_budget", "hook", "error"]

StopWhen: TypeAlias = Callable[["Step"], bool | Awaitable[bool]]
"""Ends the run (``"stop_condition"``) when true for a step; sync or async (the Temporal
workflow passes one that asks an activity)."""

ToolChoiceSpec: TypeAlias = ToolChoice | Sequence[ToolChoice] | Callable[[int], ToolChoice] | None
"""Tool choice per step: one for all steps, one per step (the last one repeats), or a
function of the step index. ``None`` keeps the prompt's own ``tool_choice``."""


class Step(BaseModel):
    """One loop iteration: the request sent, the (processed) response, and the tool runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    request: Prompt
    response: Response
    repairs: tuple[RepairRecord, ...] = ()
    """Every repair the processors made to this response (response-level, then per call)."""
    tool_results: tuple[ToolRun, ...] = ()
    """One per call the loop answered (valid or not), in call order; provider-executed
    calls are not here."""
    usage: Usage = Usage()
    """The LLM call's usage plus the usage of LLM calls recorded in repair records."""

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The response's valid calls (provider-executed ones included)."""
        return self.response.tool_calls

    @property
    def has_errors(self) -> bool:
        return any(r.is_error for r in self.tool_results)


class LoopResult(BaseModel):
    """What a loop run produced."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    steps: tuple[Step, ...] = ()
    final_text: str = ""
    """The text of the last response (the answer when ``stopped_reason == "answer"``)."""
    messages: tuple[Message, ...] = ()
    """The whole conversation: the prompt's messages, then each assistant turn and its
    tool results."""
    usage: Usage = Usage()
    stopped_reason: StopReason
    stop_detail: str | None = None
    """Why a hook or the retry budget stopped the loop, when it did."""
    pending_calls: tuple[ToolCallPart, ...] = ()
    """Calls of the last allowed step (``max_steps``) that were not run, because no model
    call would read their results: run them yourself (e.g. :func:`run_tool_calls`) or
    continue the conversation."""

    @property
    def last_response(self) -> Response | None:
        return self.steps[-1].response if self.steps else None

    @property
    def tool_results(self) -> list[ToolRun]:
        """Every tool run of every step, in order."""
        return [r for s in self.steps for r in s.tool_results]


# ---- hooks ------------------------------------------------------------------------------


class StopLoop(Exception):
    """Raise from any hook to stop the loop (``stopped_reason == "hook"``).

    A signal from your code to the loop, not an error toolfix reports, so it does not
    derive from :class:`~toolfix.ToolfixError`."""

    def __init__(self, reason: str = "stopped by a hook"):
        super().__init__(reason)
        self.reason = reason


class LoopControl(enum.Enum):
    """What a hook may return: ``STOP`` ends the loop, ``CONTINUE`` (or ``None``) goes on."""

    CONTINUE = "continue"
    STOP = "stop"


HookResult = LoopControl | None


class LoopHooks:
    """Observe (and stop) a loop. Override the methods you need; they may be sync or async.

    Each hook may return :attr:`LoopControl.STOP` or raise :class:`StopLoop` to end the
    loop. When: ``before_llm_call`` - before the call is made (no step is recorded);
    ``after_llm_call`` / ``on_repair`` - the step is recorded with the response and its
    calls are not run; ``before_tool`` - this call and the calls not yet started get a
    "not run" error result, calls already running finish; ``after_tool`` - the other
    calls of the step finish, then the loop ends.
    """

    def before_llm_call(
        self, step_index: int, prompt: Prompt
    ) -> HookResult | Awaitable[HookResult]:
        return None

    def after_llm_call(
        self, step_index: int, prompt: Prompt, response: Response
    ) -> HookResult | Awaitable[HookResult]:
        return None

    def on_repair(
        self, step_index: int, response: Response, repairs: Sequence[RepairRecord]
    ) -> HookResult | Awaitable[HookResult]:
        return None

    def before_tool(
        self, step_index: int, call: ToolCallPart
    ) -> HookResult | Awaitable[HookResult]:
        return None

    def after_tool(
        self, step_index: int, call: ToolCallPart, result: ToolRun
    ) -> HookResult | Awaitable[HookResult]:
        return None


async def hook_stop_reason(fn: Callable[..., Any], *args: Any) -> str | None:
    """Run a hook (sync or async); the stop reason if it asked to stop (``StopLoop`` or
    ``LoopControl.STOP``), else ``None``. Other exceptions propagate."""
    return await _hook(fn, *args)


async def _hook(fn: Callable[..., Any], *args: Any) -> str | None:
    """Run a hook; the stop reason if it asked to stop, else ``None``."""
    try:
        out = fn(*args)
        if inspect.isawaitable(out):
            out = await out
    except StopLoop as exc:
        return exc.reason
    if out is LoopControl.STOP:
        return f"stopped by {getattr(fn, '__name__', 'a hook')}"
    return None


# ---- pure step logic ----------------------------------------------------------------------


def tool_choice_for(spec: ToolChoiceSpec, step_index: int, default: ToolChoice) -> ToolChoice:
    """The tool choice of step ``step_index`` under ``spec``."""
    if spec is None:
        return default
    if isinstance(spec, ToolChoice):
        return spec
    if callable(spec):
        return spec(step_index)
    if not spec:
        return default
    return spec[min(step_index, len(spec) - 1)]


def next_prompt(
    base: Prompt,
    messages: Sequence[Message],
    step_index: int,
    previous_response: Response | None,
    tool_choice: ToolChoiceSpec = None,
) -> Prompt:
    """The request of step ``step_index``: the whole conversation so far, the step's tool
    choice, and ``previous_response_id`` set to the last response's id (the base prompt's
    own on the first step)."""
    prev_id = base.previous_response_id if previous_response is None else previous_response.id
    return base.model_copy(
        update={
            "messages": tuple(messages),
            "previous_response_id": prev_id,
            "tool_choice": tool_choice_for(tool_choice, step_index, base.tool_choice),
        }
    )


def invalid_call_run(part: InvalidToolCallPart, step_index: int, position: int) -> ToolRun:
    """The error result telling the model what was wrong with a call toolfix could not fix."""
    name = part.name or "unknown"
    content = (
        f"Error: your tool call could not be used ({part.kind}): {part.error}\n"
        f"Raw call: {quote_raw(part.raw)}\n"
        "Call the tool again with a valid tool name and JSON arguments matching its schema."
    )
    return error_run(
        part.id or f"invalid_{step_index}_{position}",
        name,
        content,
        "invalid_call",
        arguments=part.arguments,
    )


def plan_calls(response: Response, step_index: int) -> list[ToolCallPart | ToolRun]:
    """What to do with each call of a response, in part order: a :class:`ToolCallPart` to
    run, or a ready error :class:`ToolRun` for an invalid call. Provider-executed calls are
    left out (the provider ran them)."""
    out: list[ToolCallPart | ToolRun] = []
    for position, part in enumerate(response.parts):
        if isinstance(part, ToolCallPart):
            if not part.provider_executed:
                out.append(part)
        elif isinstance(part, InvalidToolCallPart):
            out.append(invalid_call_run(part, step_index, position))
    return out


def step_messages(step: Step) -> tuple[Message, ...]:
    """The messages a step adds: the assistant turn (reasoning, signatures, provider-executed
    calls and provider data kept verbatim), then one tool message per result, in call order."""
    tool_msgs = tuple(Message(role="tool", parts=(r.to_part(),)) for r in step.tool_results)
    return (step.response.to_message(), *tool_msgs)


def step_usage(response: Response, repairs: Iterable[RepairRecord]) -> Usage:
    """The response's usage plus the LLM usage recorded by processors in repair records."""
    total = response.usage or Usage()
    for r in repairs:
        if r.usage is not None:
            total = total + r.usage
    return total


def update_failures(failures: Mapping[str, int], runs: Iterable[ToolRun]) -> dict[str, int]:
    """Consecutive failures per tool name after ``runs``: an error adds one, a success
    resets the count. "Not run" results (a hook stopped the loop) do not count."""
    out = dict(failures)
    for run in runs:
        if run.error_type == "stopped":
            continue
        out[run.name] = out.get(run.name, 0) + 1 if run.is_error else 0
    return out


def exhausted_tools(failures: Mapping[str, int], max_tool_retries: int) -> list[str]:
    """Tools whose consecutive failures exceed the retry budget."""
    return [name for name, n in failures.items() if n > max_tool_retries]


def stop_reason(
    step: Step,
    failures: Mapping[str, int],
    *,
    steps_done: int,
    max_steps: int,
    max_tool_retries: int,
    stop_condition: bool = False,
) -> StopReason | None:
    """Why the loop ends after ``step``, or ``None`` to go on. In order: no call to answer
    (``answer``), a tool over its retry budget, the user's stop condition, ``max_steps``."""
    if not step.tool_results:
        return "answer"
    if exhausted_tools(failures, max_tool_retries):
        return "tool_retry_budget"
    if stop_condition:
        return "stop_condition"
    if steps_done >= max_steps:
        return "max_steps"
    return None


def finish(
    steps: Sequence[Step],
    messages: Sequence[Message],
    reason: StopReason,
    detail: str | None = None,
    pending: Sequence[ToolCallPart] = (),
) -> LoopResult:
    """The :class:`LoopResult` of a finished run."""
    usage = Usage()
    for s in steps:
        usage = usage + s.usage
    return LoopResult(
        steps=tuple(steps),
        final_text=steps[-1].response.text if steps else "",
        messages=tuple(messages),
        usage=usage,
        stopped_reason=reason,
        stop_detail=detail,
        pending_calls=tuple(pending),
    )


def _stopped_run(call: ToolCallPart) -> ToolRun:
    """The result of a call the loop did not start (stopped or aborted first)."""
    return error_run(
        call.id, call.name, "Not run: the agent loop was stopped before this tool ran.", "stopped"
    )


# ---- the driver ---------------------------------------------------------------------------

LlmCaller = Callable[[Prompt], Awaitable[Response]]
ToolCaller = Callable[[ToolCallPart], Awaitable[ToolRun]]


async def drive(
    prompt: Prompt,
    *,
    call_llm: LlmCaller,
    run_tool: ToolCaller,
    max_steps: int = 10,
    tool_concurrency: int = 8,
    max_tool_retries: int = 3,
    tool_choice: ToolChoiceSpec = None,
    stop_when: StopWhen | None = None,
    hooks: LoopHooks | None = None,
) -> LoopResult:
    """Run the loop with the given LLM and tool callables (deterministic given them)."""
    if max_steps < 1:
        raise ConfigurationError(f"max_steps must be >= 1, got {max_steps}")
    if tool_concurrency < 1:
        raise ConfigurationError(f"tool_concurrency must be >= 1, got {tool_concurrency}")
    if max_tool_retries < 0:
        raise ConfigurationError(f"max_tool_retries must be >= 0, got {max_tool_retries}")
    messages: list[Message] = list(prompt.messages)
    steps: list[Step] = []
    flight = _InFlight()
    try:
        return await _drive_steps(
            prompt,
            messages,
            steps,
            flight,
            call_llm=call_llm,
            run_tool=run_tool,
            max_steps=max_steps,
            tool_concurrency=tool_concurrency,
            max_tool_retries=max_tool_retries,
            tool_choice=tool_choice,
            stop_when=stop_when,
            hooks=hooks,
        )
    except Exception as exc:
        flight.land(steps, messages)
        raise _aborted(exc, steps, messages) from (None if isinstance(exc, ToolfixError) else exc)
    except (asyncio.CancelledError, KeyboardInterrupt) as exc:
        # not ours to turn into an error: it propagates as it is, carrying the run so far
        # (an outer ``asyncio.timeout`` raises TimeoutError from it: ``err.__cause__``)
        flight.land(steps, messages)
        exc.partial_result = finish(  # type: ignore[union-attr]
            steps, messages, "error", f"{type(exc).__name__}: the run was interrupted"
        )
        raise


class LoopSettings(Protocol):
    """The limits and tool choice of a run, as a :class:`StepLoop` or a Temporal agent's
    input holds them (read by :func:`drive_with`)."""

    @property
    def max_steps(self) -> int: ...
    @property
    def tool_concurrency(self) -> int: ...
    @property
    def max_tool_retries(self) -> int: ...
    @property
    def tool_choice(self) -> ToolChoiceSpec: ...


async def drive_with(
    settings: LoopSettings,
    prompt: Prompt,
    call_llm: LlmCaller,
    run_tool: ToolCaller,
    *,
    stop_when: StopWhen | None = None,
    hooks: LoopHooks | None = None,
) -> LoopResult:
    """:func:`drive` with the limits and tool choice of ``settings``."""
    return await drive(
        prompt,
        call_llm=call_llm,
        run_tool=run_tool,
        max_steps=settings.max_steps,
        tool_concurrency=settings.tool_concurrency,
        max_tool_retries=settings.max_tool_retries,
        tool_choice=settings.tool_choice,
        stop_when=stop_when,
        hooks=hooks,
    )


def _aborted(exc: Exception, steps: list[Step], messages: list[Message]) -> ToolfixError:
    """The error that ends a run, carrying the run so far (nothing is lost)."""
    err = (
        exc
        if isinstance(exc, ToolfixError)
        else LoopAbortedError(
            f"the agent loop stopped at step {len(steps)}: {type(exc).__name__}: {safe_str(exc)}"
        )
    )
    err.partial_result = finish(steps, messages, "error", f"{type(exc).__name__}: {safe_str(exc)}")
    return err


def _step(index: int, request: Prompt, response: Response, runs: Sequence[ToolRun] = ()) -> Step:
    """The :class:`Step` of a response and its tool runs."""
    repairs = tuple(response.all_repairs)
    return Step(
        index=index,
        request=request,
        response=response,
        repairs=repairs,
        tool_results=tuple(runs),
        usage=step_usage(response, repairs),
    )


@dataclass
class _InFlight:
    """The step under way: its paid response and the tool runs finished so far, so that
    a run ending early (a raising hook, a cancellation) keeps them in ``partial_result``."""

    request: Prompt | None = None
    response: Response | None = None
    plans: Sequence[ToolCallPart | ToolRun] = ()
    runs: dict[int, ToolRun] | None = None  # None: no tool was started

    def take_off(self, request: Prompt, response: Response) -> None:
        self.request, self.response, self.plans, self.runs = request, response, (), None

    def landed(self) -> None:
        self.request = self.response = None

    def land(self, steps: list[Step], messages: list[Message]) -> None:
        """Record the step under way, if any: its response and the runs that finished
        (calls that had not finished get a "not run" result)."""
        if self.request is None or self.response is None:
            return
        runs: tuple[ToolRun, ...] = ()
        if self.runs is not None:
            runs = tuple(
                self.runs.get(i) or (p if isinstance(p, ToolRun) else _stopped_run(p))
                for i, p in enumerate(self.plans)
            )
        step = _step(len(steps), self.request, self.response, runs)
        steps.append(step)
        messages.extend(step_messages(step) if runs else (self.response.to_message(),))
        self.landed()


async def _drive_steps(
    prompt: Prompt,
    messages: list[Message],
    steps: list[Step],
    flight: _InFlight,
    *,
    call_llm: LlmCaller,
    run_tool: ToolCaller,
    max_steps: int,
    tool_concurrency: int,
    max_tool_retries: int,
    tool_choice: ToolChoiceSpec,
    stop_when: StopWhen | None,
    hooks: LoopHooks | None,
) -> LoopResult:
    failures: dict[str, int] = {}
    previous: Response | None = None
    sem = asyncio.Semaphore(tool_concurrency)
    while True:
        index = len(steps)
        request = next_prompt(prompt, messages, index, previous, tool_choice)
        if hooks is not None and (why := await _hook(hooks.before_llm_call, index, request)):
            return finish(steps, messages, "hook", why)
        response = await call_llm(request)
        flight.take_off(request, response)  # paid for: kept whatever happens next
        repairs = tuple(response.all_repairs)
        why = None
        if hooks is not None:
            why = await _hook(hooks.after_llm_call, index, request, response)
            if repairs and not why:
                why = await _hook(hooks.on_repair, index, response, repairs)
        plans = plan_calls(response, index)
        last = index + 1 >= max_steps
        if why or (last and plans):
            # a hook stopped the run, or no model call will read these calls' results
            steps.append(_step(index, request, response))
            messages.append(response.to_message())
            flight.landed()
            if why:
                return finish(steps, messages, "hook", why)
            pending = [p for p in plans if isinstance(p, ToolCallPart)]
            return finish(steps, messages, "max_steps", None, pending)
        flight.plans, flight.runs = plans, {}
        runs, why, raised = await _run_calls(plans, index, run_tool, sem, hooks, flight.runs)
        step = _step(index, request, response, runs)
        steps.append(step)
        messages.extend(step_messages(step))
        flight.landed()
        failures = update_failures(failures, runs)
        previous = response
        if raised is not None:
            raise raised  # after the step's finished calls are recorded
        if why:
            return finish(steps, messages, "hook", why)
        reason = stop_reason(
            step,
            failures,
            steps_done=len(steps),
            max_steps=max_steps,
            max_tool_retries=max_tool_retries,
            stop_condition=await _stop_condition(stop_when, step),
        )
        if reason is not None:
            detail = None
            if reason == "tool_retry_budget":
                names = ", ".join(exhausted_tools(failures, max_tool_retries))
                detail = f"more than {max_tool_retries} consecutive failures: {names}"
            return finish(steps, messages, reason, detail)


async def _stop_condition(stop_when: StopWhen | None, step: Step) -> bool:
    """The user's stop condition for a step with tool results (sync or async)."""
    if stop_when is None or not step.tool_results:
        return False
    out = stop_when(step)
    if inspect.isawaitable(out):
        out = await out
    return bool(out)


async def _run_calls(
    plans: Sequence[ToolCallPart | ToolRun],
    step_index: int,
    run_tool: ToolCaller,
    sem: asyncio.Semaphore,
    hooks: LoopHooks | None,
    finished: dict[int, ToolRun] | None = None,
) -> tuple[list[ToolRun], str | None, Exception | None]:
    """Run the calls concurrently (at most ``sem``'s limit at once); results in call order.

    A hook that raises stops the calls not yet started, but never cancels one that is
    running: every call that ran is recorded, then the first error is returned. Each
    result is also put in ``finished`` (by position) as soon as it is known."""
    stop: list[str] = []
    errors: list[Exception] = []
    done = finished if finished is not None else {}

    async def one(position: int, plan: ToolCallPart | ToolRun) -> ToolRun:
        run = await run_one(plan)
        done[position] = run
        return run

    async def run_one(plan: ToolCallPart | ToolRun) -> ToolRun:
        if isinstance(plan, ToolRun):
            return plan
        async with sem:
            if stop or errors:
                return _stopped_run(plan)
            try:
                if hooks is not None and (why := await _hook(hooks.before_tool, step_index, plan)):
                    stop.append(why)
                    return _stopped_run(plan)
            except Exception as exc:
                errors.append(exc)
                return _stopped_run(plan)
            run = await run_tool(plan)
            try:
                if hooks is not None and (
                    why := await _hook(hooks.after_tool, step_index, plan, run)
                ):
                    stop.append(why)
            except Exception as exc:
                errors.append(exc)
            return run

    if not plans:
        return [], None, None
    runs = list(await asyncio.gather(*(one(i, p) for i, p in enumerate(plans))))
    return runs, (stop[0] if stop else None), (errors[0] if errors else None)


async def run_tool_calls(
    calls: Response | Iterable[ToolCallPart | InvalidToolCallPart],
    tools: ToolRegistry | Iterable[ToolDescriptor | Mapping[str, Any] | ToolHandler],
    *,
    timeout: float | None = None,
    concurrency: int = 8,
) -> list[ToolRun]:
    """Run a response's tool calls against ``tools``, as one :class:`StepLoop` step does,
    without the loop: the building block of the two-call recipe (call the model, run the
    calls, send the results in one follow-up).

    ``calls`` is a :class:`Response` or its call parts. Results come in call order, one per
    call; model mistakes (invalid calls, unknown tools, bad arguments), tool exceptions and
    timeouts are error results, never raised. Provider-executed calls are skipped (the
    provider ran them). At most ``concurrency`` calls run at once; ``timeout`` is seconds
    per call. :meth:`ToolRun.to_message` makes each result the tool message to send back.
    """
    if concurrency < 1:
        raise ConfigurationError(f"concurrency must be >= 1, got {concurrency}")
    registry = ToolRegistry.of(tools)
    response = calls if isinstance(calls, Response) else Response(parts=tuple(calls))
    sem = asyncio.Semaphore(concurrency)

    async def run_tool(call: ToolCallPart) -> ToolRun:
        return await run_call(registry, call, timeout=timeout)

    runs, _, _ = await _run_calls(plan_calls(response, 0), 0, run_tool, sem, None)
    return runs


def run_tool_calls_sync(
    calls: Response | Iterable[ToolCallPart | InvalidToolCallPart],
    tools: ToolRegistry | Iterable[ToolDescriptor | Mapping[str, Any] | ToolHandler],
    *,
    timeout: float | None = None,
    concurrency: int = 8,
) -> list[ToolRun]:
    """Blocking counterpart of :func:`run_tool_calls`."""
    return run_sync(run_tool_calls(calls, tools, timeout=timeout, concurrency=concurrency))


async def call_model(
    executor: PromptExecutor,
    processor: ResponseProcessor | None,
    prompt: Prompt,
    model: str,
    registry: ToolRegistry,
) -> Response:
    """One LLM call through the executor, processed by ``processor``; the first choice."""
    responses = await executor.execute(prompt, model, registry)
    if processor is not None:
        responses = await processor.process(executor, prompt, model, registry, responses)
    if not responses:
        raise ProviderBadResponseError("the executor returned no response")
    return responses[0]


class StepLoop:
    """Runs an agent: model call, tool calls, results fed back, until the model answers.

    Args:
        executor: Makes one LLM call per step (it may already wrap a processor).
        registry: The tools, with handlers (plain sync or async functions); a
            :class:`ToolRegistry` or anything :meth:`ToolRegistry.of` accepts.
        processor: Repairs each response before its calls run (e.g.
            ``ManualToolCallFixProcessor()``).
        model: The model name passed to the executor.
        max_steps: Most LLM calls in one run; calls in the last allowed response are
            not run but returned as ``LoopResult.pending_calls``.
        tool_concurrency: Most tool calls of one turn running at once.
        tool_timeout: Seconds one tool call may take; a timeout is fed back as an error.
        max_tool_retries: Consecutive failures of one tool the model may retry; one more
            ends the run with ``stopped_reason == "tool_retry_budget"``.
        stop_when: Ends the run (``"stop_condition"``) when it returns true for a step.
        hooks: Observe the run and stop it (see :class:`LoopHooks`).
        tool_choice: Tool choice per step (see :data:`ToolChoiceSpec`).
    """

    def __init__(
        self,
        executor: PromptExecutor,
        registry: ToolRegistry | Iterable[ToolDescriptor | Mapping[str, Any] | ToolHandler],
        *,
        model: str,
        processor: ResponseProcessor | None = None,
        max_steps: int = 10,
        tool_concurrency: int = 8,
        tool_timeout: float | None = None,
        max_tool_retries: int = 3,
        stop_when: StopWhen | None = None,
        hooks: LoopHooks | None = None,
        tool_choice: ToolChoiceSpec = None,
    ):
        self.executor = executor
        self.registry = ToolRegistry.of(registry)
        self.model = model
        self.processor = processor
        self.max_steps = max_steps
        self.tool_concurrency = tool_concurrency
        self.tool_timeout = tool_timeout
        self.max_tool_retries = max_tool_retries
        self.stop_when = stop_when
        self.hooks = hooks
        self.tool_choice = tool_choice

    async def run(self, prompt: Prompt | str) -> LoopResult:
        """Run the loop from ``prompt`` (a bare string is one user message)."""
        start = Prompt.of(prompt) if isinstance(prompt, str) else prompt

        async def call_llm(request: Prompt) -> Response:
            return await call_model(
                self.executor, self.processor, request, self.model, self.registry
            )

        async def run_tool(call: ToolCallPart) -> ToolRun:
            return await run_call(self.registry, call, timeout=self.tool_timeout)

        return await drive_with(
            self, start, call_llm, run_tool, stop_when=self.stop_when, hooks=self.hooks
        )

    def run_stream(self, prompt: Prompt | str) -> AsyncIterator[LoopEvent]:
        """Run the loop, yielding events as they happen: text and reasoning deltas (as
        repaired), each call before it runs, each tool result, and ``done`` with the
        :class:`LoopResult` (see docs/guides/streaming.md)."""
        return run_stream(self, prompt)

    def run_sync(self, prompt: Prompt | str) -> LoopResult:
        """Blocking counterpart of :meth:`run`."""
        return run_sync(self.run(prompt))

    def __repr__(self) -> str:
        return f"StepLoop(model={self.model!r}, tools={self.registry.names!r})"


async def run_stream(loop: StepLoop, prompt: Prompt | str) -> AsyncIterator[LoopEvent]:
    """Run ``loop`` from ``prompt``, yielding :class:`LoopEvent`\\ s as they happen
    (docs/guides/streaming.md)."""
    start = Prompt.of(prompt) if isinstance(prompt, str) else prompt
    queue: asyncio.Queue[LoopEvent | BaseException] = asyncio.Queue()
    step = 0

    async def call_llm(request: Prompt) -> Response:
        nonlocal step
        index = step
        step += 1
        stream = getattr(loop.executor, "execute_stream", None)
        if stream is None:
            response = await call_model(
                loop.executor, loop.processor, request, loop.model, loop.registry
            )
            if response.reasoning:
                queue.put_nowait(LoopEvent("reasoning", index, text=response.reasoning))
            if response.text:
                queue.put_nowait(LoopEvent("text", index, text=response.text))
        else:
            processor = loop.processor or IdentityProcessor()
            chunks = stream(request, loop.model, loop.registry)
            out = []
            async for chunk in stream_through(
                processor, loop.executor, request, loop.model, loop.registry, chunks
            ):
                out.append(chunk)
                delta = chunk["choices"][0].get("delta") or {}
                if delta.get("reasoning_content"):
                    queue.put_nowait(LoopEvent("reasoning", index, text=delta["reasoning_content"]))
                if delta.get("content"):
                    queue.put_nowait(LoopEvent("text", index, text=delta["content"]))
            response = accumulate(out)
        return response

    async def run_tool(call: ToolCallPart) -> ToolRun:
        queue.put_nowait(LoopEvent("call", step - 1, call=call))
        run = await run_call(loop.registry, call, timeout=loop.tool_timeout)
        queue.put_nowait(LoopEvent("tool_result", step - 1, call=call, run=run))
        return run

    async def drive_to_queue() -> None:
        try:
            result = await drive_with(
                loop, start, call_llm, run_tool, stop_when=loop.stop_when, hooks=loop.hooks
            )
        except BaseException as exc:
            queue.put_nowait(exc)
            return
        queue.put_nowait(LoopEvent("done", max(step - 1, 0), result=result))

    task = asyncio.create_task(drive_to_queue())
    try:
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
            if item.kind == "done":
                return
    finally:
        if not task.done():
            task.cancel()
