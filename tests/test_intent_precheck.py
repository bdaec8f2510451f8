"""The cheap intent pre-check: lets every intent-only message through, skips plain answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolfix.processors import IntentPrecheck

DATA = Path(__file__).parent / "data" / "intent_precheck.jsonl"
TOOL_NAMES = [
    "get_weather",
    "search_web",
    "get_stock_price",
    "send_email",
    "create_calendar_event",
    "read_file",
    "run_sql",
    "convert_currency",
    "calculator",
    "book_flight",
    "get_time",
]


def _load() -> list[dict[str, object]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line]


def test_dataset_is_large_enough() -> None:
    rows = _load()
    assert sum(1 for r in rows if r["intended"]) >= 30
    assert sum(1 for r in rows if not r["intended"]) >= 30


def test_every_intent_only_message_passes() -> None:
    check = IntentPrecheck()
    missed = [r["text"] for r in _load() if r["intended"] and not check(str(r["text"]), TOOL_NAMES)]
    assert missed == []


def test_skips_at_least_90_percent_of_plain_answers() -> None:
    check = IntentPrecheck()
    plain = [str(r["text"]) for r in _load() if not r["intended"]]
    skipped = sum(1 for t in plain if not check(t, TOOL_NAMES))
    assert skipped / len(plain) >= 0.90, skipped / len(plain)


@pytest.mark.parametrize(
    ("text", "reason_start"),
    [
        ('Here you go: {"name": "get_weather", "arguments": {"city": "Paris"}', "braces"),
        ("<tool_call>\n{...}", "call markup"),
        ("[TOOL_CALLS] [...]", "call markup"),
        ("I can call getWeather to find out.", "near tool name"),
        ("Running get_wether(city='Paris')", "call syntax"),
        ("The get weather tool says it's sunny.", "tool name"),
        ("Let me check.", "announced action"),
        ("I’ll look that up.", "announced action"),
    ],
)
def test_signs_of_a_call(text: str, reason_start: str) -> None:
    result = IntentPrecheck().check(text, TOOL_NAMES)
    assert result.may_intend_call
    assert result.reason.startswith(reason_start), result.reason


@pytest.mark.parametrize(
    "text",
    [
        "Let me know if you need anything else!",
        "Paris is the capital of France.",
        "Use `sorted(items)` to sort a list.",
        "",
    ],
)
def test_plain_texts_skipped(text: str) -> None:
    assert not IntentPrecheck()(text, TOOL_NAMES)


def test_no_tools_means_no_intent() -> None:
    assert not IntentPrecheck()("Let me look that up.", [])


def test_configuration() -> None:
    assert IntentPrecheck(enabled=False)("Paris is nice.", TOOL_NAMES)
    custom = IntentPrecheck().extend(action_phrases=["consulting"])
    assert custom("Consulting the oracle now.", TOOL_NAMES)
    assert not IntentPrecheck()("Consulting the oracle now.", TOOL_NAMES)
    strict = IntentPrecheck(check_tool_names=False)
    assert not strict("The calculator says 4.", TOOL_NAMES)


def test_name_lookups_are_capped_on_long_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """However long the text, at most 500 tokens are looked up as names (counted, no clock)."""
    from toolfix._llm import precheck

    real = precheck.looks_like_a_tool
    lookups: list[str] = []

    def counting(name: str, names: Any) -> Any:
        lookups.append(name)
        return real(name, names)

    monkeypatch.setattr(precheck, "looks_like_a_tool", counting)
    counts = []
    for repeats in (400, 4000):  # 4,000 and 40,000 call-like tokens
        lookups.clear()
        text = ("a" * 50 + "_" + "b(" * 10 + " ") * repeats
        assert not IntentPrecheck().check(text, TOOL_NAMES)
        counts.append(len(lookups))
    assert counts == [500, 500]


@pytest.mark.parametrize(
    "text",
    [
        "Now I have to do that.",  # Koog's LLMBasedToolJsonFixTest examples
        "Computing the sum now.",
        "I must look that up first.",
        "I'm about to check the calendar.",
        "Calculating the total now.",
    ],
)
def test_koog_intent_examples_get_a_question(text: str) -> None:
    result = IntentPrecheck().check(text, ["add", "multiply"])
    assert result, text
    assert result.reason.startswith("announced action")
