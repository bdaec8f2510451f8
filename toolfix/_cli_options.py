"""Options that ``toolfix repair`` and ``toolfix bench`` share, in a module of their
own: ``toolfix._bench.cli`` imports them without importing ``toolfix._cli`` (which
mounts the bench commands; importing it from there was a cycle that left ``bench``
unmounted when the bench module was imported first)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["NO_KEY", "ApiBaseOption", "LlmOption", "key_for_local_server"]

#: ``--llm`` and ``--api-base``, the same for ``toolfix repair`` and ``toolfix bench``.
LlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        metavar="MODEL",
        help="Also run toolfix's LLM-based fixer with this litellm model "
        "(e.g. openai/qwen3 with --api-base).",
    ),
]
ApiBaseOption = Annotated[
    str | None,
    typer.Option(
        "--api-base",
        metavar="URL",
        help="Base URL of the LLM endpoint (a server without keys needs no --api-key).",
    ),
]


#: What ``--llm`` sends as its key to an ``--api-base`` server when no key is set anywhere
#: (the OpenAI client refuses to start without one; local servers ignore it).
NO_KEY = "no-key"


def key_for_local_server(model: str) -> str | None:
    """``None`` (litellm reads the provider's variable) when that variable is set, else
    :data:`NO_KEY`: a keyless local server at ``--api-base`` works without one."""
    try:
        import litellm

        missing = litellm.validate_environment(model=model).get("missing_keys") or []
    except Exception:  # an unknown provider: let litellm say what it needs
        return None
    return NO_KEY if missing else None
