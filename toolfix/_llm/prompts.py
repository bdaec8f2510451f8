"""The texts the LLM-based fixer sends, and the failure each one is about.

Every text of :class:`FixerPrompts` is either a :meth:`str.format` template or a
function of the failure. A template receives the fields listed on its attribute;
a function receives one :class:`FixFailure` and returns the text::

    FixerPrompts(
        system="You repair tool calls. Answer only with tool calls.",
        invalid_json=lambda f: f"Call {f.label} is not JSON ({f.error}). Resend it.",
    )

Values are inserted as they are (model text with braces is safe: only the
template is parsed for fields). Model text quoted back to the model is cut at
``max_raw_chars``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .._config import StrictSettings
from .._messages import FailureKind

__all__ = [
    "DEFAULT_FIX_SYSTEM",
    "DEFAULT_INTENT_SYSTEM",
    "FixFailure",
    "FixerPrompts",
    "PromptText",
    "RequestKind",
]

RequestKind = Literal["intent_question", "fix_call"]
"""The two requests the fixer sends."""


@dataclass(frozen=True)
class FixFailure:
    """What one message of the fixer is about: given to prompt functions.

    ``kind`` is the failure class, a :class:`~toolfix.FailureKind` (``invalid_json``,
    ``truncated``, ``unknown_name``, ``missing_required``, ``type_mismatch``,
    ``enum_case``, ``extra_keys``, or ``intent_only`` for a message with no call; a
    plain string when a custom processor made the invalid call with a kind of its own).
    For ``fix_request`` it is the first broken call's failure, with every paragraph in
    ``problems``.
    """

    kind: FailureKind | str
    tool_names: tuple[str, ...]
    request: RequestKind = "fix_call"
    """Which request the text is for: ``"intent_question"`` (the yes/no question) or
    ``"fix_call"`` (a request for corrected calls). A ``system`` function uses it to write
    the right system text for each."""
    label: str = ""
    """``#n (tool)``: how the feedback names the call; stable over the conversation."""
    name: str | None = None
    call_id: str | None = None
    error: str = ""
    raw: str = ""
    """What the model wrote for the call (arguments or the whole call text)."""
    issues: tuple[str, ...] = ()
    """The problems of the arguments, one per item, each named: ``unknown key 'town'``,
    ``missing required key: ...``, ``wrong type at $.days: ...``, ``invalid value ...``."""
    arguments: dict[str, Any] | None = None
    """For argument errors, the arguments as the model sent them (before any key was
    dropped or value coerced); for a ``truncated`` call, the members parsed so far."""
    schema: Mapping[str, Any] | None = None
    """The tool's JSON schema (for argument errors)."""
    text: str = ""
    """The assistant message the question is about (``intent_question``)."""
    problems: tuple[str, ...] = ()
    """The feedback paragraph of every broken call (``fix_request``)."""
    kept_calls: tuple[str, ...] = ()
    """Valid calls kept, as ``name(arguments)`` (``fix_request``, ``kept_calls``)."""


DEFAULT_INTENT_SYSTEM = (
    "You are reviewing your own previous message in this conversation. Answer the "
    "question about it truthfully with one word, yes or no. Do not call any tool."
)
"""The default system text of the intent question."""

DEFAULT_FIX_SYSTEM = (
    "Your previous tool call could not be used. Reply with corrected tool calls only, "
    "through the tool-calling interface, using only the available tools "
    "({tool_names}) and arguments that match each tool's JSON schema exactly."
)
"""The default system text of a fix call."""

PromptText = str | Callable[[FixFailure], str]
"""A :meth:`str.format` template, or a function of the failure returning the text."""


class FixerPrompts(StrictSettings):
    """The LLM-based fixer's messages: templates or functions of :class:`FixFailure`.

    A misspelt field raises :class:`~toolfix.ConfigurationError` naming the nearest one."""

    system: PromptText | None = None
    """One system text for both of the fixer's requests, replacing the two below; a
    function learns which request it writes from ``FixFailure.request``
    (``"intent_question"`` or ``"fix_call"``). ``None`` (default) uses
    ``intent_system`` and ``fix_system``. Fields: ``tool_names``, ``kind``, ``request``."""

    intent_system: PromptText | None = DEFAULT_INTENT_SYSTEM
    """The system text of the intent question; ``None`` sends none. Fields as ``system``."""

    fix_system: PromptText | None = DEFAULT_FIX_SYSTEM
    """The system text of every fix call; ``None`` sends none. Fields as ``system``.

    A system text is added to the prompt's leading system message, or sent first when
    there is none; the caller's prompt is never changed."""

    intent_question: PromptText = (
        "Look at your previous message. Did you intend to call one of the available "
        "tools ({tool_names}) in it, without actually making the call? "
        "Answer with exactly one word: yes or no."
    )
    """Asked (with no tools attached) when a message has no call but may announce
    one. Fields: ``tool_names``, ``text`` (the message)."""

    fix_request: PromptText = (
        "Your previous message did not contain a valid tool call.\n\n{problems}\n\n"
        "{kept}Reply with the corrected tool call(s) only, using the tool-calling "
        "interface, with arguments that match the tool's JSON schema."
    )
    """The feedback message. Fields: ``problems`` (one paragraph per broken call),
    ``kept`` (the ``kept_calls`` text, or empty)."""

    kept_calls: PromptText = "These calls were valid and are kept; do not repeat them: {calls}.\n\n"
    """Fields: ``calls``."""

    missing_call: PromptText = (
        "You announced an action but made no tool call. Make the tool call now. "
        "Available tools: {tool_names}."
    )
    """No call at all although one was intended. Fields: ``tool_names``."""

    no_call_in_reply: PromptText = (
        "Your reply contained no tool call. Available tools: {tool_names}."
    )
    """A fix reply without any call. Fields: ``tool_names``."""

    invalid_json: PromptText = (
        "The call {label} could not be parsed: {error}.\nWhat you wrote:\n{raw}"
    )
    """Unparseable call or arguments. Fields: ``label``, ``error``, ``raw``."""

    truncated: PromptText = (
        "The call {label} was cut off before it was complete: your output stopped "
        "inside it. What arrived:\n{raw}\nSend the whole call again, complete, with "
        "all of its arguments."
    )
    """A call cut off before its end (kind ``truncated``). Fields: ``label``,
    ``name``, ``error``, ``raw``, ``arguments`` (what was parsed so far)."""

    unknown_name: PromptText = (
        "The call {label} names a tool that does not exist: {name!r}. "
        "Available tools: {tool_names}."
    )
    """Fields: ``label``, ``name``, ``tool_names``."""

    invalid_arguments: PromptText = (
        "The arguments of the call {label} do not match the schema of tool {name!r}:\n"
        "{issues}\nThe arguments you sent: {arguments}\nThe tool's JSON schema: {schema}"
    )
    """Fields: ``label``, ``name``, ``issues`` (one per line), ``arguments``, ``schema``."""

    max_raw_chars: int = 4000
    """Longest piece of model text quoted back to the model."""

    def system_for(self, request: RequestKind) -> PromptText | None:
        """The system text of ``request``: ``system`` when set, else its own default."""
        if self.system is not None:
            return self.system
        return self.intent_system if request == "intent_question" else self.fix_system

    def cap(self, text: str) -> str:
        """``text`` cut at ``max_raw_chars``."""
        cap = self.max_raw_chars
        return text if len(text) <= cap else text[:cap] + "…[truncated]"

    def render(self, text: PromptText, failure: FixFailure, **extra: str) -> str:
        """The message for ``failure``: the function's result, or the filled template."""
        if callable(text):
            return text(failure)
        fields: dict[str, Any] = {
            "kind": failure.kind,
            "request": failure.request,
            "tool_names": ", ".join(failure.tool_names),
            "label": failure.label,
            "name": failure.name or "",
            "error": failure.error,
            "raw": self.cap(failure.raw),
            "issues": "\n".join(f"- {i}" for i in failure.issues),
            "arguments": self.cap(json.dumps(failure.arguments, ensure_ascii=False)),
            "schema": self.cap(json.dumps(_plain(failure.schema), ensure_ascii=False)),
            "text": self.cap(failure.text),
            "problems": "\n\n".join(failure.problems),
            "calls": ", ".join(failure.kept_calls),
        }
        fields.update(extra)
        return text.format(**fields)


def _plain(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if value is None else dict(value)
