"""``toolfix repair``: the per-line contract under hostile input, and no tracebacks.

Issue 12 ("Responses and the command line"): one bad line never stops the batch; each
non-blank input line gets exactly one row, in order, with its 1-based line number;
output is strict UTF-8 JSON; input files that cannot be read give one line and exit 2;
``--llm`` failures keep the manual result (exit 3). ``--llm`` runs over real HTTP
against the local stub (tests/openai_stub.py) or a closed port.
"""

from __future__ import annotations

import json
import math
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai_stub import StubServer, run_stub_server
from tooldefs import WEATHER_CITY
from typer.testing import CliRunner

from toolfix._cli import EXIT_LLM_FAILED, EXIT_OK, EXIT_USAGE, app, dump_row, result_line

TOOLS = [WEATHER_CITY]
GOOD = json.dumps(
    {
        "id": "good",
        "tools": TOOLS,
        "response": {
            "content": '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}'
        },
    }
).encode()
UNKNOWN_TOOL = json.dumps(
    {
        "id": "needs-llm",
        "tools": TOOLS,
        "response": {"content": '<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>'},
    }
).encode()


def _strict_rows(stdout: bytes) -> list[dict[str, Any]]:
    """Every output line is strict JSON (no NaN/Infinity) in valid UTF-8."""

    def no_constants(name: str) -> Any:
        raise AssertionError(f"{name} in output")

    text = stdout.decode("utf-8")  # raises on invalid UTF-8
    return [json.loads(line, parse_constant=no_constants) for line in text.splitlines()]


def _run(args: list[str], stdin: bytes = b"", **env: str) -> subprocess.CompletedProcess[bytes]:
    import os

    return subprocess.run(
        [sys.executable, "-c", "from toolfix._cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )


def _deep_args(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return root


def test_hostile_lines_each_get_one_row_in_order() -> None:
    deep_line = b'{"id": "deep", "response": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    lines = [
        GOOD,  # 1
        b"\xff\xfe not utf-8 \x80",  # 2
        b"",  # 3 blank: counted, no row
        b'{"id": "sur\\ud800", "tools": [], "response": {"content": "lone \\ud800 here"}}',  # 4
        deep_line,  # 5
        b'{"id": "n42", "response": 42}',  # 6
        b'{"id": "list", "response": []}',  # 7
        b'{"id": "null", "response": null}',  # 8
        b'{"id": "tools42", "tools": 42, "response": "hi"}',  # 9
        b'{"id": "badschema", "tools": [{"type": "function", "function": {}}], "response": "x"}',
        b'{"id": "nan", "response": {"content": NaN}}',  # 11
        b'{"id": "oops", "response": {"tool_calls": ["oops"]}}',  # 12
        json.dumps(  # 13: arguments as an object (Ollama style): fine
            {
                "id": "objargs",
                "tools": TOOLS,
                "response": {
                    "tool_calls": [
                        {"function": {"name": "get_weather", "arguments": {"city": "Bergen"}}}
                    ]
                },
            }
        ).encode(),
        GOOD,  # 14
    ]
    proc = _run(["repair", "--jsonl", "-"], b"\n".join(lines) + b"\n")
    assert proc.returncode == EXIT_OK, proc.stderr
    assert b"Traceback" not in proc.stderr
    rows = _strict_rows(proc.stdout)
    assert [r["line"] for r in rows] == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    by_line = {r["line"]: r for r in rows}
    assert by_line[1]["tool_calls"][0]["arguments"] == {"city": "Oslo"}
    # the same line again: the same row, but fresh call ids (two responses never share one)
    [first], [again] = by_line[1]["tool_calls"], by_line[14]["tool_calls"]
    assert first["id"] != again["id"]
    assert {**by_line[14], "tool_calls": [{**again, "id": first["id"]}]} == {
        **by_line[1],
        "line": 14,
        "elapsed_us": by_line[14]["elapsed_us"],
    }
    assert by_line[2]["error"].startswith("unreadable line: not UTF-8")
    assert by_line[4]["id"] == "sur\ud800"  # written as an escape, read back exactly
    assert by_line[4]["content"] == "lone \ud800 here"
    assert b"\\ud800" in proc.stdout
    assert by_line[5]["error"] == "unreadable line: not JSON: nested too deep to read"
    for n, ident in [(6, "n42"), (7, "list"), (8, "null"), (12, "oops")]:
        assert by_line[n]["id"] == ident
        assert by_line[n]["error"].startswith("UnsupportedInputError"), by_line[n]
    assert "got int" in by_line[6]["error"]
    assert by_line[9]["error"].startswith("unreadable line: bad tools:")
    assert by_line[10]["error"].startswith("unreadable line: bad tools:")
    assert by_line[11]["error"] == "unreadable line: not JSON: NaN is not JSON"
    assert by_line[13]["error"] is None
    assert by_line[13]["tool_calls"][0]["arguments"] == {"city": "Bergen"}
    assert "13 lines" not in proc.stderr.decode()
    assert (
        proc.stderr.decode()
        .strip()
        .splitlines()[-1]
        .startswith("toolfix repair: 14 lines (1 blank), 13 rows")
    )


def test_structured_arguments_too_deep_is_a_row_error() -> None:
    line = json.dumps(
        {
            "id": "deep-args",
            "tools": TOOLS,
            "response": {"tool_calls": [{"function": {"name": "get_weather", "arguments": {}}}]},
        }
    )
    # 60,000 levels in the line's own JSON would be refused by the reader; build the
    # case so the reader accepts it and the depth limit is what speaks (depth 100 > 64)
    deep = json.dumps(_deep_args(100))
    line = line.replace('"arguments": {}', f'"arguments": {deep}')
    proc = _run(["repair", "--jsonl", "-"], line.encode() + b"\n" + GOOD + b"\n")
    assert proc.returncode == EXIT_OK, proc.stderr
    deep_row, good = _strict_rows(proc.stdout)
    assert deep_row["id"] == "deep-args"
    assert deep_row["error"].startswith("NestingTooDeepError: structured arguments nest deeper")
    assert good["tool_calls"]


def test_dump_row_writes_strict_utf8_json() -> None:
    row = result_line("a\udcff", None, line=1)
    row["tool_calls"] = [{"id": "c", "name": "f", "arguments": {"x": math.nan, "y": -math.inf}}]
    text = dump_row(row)
    text.encode("utf-8")  # no lone surrogate left as a raw code point
    back = json.loads(text)
    assert back["id"] == "a\udcff"
    assert back["tool_calls"][0]["arguments"] == {"x": "NaN", "y": "-Infinity"}
    assert "non-finite numbers written as strings" in back["error"]


_junk = st.binary(max_size=60).map(lambda b: b.replace(b"\n", b""))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.one_of(_junk, st.just(GOOD)), min_size=1, max_size=12))
def test_random_bytes_never_lose_a_line(lines: list[bytes]) -> None:
    result = CliRunner().invoke(app, ["repair", "--jsonl", "-"], input=b"\n".join(lines))
    assert result.exit_code == EXIT_OK, result.output
    rows = _strict_rows(result.stdout_bytes)
    kept = [n for n, line in enumerate(lines, start=1) if line.strip()]
    assert [r["line"] for r in rows] == kept
    for r in rows:
        if lines[r["line"] - 1] == GOOD:
            assert r["id"] == "good"
            assert r["error"] is None
            assert r["tool_calls"]
        else:
            assert r["tool_calls"] == [] or r["error"] is None


# ---- files that cannot be read: one line, exit 2 ------------------------------------


def _one_line_usage_error(proc: subprocess.CompletedProcess[bytes], needle: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_USAGE, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert needle in err
    assert proc.stdout == b""


def test_missing_jsonl_file(tmp_path: Path) -> None:
    _one_line_usage_error(
        _run(["repair", "--jsonl", str(tmp_path / "nope.jsonl")]), "No such file or directory"
    )


def test_directory_as_jsonl_file(tmp_path: Path) -> None:
    _one_line_usage_error(_run(["repair", "--jsonl", str(tmp_path)]), "it is a directory")


def test_missing_and_directory_tools_file(tmp_path: Path) -> None:
    _one_line_usage_error(
        _run(["repair", "--tools", str(tmp_path / "t.json")], b"hi"), "No such file"
    )
    _one_line_usage_error(_run(["repair", "--tools", str(tmp_path)], b"hi"), "it is a directory")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"42", "got int"),
        (b"\xff", "not UTF-8"),
        (b"{nope", "not JSON"),
        (b"[" * 100_000, "nested too deep"),
        (b'[{"type": "function", "function": {}}]', "not an OpenAI tool definition"),
    ],
)
def test_tools_file_that_holds_no_tools(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(content)
    _one_line_usage_error(_run(["repair", "--tools", str(path)], b"hi"), needle)


def test_no_input_option_is_one_line(tmp_path: Path) -> None:
    _one_line_usage_error(_run(["repair"]), "give --jsonl FILE")


# ---- --llm failures keep the manual result ------------------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_llm_server_down_keeps_manual_results() -> None:
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    proc = _run(
        ["repair", "--jsonl", "-", "--llm", "openai/test-model", "--api-base", base],
        GOOD + b"\n" + UNKNOWN_TOOL + b"\n",
        TOOLFIX_API_KEY="sk-test",
    )
    err = proc.stderr.decode()
    assert proc.returncode == EXIT_LLM_FAILED, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 2, err  # the failure once, then the summary
    assert "the LLM fixer failed" in err
    good, needs = _strict_rows(proc.stdout)  # nothing else on stdout (no litellm banners)
    assert good["tool_calls"]
    assert good["error"] is None
    assert needs["id"] == "needs-llm"
    assert needs["invalid_tool_calls"][0]["name"] == "delete_all"  # the manual result
    assert needs["error"].startswith("LLM fixer failed, manual result kept:")


@pytest.fixture
def stub() -> Iterator[StubServer]:
    yield from run_stub_server()


def test_llm_error_reply_and_api_key_flag(stub: StubServer) -> None:
    # the stub answers 500 when no reply is scripted: the LLM side fails on that line
    result = CliRunner().invoke(
        app,
        [
            "repair",
            "--jsonl",
            "-",
            "--llm",
            "openai/test-model",
            "--api-base",
            stub.openai_base,
            "--api-key",
            "sk-from-flag",
            "--max-retries",
            "1",
        ],
        input=UNKNOWN_TOOL + b"\n",
    )
    assert result.exit_code == EXIT_LLM_FAILED, result.output
    [row] = _strict_rows(result.stdout_bytes)
    assert row["invalid_tool_calls"][0]["name"] == "delete_all"
    assert row["error"].startswith("LLM fixer failed, manual result kept:")
    assert stub.requests, "the LLM fixer never reached the stub"
    assert stub.requests[0].headers.get("authorization") == "Bearer sk-from-flag"


def test_api_key_from_environment(stub: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLFIX_API_KEY", "sk-from-env")
    CliRunner().invoke(
        app,
        ["repair", "--jsonl", "-", "--llm", "openai/test-model", "--api-base", stub.openai_base],
        input=UNKNOWN_TOOL + b"\n",
    )
    assert stub.requests
    assert stub.requests[0].headers.get("authorization") == "Bearer sk-from-env"


def test_llm_fix_through_the_stub_exits_zero(stub: StubServer) -> None:
    from openai_stub import openai_completion

    stub.reply(
        openai_completion(tool_calls=[{"name": "get_weather", "arguments": '{"city": "Oslo"}'}])
    )
    result = CliRunner().invoke(
        app,
        [
            "repair",
            "--jsonl",
            "-",
            "--llm",
            "openai/test-model",
            "--api-base",
            stub.openai_base,
            "--api-key",
            "sk-test",
        ],
        input=UNKNOWN_TOOL + b"\n" + GOOD + b"\n",
    )
    assert result.exit_code == EXIT_OK, result.output
    fixed, good = _strict_rows(result.stdout_bytes)
    assert fixed["error"] is None
    assert fixed["llm_calls"] == len(stub.requests) >= 1
    assert [(c["name"], c["arguments"]) for c in fixed["tool_calls"]] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert good["llm_calls"] == 0


def test_single_response_shapes_on_stdin(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{"name": "get_weather", "inputSchema": {}}]}))
    item = {
        "type": "function_call",
        "call_id": "c7",
        "name": "get_weather",
        "arguments": "{'city': 'Y'}",
    }
    cases: list[tuple[str, Callable[[dict[str, Any]], bool]]] = [
        (json.dumps({"output": [item]}), lambda r: r["tool_calls"][0]["id"] == "c7"),
        # JSON of no response shape is text to repair: a bare call object
        (
            json.dumps({"name": "get_weather", "arguments": {"city": "X"}}),
            lambda r: r["tool_calls"][0]["arguments"] == {"city": "X"},
        ),
        # ... and so is JSON that is almost a message but not quite: reported, not dropped
        (
            '{"tool_calls": ["oops"]}',
            lambda r: r["invalid_tool_calls"][0]["raw"] == '{"tool_calls": ["oops"]}',
        ),
    ]
    for payload, check in cases:
        result = CliRunner().invoke(app, ["repair", "--tools", str(tools)], input=payload)
        assert result.exit_code == EXIT_OK, result.output
        [row] = _strict_rows(result.stdout_bytes)
        assert row["line"] is None
        assert check(row), row
