"""``toolfix serve``: toolfix's repair hook in front of one OpenAI-compatible upstream.

Runs the small app of :mod:`toolfix._proxy_app` with uvicorn on 127.0.0.1. Closed by
default: only toolfix's routes, no CORS, and a held upstream key is usable only with
toolfix's own key. Needs the ``proxy`` extra; everything it needs is imported when
the command runs, so ``toolfix --help`` stays fast.
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
from typing import Annotated, Any

import typer

KEY_ENV = "TOOLFIX_PROXY_KEY"
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
# --reasoning-prefilled: auto reads each request (ToolfixProxyHook.prefilled_for)
PREFILLED_CHOICES: dict[str, bool | None] = {"auto": None, "yes": True, "no": False}
EXTRA = 'needs the proxy extra: pip install "toolfix[proxy]"'

log = logging.getLogger("toolfix.proxy")


def _fail(message: str) -> typer.Exit:
    """One line on stderr and exit code 2 (a bad option or a missing extra)."""
    typer.echo(f"toolfix serve: {message}", err=True)
    return typer.Exit(2)


def _env_value(var: str, option: str) -> str:
    value = os.environ.get(var, "")
    if not value:
        raise _fail(f"{option} {var}: the variable is not set (or empty)")
    return value


def _client_key(key_env: str | None, no_auth: bool) -> tuple[str | None, str]:
    """toolfix's key clients must present, and how the start-up line describes it."""
    if no_auth:
        return None, "none needed (no-auth)"
    if key_env is not None:
        return _env_value(key_env, "--key-env"), f"the key in ${key_env}"
    if os.environ.get(KEY_ENV):
        return os.environ[KEY_ENV], f"the key in ${KEY_ENV}"
    key = "tfx-" + secrets.token_urlsafe(24)
    return key, f"{key} (generated; set {KEY_ENV} to choose it)"


def _check_extra() -> None:
    try:
        import httpx  # noqa: F401
        import litellm  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise _fail(EXTRA) from None


def _hook(
    chain: str, max_retries: int, prefilled: bool | None, upstream: str, key: str | None
) -> Any:
    """The repair hook; ``prefilled`` is ``--reasoning-prefilled`` (``None``: auto)."""
    from .integrations.litellm_proxy import ToolfixProxyHook

    if chain == "manual":
        return ToolfixProxyHook(reasoning_prefilled=prefilled)
    from ._config import FixConfig
    from ._llm import LLMBasedToolCallFixProcessor

    return ToolfixProxyHook(
        # the LLM fixer runs the manual fixer first itself, with this config
        LLMBasedToolCallFixProcessor(
            config=FixConfig(reasoning_prefilled=prefilled), max_retries=max_retries
        ),
        fixer_api_base=upstream,
        fixer_api_key=key,
        reasoning_prefilled=prefilled,
    )


# the options of ``toolfix serve`` (each names its value, so --help shows no <str>)
Upstream = Annotated[
    str,
    typer.Option(
        metavar="URL",
        help="OpenAI-compatible base URL of the model server, e.g. http://127.0.0.1:11434/v1",
    ),
]
Port = Annotated[int, typer.Option(metavar="PORT", help="Port on 127.0.0.1.")]
Models = Annotated[
    list[str] | None,
    typer.Option(
        "--model", metavar="NAME", help="Model name to serve (repeatable); default: any name."
    ),
]
ApiKeyEnv = Annotated[
    str | None,
    typer.Option(
        metavar="VAR",
        help="Variable holding the upstream's key; then clients need toolfix's key. "
        "Default: each client's own key goes upstream.",
    ),
]
KeyEnv = Annotated[
    str | None,
    typer.Option(
        metavar="VAR",
        help=f"Variable holding toolfix's key for clients (default ${KEY_ENV}, "
        "else one is generated and printed).",
    ),
]
NoAuth = Annotated[
    bool, typer.Option("--no-auth", help="Let any local client use the upstream key.")
]
CorsOrigins = Annotated[
    list[str] | None,
    typer.Option(
        "--cors-origin", metavar="ORIGIN", help="Browser origin to grant CORS (repeatable)."
    ),
]
Chain = Annotated[
    str,
    typer.Option(
        metavar="CHAIN", help="Repair chain: 'manual' or 'manual+llm' (re-asks the upstream)."
    ),
]
MaxRetries = Annotated[
    int, typer.Option(metavar="N", help="LLM fixer re-asks per response (manual+llm).")
]
Timeout = Annotated[float, typer.Option(metavar="SECONDS", help="Upstream timeout in seconds.")]
NoHook = Annotated[
    bool, typer.Option("--no-hook", help="Run the proxy without the repair hook (comparisons).")
]
Prefilled = Annotated[
    str,
    typer.Option(
        metavar="auto|yes|no",
        help="Does the output start inside reasoning (the template opened <think> in "
        "the prompt)? auto: per request, from the model name and its "
        "chat_template_kwargs (toolfix.formats.PREFILLED_MODELS).",
    ),
]
LogLevel = Annotated[str, typer.Option(metavar="LEVEL", help="Log level (uvicorn's too).")]


def serve(
    upstream: Upstream,
    port: Port = 4000,
    model: Models = None,
    api_key_env: ApiKeyEnv = None,
    key_env: KeyEnv = None,
    no_auth: NoAuth = False,
    cors_origin: CorsOrigins = None,
    chain: Chain = "manual",
    max_retries: MaxRetries = 2,
    timeout: Timeout = 60.0,
    no_hook: NoHook = False,
    reasoning_prefilled: Prefilled = "auto",
    log_level: LogLevel = "warning",
) -> None:
    """Run a proxy on 127.0.0.1 that repairs every response's tool calls."""
    if chain not in ("manual", "manual+llm"):
        raise _fail("--chain must be 'manual' or 'manual+llm'")
    if reasoning_prefilled not in PREFILLED_CHOICES:
        raise _fail("--reasoning-prefilled must be one of: auto, yes, no")
    if log_level.lower() not in LOG_LEVELS:
        raise _fail(f"--log-level must be one of: {', '.join(LOG_LEVELS)}")
    upstream_key = _env_value(api_key_env, "--api-key-env") if api_key_env else None
    client_key, auth_line = None, "each client's own key goes upstream (none held here)"
    if upstream_key is not None:
        client_key, auth_line = _client_key(key_env, no_auth)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch at start
    _check_extra()
    from ._proxy_app import ProxySettings

    settings = ProxySettings(
        upstream=upstream.rstrip("/"),
        models=tuple(model or ()),
        upstream_key=upstream_key,
        client_key=client_key,
        cors_origins=tuple(cors_origin or ()),
        timeout=timeout,
    )
    hook = None if no_hook else (chain, max_retries, PREFILLED_CHOICES[reasoning_prefilled])
    _start(settings, hook, port, log_level.lower(), auth_line, no_auth=no_auth)


def _start(
    settings: Any,
    hook: tuple[str, int, bool | None] | None,
    port: int,
    log_level: str,
    auth_line: str,
    *,
    no_auth: bool,
) -> None:
    """Log set-up, the app, the start-up lines (once, plain text), then serve."""
    from ._proxy_app import configure_litellm, make_app

    logging.basicConfig(format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("toolfix.proxy").setLevel(logging.INFO)
    configure_litellm()
    repair = None if hook is None else _hook(*hook, settings.upstream, settings.upstream_key)
    app = make_app(settings, repair)
    typer.echo(f"toolfix serve: http://127.0.0.1:{port} -> {settings.upstream}", err=True)
    typer.echo(f"toolfix serve: client key: {auth_line}", err=True)
    if no_auth:
        log.warning(
            "--no-auth: clients need no toolfix key; any local program can use the upstream"
        )
    run(app, port, log_level=log_level)


def run(app: Any, port: int, *, log_level: str = "warning") -> None:
    """Serve ``app`` on 127.0.0.1:port until SIGINT/SIGTERM; no colour unless a TTY."""
    import uvicorn

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level=log_level,
        use_colors=sys.stderr.isatty(),
    )
