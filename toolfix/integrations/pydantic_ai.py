"""pydantic-ai adapter: a capability that repairs every model response of an agent.

``ToolfixCapability`` hooks ``after_model_request``, pydantic-ai 2.x's extension
point for post-processing a model response (it runs for every attempt of every
model request, whichever model serves it). The agent's tools for that request
(``ModelRequestParameters.function_tools`` and ``output_tools``) are the
registry:

* calls the model wrote into ``TextPart`` s become ``ToolCallPart`` s;
* ``ToolCallPart`` s with broken arguments (invalid JSON, wrong keys, strings
  for numbers, a near-miss name) are repaired in place, keeping their id and
  provider metadata;
* a broken ``ToolCallPart`` toolfix cannot repair is left as the model sent it,
  so pydantic-ai's own per-call validation answers it with a retry prompt;
* a call found in text that toolfix cannot repair raises ``ModelRetry`` with
  the reason: no call of that response runs, the model sees its response and
  the reason and is asked again (this counts against the agent's output retry
  budget, see ``Agent(retries=...)``).

Install with ``pip install "toolfix[pydantic-ai]"``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, cast

try:
    from pydantic_ai import RunContext
    from pydantic_ai import messages as pai
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.exceptions import ModelRetry
    from pydantic_ai.models import ModelRequestContext, ModelRequestParameters
except ImportError as exc:  # pragma: no cover - exercised in tests/test_missing_extras.py
    raise ImportError(
        'toolfix.integrations.pydantic_ai needs pydantic-ai: pip install "toolfix[pydantic-ai]"'
    ) from exc

from .._messages import (
    InvalidToolCallPart,
    Part,
    ReasoningPart,
    Response,
    TextPart,
    ToolCallPart,
    canonical_json,
)
from .._pipeline.processor import ResponseProcessor
from ._common import describe_invalid, parse_args, processor_for_model, run_processor, tool_dict

__all__ = ["ToolfixCapability", "repair_model_response"]


def _handled(part: pai.ModelResponsePart) -> bool:
    # Typed subclasses of ToolCallPart (tool search, capability loading) belong to
    # pydantic-ai itself; only plain function/output tool calls are repaired.
    return isinstance(part, pai.TextPart) or type(part) is pai.ToolCallPart


def _tools(params: ModelRequestParameters) -> list[Any]:
    return [
        tool_dict(t.name, t.description, t.parameters_json_schema)
        for t in [*params.function_tools, *params.output_tools]
    ]


def _to_toolfix(parts: Sequence[pai.ModelResponsePart]) -> Response:
    out: list[Part] = []
    for p in parts:
        if isinstance(p, pai.TextPart):
            out.append(TextPart(text=p.content))
        elif isinstance(p, pai.ToolCallPart):
            raw = p.args if isinstance(p.args, str) else canonical_json(p.args or {})
            args = p.args if isinstance(p.args, dict) else parse_args(raw)
            out.append(
                ToolCallPart(id=p.tool_call_id, name=p.tool_name, arguments_raw=raw, arguments=args)
            )
    return Response(parts=tuple(out))


async def repair_model_response(
    response: pai.ModelResponse,
    params: ModelRequestParameters,
    processor: ResponseProcessor | None = None,
) -> tuple[pai.ModelResponse, list[InvalidToolCallPart]]:
    """Repair one pydantic-ai ``ModelResponse`` against the request's tools.

    Returns the repaired response and the calls found in text that could not be
    repaired (broken ``ToolCallPart`` s toolfix cannot repair stay in the response
    unchanged, for pydantic-ai's own validation to answer). The response's
    ``model_name`` sets ``reasoning_prefilled`` when the processor's config leaves it
    ``None`` (``toolfix.formats.reasoning_prefilled_for``).
    """
    handled = [p for p in response.parts if _handled(p)]
    if not handled:
        return response, []
    fixed = await run_processor(
        processor_for_model(processor, response.model_name),
        _tools(params),
        _to_toolfix(handled),
        response.model_name or "",
    )
    originals = {p.tool_call_id: p for p in handled if isinstance(p, pai.ToolCallPart)}
    texts = [p for p in handled if isinstance(p, pai.TextPart)]
    new_parts: list[pai.ModelResponsePart] = []
    unrepaired: list[InvalidToolCallPart] = []
    repairs: list[dict[str, Any]] = []
    for part in fixed.parts:
        if isinstance(part, ReasoningPart):  # e.g. reasoning the prompt opened
            new_parts.append(pai.ThinkingPart(content=part.text))
        elif isinstance(part, TextPart):
            if not part.text.strip():
                continue
            same = next((t for t in texts if t.content == part.text), None)
            new_parts.append(same if same is not None else pai.TextPart(content=part.text))
        elif isinstance(part, ToolCallPart):
            args = dict(part.arguments or {})
            orig = originals.get(part.id)
            if orig is None:
                new_parts.append(pai.ToolCallPart(part.name, args, tool_call_id=part.id))
            elif part.repairs:
                new_parts.append(
                    dataclasses.replace(cast(Any, orig), tool_name=part.name, args=args)
                )
            else:
                new_parts.append(orig)
            if part.repairs:
                repairs.append(
                    {"tool_call_id": part.id, "repairs": [r.as_dict() for r in part.repairs]}
                )
        elif isinstance(part, InvalidToolCallPart):
            orig = originals.get(part.id) if part.id is not None else None
            if orig is not None:
                new_parts.append(orig)
            else:
                unrepaired.append(part)
    if not repairs and not unrepaired and fixed.parts == _to_toolfix(handled).parts:
        return response, []
    first = response.parts.index(handled[0])
    before = [p for p in response.parts[:first] if not _handled(p)]
    after = [p for p in response.parts[first:] if not _handled(p)]
    details = dict(response.provider_details or {})
    if repairs:
        details["toolfix_repairs"] = repairs
    return (
        dataclasses.replace(
            response, parts=[*before, *new_parts, *after], provider_details=details or None
        ),
        unrepaired,
    )


@dataclasses.dataclass
class ToolfixCapability(AbstractCapability[Any]):
    """Repair the tool calls of every model response before the agent acts on them.

    ``processor`` defaults to :class:`toolfix.ManualToolCallFixProcessor` (no LLM).
    Pass it in ``Agent(..., capabilities=[ToolfixCapability()])``.
    """

    processor: ResponseProcessor | None = None

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a processor object, not spec-serializable

    async def after_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        response: pai.ModelResponse,
    ) -> pai.ModelResponse:
        fixed, unrepaired = await repair_model_response(
            response, request_context.model_request_parameters, self.processor
        )
        if unrepaired:
            raise ModelRetry(
                "No tool call of your last response was run. " + describe_invalid(unrepaired)
            )
        return fixed
