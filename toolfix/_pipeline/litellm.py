"""An executor backed by litellm: one ``litellm.acompletion`` call per request.

litellm is imported lazily, on the first request, so ``import toolfix`` never
imports it. Before importing it this module sets
``LITELLM_LOCAL_MODEL_COST_MAP=True`` (unless you set the variable yourself),
so litellm reads its bundled model price list instead of downloading it.

Install with ``pip install "toolfix[litellm]"``.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Mapping
from types import ModuleType
from typing import Any, Literal

from .._api import as_response
from .._convert import (
    PROVIDER_FIELDS_KEY,
    mark_provider_executed,
    message_to_openai,
    response_from_openai,
    server_tool_ids,
    tool_choice_to_openai,
)
from .._errors import (
    ConfigurationError,
    ContextLengthExceededError,
    ExecutorError,
    ProviderAuthenticationError,
    ProviderBadResponseError,
    ProviderRateLimitError,
    ProviderTimeoutError,
)
from .._messages import Message, Prompt, Response, ToolCallPart, ToolResultPart, Usage
from .._tool_options import without_tool_options
from .._tools import ToolRegistry
from .executor import PromptExecutor
from .processor import ToolsLike

__all__ = ["LiteLLMExecutor", "import_litellm", "litellm_messages", "response_from_responses_api"]

DEFAULT_TIMEOUT = 120.0


def import_litellm() -> ModuleType:
    """Import litellm without letting it fetch the model price list over the network."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            'LiteLLMExecutor needs litellm: pip install "toolfix[litellm]"'
        ) from exc
    return litellm


#: litellm providers that are servers running the model's chat template locally and
#: returning its raw text (with no ``api_base`` given they use their default address).
RAW_TEMPLATE_PROVIDERS = frozenset(
    {"hosted_vllm", "vllm", "ollama", "ollama_chat", "lm_studio", "llamafile"}
)


class LiteLLMExecutor(PromptExecutor):
    """Runs prompts through ``litellm.acompletion`` (any provider litellm supports).

    Args:
        api_base: Base URL of the server (``http://localhost:8000/v1`` for vLLM).
        api_key: API key; ``None`` lets litellm read the provider's usual variable.
        timeout: Seconds per request.
        num_retries: litellm's own retries on transient errors (0: none).
        api: ``"chat"`` (default): ``litellm.acompletion``, every provider, the whole
            history on every request. ``"responses"``: ``litellm.aresponses`` (OpenAI's
            Responses API): a prompt with ``previous_response_id`` (set by the loop
            from step 2 on) sends that id and only the items after the last assistant
            turn (tool results, new user messages); the provider keeps the rest.
        **provider_options: Passed to every ``acompletion`` call (``temperature``,
            ``extra_headers``, ``reasoning_effort``, ``thinking``...). ``Prompt.params``
            override them per call.

    The model string is litellm's (``"openai/my-model"``, ``"anthropic/claude-..."``,
    ``"hosted_vllm/..."``, ``"ollama_chat/..."``). Provider errors become typed
    :class:`~toolfix.ExecutorError` subclasses carrying ``status_code`` and ``provider``.
    """

    def __init__(
        self,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        num_retries: int = 0,
        api: Literal["chat", "responses"] = "chat",
        **provider_options: Any,
    ):
        if api not in ("chat", "responses"):
            raise ConfigurationError(f'api must be "chat" or "responses", got {api!r}')
        self.api = api
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        self.num_retries = num_retries
        self.provider_options = provider_options

    def __repr__(self) -> str:
        return f"LiteLLMExecutor(api_base={self.api_base!r})"

    def request_kwargs(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> dict[str, Any]:
        """The keyword arguments of the ``litellm.acompletion`` call for this request."""
        registry = ToolRegistry.of(tools)
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": litellm_messages(prompt),
            "timeout": self.timeout,
            "num_retries": self.num_retries,
        }
        if self.api_base is not None:
            kwargs["api_base"] = self.api_base
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key
        if len(registry):
            kwargs["tools"] = registry.to_openai()
            if prompt.tool_choice.mode != "auto":
                kwargs["tool_choice"] = tool_choice_to_openai(prompt.tool_choice)
        kwargs.update(self._options(prompt, registry))
        return kwargs

    def reasoning_prefilled(self, prompt: Prompt, model: str) -> bool | None:
        """Whether this request's output starts inside reasoning: the model's template
        opens the block in the prompt (``toolfix.formats.PREFILLED_MODELS``), given the
        request's ``chat_template_kwargs`` (top level or in ``extra_body``); ``False``
        when they turn thinking off, ``None`` when not known
        (:func:`~toolfix.formats.reasoning_prefilled_for`).

        The model table is read only for servers that run the chat template and return
        its raw output: an ``api_base`` (a server you run or name) or a local-server
        provider (:data:`RAW_TEMPLATE_PROVIDERS`). A hosted API (``deepseek/``,
        ``openrouter/``, ``together_ai/``...) splits the reasoning out or returns the
        template's ``<think>`` itself, so its model names say nothing about the text:
        ``None`` there, never ``True`` (``True`` would read a whole answer with no
        ``</think>`` as reasoning)."""
        from .._repair.families import reasoning_prefilled_for

        options = {**self.provider_options, **prompt.params}
        extra = options.get("extra_body")
        kwargs = options.get("chat_template_kwargs") or (
            extra.get("chat_template_kwargs") if isinstance(extra, Mapping) else None
        )
        said = reasoning_prefilled_for(model, kwargs if isinstance(kwargs, Mapping) else None)
        raw = self.api_base is not None or model.split("/", 1)[0] in RAW_TEMPLATE_PROVIDERS
        return said if raw or said is False else None

    def _options(self, prompt: Prompt, registry: ToolRegistry) -> dict[str, Any]:
        """The executor's options, then the prompt's; a request without tools carries no
        tool option (``parallel_tool_calls``, ``tool_choice``...)."""
        options = {**self.provider_options, **prompt.params}
        return options if len(registry) else without_tool_options(options)

    def responses_kwargs(
        self, prompt: Prompt, model: str, tools: ToolsLike = None
    ) -> dict[str, Any]:
        """The keyword arguments of the ``litellm.aresponses`` call (``api="responses"``)."""
        registry = ToolRegistry.of(tools)
        messages = list(prompt.messages)
        kwargs: dict[str, Any] = {"model": model, "timeout": self.timeout}
        if prompt.previous_response_id:
            kwargs["previous_response_id"] = prompt.previous_response_id
            last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
            messages = messages[last + 1 :]
        kwargs["input"] = [item for m in messages for item in _responses_items(m)]
        if self.api_base is not None:
            kwargs["api_base"] = self.api_base
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key
        if len(registry):
            kwargs["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": dict(t.parameters),
                }
                for t in registry.descriptors
            ]
            choice = prompt.tool_choice
            if choice.mode == "named":
                kwargs["tool_choice"] = {"type": "function", "name": choice.name}
            elif choice.mode != "auto":
                kwargs["tool_choice"] = choice.mode
        kwargs.update(self._options(prompt, registry))
        return kwargs

    async def execute(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        litellm = import_litellm()
        responses_api = self.api == "responses"
        if responses_api:
            kwargs = self.responses_kwargs(prompt, model, tools)
        else:
            kwargs = self.request_kwargs(prompt, model, tools)
        try:
            if responses_api:
                result = await litellm.aresponses(**kwargs)
            else:
                result = await litellm.acompletion(**kwargs)
        except Exception as exc:
            mapped = map_litellm_error(litellm, exc, model)
            if mapped is None:
                raise
            raise mapped from exc
        data = _to_dict(result)
        if responses_api:
            return [response_from_responses_api(data, model=model)]
        return responses_from_completion(data, model=model)

    async def execute_stream(
        self, prompt: Prompt, model: str, tools: ToolsLike = None
    ) -> AsyncIterator[dict[str, Any]]:
        """The response as a stream of OpenAI ``chat.completion.chunk`` dicts, unrepaired.

        Feed it to :func:`toolfix.arepair_stream` (or a processor's ``process_stream``)
        to repair it as it arrives."""
        litellm = import_litellm()
        kwargs = {**self.request_kwargs(prompt, model, tools), "stream": True}
        # token counts arrive in a last chunk only when asked for
        kwargs.setdefault("stream_options", {"include_usage": True})
        try:
            stream = await litellm.acompletion(**kwargs)
            async for chunk in stream:
                yield _to_dict(chunk)
        except Exception as exc:
            mapped = map_litellm_error(litellm, exc, model)
            if mapped is None:
                raise
            raise mapped from exc


def _responses_items(message: Message) -> list[dict[str, Any]]:
    """One toolfix message as Responses API input items."""
    if message.role == "tool" or any(isinstance(p, ToolResultPart) for p in message.parts):
        items: list[dict[str, Any]] = [
            {"type": "function_call_output", "call_id": p.tool_call_id, "output": p.content}
            for p in message.parts
            if isinstance(p, ToolResultPart)
        ]
        if message.role != "tool" and message.text:
            items.append({"role": message.role, "content": message.text})
        return items
    if message.role == "assistant":
        items = [{"role": "assistant", "content": message.text}] if message.text else []
        items.extend(
            {
                "type": "function_call",
                "call_id": p.id,
                "name": p.name,
                "arguments": p.arguments_raw,
            }
            for p in message.parts
            if isinstance(p, ToolCallPart) and not p.provider_executed
        )
        return items
    return [{"role": message.role, "content": message.text}]


def response_from_responses_api(data: Mapping[str, Any], *, model: str | None = None) -> Response:
    """A Responses API result (``litellm.aresponses``) as a :class:`~toolfix.Response`."""
    error = data.get("error")
    if isinstance(error, Mapping) and error:
        raise ExecutorError(
            f"provider error: {error.get('message') or error}",
            provider=model.split("/", 1)[0] if model and "/" in model else None,
            raw=str(dict(data))[:2000],
        )
    response = as_response(dict(data))
    u = data.get("usage") or {}
    usage = Usage(
        input_tokens=int(u.get("input_tokens") or 0) if isinstance(u, Mapping) else 0,
        output_tokens=int(u.get("output_tokens") or 0) if isinstance(u, Mapping) else 0,
        requests=1,
    )
    status = data.get("status")
    return response.model_copy(
        update={
            "usage": usage,
            "model": response.model or model,
            "finish_reason": status if isinstance(status, str) else None,
        }
    )


def dict_of(value: Any) -> dict[str, Any] | None:
    """``value`` as a dict: a copy of a mapping, or the ``model_dump()`` of a litellm,
    SDK or pydantic object; ``None`` for anything else."""
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        out = dump()
        if isinstance(out, dict):
            return out
    return None


def _to_dict(result: Any) -> dict[str, Any]:
    data = dict_of(result)
    if data is None:
        raise ProviderBadResponseError(f"unexpected litellm result of type {type(result).__name__}")
    return data


def responses_from_completion(
    data: Mapping[str, Any], *, model: str | None = None
) -> list[Response]:
    """Every choice of an OpenAI-shaped chat completion as a :class:`~toolfix.Response`.

    Token usage is that of the whole completion; it is put on the first response only.
    """
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ProviderBadResponseError("the completion has no choices", raw=str(data)[:2000])
    u = data.get("usage") or {}
    usage = Usage(
        input_tokens=int(u.get("prompt_tokens") or 0),
        output_tokens=int(u.get("completion_tokens") or 0),
        requests=1,
    )
    out: list[Response] = []
    for i, choice in enumerate(choices):
        if not isinstance(choice, Mapping):
            raise ProviderBadResponseError("a completion choice is not an object")
        _raise_inline_error(choice, model)
        message = choice.get("message") or {}
        response = response_from_openai(
            message,
            id=data.get("id"),
            model=data.get("model") or model,
            finish_reason=choice.get("finish_reason"),
            usage=usage if i == 0 else Usage(),
        )
        out.append(mark_provider_executed(response, message))
    return out


def litellm_messages(prompt: Prompt) -> list[dict[str, Any]]:
    """The prompt's messages for ``litellm.acompletion`` (OpenAI chat shape).

    An assistant turn with provider-executed calls is sent with those calls and the
    ``provider_specific_fields`` litellm gave with them, so that litellm rebuilds the
    provider's own blocks (Anthropic ``server_tool_use`` and its result) and the provider
    sees its call again. Without those fields (a call that did not come through litellm)
    a provider-executed call is left out, as in :func:`~toolfix.prompt_to_openai`.
    """
    out: list[dict[str, Any]] = []
    for m in prompt.messages:
        msgs = message_to_openai(m)
        if m.role == "assistant":
            _add_provider_executed(msgs[0], m)
        out.extend(msgs)
    return out


def _add_provider_executed(msg: dict[str, Any], message: Message) -> None:
    fields = (message.provider_data or {}).get(PROVIDER_FIELDS_KEY)
    if not isinstance(fields, Mapping):
        return
    replayable = server_tool_ids(fields)
    server = [
        {"id": p.id, "type": "function", "function": {"name": p.name, "arguments": p.arguments_raw}}
        for p in message.parts
        if isinstance(p, ToolCallPart) and p.provider_executed and p.id in replayable
    ]
    if not server:
        return
    msg["tool_calls"] = [*server, *msg.get("tool_calls", ())]
    msg["provider_specific_fields"] = dict(fields)


def _raise_inline_error(choice: Mapping[str, Any], model: str | None) -> None:
    """Raise the typed provider error of a choice that carries one (OpenRouter and other
    routers answer HTTP 200 with ``finish_reason: "error"`` and an ``error`` object in the
    choice; litellm moves both into the choice's ``provider_specific_fields``)."""
    fields = choice.get("provider_specific_fields")
    fields = fields if isinstance(fields, Mapping) else {}
    error = choice.get("error") or fields.get("error")
    errored = "error" in (choice.get("finish_reason"), fields.get("native_finish_reason"))
    if not error and not errored:
        return
    if not isinstance(error, Mapping):
        error = {"message": str(error) if error else "the provider reported an error"}
    code = error.get("code")
    status = code if isinstance(code, int) and not isinstance(code, bool) else None
    if status is None and isinstance(code, str) and code.isdigit():
        status = int(code)
    metadata = error.get("metadata")
    provider = metadata.get("provider_name") if isinstance(metadata, Mapping) else None
    if not isinstance(provider, str) or not provider:
        provider = model.split("/", 1)[0] if model and "/" in model else None
    message = str(error.get("message") or "the provider reported an error")
    by_status: dict[int, type[ExecutorError]] = {
        401: ProviderAuthenticationError,
        403: ProviderAuthenticationError,
        408: ProviderTimeoutError,
        429: ProviderRateLimitError,
    }
    cls = by_status.get(status or 0, ExecutorError)
    raise cls(
        f"inline provider error: {message}",
        provider=provider,
        status_code=status,
        raw=str(dict(choice))[:2000],
    )


_QUOTED_PROVIDER = re.compile(r"""['"]provider_name['"]:\s*['"]([^'"]{1,100})['"]""")


def map_litellm_error(litellm: ModuleType, exc: Exception, model: str) -> ExecutorError | None:
    """The typed toolfix error for a litellm exception (``None`` when it is not one)."""
    message = str(getattr(exc, "message", None) or exc)
    # a streamed inline error (a router's chunk with finish_reason "error") reaches us only
    # as litellm's text quoting the chunk: the real provider is named in it
    inline = _QUOTED_PROVIDER.search(message)
    provider = (
        (inline.group(1) if inline else None)
        or getattr(exc, "llm_provider", None)
        or (model.split("/", 1)[0] if "/" in model else None)
    )
    status = getattr(exc, "status_code", None)
    status_code = status if isinstance(status, int) else None
    table: list[tuple[str, type[ExecutorError]]] = [
        ("ContextWindowExceededError", ContextLengthExceededError),
        ("AuthenticationError", ProviderAuthenticationError),
        ("RateLimitError", ProviderRateLimitError),
        ("Timeout", ProviderTimeoutError),
    ]
    for name, cls in table:
        lit_cls = getattr(litellm, name, None)
        if isinstance(lit_cls, type) and isinstance(exc, lit_cls):
            return cls(message, provider=provider, status_code=status_code)
    by_status: dict[int, type[ExecutorError]] = {
        401: ProviderAuthenticationError,
        403: ProviderAuthenticationError,
        408: ProviderTimeoutError,
        429: ProviderRateLimitError,
    }
    generic = tuple(
        c
        for c in (
            getattr(litellm, n, None)
            for n in (
                "APIError",
                "BadRequestError",
                "APIConnectionError",
                "NotFoundError",
                "PermissionDeniedError",
                "InternalServerError",
                "ServiceUnavailableError",
                "UnprocessableEntityError",
                "APIResponseValidationError",
            )
        )
        if isinstance(c, type)
    )
    openai_base = _openai_api_error()
    if (generic and isinstance(exc, generic)) or (
        openai_base is not None and isinstance(exc, openai_base)
    ):
        cls = by_status.get(status_code or 0, ExecutorError)
        return cls(message, provider=provider, status_code=status_code)
    return None


def _openai_api_error() -> type[Exception] | None:
    try:
        import openai
    except ImportError:  # pragma: no cover
        return None
    err = getattr(openai, "APIError", None)
    return err if isinstance(err, type) and issubclass(err, Exception) else None
