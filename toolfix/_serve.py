"""``toolfix serve``: a LiteLLM proxy on 127.0.0.1 with the toolfix repair hook.

Writes a minimal LiteLLM proxy config (every ``--model`` routed to the
OpenAI-compatible ``--upstream``, the hook in ``litellm_settings.callbacks``)
and runs the proxy app with uvicorn. Needs the ``proxy`` extra.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from ._errors import ConfigurationError

HOOK = "toolfix.integrations.litellm_proxy.proxy_handler_instance"


def proxy_config(
    upstream: str,
    models: list[str],
    *,
    api_key_env: str | None,
    timeout: float,
) -> dict[str, Any]:
    """The LiteLLM proxy config ``toolfix serve`` writes."""
    model_list = []
    for name in models or ["*"]:
        params: dict[str, Any] = {
            "model": f"openai/{name}",
            "api_base": upstream,
            "timeout": timeout,
            "stream_timeout": timeout,
            "max_retries": 0,
        }
        params["api_key"] = f"os.environ/{api_key_env}" if api_key_env else "none"
        model_list.append({"model_name": name, "litellm_params": params})
    return {
        "model_list": model_list,
        "litellm_settings": {
            "callbacks": HOOK,
            "num_retries": 0,
            "request_timeout": timeout,
            "drop_params": True,
            # /v1/messages against an OpenAI-compatible upstream: chat completions, not Responses
            "use_chat_completions_url_for_anthropic_messages": True,
        },
        "router_settings": {"num_retries": 0, "timeout": timeout},
        # bound to 127.0.0.1 only; set LITELLM_MASTER_KEY to require a key from clients
        "general_settings": {"dangerously_permit_weak_or_unset_master_key": True},
    }


def serve(
    upstream: Annotated[
        str,
        typer.Option(
            help="OpenAI-compatible base URL of the model server, e.g. http://127.0.0.1:11434/v1"
        ),
    ],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1.")] = 4000,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", help="Model name to serve (repeatable); default: any name ('*')."),
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            help="Environment variable holding the upstream API key (default: none sent)."
        ),
    ] = None,
    chain: Annotated[
        str, typer.Option(help="Repair chain: 'manual' or 'manual+llm' (re-asks the upstream).")
    ] = "manual",
    max_retries: Annotated[
        int, typer.Option(help="LLM fixer re-asks per response (manual+llm).")
    ] = 2,
    timeout: Annotated[float, typer.Option(help="Upstream timeout in seconds.")] = 60.0,
    no_hook: Annotated[
        bool,
        typer.Option("--no-hook", help="Run the proxy without the repair hook (for comparisons)."),
    ] = False,
    write_config: Annotated[
        Path | None, typer.Option(help="Write the LiteLLM config here and exit.")
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "warning",
) -> None:
    """Run a LiteLLM proxy on 127.0.0.1 that repairs every response's tool calls."""
    import yaml

    if chain not in ("manual", "manual+llm"):
        raise typer.BadParameter("--chain must be 'manual' or 'manual+llm'")
    cfg = proxy_config(upstream, list(model or []), api_key_env=api_key_env, timeout=timeout)
    if no_hook:
        del cfg["litellm_settings"]["callbacks"]
    text = yaml.safe_dump(cfg, sort_keys=False)
    if write_config is not None:
        write_config.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {write_config}")
        return
    os.environ["TOOLFIX_PROXY_CHAIN"] = chain
    os.environ["TOOLFIX_PROXY_MAX_RETRIES"] = str(max_retries)
    os.environ["TOOLFIX_PROXY_UPSTREAM"] = upstream
    if api_key_env:
        os.environ["TOOLFIX_PROXY_UPSTREAM_KEY"] = os.environ.get(api_key_env, "")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("DISABLE_SCHEMA_UPDATE", "True")
    fd, path = tempfile.mkstemp(prefix="toolfix-proxy-", suffix=".yaml")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.environ["CONFIG_FILE_PATH"] = path
    import logging

    logging.basicConfig(format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("toolfix.proxy").setLevel(logging.INFO)
    try:
        run(port, log_level=log_level)
    finally:
        Path(path).unlink(missing_ok=True)


def run(port: int, *, log_level: str = "warning") -> None:
    """Start the proxy app (config from ``CONFIG_FILE_PATH``) on 127.0.0.1:port."""
    try:
        import uvicorn
        from fastapi.responses import JSONResponse
        from litellm.proxy.proxy_server import app
    except ImportError as exc:  # pragma: no cover - without the extra
        raise ConfigurationError(
            'toolfix serve needs the proxy extra: pip install "toolfix[proxy]"'
        ) from exc

    from .integrations.litellm_proxy import stats

    async def toolfix_stats() -> JSONResponse:
        return JSONResponse(stats.snapshot())

    app.add_api_route("/toolfix/stats", toolfix_stats, methods=["GET"])
    level: Literal["warning"] | str = log_level
    uvicorn.run(app, host="127.0.0.1", port=port, log_level=level)
