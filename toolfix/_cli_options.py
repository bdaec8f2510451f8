"""Command-line options shared by ``toolfix repair`` (:mod:`toolfix._cli`) and
``toolfix bench`` (:mod:`toolfix._bench.cli`), kept apart so neither imports the other."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["ApiBaseOption", "LlmOption"]

LlmOption = Annotated[
    str | None,
    typer.Option("--llm", help="Also run toolfix's LLM-based fixer with this litellm model."),
]
ApiBaseOption = Annotated[
    str | None, typer.Option("--api-base", help="Base URL of the LLM endpoint.")
]
