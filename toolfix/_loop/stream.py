"""The events of ``StepLoop.run_stream`` (run in :mod:`.steploop`): the agent loop as a
stream of events for a UI.

The same loop as :meth:`StepLoop.run` (the same driver, the same repair and tool
runs), with each model call streamed when the executor can stream
(``execute_stream``, as :class:`~toolfix.LiteLLMExecutor` does) and repaired on the
way through the processor's ``process_stream``. Events, in order, per step:

* ``text`` / ``reasoning``: deltas of the answer and of the reasoning, as repaired
  (markup the fixer removes never reaches the UI);
* ``call``: a repaired call about to run, ``tool_result``: its result;
* and once at the end ``done``, carrying the :class:`~toolfix.LoopResult`.

An executor that cannot stream gives one ``text`` event per step. An error ends
the stream by raising it (with ``partial_result``, as ``run`` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .._messages import ToolCallPart
from .tools import ToolRun

if TYPE_CHECKING:
    from .steploop import LoopResult

__all__ = ["LoopEvent"]

EventKind = Literal["text", "reasoning", "call", "tool_result", "done"]


@dataclass(frozen=True, slots=True)
class LoopEvent:
    """One thing that happened in a streamed run (see :meth:`StepLoop.run_stream`)."""

    kind: EventKind
    step: int
    text: str = ""
    call: ToolCallPart | None = None
    run: ToolRun | None = None
    result: LoopResult | None = None
