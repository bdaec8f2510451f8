"""The texts the LLM-based fixer sends: the intent question and the feedback.

Every text is a :meth:`str.format` template; the fields each one receives are
listed on its attribute. Replace any of them with
``FixerPrompts(intent_question="...")`` (or ``FixerPrompts().model_copy(update=...)``).
Values are inserted as they are (model text with braces is safe: only the
template is parsed for fields).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["FixerPrompts"]


class FixerPrompts(BaseModel):
    """Templates of the LLM-based fixer's messages."""

    model_config = ConfigDict(frozen=True)

    intent_question: str = (
        "Look at your previous message. Did you intend to call one of the available "
        "tools ({tool_names}) in it, without actually making the call? "
        "Answer with exactly one word: yes or no."
    )
    """Asked when a message has no call but may announce one. Fields: ``tool_names``."""

    fix_request: str = (
        "Your previous message did not contain a valid tool call.\n\n{problems}\n\n"
        "{kept}Reply with the corrected tool call(s) only, using the tool-calling "
        "interface, with arguments that match the tool's JSON schema."
    )
    """The feedback message. Fields: ``problems`` (one paragraph per broken call),
    ``kept`` (the ``kept_calls`` text, or empty)."""

    kept_calls: str = "These calls were valid and are kept; do not repeat them: {calls}.\n\n"
    """Fields: ``calls``."""

    missing_call: str = (
        "You announced an action but made no tool call. Make the tool call now. "
        "Available tools: {tool_names}."
    )
    """No call at all although one was intended. Fields: ``tool_names``."""

    no_call_in_reply: str = "Your reply contained no tool call. Available tools: {tool_names}."
    """A fix reply without any call. Fields: ``tool_names``."""

    invalid_json: str = "The call {label} could not be parsed: {error}.\nWhat you wrote:\n{raw}"
    """Unparseable call or arguments. Fields: ``label``, ``error``, ``raw``."""

    unknown_name: str = (
        "The call {label} names a tool that does not exist: {name!r}. "
        "Available tools: {tool_names}."
    )
    """Fields: ``label``, ``name``, ``tool_names``."""

    invalid_arguments: str = (
        "The arguments of the call {label} do not match the schema of tool {name!r}:\n"
        "{issues}\nThe arguments you sent: {arguments}\nThe tool's JSON schema: {schema}"
    )
    """Fields: ``label``, ``name``, ``issues`` (one per line), ``arguments``, ``schema``."""

    max_raw_chars: int = 4000
    """Longest piece of model text quoted back to the model."""
