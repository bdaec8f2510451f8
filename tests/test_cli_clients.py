"""The command line as users meet it (issue 29): ``--version``, ``toolfix formats``, the
vLLM / SGLang parser names for ``--format``, exit codes, ``--llm`` against a keyless
local server, and help that reads well at 80 columns."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from openai_stub import StubServer, openai_completion, run_stub_server
from tooldefs import WEATHER_CITY
from typer.testing import CliRunner

from toolfix import __version__
from toolfix._bench.score import family_label
from toolfix._cli import EXIT_OK, EXIT_USAGE, app
from toolfix._repair.aliases import FORMAT_ALIASES
from toolfix.formats import available_formats

TOOLS = [WEATHER_CITY]
#: the parser names the issue names, and the family each must select
KNOWN_NAMES = {
    "hermes": "hermes",
    "llama3_json": "llama",
    "qwen3_coder": "qwen_xml",
    "kimi_k2": "kimi",
    "glm45": "glm",
    "deepseek_v3": "deepseek",
    "deepseek_v31": "deepseek",
    "mistral": "mistral",
    "pythonic": "pythonic",
    "openai": "harmony",
    "gpt-oss": "harmony",
    "seed_oss": "qwen_xml",  # vLLM's seed_oss parser reads <function=...> tags
    "qwen25": "hermes",
}


def _invoke(args: list[str], stdin: str | bytes = "", **kw: Any) -> Any:
    return CliRunner().invoke(app, args, input=stdin, **kw)


def test_version() -> None:
    result = _invoke(["--version"])
    assert result.exit_code == EXIT_OK
    assert result.stdout.strip() == f"toolfix {__version__}"


def test_formats_lists_every_family_with_aliases_and_source() -> None:
    result = _invoke(["formats", "--json"])
    assert result.exit_code == EXIT_OK, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["name"] for r in rows] == available_formats()
    assert all(r["source"] for r in rows)  # every family says where it comes from
    aliases = {a: r["name"] for r in rows for a in r["aliases"]}
    for name, family in KNOWN_NAMES.items():
        assert name == family or aliases[name] == family
    text = _invoke(["formats"]).stdout
    assert "harmony (also: openai, gpt-oss, gpt_oss)" in text
    assert text.count("source: ") == len(available_formats())


def test_every_alias_names_one_known_family() -> None:
    known = set(available_formats())
    assert set(FORMAT_ALIASES) <= known
    names = [a for aliases in FORMAT_ALIASES.values() for a in aliases]
    assert len(names) == len(set(names))
    assert not set(names) & known


def _repair_with(formats: list[str], content: str) -> Any:
    args = ["repair", "--jsonl", "-"]
    for f in formats:
        args += ["--format", f]
    line = json.dumps({"id": "x", "tools": TOOLS, "response": {"content": content}})
    return _invoke(args, line + "\n")


QWEN = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
    "</function>\n</tool_call>"
)
HERMES = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'


@pytest.mark.parametrize("name", sorted(KNOWN_NAMES))
def test_format_accepts_parser_names(name: str) -> None:
    result = _repair_with([name], "no call here")
    assert result.exit_code == EXIT_OK, result.output


def test_format_alias_pins_the_family() -> None:
    [row] = [json.loads(x) for x in _repair_with(["qwen3_coder"], QWEN).stdout.splitlines()]
    assert [c["arguments"] for c in row["tool_calls"]] == [{"city": "Oslo"}]
    [row] = [json.loads(x) for x in _repair_with(["openai"], HERMES).stdout.splitlines()]
    # harmony pinned: the hermes markup is not read as hermes (only the generic JSON reader)
    assert all(r["kind"] != "native_markup" for r in row["repairs"])


def test_bad_format_exits_2_with_the_full_list() -> None:
    result = _repair_with(["qwen", "nonesuch"], "x")
    assert result.exit_code == EXIT_USAGE
    err = result.stderr
    assert "unknown --format 'nonesuch'" in err
    assert "…" not in err
    assert "..." not in err
    for name in available_formats():
        assert re.search(rf"\b{re.escape(name)}\b", err)
    for aliases in FORMAT_ALIASES.values():
        for alias in aliases:
            assert alias in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_unknown_option_exits_2() -> None:
    assert _invoke(["repair", "--nonesuch"]).exit_code == EXIT_USAGE


def test_bench_names_formats_as_format_does() -> None:
    assert family_label("seed_oss") == "qwen_xml"
    assert family_label("hermes") == "hermes"
    assert family_label("hunyuan") == "hunyuan"  # a family name stays itself
    assert family_label("openai") == "openai"  # corpora: a native OpenAI tool_calls case
    assert family_label(None) == "unknown"


@pytest.fixture
def stub() -> Iterator[StubServer]:
    yield from run_stub_server()


def test_llm_against_a_keyless_local_server(
    stub: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "TOOLFIX_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    stub.reply(
        openai_completion(tool_calls=[{"name": "get_weather", "arguments": '{"city": "Oslo"}'}])
    )
    line = json.dumps(
        {
            "id": "needs-llm",
            "tools": TOOLS,
            "response": {
                "content": '<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>'
            },
        }
    )
    args = ["repair", "--jsonl", "-", "--llm", "openai/m", "--api-base", stub.openai_base]
    result = _invoke(args, line + "\n")
    assert "Missing credentials" not in result.output
    assert result.exit_code == EXIT_OK, result.output
    [row] = [json.loads(x) for x in result.stdout.splitlines()]
    assert [(c["name"], c["arguments"]) for c in row["tool_calls"]] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert row["llm_calls"] >= 1
    assert row["error"] is None
    assert stub.requests[0].headers.get("authorization") == "Bearer no-key"


@pytest.mark.parametrize(
    "command", [[], ["repair"], ["formats"], ["bench"], ["corpus"], ["corpus", "generate"]]
)
def test_help_reads_well_at_80_columns(command: list[str]) -> None:
    result = _invoke([*command, "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == EXIT_OK, result.output
    text = result.stdout
    assert not re.search(r"<(bool|str|int|float|path|list\[[^>]*\]|int range)>", text), text
    assert "…" not in text
    assert all(len(line) <= 80 for line in text.splitlines()), text
    ctx_params = _params(command)
    for name in ctx_params:
        assert name in text  # every option name in full


def _params(command: list[str]) -> list[str]:
    import typer.main

    group = typer.main.get_command(app)
    cmd: Any = group
    for part in command:
        cmd = cmd.commands[part]  # type: ignore[attr-defined]
    return [o for p in cmd.params if not getattr(p, "hidden", False) for o in p.opts]


def test_bench_llm_strategy_uses_no_key_for_a_keyless_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolfix._bench.strategies import LLMStrategy

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    keyless = LLMStrategy("openai/m", "http://127.0.0.1:9/v1")
    assert keyless.executor.api_key == "no-key"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    assert LLMStrategy("openai/m", "http://127.0.0.1:9/v1").executor.api_key is None
    assert LLMStrategy("openai/m").executor.api_key is None  # no --api-base: the provider's
