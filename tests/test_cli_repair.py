"""``toolfix repair`` against the corpus-format contract (docs/corpus-format.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import repair_jsonl_in_subprocess
from tooldefs import WEATHER_CITY_DAYS
from typer.testing import CliRunner

from toolfix._cli import app

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "small_corpus.jsonl"
KEYS = [
    "id",
    "line",
    "tool_calls",
    "invalid_tool_calls",
    "content",
    "reasoning",
    "repairs",
    "llm_calls",
    "elapsed_us",
    "error",
]
TOOLS = [WEATHER_CITY_DAYS]


def _rows(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def _calls(row: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(c["name"], c["arguments"]) for c in row["tool_calls"]]


def _kinds(row: dict[str, Any]) -> list[str]:
    return [r["kind"] for r in row["repairs"]]


def _check_corpus_rows(rows: list[dict[str, Any]]) -> None:
    assert all(list(r) == KEYS for r in rows)
    assert all(r["llm_calls"] == 0 and isinstance(r["elapsed_us"], int) for r in rows)
    by_pos = rows
    assert [r["id"] for r in by_pos] == [
        "fence-1",
        "hermes-1",
        "native-broken-1",
        None,  # unreadable line
        "plain-1",
        "no-response",  # no "response": an error row that keeps its readable id
        "unknown-1",
        "pythonic-1",
        "think-1",
        "valid-native-1",
    ]
    fence, hermes, broken, bad, plain, noresp, unknown, pyth, think, valid = by_pos
    assert _calls(fence) == [("get_weather", {"city": "Paris"})]
    assert _kinds(fence) == ["call_in_content", "code_fence"]
    assert fence["content"] is None
    assert fence["error"] is None
    assert _calls(hermes) == [("search_web", {"query": "toolfix"})]
    assert hermes["content"] == "Let me check."
    assert _calls(broken) == [("get_weather", {"city": "Oslo", "days": 3})]
    assert broken["tool_calls"][0]["id"] == "c0"
    assert _kinds(broken) == ["invalid_json", "type_mismatch"]
    assert bad["error"].startswith("unreadable line: not JSON")
    assert bad["tool_calls"] == []
    assert bad["repairs"] == []
    assert (plain["tool_calls"], plain["content"], plain["repairs"]) == (
        [],
        "The capital of France is Paris.",
        [],
    )
    assert noresp["error"] == "unreadable line: missing 'response'"
    assert unknown["tool_calls"] == []
    [inv] = unknown["invalid_tool_calls"]
    assert inv["name"] == "delete_everything"
    assert inv["raw"] == '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>'
    assert inv["error"].startswith("unknown tool 'delete_everything'")
    assert _calls(pyth) == [("get_weather", {"city": "Rome"}), ("search_web", {"query": "pasta"})]
    assert think["reasoning"] == "The user wants weather."
    assert _calls(think) == [("get_weather", {"city": "Lima"})]
    assert _kinds(think) == ["in_reasoning", "call_in_content"]
    assert _calls(valid) == [("get_weather", {"city": "Kyiv"})]
    assert valid["repairs"] == []
    assert valid["tool_calls"][0]["id"] == "c0"


def test_jsonl_file_subprocess() -> None:
    _check_corpus_rows(_rows(repair_jsonl_in_subprocess(CORPUS)))


def test_jsonl_stdin() -> None:
    result = CliRunner().invoke(app, ["repair", "--jsonl", "-"], input=CORPUS.read_text("utf-8"))
    assert result.exit_code == 0, result.output
    _check_corpus_rows(_rows(result.stdout))


def test_blank_lines_are_skipped() -> None:
    line = CORPUS.read_text("utf-8").splitlines()[0]
    result = CliRunner().invoke(app, ["repair", "--jsonl", "-"], input=f"\n{line}\n\n{line}\n")
    rows = _rows(result.stdout)
    assert [r["id"] for r in rows] == ["fence-1", "fence-1"]
    assert rows[0]["tool_calls"] == rows[1]["tool_calls"]


def test_bad_tools_on_a_line_is_an_error_row() -> None:
    line = json.dumps(
        {
            "id": "badtools",
            "tools": [{"type": "function", "function": {}}],
            "response": {"content": "x"},
        }
    )
    result = CliRunner().invoke(app, ["repair", "--jsonl", "-"], input=line + "\n")
    [row] = _rows(result.stdout)
    assert row["id"] == "badtools"
    assert row["error"].startswith("unreadable line: bad tools:")
    assert row["tool_calls"] == []


def test_row_error_keeps_readable_id() -> None:
    line = json.dumps({"id": "no-response", "tools": TOOLS})
    result = CliRunner().invoke(app, ["repair", "--jsonl", "-"], input=line + "\n")
    [row] = _rows(result.stdout)
    assert row["id"] == "no-response"


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS), encoding="utf-8")
    return path


def test_single_response_raw_text(tools_file: Path) -> None:
    text = (
        "Sure.\n"
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "days": "2"}}</tool_call>'
    )
    result = CliRunner().invoke(app, ["repair", "--tools", str(tools_file)], input=text)
    assert result.exit_code == 0, result.output
    [row] = _rows(result.stdout)
    assert list(row) == KEYS
    assert row["id"] is None
    assert row["error"] is None
    assert _calls(row) == [("get_weather", {"city": "Oslo", "days": 2})]
    assert _kinds(row) == ["call_in_content", "native_markup", "type_mismatch"]
    assert row["content"] == "Sure."


def test_single_response_openai_message(tools_file: Path) -> None:
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "x1",
                "type": "function",
                "function": {"name": "getWeather", "arguments": '{"city": "Bern",}'},
            }
        ],
    }
    result = CliRunner().invoke(app, ["repair", "--tools", str(tools_file)], input=json.dumps(msg))
    assert result.exit_code == 0, result.output
    [row] = _rows(result.stdout)
    assert row["tool_calls"] == [{"id": "x1", "name": "get_weather", "arguments": {"city": "Bern"}}]
    assert _kinds(row) == ["unknown_name", "invalid_json"]


def test_single_response_plain_text(tools_file: Path) -> None:
    result = CliRunner().invoke(
        app, ["repair", "--tools", str(tools_file)], input="Just an answer."
    )
    [row] = _rows(result.stdout)
    assert (row["tool_calls"], row["content"], row["repairs"]) == ([], "Just an answer.", [])


def test_no_input_option_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["repair"])
    assert result.exit_code != 0


def test_unreadable_tools_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "tools.json"
    bad.write_text("{nope", encoding="utf-8")
    result = CliRunner().invoke(app, ["repair", "--tools", str(bad)], input="hi")
    assert result.exit_code == 2


def test_a_call_only_in_reasoning_follows_the_library_default() -> None:
    """Taken when the response has nothing else (``reasoning_calls="when_no_answer"``, the
    library's default); ``--ignore-reasoning`` leaves it, ``--promote-reasoning`` takes it."""
    line = json.dumps(
        {
            "id": "r-1",
            "tools": TOOLS,
            "response": {
                "content": None,
                "reasoning_content": '<tool_call>{"name": "get_weather", '
                '"arguments": {"city": "Oslo"}}</tool_call>',
            },
        }
    )
    for flags, calls in (
        ([], [("get_weather", {"city": "Oslo"})]),
        (["--promote-reasoning"], [("get_weather", {"city": "Oslo"})]),
        (["--ignore-reasoning"], []),
    ):
        result = CliRunner().invoke(app, ["repair", "--jsonl", "-", *flags], input=line + "\n")
        assert result.exit_code == 0, result.output
        [row] = _rows(result.stdout)
        assert _calls(row) == calls, flags
