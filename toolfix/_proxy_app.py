"""The HTTP app behind ``toolfix serve``: toolfix's routes only, closed by default.

A small Starlette app, not LiteLLM's proxy server: it serves chat completions,
Anthropic messages, models, health and stats, and nothing else (no provider
pass-through routes, no admin UI, no CORS unless origins are configured). Each
request goes to the one ``--upstream`` through the litellm SDK (``openai/<model>``
with an explicit ``api_base`` and key, so no provider variable is ever read from
the environment), and its response through :class:`ToolfixProxyHook`.

Authentication: when the proxy holds an upstream key, clients must present toolfix's
own key (``Authorization: Bearer`` or ``x-api-key``); when it holds none, the
client's key goes to the upstream as it came. Every error is JSON without a
traceback; a failing upstream is 502 (504 on timeout) naming its URL, logged in one
line on the ``toolfix.proxy`` logger.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from .integrations.litellm_proxy import REQUEST_KEY_FIELD, stats

log = logging.getLogger("toolfix.proxy")

# sent to the upstream when the client presents no key: the OpenAI client needs one,
# and an explicit value keeps litellm from reading OPENAI_API_KEY from the environment
NO_CLIENT_KEY = "none"

# the OpenAI chat parameters passed to litellm by name; any other body field goes to
# the upstream in ``extra_body`` (vLLM's ``chat_template_kwargs``, ``top_k``, ...), so
# nothing in a request body configures litellm itself (api_base, api_key, ...)
CHAT_PARAMS = frozenset(
    {
        "messages", "tools", "tool_choice", "temperature", "top_p", "n", "stream",
        "stream_options", "stop", "max_tokens", "max_completion_tokens", "presence_penalty",
        "frequency_penalty", "logit_bias", "user", "response_format", "seed",
        "parallel_tool_calls", "logprobs", "top_logprobs", "reasoning_effort",
    }
)  # fmt: skip
# the Anthropic Messages parameters; others are dropped
MESSAGES_PARAMS = frozenset(
    {
        "messages", "max_tokens", "system", "stop_sequences", "stream", "temperature",
        "thinking", "tool_choice", "tools", "top_k", "top_p", "metadata",
    }
)  # fmt: skip


@dataclass(frozen=True)
class ProxySettings:
    """What ``toolfix serve`` was started with.

    Args:
        upstream: the OpenAI-compatible base URL every request goes to.
        models: the model names served; empty means any name.
        upstream_key: the upstream key the proxy holds (``--api-key-env``), or ``None``
            to forward each client's own key.
        client_key: the key clients must present when ``upstream_key`` is held;
            ``None`` with an upstream key means ``--no-auth``.
        cors_origins: origins granted CORS; empty means none (and a request carrying
            any other ``Origin`` header is refused).
        timeout: seconds per upstream request.
        models_ttl: seconds the upstream's ``/models`` answer is reused.
    """

    upstream: str
    models: tuple[str, ...] = ()
    upstream_key: str | None = None
    client_key: str | None = None
    cors_origins: tuple[str, ...] = ()
    timeout: float = 60.0
    models_ttl: float = 10.0


class UpstreamFailure(Exception):
    """An upstream call failed; ``status`` is what the client gets."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def error_response(status: int, message: str, kind: str, **extra: Any) -> JSONResponse:
    """The one error body: OpenAI's ``{"error": {...}}`` shape."""
    return JSONResponse({"error": {"message": message, "type": kind, **extra}}, status)


def _presented_key(headers: Mapping[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    key = headers.get("x-api-key", "").strip()
    return key or None


def upstream_key_for(settings: ProxySettings, headers: Mapping[str, str]) -> str | None:
    """The key to send upstream for a request, or ``None`` when it must be refused (401).

    Held upstream key: the client must present ``client_key`` (unless ``--no-auth``).
    No held key: the client's own key, or :data:`NO_CLIENT_KEY` when it sent none."""
    presented = _presented_key(headers)
    if settings.upstream_key is None:
        return presented or NO_CLIENT_KEY
    if settings.client_key is None:
        return settings.upstream_key
    if presented is not None and hmac.compare_digest(
        presented.encode(), settings.client_key.encode()
    ):
        return settings.upstream_key
    return None


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from (litellm wraps the transport's)."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(out) < 16 and cur not in out:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _first_line(exc: BaseException) -> str:
    """The first line of an exception's message, without any traceback text litellm
    folds into it."""
    line = (str(exc).strip().splitlines() or [""])[0]
    return line.split("Traceback (most recent call last)")[0].strip()[:300]


def describe_failure(exc: BaseException, upstream: str, timeout: float) -> UpstreamFailure:
    """The client's status and message for an exception from the upstream call: 504 on a
    timeout, 502 when the upstream is unreachable or answers 5xx or something unreadable,
    the upstream's own status for its 4xx. The message names the upstream; it carries
    no traceback and no local path."""
    import httpx
    import openai

    if isinstance(exc, UpstreamFailure):
        return exc
    causes = _causes(exc)
    if any(isinstance(e, openai.APITimeoutError | httpx.TimeoutException) for e in causes):
        return UpstreamFailure(504, f"upstream {upstream} did not answer within {timeout:g} s")
    transport = [e for e in causes if isinstance(e, httpx.TransportError)]
    if transport or any(type(e) is openai.APIConnectionError for e in causes):
        why = type(transport[-1]).__name__ if transport else "connection error"
        return UpstreamFailure(
            502, f"upstream {upstream} is unreachable or closed the connection ({why})"
        )
    code = getattr(exc, "status_code", None)
    if isinstance(code, int) and 400 <= code < 500:
        return UpstreamFailure(code, f"upstream {upstream} answered {code}: {_first_line(exc)}")
    return UpstreamFailure(502, f"upstream {upstream} failed: {_first_line(exc)}")


def _failure_response(failure: UpstreamFailure, upstream: str) -> JSONResponse:
    kind = "upstream_timeout" if failure.status == 504 else "upstream_error"
    return error_response(failure.status, failure.detail, kind, upstream=upstream)


def jsonable(obj: Any) -> Any:
    """``json.dumps`` default: pydantic models (litellm's types) by ``model_dump``."""
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


@dataclass
class _ModelsCache:
    """The upstream's ``/models`` answer per key, reused for ``ttl`` seconds."""

    ttl: float
    entries: dict[str, tuple[float, Any]] = field(default_factory=dict)

    def get(self, key: str) -> Any | None:
        hit = self.entries.get(key)
        if hit is None or time.monotonic() - hit[0] > self.ttl:
            return None
        return hit[1]

    def put(self, key: str, value: Any) -> None:
        if len(self.entries) > 64:  # one entry per client key; bounded
            self.entries.clear()
        self.entries[key] = (time.monotonic(), value)


class OriginGuard:
    """Refuses (403, no CORS headers) any request whose ``Origin`` is not configured:
    browsers send ``Origin`` on cross-site requests and on preflights, SDKs do not."""

    def __init__(self, app: ASGIApp, origins: tuple[str, ...]) -> None:
        self.app = app
        self.origins = frozenset(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            origin = next((v for k, v in scope["headers"] if k == b"origin"), None)
            if origin is not None and "*" not in self.origins:
                text = origin.decode("latin-1")
                if text not in self.origins:
                    shown = text[:200]
                    log.warning("refused a request from origin %s (no --cors-origin)", shown)
                    msg = f"origin {shown} is not allowed (toolfix serve --cors-origin)"
                    await error_response(403, msg, "forbidden_origin")(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def build_app(settings: ProxySettings, routes: list[Route]) -> Starlette:
    """The Starlette app: the routes, JSON errors, the origin guard and (when origins are
    configured) CORS for exactly those origins."""

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 400
        detail = exc.detail if isinstance(exc, HTTPException) else "bad request"
        kinds = {401: "authentication_error", 404: "not_found", 405: "method_not_allowed"}
        kind = kinds.get(status, "invalid_request_error")
        return error_response(status, f"{request.method} {request.url.path}: {detail}", kind)

    async def internal_error(request: Request, exc: Exception) -> Response:
        log.error(
            "internal error on %s %s: %s: %s",
            request.method,
            request.url.path,
            type(exc).__name__,
            (str(exc).splitlines() or [""])[0][:300],
        )
        return error_response(500, "toolfix proxy internal error", "internal_error")

    middleware = [Middleware(OriginGuard, origins=settings.cors_origins)]
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["authorization", "content-type", "x-api-key", "anthropic-version"],
                expose_headers=["x-toolfix-repairs"],
            )
        )
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: http_error, Exception: internal_error},
    )


async def read_json(request: Request) -> dict[str, Any]:
    """The request body as a JSON object, or a 400 :class:`HTTPException`."""
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"the body is not JSON ({exc})") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the body is not a JSON object")
    return body


async def sse_guard(
    items: AsyncIterator[bytes | str], on_error: Callable[[BaseException], bytes | str]
) -> AsyncIterator[bytes | str]:
    """A stream body that never raises into the server: a failure mid-stream ends it
    with ``on_error``'s frame (the headers have left already)."""
    try:
        async for item in items:
            yield item
    except Exception as exc:
        yield on_error(exc)


def streaming(items: AsyncIterator[bytes | str]) -> StreamingResponse:
    headers = {"cache-control": "no-cache"}
    return StreamingResponse(items, media_type="text/event-stream", headers=headers)


def dump(obj: Any) -> str:
    return json.dumps(obj, default=jsonable, ensure_ascii=False)


def configure_litellm() -> None:
    """The process-wide litellm settings ``toolfix serve`` needs (it owns its process)."""
    import litellm

    # /v1/messages against an OpenAI-compatible upstream: chat completions, not Responses
    litellm.use_chat_completions_url_for_anthropic_messages = True
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" prints
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        # toolfix logs one line per failed request; litellm would add tracebacks
        logging.getLogger(name).setLevel(logging.CRITICAL)


class ProxyService:
    """The routes' work: admission, the upstream call through litellm, the hook, the
    answer. ``hook`` is ``None`` for ``--no-hook``."""

    def __init__(self, settings: ProxySettings, hook: Any) -> None:
        import litellm

        self.settings = settings
        self.hook = hook
        self.litellm = litellm
        self.models_cache = _ModelsCache(settings.models_ttl)
        # litellm's /v1/messages adapter imports its whole proxy server (~10 s, and
        # prisma's error handler) to find a router when it is given none; an empty one
        # stands in (it is only read for context-management requests, not forwarded)
        self.router = litellm.Router(model_list=[])  # type: ignore[attr-defined]

    # -- admission ---------------------------------------------------------------------

    def admit(self, request: Request) -> str:
        """The key for the upstream, or a 401 :class:`HTTPException`."""
        key = upstream_key_for(self.settings, request.headers)
        if key is None:
            log.warning("refused %s %s: no valid toolfix key", request.method, request.url.path)
            raise HTTPException(
                401,
                "this proxy needs toolfix's key (Authorization: Bearer KEY or x-api-key: KEY)",
            )
        return key

    def model_of(self, body: Mapping[str, Any]) -> str:
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise HTTPException(400, "the request names no model")
        if self.settings.models and model not in self.settings.models:
            served = ", ".join(self.settings.models)
            raise HTTPException(404, f"model {model!r} is not served here (served: {served})")
        return model

    def upstream_args(self, model: str, key: str) -> dict[str, Any]:
        return {
            "model": f"openai/{model}",
            "api_base": self.settings.upstream,
            "api_key": key,
            "timeout": self.settings.timeout,
            "max_retries": 0,
            "drop_params": True,
        }

    def failed(self, exc: BaseException, model: str, route: str) -> JSONResponse:
        failure = describe_failure(exc, self.settings.upstream, self.settings.timeout)
        log.warning("%s model=%s -> %d: %s", route, model, failure.status, failure.detail)
        return _failure_response(failure, self.settings.upstream)

    # -- routes ------------------------------------------------------------------------

    async def chat(self, request: Request) -> Response:
        key = self.admit(request)
        body = await read_json(request)
        model = self.model_of(body)
        args = self.upstream_args(model, key)
        args.update({k: v for k, v in body.items() if k in CHAT_PARAMS})
        extra = {k: v for k, v in body.items() if k not in CHAT_PARAMS and k != "model"}
        if extra:
            args["extra_body"] = extra
        data = {**body, REQUEST_KEY_FIELD: key}
        try:
            resp = await self.litellm.acompletion(**args)
            if body.get("stream"):
                return await self._chat_stream(resp, data, model)
            if self.hook is not None:
                resp = await self.hook.async_post_call_success_hook(data, None, resp)
        except Exception as exc:
            return self.failed(exc, model, "/v1/chat/completions")
        headers: dict[str, str] = {}
        hidden = getattr(resp, "_hidden_params", None)
        if isinstance(hidden, dict):
            value = (hidden.get("additional_headers") or {}).get("x-toolfix-repairs")
            if value:
                headers["x-toolfix-repairs"] = str(value)
        return Response(dump(resp), media_type="application/json", headers=headers)

    async def _chat_stream(self, resp: Any, data: dict[str, Any], model: str) -> Response:
        """The first chunk is awaited before the headers leave, so a dead upstream is a
        502/504 answer, not a broken stream."""
        chunks = aiter(resp)
        if self.hook is not None:
            chunks = aiter(self.hook.async_post_call_streaming_iterator_hook(None, resp, data))
        first = await anext(chunks, None)

        async def frames() -> AsyncIterator[str]:
            if first is not None:
                yield f"data: {dump(first)}\n\n"
            async for chunk in chunks:
                yield f"data: {dump(chunk)}\n\n"
            yield "data: [DONE]\n\n"

        def on_error(exc: BaseException) -> str:
            failure = describe_failure(exc, self.settings.upstream, self.settings.timeout)
            log.warning("/v1/chat/completions model=%s stream broke: %s", model, failure.detail)
            err = {"error": {"message": failure.detail, "type": "upstream_error"}}
            return f"data: {json.dumps(err)}\n\ndata: [DONE]\n\n"

        return streaming(sse_guard(frames(), on_error))

    async def messages(self, request: Request) -> Response:
        key = self.admit(request)
        body = await read_json(request)
        model = self.model_of(body)
        args = self.upstream_args(model, key)
        args.update({k: v for k, v in body.items() if k in MESSAGES_PARAMS})
        args.setdefault("max_tokens", 4096)
        args["litellm_router"] = self.router
        data = {**body, REQUEST_KEY_FIELD: key}
        try:
            resp = await self.litellm.anthropic_messages(**args)
            if body.get("stream"):
                return await self._messages_stream(resp, data, model)
            if self.hook is not None:
                resp = await self.hook.async_post_call_success_hook(data, None, resp)
        except Exception as exc:
            return self.failed(exc, model, "/v1/messages")
        return Response(dump(resp), media_type="application/json")

    async def _messages_stream(self, resp: Any, data: dict[str, Any], model: str) -> Response:
        chunks = aiter(resp)
        if self.hook is not None:
            chunks = aiter(self.hook.async_post_call_streaming_iterator_hook(None, resp, data))
        first = await anext(chunks, None)

        async def frames() -> AsyncIterator[bytes | str]:
            if first is not None:
                yield first
            async for chunk in chunks:
                yield chunk

        def on_error(exc: BaseException) -> str:
            failure = describe_failure(exc, self.settings.upstream, self.settings.timeout)
            log.warning("/v1/messages model=%s stream broke: %s", model, failure.detail)
            err = {"type": "error", "error": {"type": "api_error", "message": failure.detail}}
            return f"event: error\ndata: {json.dumps(err)}\n\n"

        return streaming(sse_guard(frames(), on_error))

    async def models(self, request: Request) -> Response:
        """The upstream's own ``/models`` (reused for ``models_ttl`` seconds per key),
        narrowed to ``--model`` names when they are given."""
        key = self.admit(request)
        listing = self.models_cache.get(key)
        if listing is None:
            try:
                listing = await self._fetch_models(key)
            except Exception as exc:
                return self.failed(exc, "-", "/v1/models")
            self.models_cache.put(key, listing)
        if self.settings.models:
            wanted = set(self.settings.models)
            listing = {**listing, "data": [m for m in listing["data"] if m.get("id") in wanted]}
        return JSONResponse(listing)

    async def _fetch_models(self, key: str) -> dict[str, Any]:
        import httpx

        headers = {} if key == NO_CLIENT_KEY else {"authorization": f"Bearer {key}"}
        url = f"{self.settings.upstream}/models"
        async with httpx.AsyncClient(timeout=self.settings.timeout) as client:
            try:
                r = await client.get(url, headers=headers)
            except httpx.TimeoutException as exc:
                raise UpstreamFailure(504, f"upstream {url} timed out: {exc}") from None
            except httpx.HTTPError as exc:
                raise UpstreamFailure(
                    502, f"upstream {url} failed: {type(exc).__name__}: {exc}"
                ) from None
        if r.status_code >= 400:
            status = r.status_code if r.status_code < 500 else 502
            raise UpstreamFailure(status, f"upstream {url} answered {r.status_code}")
        try:
            listing = r.json()
        except ValueError:
            listing = None
        if not isinstance(listing, dict) or not isinstance(listing.get("data"), list):
            raise UpstreamFailure(502, f"upstream {url} answered no model list")
        data = [m for m in listing["data"] if isinstance(m, dict)]
        return {"object": "list", "data": data}

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def stats(self, request: Request) -> Response:
        self.admit(request)
        return JSONResponse(stats.snapshot())

    def routes(self) -> list[Route]:
        post, get = ["POST"], ["GET"]
        return [
            Route("/v1/chat/completions", self.chat, methods=post),
            Route("/chat/completions", self.chat, methods=post),
            Route("/v1/messages", self.messages, methods=post),
            Route("/v1/models", self.models, methods=get),
            Route("/models", self.models, methods=get),
            Route("/health", self.health, methods=get),
            Route("/health/liveliness", self.health, methods=get),
            Route("/health/readiness", self.health, methods=get),
            Route("/toolfix/stats", self.stats, methods=get),
        ]


def make_app(settings: ProxySettings, hook: Any) -> Starlette:
    """The app ``toolfix serve`` runs: :class:`ProxyService`'s routes in
    :func:`build_app`."""
    return build_app(settings, ProxyService(settings, hook).routes())
