"""The ``toolfix`` command line (extra ``toolfix[cli]``).

``toolfix repair`` follows the contract in docs/corpus-format.md and
docs/cli.md: one JSON object per non-blank input line, in input order, with its
1-based ``"line"``; nothing on a line (bytes, nesting, shape, tools, an LLM
failure) stops the batch; rows are strict JSON in valid UTF-8; a summary goes to
stderr. Files that cannot be used give one line on stderr and exit status 2; see
the ``EXIT_*`` constants.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Literal

try:
    import typer
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SystemExit(
        'the toolfix command needs the CLI extra: pip install "toolfix[cli]" '
        '(or "toolfix[bench]" for toolfix bench)'
    ) from exc

from ._api import as_response, as_tools
from ._cli_options import ApiBaseOption, LlmOption, key_for_local_server
from ._config import FixConfig
from ._errors import UnsupportedInputError
from ._messages import Prompt, Response
from ._pipeline.processor import ResponseProcessor
from ._repair.manual import ManualToolCallFixProcessor
from ._tools import ToolRegistry

app = typer.Typer(
    name="toolfix",
    help="Repair malformed LLM tool calls, and benchmark repair strategies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # click's plain help: options in full, no type placeholders, wrapped to the terminal
    rich_markup_mode=None,
    context_settings={"max_content_width": 100},
)


def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"toolfix {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Repair malformed LLM tool calls, and benchmark repair strategies."""
    del version  # handled by its callback


EXIT_OK = 0
"""Every input line got its output line (per-line errors are in the rows)."""
EXIT_INTERNAL = 1
"""A bug in toolfix: reported in one line (set ``TOOLFIX_DEBUG=1`` for the traceback)."""
EXIT_USAGE = 2
"""Bad options, or a ``--jsonl`` / ``--tools`` file that cannot be read; nothing repaired."""
EXIT_LLM_FAILED = 3
"""``--llm``: the LLM-based fixer failed on at least one line (the server is down, the key
is refused, ...). Every row was still written, with the manual fixer's result and the
LLM error in ``"error"``."""


class _UsageError(Exception):
    """One clear line for the user, exit status :data:`EXIT_USAGE`."""


def result_line(
    case_id: str | None,
    response: Response | None,
    *,
    line: int | None = None,
    llm_calls: int = 0,
    elapsed_us: int = 0,
    error: str | None = None,
) -> dict[str, Any]:
    """One output line of ``toolfix repair`` (the corpus-format contract)."""
    if response is None:
        return {
            "id": case_id,
            "line": line,
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
        "line": line,
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


_SURROGATE = re.compile("[\ud800-\udfff]")


def _finite(value: Any, found: list[str]) -> Any:
    """``value`` with non-finite floats written as strings (noted in ``found``); iterative
    enough for what the fixer produces (its output is depth-limited)."""
    if isinstance(value, float) and not math.isfinite(value):
        found.append(repr(value))
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v, found) for v in value]
    return value


def dump_row(row: dict[str, Any]) -> str:
    """One row as a line of strict JSON that encodes to valid UTF-8.

    Non-finite numbers (``NaN``, ``Infinity``) become strings and the row's ``error`` says
    so; lone surrogates (``"\\ud800"`` in the input) are written as ``\\uXXXX`` escapes.
    """
    try:
        text = json.dumps(row, ensure_ascii=False, allow_nan=False)
    except ValueError:
        found: list[str] = []
        row = _finite(row, found)
        note = f"non-finite numbers written as strings: {', '.join(sorted(set(found)))}"
        row["error"] = f"{row['error']}; {note}" if row.get("error") else note
        text = json.dumps(row, ensure_ascii=False, allow_nan=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _llm_calls_of(response: Response) -> int:
    from ._llm import llm_calls_of

    return llm_calls_of(response)


def _build_processor(
    config: FixConfig,
    llm: str | None,
    api_base: str | None,
    max_retries: int,
    api_key: str | None = None,
) -> ResponseProcessor | None:
    if llm is None:
        return None
    try:
        from ._llm import build_llm_processor
    except ImportError as exc:
        raise _UsageError(f"--llm is not available: {exc}") from exc
    try:
        import litellm

        # litellm prints "Give Feedback / Get Help" banners to stdout on errors, which
        # would break the one-JSON-object-per-line output
        litellm.suppress_debug_info = True
    except ImportError:  # pragma: no cover - build_llm_processor needs it anyway
        pass
    if api_key is None and api_base is not None:
        api_key = key_for_local_server(llm)
    processor: ResponseProcessor = build_llm_processor(
        model=llm, api_base=api_base, max_retries=max_retries, api_key=api_key, config=config
    )
    return processor


class _LLMFailed(Exception):
    def __init__(self, manual: Response, elapsed_us: int, cause: BaseException):
        super().__init__(str(cause))
        self.manual = manual
        self.elapsed_us = elapsed_us
        self.cause = cause


async def _repair_one(
    manual: ManualToolCallFixProcessor,
    processor: ResponseProcessor | None,
    raw_response: Any,
    tools: ToolRegistry,
    llm: str | None,
) -> tuple[Response, int]:
    response = as_response(raw_response, limits=manual.config.limits)
    start = time.perf_counter_ns()
    if processor is None:
        out = manual.fix(response, tools)
        return out, (time.perf_counter_ns() - start) // 1000
    try:
        # the LLM-based processor carries its own litellm executor and model
        [out] = await processor.process(None, Prompt(), llm or "", tools, [response])
    except Exception as exc:  # the LLM side failed: keep the manual fixer's answer
        kept = manual.fix(response, tools)
        raise _LLMFailed(kept, (time.perf_counter_ns() - start) // 1000, exc) from exc
    return out, (time.perf_counter_ns() - start) // 1000


class _BadLine(ValueError):
    def __init__(self, message: str, case_id: str | None):
        super().__init__(message)
        self.case_id = case_id


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "…"


def _case_id(case: Mapping[str, Any]) -> str | None:
    value = case.get("id")
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value)):
        return json.dumps(value)
    return None  # an id that is an object or a list is not readable as an id


def _read_case(raw: bytes | str) -> tuple[str | None, Any, ToolRegistry]:
    if isinstance(raw, bytes):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _BadLine(f"not UTF-8: {exc}", None) from exc
    else:
        line = raw
    try:
        case = json.loads(line, parse_constant=_no_constants)
    except RecursionError as exc:
        raise _BadLine("not JSON: nested too deep to read", None) from exc
    except ValueError as exc:
        raise _BadLine(f"not JSON: {exc}", None) from exc
    if not isinstance(case, Mapping):
        raise _BadLine("a line must be a JSON object", None)
    case_id = _case_id(case)
    try:
        tools = ToolRegistry.of(as_tools(case.get("tools") or []))
    except Exception as exc:  # ToolfixError, or a schema the validator chokes on
        raise _BadLine(f"bad tools: {_short(exc)}", case_id) from exc
    if "response" not in case:
        raise _BadLine("missing 'response'", case_id)
    return case_id, case["response"], tools


@dataclass
class _Summary:
    lines: int = 0
    blank: int = 0
    rows: int = 0
    errors: int = 0
    llm_failures: int = 0
    valid_calls: int = 0
    invalid_calls: int = 0

    def line(self) -> str:
        return (
            f"toolfix repair: {self.lines} lines ({self.blank} blank), {self.rows} rows, "
            f"{self.valid_calls} valid calls, {self.invalid_calls} invalid calls, "
            f"{self.errors} rows with an error"
            + (f", {self.llm_failures} LLM failures" if self.llm_failures else "")
        )


def _repair_line(
    raw: bytes | str,
    number: int | None,
    manual: ManualToolCallFixProcessor,
    processor: ResponseProcessor | None,
    llm: str | None,
    summary: _Summary,
) -> dict[str, Any]:
    """One input line to one row; never raises."""
    case_id: str | None = None
    try:
        case_id, response, tools = _read_case(raw)
        fixed, us = asyncio.run(_repair_one(manual, processor, response, tools, llm))
        row = result_line(
            case_id, fixed, line=number, llm_calls=_llm_calls_of(fixed), elapsed_us=us
        )
    except _BadLine as exc:
        row = result_line(exc.case_id, None, line=number, error=f"unreadable line: {exc}")
    except _LLMFailed as exc:
        summary.llm_failures += 1
        if summary.llm_failures == 1:
            print(
                f"toolfix repair: the LLM fixer failed ({type(exc.cause).__name__}: "
                f"{_short(exc.cause)}); keeping the manual fixer's results",
                file=sys.stderr,
            )
        row = result_line(
            case_id,
            exc.manual,
            line=number,
            elapsed_us=exc.elapsed_us,
            error=f"LLM fixer failed, manual result kept: {type(exc.cause).__name__}: "
            f"{_short(exc.cause)}",
        )
    except Exception as exc:  # nothing on one line may stop the batch
        row = result_line(case_id, None, line=number, error=f"{type(exc).__name__}: {_short(exc)}")
    summary.rows += 1
    summary.errors += row["error"] is not None
    summary.valid_calls += len(row["tool_calls"])
    summary.invalid_calls += len(row["invalid_tool_calls"])
    return row


def _open_input(path: str, option: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except IsADirectoryError as exc:
        raise _UsageError(f"cannot read {option} {path}: it is a directory") from exc
    except OSError as exc:
        raise _UsageError(f"cannot read {option} {path}: {exc.strerror or exc}") from exc


def _read_tools_file(path: Path) -> ToolRegistry:
    if path.is_dir():
        raise _UsageError(f"cannot read --tools {path}: it is a directory")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _UsageError(f"cannot read --tools {path}: {exc.strerror or exc}") from exc
    try:
        return ToolRegistry.of(as_tools(json.loads(data.decode("utf-8"))))
    except UnicodeDecodeError as exc:
        raise _UsageError(f"cannot read tools from {path}: not UTF-8 ({exc})") from exc
    except RecursionError as exc:
        raise _UsageError(f"cannot read tools from {path}: nested too deep") from exc
    except ValueError as exc:
        raise _UsageError(f"cannot read tools from {path}: not JSON ({_short(exc)})") from exc
    except Exception as exc:  # ToolfixError and schema errors alike
        raise _UsageError(f"cannot read tools from {path}: {_short(exc)}") from exc


# the options of ``toolfix repair`` (each names its value, so --help shows no <str>)
JsonlOption = Annotated[
    str | None,
    typer.Option(
        "--jsonl",
        metavar="FILE",
        help="Corpus-format JSON Lines file to repair, or '-' for stdin.",
    ),
]
ToolsFileOption = Annotated[
    Path | None,
    typer.Option(
        "--tools",
        metavar="FILE",
        help="Tools (OpenAI/Anthropic/MCP list, one tool, or MCP ListToolsResult) for a "
        "single response on stdin.",
    ),
]
ApiKeyOption = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        metavar="KEY",
        envvar="TOOLFIX_API_KEY",
        show_envvar=True,
        help="API key for --llm (default: $TOOLFIX_API_KEY, else the provider's own "
        "variable such as OPENAI_API_KEY).",
    ),
]
RetriesOption = Annotated[
    int,
    typer.Option("--max-retries", min=0, metavar="N", help="LLM fixer re-asks per response."),
]
FormatOption = Annotated[
    list[str] | None,
    typer.Option(
        "--format",
        metavar="NAME",
        help="Pin the native formats to look for (repeatable); a family or a vLLM / "
        "SGLang parser name (toolfix formats lists them).",
    ),
]
IdSeedOption = Annotated[
    int | None,
    typer.Option(
        "--id-seed",
        metavar="N",
        help="Derive the ids of recovered calls from the input and N (same input, "
        "same ids); default: fresh random ids.",
    ),
]
PromoteOption = Annotated[
    bool, typer.Option("--promote-reasoning", help="Take calls found only in reasoning.")
]
WhenNoAnswerOption = Annotated[
    bool,
    typer.Option(
        "--reasoning-when-no-answer",
        help="Take calls found only in reasoning when the response has nothing else "
        "(the default, as in the library).",
    ),
]
IgnoreOption = Annotated[
    bool,
    typer.Option("--ignore-reasoning", help="Never take calls found only in reasoning."),
]


@app.command(short_help="Repair tool calls (--jsonl FILE, or --tools FILE and stdin).")
def repair(
    jsonl: JsonlOption = None,
    tools_file: ToolsFileOption = None,
    llm: LlmOption = None,
    api_base: ApiBaseOption = None,
    api_key: ApiKeyOption = None,
    max_retries: RetriesOption = 3,
    fmt: FormatOption = None,
    id_seed: IdSeedOption = None,
    promote_reasoning: PromoteOption = False,
    reasoning_when_no_answer: WhenNoAnswerOption = False,
    ignore_reasoning: IgnoreOption = False,
) -> None:
    """Repair tool calls: a corpus file (--jsonl) or one response on stdin (--tools).

    Exit status: 0 every line got its row (per-line errors are in the rows); 2 bad
    options or an unreadable --jsonl/--tools file; 3 --llm failed on some line (the
    manual fixer's result was kept); 1 an internal error.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    options = (jsonl, tools_file, llm, api_base, api_key, max_retries, fmt)
    reasoning: Literal["ignore", "promote", "when_no_answer"] = (
        "promote" if promote_reasoning else "ignore" if ignore_reasoning else "when_no_answer"
    )
    del reasoning_when_no_answer  # the default; the flag is kept for scripts that pass it
    code = _exit_status(lambda: _run(*options, reasoning, id_seed))
    if code:
        raise typer.Exit(code)


def _exit_status(run: Callable[[], int]) -> int:
    """``run()``'s exit status; a usage error is 2 and a bug 1, each reported in one line
    on stderr (``TOOLFIX_DEBUG=1`` shows a bug's traceback instead)."""
    try:
        return run()
    except _UsageError as exc:
        print(f"toolfix repair: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, typer.Exit, SystemExit):
        raise
    except Exception as exc:
        if os.environ.get("TOOLFIX_DEBUG"):
            raise
        print(
            f"toolfix repair: internal error: {type(exc).__name__}: {_short(exc)}",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _run(
    jsonl: str | None,
    tools_file: Path | None,
    llm: str | None,
    api_base: str | None,
    api_key: str | None,
    max_retries: int,
    fmt: list[str] | None,
    reasoning: Literal["ignore", "promote", "when_no_answer"],
    id_seed: int | None = None,
) -> int:
    formats = _pinned_formats(fmt) if fmt else None
    try:
        config = FixConfig(formats=formats, reasoning_calls=reasoning, id_seed=id_seed)
    except ValueError as exc:
        raise _UsageError(f"bad option: {_short(exc)}") from exc
    if jsonl is None and tools_file is None:
        raise _UsageError("give --jsonl FILE, or --tools TOOLS.json with a response on stdin")
    source = _open_input(jsonl, "--jsonl") if jsonl is not None else None
    tools = _read_tools_file(tools_file) if source is None and tools_file is not None else None
    manual = ManualToolCallFixProcessor(config=config)
    processor = _build_processor(config, llm, api_base, max_retries, api_key)
    out = sys.stdout
    summary = _Summary()
    if source is not None:
        try:
            for number, raw in enumerate(source, start=1):
                summary.lines += 1
                if not raw.strip():
                    summary.blank += 1
                    continue
                row = _repair_line(raw, number, manual, processor, llm, summary)
                out.write(dump_row(row) + "\n")
                out.flush()
        finally:
            if source is not sys.stdin.buffer:
                source.close()
        print(summary.line(), file=sys.stderr)
        return EXIT_LLM_FAILED if summary.llm_failures else EXIT_OK
    if tools is None:  # pragma: no cover - guarded above
        raise _UsageError("give --tools TOOLS.json with a response on stdin")
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        row = result_line(None, None, error=f"unreadable input: not UTF-8: {exc}")
        out.write(dump_row(row) + "\n")
        return EXIT_OK
    payload: Any = text
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            parsed = json.loads(stripped, parse_constant=_no_constants)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict | list):
            payload = parsed
    if payload is not text and not _is_response(payload, config):
        payload = text  # JSON of no known response shape: repair it as text
    row = _repair_single(payload, tools, manual, processor, llm, summary)
    out.write(dump_row(row) + "\n")
    return EXIT_LLM_FAILED if summary.llm_failures else EXIT_OK


def _pinned_formats(names: list[str]) -> tuple[str, ...]:
    """The families ``--format`` names (aliases resolved), or a usage error that lists
    every accepted name."""
    from ._repair.aliases import FORMAT_ALIASES, resolve_format
    from ._repair.formats import available_formats

    known = available_formats()
    out: list[str] = []
    for name in names:
        family = resolve_format(name, known)
        if family is None:
            aliases = sorted({a for f in known for a in FORMAT_ALIASES.get(f, ())})
            raise _UsageError(
                f"unknown --format {name!r}; families: {', '.join(known)}; "
                f"aliases: {', '.join(aliases)} (toolfix formats shows which is which)"
            )
        if family not in out:
            out.append(family)
    return tuple(out)


def formats(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per family.")] = False,
) -> None:
    """List the format families, the names they answer to and where each comes from."""
    from ._repair.aliases import aliases_of
    from ._repair.families import families

    rows = [
        {"name": f.name, "aliases": list(aliases_of(f.name)), "source": f.source}
        for f in families()
    ]
    for row in rows:
        if as_json:
            typer.echo(json.dumps(row, ensure_ascii=False))
            continue
        aliases = f" (also: {', '.join(row['aliases'])})" if row["aliases"] else ""
        typer.echo(f"{row['name']}{aliases}\n    source: {row['source'] or 'n/a'}")


def _is_response(payload: Any, config: FixConfig) -> bool:
    try:
        as_response(payload, limits=config.limits)
    except UnsupportedInputError:
        return False
    except Exception:  # other errors are reported in the row
        return True
    return True


def _repair_single(
    payload: Any,
    tools: ToolRegistry,
    manual: ManualToolCallFixProcessor,
    processor: ResponseProcessor | None,
    llm: str | None,
    summary: _Summary,
) -> dict[str, Any]:
    try:
        fixed, us = asyncio.run(_repair_one(manual, processor, payload, tools, llm))
        return result_line(None, fixed, llm_calls=_llm_calls_of(fixed), elapsed_us=us)
    except _LLMFailed as exc:
        summary.llm_failures += 1
        print(
            f"toolfix repair: the LLM fixer failed ({type(exc.cause).__name__}: "
            f"{_short(exc.cause)}); keeping the manual fixer's result",
            file=sys.stderr,
        )
        return result_line(
            None,
            exc.manual,
            elapsed_us=exc.elapsed_us,
            error=f"LLM fixer failed, manual result kept: {type(exc.cause).__name__}: "
            f"{_short(exc.cause)}",
        )
    except Exception as exc:
        return result_line(None, None, error=f"{type(exc).__name__}: {_short(exc)}")


def _mount_optional() -> None:
    try:
        from ._bench.cli import register
    except ImportError:
        return
    register(app)


app.command("formats", short_help="List the format families, their aliases and sources.")(formats)
_mount_optional()

from ._serve import serve as _serve  # noqa: E402

app.command("serve", short_help="Run a proxy on 127.0.0.1 that repairs tool calls.")(_serve)


def main() -> None:
    """Entry point of the ``toolfix`` script."""
    app()
