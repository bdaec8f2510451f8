"""What the fixer spent on one response: its own LLM calls, counted, and the record.

Every call the fixer makes goes through :meth:`Ledger.ask`, so the count in the
``RepairRecord(kind="llm_fix", llm_calls=n, usage=...)`` it leaves on the response
is the number of requests actually sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._errors import ConfigurationError
from .._messages import FailureKind, Prompt, RepairRecord, Response, Usage
from .._tools import ToolRegistry

if TYPE_CHECKING:
    from .._pipeline.executor import PromptExecutor

from .._log import log

__all__ = ["Ledger", "llm_calls_of"]


@dataclass
class Ledger:
    """The fixer's calls for one response: made through one executor and model, counted."""

    executor: PromptExecutor | None
    model: str
    calls: int = 0
    intent_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    notes: list[str] = field(default_factory=list)

    async def ask(self, prompt: Prompt, tools: ToolRegistry) -> Response:
        """Send one request (``tools`` empty: none attached) and count it."""
        if self.executor is None:
            raise ConfigurationError(
                "LLMBasedToolCallFixProcessor needs an executor: pass one to process() "
                "(executor.with_processor(...) does) or to the constructor"
            )
        log.info("LLM fixer call %d to %s (%d tools)", self.calls + 1, self.model, len(tools))
        replies = await self.executor.execute(prompt, self.model, tools)
        reply = replies[0] if replies else Response()
        self.calls += 1
        u = reply.usage or Usage()
        self.usage = self.usage + u.model_copy(update={"requests": 1})
        return reply

    @property
    def fix_calls(self) -> int:
        return self.calls - self.intent_calls

    def note(self, text: str) -> None:
        self.notes.append(text)

    def stamp(self, resp: Response) -> Response:
        """``resp`` with the ``llm_fix`` record of what was spent and why."""
        rec = RepairRecord(
            kind=FailureKind.LLM_FIX,
            detail="; ".join(self.notes) or "LLM fixer",
            llm_calls=self.calls,
            usage=self.usage,
        )
        return resp.model_copy(update={"repairs": (*resp.repairs, rec)})


def llm_calls_of(response: Response) -> int:
    """LLM requests the fixer spent on ``response`` (the CLI's ``llm_calls``)."""
    return sum(r.llm_calls for r in response.all_repairs)
