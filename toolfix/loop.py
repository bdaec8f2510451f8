"""The agent loop: call the model, repair its calls, run the tools, repeat.

:class:`StepLoop` runs a whole conversation (``run``, ``run_sync``, ``run_stream``);
:func:`run_tool_calls` runs one response's calls against a registry.

    >>> from toolfix.loop import StepLoop
    >>> from toolfix.testing import ScriptedExecutor
    >>> StepLoop(ScriptedExecutor(["done"]), [], model="m").run_sync("hi").final_text
    'done'
"""

from __future__ import annotations

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

__all__ = [
    "LoopControl",
    "LoopEvent",
    "LoopHooks",
    "LoopResult",
    "Step",
    "StepLoop",
    "StopLoop",
    "ToolRun",
    "run_tool_calls",
    "run_tool_calls_sync",
]
