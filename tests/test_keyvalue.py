"""The key/value reader's name: the run up to a stop character, at most 256 of them,
with no whitespace inside (Unicode whitespace as ``str.isspace`` sees it)."""

from __future__ import annotations

import pytest

from toolfix._config import Limits
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.keyvalue import read_key_value_call
from toolfix._repair.spec import KeyValueCalls

_GLM = KeyValueCalls(
    call=("<tool_call>", "</tool_call>"),
    key=("<arg_key>", "</arg_key>"),
    value=("<arg_value>", "</arg_value>"),
)
_CTX = ScanContext(tool_names=frozenset({"f"}), limits=Limits())


def _name(body: str) -> str | None:
    text = f"<tool_call>{body}<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>"
    cand = read_key_value_call(text, 0, _GLM, _CTX, "glm")
    return None if cand is None else cand.name


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("get_weather", "get_weather"),
        ("  get_weather \n", "get_weather"),
        ("a" * 256, "a" * 256),
        ("a" * 257, None),
        ("get weather", None),
        ("get\u00a0weather", None),  # no-break space
        ("get\u2003weather", None),  # em space
        ("get\u200bweather", "get\u200bweather"),  # zero-width space: no whitespace
        ("", None),
    ],
)
def test_key_value_call_name(body: str, name: str | None) -> None:
    assert _name(body) == name


def test_a_name_stops_at_a_quote_or_bracket() -> None:
    assert _name('f"x') is None  # the name "f", then text that is no key


_ALPHABET = " \t\n\u3000\u00a0<>{}[]\"'/_=:fkxa"


@pytest.mark.parametrize("bare", [False, True])
def test_the_scanner_skips_only_what_the_reader_refuses(bare: bool) -> None:
    """The family scanner does not ask the key/value readers when what follows the
    opener can begin no name (keyvalue.NO_NAME): the reader refuses every such text."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from toolfix._repair.keyvalue import NO_NAME

    g = KeyValueCalls(
        call=("<tool_call>", "</tool_call>"),
        key=("<arg_key>", "</arg_key>"),
        value=("<arg_value>", "</arg_value>"),
        bare_name_is_tool=bare,
    )
    skipped: list[str] = []

    @settings(max_examples=400, deadline=None)
    @given(st.text(alphabet=_ALPHABET, max_size=12), st.sampled_from(["", "</tool_call>"]))
    def check(after: str, tail: str) -> None:
        text = f"<tool_call>{after}{tail}"
        if NO_NAME.match(text, len("<tool_call>")) is not None:
            skipped.append(text)
            assert read_key_value_call(text, 0, g, _CTX, "glm") is None

    check()
    assert skipped  # the property did meet texts the scanner skips
