"""The stream reads the family registry: every family's closers are release points, every
raw-text value marker holds the calls after it, and the public listing names every
format with its engine aliases."""

from __future__ import annotations

import pytest
from conftest import WEATHER

from toolfix import FixConfig, repair_stream
from toolfix._repair.families import release_closers, text_value_markers
from toolfix.formats import available_formats, families, family

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
ON = FixConfig(reasoning_prefilled=True)


def _released(text: str) -> int:
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": text[i : i + 5]}}]}
        for i in range(0, len(text), 5)
    ]
    out = list(repair_stream(chunks, [WEATHER], config=ON))
    return int(out[-1]["toolfix"]["released_early"])


def test_every_format_is_a_family_with_its_source() -> None:
    assert [f.name for f in families()] == available_formats()
    assert all(f.source for f in families())
    for alias, name in [
        ("hermes", "hermes"),
        ("llama3_json", "llama"),
        ("qwen3_coder", "qwen_xml"),
        ("kimi_k2", "kimi"),
        ("glm45", "glm"),
        ("deepseek_v3", "deepseek"),
        ("deepseek_v31", "deepseek"),
        ("mistral", "mistral"),
        ("pythonic", "pythonic"),
        ("openai", "harmony"),
    ]:
        found = family(alias)
        assert found is not None
        assert found.name == name


def test_every_closer_is_a_release_point() -> None:
    pattern = release_closers()
    for f in families():
        for closer in f.closers:
            assert pattern.fullmatch(closer), (f.name, closer)


@pytest.mark.parametrize(
    "marker", sorted({m for f in families() for m in f.value_markers}), ids=repr
)
def test_a_call_after_a_raw_text_value_marker_waits(marker: str) -> None:
    assert text_value_markers().search(marker)
    free = f"ok</think>\n\n{CALL}\n{CALL}\nDone."
    assert _released(free) >= 1  # the same calls go out early without the marker
    assert _released(f"ok</think>\n\n{marker}\n{CALL}\n{CALL}\nDone.") == 0
