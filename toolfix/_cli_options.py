"""Options that ``toolfix repair`` and ``toolfix bench`` share, in a module of their
own: ``toolfix._bench.cli`` imports them without importing ``toolfix._cli`` (which
mounts the bench commands; importing it from there was a cycle that left ``bench``
unmounted when the bench module was imported first)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["ApiBaseOption", "LlmOption"]

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
