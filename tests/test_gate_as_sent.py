"""The gate's rule for a provider's call kept as it came (``admits_as_sent``): its
counting shortcuts (colons, quotes, the types of flat arguments) never admit a text that
writes a key twice (G3) or a ``NaN``/``Infinity`` (G7), and never refuse one that
writes neither."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import ToolCallPart, ToolRegistry
from toolfix._repair.gate import admits_as_sent

ANY_OBJECT = ToolRegistry.from_openai(
    [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
).lookup("f")

_KEYS = st.sampled_from(["a", "b", "t\\u006f", "to", "x:y", 'q\\"'])
_LEAVES = st.sampled_from(
    [
        '"12:30:00"',
        '"http://x"',
        '"\\":"',
        '":"',
        '"\\u003a"',
        '"a\\"b"',
        '""',
        "1",
        "2.5",
        "1e999",
        "NaN",
        "-Infinity",
        "null",
        "true",
        '"v"',
        '["x", "y:z", 3]',
        "[]",
    ]
)
_BLANKS = st.sampled_from(["", " ", "\n", "\t ", " \r\n"])


@st.composite
def _json_texts(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON object texts (with Python's NaN and Infinity), sometimes with a key written
    twice (escaped or not), colons and quotes in string values, white space anywhere."""
    members = []
    for key in draw(st.lists(_KEYS, max_size=4)):
        if depth < 2 and draw(st.booleans()):
            value = draw(_json_texts(depth + 1))
            if draw(st.booleans()):
                value = f"[{value}]"
        else:
            value = draw(_LEAVES)
        members.append(f'"{key}"{draw(_BLANKS)}:{draw(_BLANKS)}{value}')
    return "{" + ("," + draw(_BLANKS)).join(members) + "}"


def _facts(text: str) -> tuple[bool, bool]:
    """Whether ``text`` writes a key twice, and whether it writes NaN or Infinity."""
    twice = False
    constants = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal twice
        keys = [k for k, _ in pairs]
        twice |= len(set(keys)) != len(keys)
        return dict(pairs)

    def constant(name: str) -> float:
        nonlocal constants
        constants = True
        return float(name)

    json.loads(text, object_pairs_hook=pairs_hook, parse_constant=constant)
    return twice, constants


@settings(max_examples=1500, deadline=None)
@given(_json_texts())
def test_admitted_as_sent_exactly_when_no_key_twice_and_no_nan(text: str) -> None:
    twice, constants = _facts(text)
    part = ToolCallPart(id="c", name="f", arguments_raw=text, arguments=json.loads(text))
    assert ANY_OBJECT is not None
    assert admits_as_sent(ANY_OBJECT, part, 10_000) is (not twice and not constants)
