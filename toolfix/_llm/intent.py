"""The intent question: "did you mean to call a tool?", asked and only asked.

It is sent with **no tools and no tool option at all** (no ``tool_choice``,
``parallel_tool_calls``, ``functions``..., from the prompt's params or the executor's
options: :mod:`toolfix._tool_options`), so a server that ignores ``tool_choice`` has
nothing to call. The reply is read as yes, no or unclear:

* the first word is "yes" or "no" (after markdown emphasis, quotes and a leading
  ``<think>`` block), or, when the reply starts with call markup, the first word
  after it;
* a reply that carries a tool call (a call part) counts as **no**, and so does an
  unclear reply: the fixer never acts on an answer the model did not give;
* a "yes" written around call markup (``Yes. <tool_call>{...}</tool_call>``) is a
  yes, but no call is ever taken from the reply: a yes only lets the fixer ask for
  the call in a fix call, which is validated like any other.

Earlier tool calls and tool results in the conversation are sent as text in the
question (providers such as Anthropic refuse tool blocks in a request without
tools); the prompt itself is not changed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from .._messages import (
    InvalidToolCallPart,
    Message,
    Part,
    Prompt,
    Response,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from .._strenum import StrEnum
from .._tool_options import without_tool_options
from .._tools import ToolRegistry
from .feedback import Feedback
from .ledger import Ledger
from .precheck import DEFAULT_CALL_MARKERS
from .prompts import FixFailure

__all__ = ["IntentAnswer", "IntentReply", "ask_intent", "read_intent", "text_history"]

_STRIP = "*_\"'`.,!:;()[]"
_CLOSERS = ">]})"


class IntentAnswer(StrEnum):
    YES = "yes"
    NO = "no"
    UNCLEAR = "unclear"


@dataclass(frozen=True)
class IntentReply:
    """How the model answered the intent question."""

    answer: IntentAnswer
    with_call: bool = False  # the reply carried a tool-call part
    with_markup: bool = False  # the reply text holds call markup (never read as a call)
    said: str = ""  # the start of the reply text, for the record

    @property
    def intended(self) -> bool:
        return self.answer is IntentAnswer.YES and not self.with_call

    def note(self) -> str:
        """What the model answered, for the ``llm_fix`` record."""
        if self.with_call:
            return "intent question: answered with a tool call, counted as no"
        if self.answer is IntentAnswer.UNCLEAR:
            return f"intent question: unclear answer {self.said!r}, counted as no"
        extra = " (call markup in the reply not used)" if self.with_markup else ""
        return f"intent question: {self.answer.value}{extra}"


async def ask_intent(
    ledger: Ledger,
    feedback: Feedback,
    prompt: Prompt,
    resp: Response,
    failure: FixFailure,
) -> IntentReply:
    """Ask whether ``resp`` meant to call a tool (one counted LLM call, no tools sent)."""
    prompts = feedback.prompts
    messages = (
        *text_history(prompt.messages),
        Message.assistant(resp.text or resp.reasoning or ""),
        Message.user(prompts.render(prompts.intent_question, failure)),
    )
    ask = Prompt(
        messages=feedback.with_system(messages, failure, "intent_question"),
        params=without_tool_options(prompt.params),
    )
    reply = await ledger.ask(ask, ToolRegistry())
    ledger.intent_calls += 1
    return read_intent(reply)


def text_history(messages: Sequence[Message]) -> tuple[Message, ...]:
    """``messages`` with tool calls and tool results written as text (others unchanged)."""
    return tuple(_as_text(m) for m in messages)


def _as_text(m: Message) -> Message:
    if not any(isinstance(p, ToolCallPart | InvalidToolCallPart | ToolResultPart) for p in m.parts):
        return m
    kept: list[Part] = []  # reasoning stays as it is
    lines: list[str] = []
    for p in m.parts:
        if isinstance(p, TextPart):
            lines.append(p.text)
        elif isinstance(p, ToolCallPart):
            lines.append(f'{{"name": {json.dumps(p.name)}, "arguments": {p.arguments_raw}}}')
        elif isinstance(p, InvalidToolCallPart):
            lines.append(p.raw)
        elif isinstance(p, ToolResultPart):
            lines.append(f"Result of {p.name} (call {p.tool_call_id}): {p.content}")
        else:
            kept.append(p)
    role = "user" if m.role == "tool" else m.role
    parts = (*kept, TextPart(text="\n".join(lines)))
    return Message(role=role, parts=parts, provider_data=m.provider_data)


def read_intent(reply: Response) -> IntentReply:
    """Read a reply to the intent question as yes / no / unclear."""
    text = reply.text.strip()
    said = text[:60]
    if any(isinstance(p, ToolCallPart | InvalidToolCallPart) for p in reply.parts):
        return IntentReply(IntentAnswer.NO, with_call=True, said=said)
    low = text.lower()
    if low.startswith("<think>") and "</think>" in low:
        low = low[low.index("</think>") + len("</think>") :].strip()
    markup = any(m in low for m in DEFAULT_CALL_MARKERS)
    answer = _first_word(low)
    if answer is IntentAnswer.UNCLEAR and markup:
        cut = max(low.rfind(c) for c in _CLOSERS)  # the words after the markup
        answer = _first_word(low[cut + 1 :])
    return IntentReply(answer, with_markup=markup, said=said)


def _first_word(text: str) -> IntentAnswer:
    """The answer in the first word: the leading letters after emphasis and quotes."""
    start = 0
    while start < len(text) and (text[start].isspace() or text[start] in _STRIP):
        start += 1
    end = start
    while end < len(text) and text[end].isalpha():
        end += 1
    first = text[start:end]
    if first == "yes":
        return IntentAnswer.YES
    if first == "no":
        return IntentAnswer.NO
    return IntentAnswer.UNCLEAR
