"""toolfix logs through ``logging.getLogger("toolfix")`` (issue 29): one DEBUG line per
repaired response, one INFO line per LLM-fixer call, nothing unless configured."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from tooldefs import WEATHER_CITY

from toolfix import LLMBasedToolCallFixProcessor, Prompt, Response, ToolCallPart, repair
from toolfix.testing import ScriptedExecutor

TOOLS = [WEATHER_CITY]
BROKEN = "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris',}}"


def _lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("toolfix") and r.levelno == level
    ]


def test_one_debug_line_per_repaired_response(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolfix")
    repair(BROKEN, TOOLS)
    repair("plain answer, nothing to repair", TOOLS)
    repair(Response.text_only(BROKEN, id="chatcmpl-7"), TOOLS)
    lines = _lines(caplog, logging.DEBUG)
    assert len(lines) == 2
    assert "chatcmpl-7" in lines[1]
    assert "1 calls" in lines[1]
    assert "invalid_json" in lines[1]


def test_one_info_line_per_llm_fixer_call(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="toolfix")
    call = {
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    }
    executor = ScriptedExecutor([call])
    broken = Response(
        parts=(ToolCallPart(id="c0", name="get_weather", arguments_raw='{"town": 1}'),)
    )
    fixer = LLMBasedToolCallFixProcessor(max_retries=2)
    [out] = fixer.process_sync(executor, Prompt.of("weather?"), "local-model", TOOLS, [broken])
    assert [c.arguments for c in out.tool_calls] == [{"city": "Paris"}]
    info = _lines(caplog, logging.INFO)
    assert len(info) == len(executor.calls) >= 1
    assert all("local-model" in line for line in info)


def test_nothing_is_printed_by_default() -> None:
    code = (
        "from toolfix import repair; import logging;"
        f"repair({BROKEN!r}, {TOOLS!r});"
        "h = logging.getLogger('toolfix').handlers;"
        "print(type(h[0]).__name__, len(h))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "NullHandler 1"
    assert proc.stderr == ""
