"""OpenAI Agents SDK adapter: a ``Model`` wrapper that repairs function-call output items.

``ToolfixModel(model)`` wraps any Agents SDK ``Model`` (``OpenAIResponsesModel``,
``OpenAIChatCompletionsModel``, a litellm model, your own) and repairs each
non-streamed response before the runner acts on it, with the agent's function
tools and handoffs as the registry:

* a call the model wrote into an output message's text becomes a
  ``function_call`` output item;
* a ``function_call`` item with broken ``arguments`` (invalid JSON, wrong keys,
  ``"3"`` for an integer) or a near-miss ``name`` is repaired in place, keeping
  its ``call_id``;
* a ``function_call`` toolfix cannot repair is left as the model sent it (the
  SDK then reports the failure to the model or raises, as without toolfix);
* a call in text toolfix cannot repair stays in the message text;
* with a strict schema (the SDK's default ``@function_tool``: every parameter required,
  ``additionalProperties: false``), a call that leaves out a parameter with a default
  gets the default, and one whose type admits null gets ``null``, recorded as a
  ``missing_required`` repair (the SDK's strict schema would otherwise make the call
  invalid, and OpenAI's guidance writes optional parameters exactly this way).

Streaming (``stream_response``) passes through unrepaired for now.

Install with ``pip install "toolfix[openai-agents]"``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator
from typing import Any

try:
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import ModelResponse, TResponseInputItem, TResponseOutputItem
    from agents.model_settings import ModelSettings
    from agents.models.interface import Model, ModelTracing
    from agents.tool import FunctionTool, Tool
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
    from openai.types.responses.response_prompt_param import ResponsePromptParam
except ImportError as exc:  # pragma: no cover - exercised in tests/test_missing_extras.py
    raise ImportError(
        "toolfix.integrations.openai_agents needs openai-agents: "
        'pip install "toolfix[openai-agents]"'
    ) from exc

from .._messages import Part, Response, TextPart, ToolCallPart, canonical_json
from .._pipeline.processor import ResponseProcessor
from ._common import model_name as model_name_of
from ._common import parse_args, processor_for_model, run_processor, tool_dict
from ._strict import complete_call, relaxed

__all__ = ["ToolfixModel", "repair_model_response"]

_log = logging.getLogger("toolfix.integrations.openai_agents")


def _schemas(tools: list[Tool], handoffs: list[Handoff]) -> dict[str, dict[str, Any]]:
    """Each function tool's and handoff's parameters schema, by name."""
    out = {t.name: t.params_json_schema for t in tools if isinstance(t, FunctionTool)}
    out.update({h.tool_name: h.input_json_schema for h in handoffs})
    return out


def _registry(tools: list[Tool], handoffs: list[Handoff]) -> list[Any]:
    """The tools as toolfix validates them: a strict schema's omittable properties
    (a ``default``, or a type that admits null) are not required (:mod:`._strict`)."""
    out = [
        tool_dict(t.name, t.description, relaxed(t.params_json_schema))
        for t in tools
        if isinstance(t, FunctionTool)
    ]
    out += [
        tool_dict(h.tool_name, h.tool_description, relaxed(h.input_json_schema)) for h in handoffs
    ]
    return out


def _message_text(item: ResponseOutputMessage) -> str:
    return "".join(c.text for c in item.content if isinstance(c, ResponseOutputText))


def _to_toolfix(items: list[TResponseOutputItem]) -> Response:
    parts: list[Part] = []
    for item in items:
        if isinstance(item, ResponseOutputMessage):
            text = _message_text(item)
            if text.strip():
                parts.append(TextPart(text=text))
        elif isinstance(item, ResponseFunctionToolCall):
            parts.append(
                ToolCallPart(
                    id=item.call_id,
                    name=item.name,
                    arguments_raw=item.arguments,
                    arguments=parse_args(item.arguments),
                )
            )
    return Response(parts=tuple(parts))


def _with_text(item: ResponseOutputMessage, text: str) -> ResponseOutputMessage:
    content: list[Any] = []
    placed = False
    for c in item.content:
        if not isinstance(c, ResponseOutputText):
            content.append(c)
        elif not placed:
            placed = True
            content.append(c.model_copy(update={"text": text, "annotations": []}))
    return item.model_copy(update={"content": content})


async def repair_model_response(
    response: ModelResponse,
    tools: list[Tool],
    handoffs: list[Handoff] | None = None,
    processor: ResponseProcessor | None = None,
    model: str | None = None,
    settings: ModelSettings | None = None,
) -> ModelResponse:
    """A repaired copy of an Agents SDK ``ModelResponse`` (the same object if nothing changed).

    ``model`` (the wrapped model's name) and the ``chat_template_kwargs`` in
    ``settings.extra_body`` or ``settings.extra_args`` set ``reasoning_prefilled`` when
    the processor's config leaves it ``None`` (``toolfix.formats.reasoning_prefilled_for``)."""
    before = _to_toolfix(response.output)
    if not before.parts:
        return response
    request: dict[str, Any] = {}
    if settings is not None:
        request = {**(settings.extra_args or {}), "extra_body": settings.extra_body}
    fixed = await run_processor(
        processor_for_model(processor, model, request),
        _registry(tools, handoffs or []),
        before,
        model or "",
    )
    fixed = _completed(fixed, _schemas(tools, handoffs or []))
    calls = {c.id: c for c in fixed.tool_calls}
    originals = {i.call_id: i for i in response.output if isinstance(i, ResponseFunctionToolCall)}
    from_text = [c for c in fixed.tool_calls if c.id not in originals]
    lost = [c for c in fixed.invalid_tool_calls if c.id not in originals]
    changed = bool(from_text) or any(c.repairs for c in fixed.tool_calls if c.id in originals)
    if not changed:
        for bad in fixed.invalid_tool_calls:
            _log.info("toolfix could not repair a call: %s", bad.error)
        return response
    # Calls found in text leave the text, unless one there could not be repaired:
    # then the text stays as the model wrote it (never dropped).
    new_text = fixed.text if from_text and not lost else None
    for bad in lost:
        _log.info("toolfix could not repair a call in text: %s", bad.error)
    output: list[TResponseOutputItem] = []
    text_placed = False
    for item in response.output:
        if isinstance(item, ResponseOutputMessage) and new_text is not None:
            if text_placed or not _message_text(item):
                if not _message_text(item):
                    output.append(item)
                continue
            text_placed = True
            if new_text.strip():
                output.append(_with_text(item, new_text))
        elif isinstance(item, ResponseFunctionToolCall) and item.call_id in calls:
            c = calls[item.call_id]
            if c.repairs:
                args = canonical_json(c.arguments or {})
                output.append(item.model_copy(update={"name": c.name, "arguments": args}))
            else:
                output.append(item)
        else:
            output.append(item)
    output += [
        ResponseFunctionToolCall(
            type="function_call",
            call_id=c.id,
            name=c.name,
            arguments=canonical_json(c.arguments or {}),
            status="completed",
        )
        for c in from_text
    ]
    for c in fixed.tool_calls:
        if c.repairs:
            _log.debug("toolfix repaired %s (%s): %s", c.name, c.id, [r.detail for r in c.repairs])
    return dataclasses.replace(response, output=output)


def _completed(fixed: Response, schemas: dict[str, dict[str, Any]]) -> Response:
    """``fixed`` with every call of a strict tool completed (:func:`._strict.complete_call`)."""
    parts: list[Part] = []
    for p in fixed.parts:
        if isinstance(p, ToolCallPart) and p.name in schemas:
            p = complete_call(p, schemas[p.name])
        parts.append(p)
    if all(a is b for a, b in zip(parts, fixed.parts, strict=True)):
        return fixed
    return fixed.model_copy(update={"parts": tuple(parts)})


class ToolfixModel(Model):
    """An Agents SDK ``Model`` whose every (non-streamed) response is repaired.

    ``Agent(name=..., model=ToolfixModel(inner_model), tools=[...])``.
    ``processor`` defaults to :class:`toolfix.ManualToolCallFixProcessor` (no LLM).
    ``model_name`` (default: the wrapped model's ``model`` attribute) picks
    ``reasoning_prefilled`` from ``toolfix.formats.PREFILLED_MODELS`` when the
    processor's config leaves it ``None``.
    """

    def __init__(
        self,
        model: Model,
        processor: ResponseProcessor | None = None,
        *,
        model_name: str | None = None,
    ) -> None:
        self.model = model
        self.processor = processor
        self.model_name = model_name or model_name_of(model)

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        response = await self.model.get_response(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )
        return await repair_model_response(
            response, tools, handoffs, self.processor, self.model_name, model_settings
        )

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Passes the wrapped model's stream through unrepaired (not yet supported).

        Takes exactly the arguments of ``Model.stream_response`` and forwards them as given.
        """
        return self.model.stream_response(*args, **kwargs)

    async def close(self) -> None:
        await self.model.close()
