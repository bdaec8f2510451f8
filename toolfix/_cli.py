"""The ``toolfix`` command line (extra ``toolfix[cli]``).

``toolfix repair`` follows the contract in docs/corpus-format.md: one
JSON object per input line, in input order; a line that cannot be read gets
``"error"`` set and the run goes on.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TextIO

try:
    import typer
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SystemExit(
        'the toolfix command needs the CLI extra: pip install "toolfix[cli]" '
        '(or "toolfix[bench]" for toolfix bench)'
    ) from exc

from ._api import as_response
from ._config import FixConfig
from ._errors import ToolfixError
from ._manual import ManualToolCallFixProcessor
from ._messages import Prompt, Response
from ._processor import ResponseProcessor
from ._tools import ToolRegistry

app = typer.Typer(
    name="toolfix",
    help="Repair malformed LLM tool calls, and benchmark repair strategies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Repair malformed LLM tool calls, and benchmark repair strategies."""


def result_line(
    case_id: str | None,
    response: Response | None,
    *,
    llm_calls: int = 0,
    elapsed_us: int = 0,
    error: str | None = None,
) -> dict[str, Any]:
    """One output line of ``toolfix repair`` (docs/corpus-format.md)."""
    if response is None:
        return {
            "id": case_id,
            "tool_calls": [],
            "invalid_tool_calls": [],
            "content": None,
            "reasoning": None,
            "repairs": [],
            "llm_calls": llm_calls,
            "elapsed_us": elapsed_us,
            "error": error,
        }
    return {
        "id": case_id,
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls
        ],
        "invalid_tool_calls": [
            {"name": c.name, "raw": c.raw, "error": c.error, "kind": c.kind}
            for c in response.invalid_tool_calls
        ],
        "content": response.text or None,
        "reasoning": response.reasoning,
        "repairs": [r.as_dict() for r in response.all_repairs],
        "llm_calls": llm_calls,
        "elapsed_us": elapsed_us,
        "error": error,
    }


def _llm_calls_of(response: Response) -> int:
    from ._llm_fixer import llm_calls_of

    return llm_calls_of(response)


def _build_processor(
    config: FixConfig, llm: str | None, api_base: str | None, max_retries: int
) -> ResponseProcessor:
    manual = ManualToolCallFixProcessor(config)
    if llm is None:
        return manual
    try:
        from ._llm_fixer import build_llm_processor
    except ImportError as exc:
        raise typer.BadParameter(f"--llm is not available: {exc}") from exc
    processor: ResponseProcessor = build_llm_processor(
        model=llm, api_base=api_base, max_retries=max_retries, config=config
    )
    return processor


async def _repair_one(
    processor: ResponseProcessor,
    raw_response: Any,
    tools: ToolRegistry,
    llm: str | None,
) -> tuple[Response, int]:
    response = as_response(raw_response)
    start = time.perf_counter_ns()
    if isinstance(processor, ManualToolCallFixProcessor):
        out = processor.fix(response, tools)
    else:
        # the LLM-based processor carries its own litellm executor and model
        [out] = await processor.process(None, Prompt(), llm or "", tools, [response])
    return out, (time.perf_counter_ns() - start) // 1000


def _iter_lines(source: TextIO) -> Iterator[str]:
    for line in source:
        if line.strip():
            yield line


class _BadLine(ValueError):
    def __init__(self, message: str, case_id: str | None):
        super().__init__(message)
        self.case_id = case_id


def _read_case(line: str) -> tuple[str | None, Any, ToolRegistry]:
    try:
        case = json.loads(line)
    except ValueError as exc:
        raise _BadLine(f"not JSON: {exc}", None) from exc
    if not isinstance(case, Mapping):
        raise _BadLine("a line must be a JSON object", None)
    case_id = str(case["id"]) if case.get("id") is not None else None
    try:
        tools = ToolRegistry.of(case.get("tools") or [])
    except (ToolfixError, TypeError, ValueError) as exc:
        raise _BadLine(f"bad tools: {exc}", case_id) from exc
    if "response" not in case:
        raise _BadLine("missing 'response'", case_id)
    return case_id, case["response"], tools


@app.command()
def repair(
    jsonl: Annotated[
        str | None,
        typer.Option("--jsonl", help="Corpus-format JSON Lines file to repair, or '-' for stdin."),
    ] = None,
    tools_file: Annotated[
        Path | None,
        typer.Option(
            "--tools", help="Tools (OpenAI/Anthropic/MCP list) for a single response on stdin."
        ),
    ] = None,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="Also run the LLM-based fixer with this litellm model string."),
    ] = None,
    api_base: Annotated[
        str | None, typer.Option("--api-base", help="Base URL of the LLM endpoint.")
    ] = None,
    max_retries: Annotated[int, typer.Option("--max-retries", min=0)] = 3,
    fmt: Annotated[
        list[str] | None,
        typer.Option("--format", help="Pin the native formats to look for (repeatable)."),
    ] = None,
    promote_reasoning: Annotated[
        bool, typer.Option("--promote-reasoning", help="Take calls found only in reasoning.")
    ] = False,
    reasoning_when_no_answer: Annotated[
        bool,
        typer.Option(
            "--reasoning-when-no-answer",
            help="Take calls found only in reasoning when the response has nothing else.",
        ),
    ] = False,
) -> None:
    """Repair tool calls: a corpus file (--jsonl) or one response on stdin (--tools)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    reasoning: Literal["ignore", "promote", "when_no_answer"] = (
        "promote"
        if promote_reasoning
        else "when_no_answer"
        if reasoning_when_no_answer
        else "ignore"
    )
    config = FixConfig(
        formats=tuple(fmt) if fmt else None,
        reasoning_calls=reasoning,
    )
    processor = _build_processor(config, llm, api_base, max_retries)
    out = sys.stdout
    if jsonl is not None:
        source: TextIO = sys.stdin if jsonl == "-" else open(jsonl, encoding="utf-8")  # noqa: SIM115
        try:
            for line in _iter_lines(source):
                case_id: str | None = None
                try:
                    case_id, raw, tools = _read_case(line)
                    fixed, us = asyncio.run(_repair_one(processor, raw, tools, llm))
                    row = result_line(case_id, fixed, llm_calls=_llm_calls_of(fixed), elapsed_us=us)
                except _BadLine as exc:
                    row = result_line(exc.case_id, None, error=f"unreadable line: {exc}")
                except (ValueError, TypeError, ToolfixError) as exc:
                    row = result_line(case_id, None, error=f"{type(exc).__name__}: {exc}")
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
        finally:
            if source is not sys.stdin:
                source.close()
        return
    if tools_file is None:
        raise typer.BadParameter(
            "give --jsonl FILE, or --tools TOOLS.json with a response on stdin"
        )
    try:
        tools = ToolRegistry.of(json.loads(tools_file.read_text(encoding="utf-8")))
    except (ValueError, ToolfixError) as exc:
        raise typer.BadParameter(f"cannot read tools from {tools_file}: {exc}") from exc
    text = sys.stdin.read()
    payload: Any = text
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and (
            "content" in parsed or "tool_calls" in parsed or "choices" in parsed
        ):
            payload = parsed
    fixed, us = asyncio.run(_repair_one(processor, payload, tools, llm))
    row = result_line(None, fixed, llm_calls=_llm_calls_of(fixed), elapsed_us=us)
    out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _mount_optional() -> None:
    try:
        from ._bench.cli import register
    except ImportError:
        return
    register(app)


_mount_optional()

from ._serve import serve as _serve  # noqa: E402

app.command("serve")(_serve)


def main() -> None:
    """Entry point of the ``toolfix`` script."""
    app()
