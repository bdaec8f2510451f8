"""LangChain adapter: v1 agent middleware and a chat-model wrapper for older code.

* :class:`ToolfixMiddleware` is a langchain 1.x ``AgentMiddleware``: its
  ``wrap_model_call`` / ``awrap_model_call`` repair every ``AIMessage`` the
  model returns inside ``create_agent``, with the request's tools as the
  registry.
* :class:`ToolfixChatModel` wraps any ``BaseChatModel`` for code that calls a
  chat model directly (LCEL chains, ``langgraph.prebuilt``, hand-written loops):
  ``ToolfixChatModel(model=llm).bind_tools(tools)`` repairs each response
  against the bound tools.

Both turn calls written into the text and calls in ``invalid_tool_calls``
(the arguments LangChain could not parse) into ``tool_calls``; what toolfix
cannot repair stays an ``InvalidToolCall`` with toolfix's reason as its
``error``. The repair records go into ``response_metadata["toolfix_repairs"]``.

Install with ``pip install "toolfix[langchain]"``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
    from langchain_core.callbacks import (
        AsyncCallbackManagerForLLMRun,
        CallbackManagerForLLMRun,
    )
    from langchain_core.language_models import BaseChatModel, LanguageModelInput
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.messages.tool import invalid_tool_call, tool_call
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.runnables import Runnable, RunnableBinding
    from langchain_core.utils.function_calling import convert_to_openai_tool
except ImportError as exc:  # pragma: no cover - exercised in tests/test_missing_extras.py
    raise ImportError(
        'toolfix.integrations.langchain needs langchain: pip install "toolfix[langchain]"'
    ) from exc

from pydantic import Field

from .._errors import ConfigurationError
from .._messages import InvalidToolCallPart, Part, Response, TextPart, ToolCallPart, canonical_json
from .._pipeline.processor import ResponseProcessor
from ._common import model_name, parse_args, processor_for_model, run_processor, run_processor_sync

__all__ = ["ToolfixChatModel", "ToolfixMiddleware", "arepair_ai_message", "repair_ai_message"]


def _openai_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    out = []
    for t in tools:
        try:
            out.append(convert_to_openai_tool(t))
        except (ValueError, TypeError, NotImplementedError):
            continue  # provider-native tools (web search, ...) have no schema to repair against
    return [t for t in out if t.get("type") == "function"]


def _to_toolfix(message: AIMessage) -> Response:
    parts: list[Part] = []
    text = message.text
    if text.strip():
        parts.append(TextPart(text=text))
    for tc in message.tool_calls:
        args = dict(tc.get("args") or {})
        parts.append(
            ToolCallPart(
                id=tc.get("id") or "",
                name=tc["name"],
                arguments_raw=canonical_json(args),
                arguments=args,
            )
        )
    for bad in message.invalid_tool_calls:
        raw = bad.get("args") or ""
        parts.append(
            ToolCallPart(
                id=bad.get("id") or "",
                name=bad.get("name") or "",
                arguments_raw=raw,
                arguments=parse_args(raw),
            )
        )
    return Response(parts=tuple(parts))


def _content(message: AIMessage, text: str) -> str | list[str | dict[str, Any]]:
    """The message content with its text replaced by ``text`` (other blocks kept)."""
    if isinstance(message.content, str):
        return text
    blocks: list[str | dict[str, Any]] = []
    placed = False
    for b in message.content:
        is_text = isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text")
        if not is_text:
            blocks.append(b)
        elif not placed:
            placed = True
            if text:
                blocks.append({"type": "text", "text": text})
    if not placed and text:
        blocks.append({"type": "text", "text": text})
    return blocks


def _from_toolfix(message: AIMessage, fixed: Response) -> AIMessage:
    calls = fixed.tool_calls
    invalid: list[InvalidToolCallPart] = fixed.invalid_tool_calls
    found: list[ToolCallPart | InvalidToolCallPart] = [*calls, *invalid]
    repairs = [
        {"id": p.id, "repairs": [r.as_dict() for r in p.repairs]} for p in found if p.repairs
    ]
    before = _to_toolfix(message)
    unchanged = (
        not repairs
        and not invalid
        and [(c.id, c.name, c.arguments) for c in calls]
        == [(c.id, c.name, c.arguments) for c in before.tool_calls]
        and fixed.text == before.text
        and not message.invalid_tool_calls
    )
    if unchanged:
        return message
    metadata = dict(message.response_metadata)
    if repairs:
        metadata["toolfix_repairs"] = repairs
    update: dict[str, Any] = {
        "tool_calls": [
            tool_call(name=c.name, args=dict(c.arguments or {}), id=c.id) for c in calls
        ],
        "invalid_tool_calls": [
            invalid_tool_call(name=p.name, args=p.raw, id=p.id, error=p.error) for p in invalid
        ],
        "response_metadata": metadata,
    }
    if fixed.text != before.text:
        update["content"] = _content(message, fixed.text)
    if fixed.reasoning is not None and fixed.reasoning != before.reasoning:
        # reasoning taken out of the content (ChatOpenAI's key for it)
        update["additional_kwargs"] = {
            **message.additional_kwargs,
            "reasoning_content": fixed.reasoning,
        }
    return message.model_copy(update=update)


def _processor_for(
    message: AIMessage,
    processor: ResponseProcessor | None,
    model: str | None,
    request: Mapping[str, Any] | None,
) -> tuple[ResponseProcessor, str]:
    """The processor for ``message`` and the model name it repairs for: ``model``, else
    the name in the message's ``response_metadata``."""
    meta = message.response_metadata or {}
    name = model or meta.get("model_name") or meta.get("model")
    name = name if isinstance(name, str) else None
    return processor_for_model(processor, name, request), name or ""


def repair_ai_message(
    message: AIMessage,
    tools: Sequence[Any],
    processor: ResponseProcessor | None = None,
    *,
    model: str | None = None,
    request: Mapping[str, Any] | None = None,
) -> AIMessage:
    """A repaired copy of ``message`` (the same object when nothing needed repair).

    ``tools`` are LangChain tools, functions or OpenAI-style dicts (anything
    ``convert_to_openai_tool`` takes). ``model`` (default: the ``model_name`` in the
    message's ``response_metadata``) and the ``chat_template_kwargs`` in ``request``
    (the call's options, top level or in ``extra_body``) set ``reasoning_prefilled``
    when the processor's config leaves it ``None``.
    """
    chosen, name = _processor_for(message, processor, model, request)
    fixed = run_processor_sync(chosen, _openai_tools(tools), _to_toolfix(message), name)
    return _from_toolfix(message, fixed)


async def arepair_ai_message(
    message: AIMessage,
    tools: Sequence[Any],
    processor: ResponseProcessor | None = None,
    *,
    model: str | None = None,
    request: Mapping[str, Any] | None = None,
) -> AIMessage:
    """Async counterpart of :func:`repair_ai_message`."""
    chosen, name = _processor_for(message, processor, model, request)
    fixed = await run_processor(chosen, _openai_tools(tools), _to_toolfix(message), name)
    return _from_toolfix(message, fixed)


class ToolfixMiddleware(AgentMiddleware):
    """``create_agent(model, tools, middleware=[ToolfixMiddleware()])``: repair every model call.

    ``processor`` defaults to :class:`toolfix.ManualToolCallFixProcessor` (no LLM).
    """

    def __init__(self, processor: ResponseProcessor | None = None) -> None:
        super().__init__()
        self.processor = processor

    def _result(self, request: ModelRequest, response: Any, fixed: list[BaseMessage]) -> Any:
        if isinstance(response, AIMessage):
            return fixed[0]
        return ModelResponse(result=fixed, structured_response=response.structured_response)

    def wrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], ModelResponse],
    ) -> Any:
        response: Any = handler(request)
        messages = [response] if isinstance(response, AIMessage) else list(response.result)
        fixed: list[BaseMessage] = [
            repair_ai_message(m, request.tools, self.processor, model=model_name(request.model))
            if isinstance(m, AIMessage)
            else m
            for m in messages
        ]
        return self._result(request, response, fixed)

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> Any:
        response: Any = await handler(request)
        messages = [response] if isinstance(response, AIMessage) else list(response.result)
        fixed: list[BaseMessage] = [
            await arepair_ai_message(
                m, request.tools, self.processor, model=model_name(request.model)
            )
            if isinstance(m, AIMessage)
            else m
            for m in messages
        ]
        return self._result(request, response, fixed)


class ToolfixChatModel(BaseChatModel):
    """A chat model whose every response is repaired against the tools bound to it.

    ``ToolfixChatModel(model=llm).bind_tools(tools)`` binds the tools to ``llm``
    (in its provider's format) and keeps them as toolfix's registry. Streaming
    falls back to one repaired message (no token-by-token stream).
    """

    model: BaseChatModel
    processor: Any = None
    tools: list[Any] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return f"toolfix-{self.model._llm_type}"

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        bound = self.model.bind_tools(tools, **kwargs)
        if not isinstance(bound, RunnableBinding):
            raise ConfigurationError(
                f"{type(self.model).__name__}.bind_tools returned {type(bound).__name__}, "
                "not a RunnableBinding; toolfix cannot wrap it"
            )
        wrapper = self.model_copy(update={"tools": list(tools)})
        return wrapper.bind(**bound.kwargs)

    def _request(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The call's options as :func:`repair_ai_message` reads them (the wrapped
        model's ``extra_body``, then the call's own)."""
        return {"extra_body": getattr(self.model, "extra_body", None), **kwargs}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        out = self.model.invoke(messages, stop=stop, **kwargs)
        fixed = repair_ai_message(
            _ai(out),
            self.tools,
            self.processor,
            model=model_name(self.model),
            request=self._request(kwargs),
        )
        return self._result(fixed)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        out = await self.model.ainvoke(messages, stop=stop, **kwargs)
        fixed = await arepair_ai_message(
            _ai(out),
            self.tools,
            self.processor,
            model=model_name(self.model),
            request=self._request(kwargs),
        )
        return self._result(fixed)

    @staticmethod
    def _result(message: AIMessage) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=message)])


def _ai(message: BaseMessage) -> AIMessage:
    if isinstance(message, AIMessage):
        return message
    raise ConfigurationError(f"the wrapped model returned {type(message).__name__}, not AIMessage")
