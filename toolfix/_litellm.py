"""An executor backed by litellm: one ``litellm.acompletion`` call per request.

litellm is imported lazily, on the first request, so ``import toolfix`` never
imports it. Before importing it this module sets
``LITELLM_LOCAL_MODEL_COST_MAP=True`` (unless you set the variable yourself),
so litellm reads its bundled model price list instead of downloading it.

Install with ``pip install "toolfix[litellm]"``.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from types import ModuleType
from typing import Any

from ._convert import prompt_to_openai, response_from_openai, tool_choice_to_openai
from ._errors import (
    ConfigurationError,
    ContextLengthExceededError,
    ExecutorError,
    ProviderAuthenticationError,
    ProviderBadResponseError,
    ProviderRateLimitError,
    ProviderTimeoutError,
)
from ._executor import PromptExecutor
from ._messages import Prompt, Response, Usage
from ._processor import ToolsLike
from ._tools import ToolRegistry

__all__ = ["LiteLLMExecutor", "import_litellm"]

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


class LiteLLMExecutor(PromptExecutor):
    """Runs prompts through ``litellm.acompletion`` (any provider litellm supports).

    Args:
        api_base: Base URL of the server (``http://localhost:8000/v1`` for vLLM).
        api_key: API key; ``None`` lets litellm read the provider's usual variable.
        timeout: Seconds per request.
        num_retries: litellm's own retries on transient errors (0: none).
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
        **provider_options: Any,
    ):
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
            "messages": prompt_to_openai(prompt),
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
        kwargs.update(self.provider_options)
        kwargs.update(prompt.params)
        return kwargs

    async def execute(self, prompt: Prompt, model: str, tools: ToolsLike = None) -> list[Response]:
        litellm = import_litellm()
        kwargs = self.request_kwargs(prompt, model, tools)
        try:
            result = await litellm.acompletion(**kwargs)
        except Exception as exc:
            mapped = map_litellm_error(litellm, exc, model)
            if mapped is None:
                raise
            raise mapped from exc
        data = _to_dict(result)
        return responses_from_completion(data, model=model)

    async def execute_stream(
        self, prompt: Prompt, model: str, tools: ToolsLike = None
    ) -> AsyncIterator[dict[str, Any]]:
        """The response as a stream of OpenAI ``chat.completion.chunk`` dicts, unrepaired.

        Feed it to :func:`toolfix.arepair_stream` (or a processor's ``process_stream``)
        to repair it as it arrives."""
        litellm = import_litellm()
        kwargs = {**self.request_kwargs(prompt, model, tools), "stream": True}
        try:
            stream = await litellm.acompletion(**kwargs)
            async for chunk in stream:
                yield _to_dict(chunk)
        except Exception as exc:
            mapped = map_litellm_error(litellm, exc, model)
            if mapped is None:
                raise
            raise mapped from exc


def _to_dict(result: Any) -> dict[str, Any]:
    if isinstance(result, Mapping):
        return dict(result)
    dump = getattr(result, "model_dump", None)
    if callable(dump):
        out = dump()
        if isinstance(out, dict):
            return out
    raise ProviderBadResponseError(f"unexpected litellm result of type {type(result).__name__}")


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
        message = choice.get("message") or {}
        out.append(
            response_from_openai(
                message,
                id=data.get("id"),
                model=data.get("model") or model,
                finish_reason=choice.get("finish_reason"),
                usage=usage if i == 0 else Usage(),
            )
        )
    return out


def map_litellm_error(litellm: ModuleType, exc: Exception, model: str) -> ExecutorError | None:
    """The typed toolfix error for a litellm exception (``None`` when it is not one)."""
    provider = getattr(exc, "llm_provider", None) or (
        model.split("/", 1)[0] if "/" in model else None
    )
    status = getattr(exc, "status_code", None)
    status_code = status if isinstance(status, int) else None
    message = str(getattr(exc, "message", None) or exc)
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
