"""The schema-anchored reader under the one admission gate (promise 11, issue 28): what the
scan holds quoted is never read, a parameter written twice is ``duplicate_argument``, a
construct cut before it closed is never admitted, a call in another call's value is never
a call, and only a family reader's failure to read its markup is re-read."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FailureKind, repair

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_to_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]

_CITY = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)


def _construct(shape: str, pairs: list[tuple[str, str]]) -> str:
    """``get_weather`` with ``pairs`` in one of the syntaxes only the anchored reader
    reads (no family's markers)."""
    if shape == "attrs":
        return "<get_weather " + " ".join(f'{k}="{v}"' for k, v in pairs) + "/>"
    if shape == "pythonic":
        return "get_weather(" + ", ".join(f'{k}="{v}"' for k, v in pairs) + ")"
    if shape == "display":
        body = ", ".join(f'"{k}": "{v}"' for k, v in pairs)
        return "[Tool call: get_weather({" + body + "})]"
    if shape == "action":
        body = ", ".join(f'"{k}": "{v}"' for k, v in pairs)
        return "Action: get_weather\nAction Input: {" + body + "}"
    if shape == "flags":
        return "```\nget_weather " + " ".join(f'--{k} "{v}"' for k, v in pairs) + "\n```"
    if shape == "parameter_opener":  # the name as the first element's (signalnine/q27)
        body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in pairs)
        return "<parameter=get_weather>\n" + body + "</function>"
    if shape == "tool_use_header":  # a client's display header (Roo-Code)
        body = "".join(f'<parameter name="{k}">{v}</parameter>\n' for k, v in pairs)
        return "[Tool Use: get_weather]\n" + body + "</invoke>"
    raise ValueError(shape)


SHAPES = ("attrs", "pythonic", "display", "action", "flags", "parameter_opener", "tool_use_header")


def _names(text: str) -> tuple[list[str], list[tuple[str | None, str]]]:
    fixed = repair(text, TOOLS)
    return [c.name for c in fixed.tool_calls], [(c.name, c.kind) for c in fixed.invalid_tool_calls]


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_is_read(shape: str) -> None:
    # (the generators below are about what these shapes must not become)
    assert _names(_construct(shape, [("city", "oslo")])) == (["get_weather"], [])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SHAPES), _CITY, _CITY, st.booleans())
def test_a_parameter_written_twice_is_duplicate_argument(
    shape: str, first: str, second: str, unit_between: bool
) -> None:
    pairs = [("city", first), ("city", second + "x")]
    if unit_between:
        pairs.insert(1, ("unit", "c"))
    fixed = repair(_construct(shape, pairs), TOOLS)
    assert fixed.tool_calls == []
    (bad,) = fixed.invalid_tool_calls
    assert bad.kind == FailureKind.DUPLICATE_ARGUMENT
    assert f'"{first}"' in bad.error
    assert f'"{second}x"' in bad.error


_QUOTES = (
    lambda c: f"<!-- {c} -->",
    lambda c: "<!--\n" + c + "\n-->",
    lambda c: "<!-- draft\n" + c,  # never closed: to the end, as HTML reads it
    lambda c: "\n".join("> " + line for line in c.split("\n")),
)


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(SHAPES[:3]),  # (one-line shapes: a blockquote quotes one line)
    st.sampled_from(range(len(_QUOTES))),
    _CITY,
    st.sampled_from(["", "Done.\n", "Here is what I would send:\n"]),
)
def test_a_quoted_anchored_construct_is_no_call(
    shape: str, quote: int, city: str, before: str
) -> None:
    text = before + _QUOTES[quote](_construct(shape, [("city", city)]))
    assert _names(text) == ([], [])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SHAPES), _CITY, st.data())
def test_no_cut_of_an_anchored_construct_is_a_new_call(
    shape: str, city: str, data: st.DataObject
) -> None:
    text = _construct(shape, [("city", city), ("unit", "celsius")])
    whole = [(c.name, c.arguments) for c in repair(text, TOOLS).tool_calls]
    at = data.draw(st.integers(1, len(text) - 1))
    cut = [(c.name, c.arguments) for c in repair(text[:at], TOOLS).tool_calls]
    assert all(c in whole for c in cut), (text[:at], cut)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SHAPES[:3]), _CITY)
def test_a_call_in_another_calls_value_is_no_call(shape: str, city: str) -> None:
    inner = _construct(shape, [("city", city)])
    hermes = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "' + city + '"}}\n</tool_call>'
    )
    for quoted in (inner, hermes):
        text = (
            f"<write_to_file>\n<path>a.md</path>\n<content>\n{quoted}\n</content>\n</write_to_file>"
        )
        valid, invalid = _names(text)
        assert [*valid, *(n for n, _ in invalid)] == ["write_to_file"]


def test_a_family_refusal_on_evidence_is_not_re_read() -> None:
    # Hermes with a key written twice: the gate's refusal stands (no last-value call)
    text = (
        '<tool_call>\n{"name": "get_weather", "arguments": '
        '{"city": "oslo", "city": "rome"}}\n</tool_call>'
    )
    assert _names(text) == ([], [("get_weather", FailureKind.DUPLICATE_ARGUMENT)])


def test_a_family_reading_failure_is_re_read() -> None:
    # the arguments under a key the JSON reader does not know: missing_required, re-read
    text = '{"tool_name": "get_weather", "inputs": {"city": "oslo"}}'
    assert _names(text) == (["get_weather"], [])


@pytest.mark.parametrize("before", ["Bug report:\n", "see ", "Example:\n```\n"])
def test_a_family_call_misread_is_not_replaced_by_pieces_of_it(before: str) -> None:
    # the family reader misreads this element (its value holds MiniMax markup): the
    # anchored reader may not replace it with a piece of it, nor take the quoted call
    inner = (
        '<minimax:tool_call><invoke name="get_weather"><parameter name="city">oslo'
        "</parameter></invoke></minimax:tool_call>"
    )
    text = (
        '<function name="write_to_file"><param name="path">a.md</param>'
        f'<param name="content">{before}{inner}</param></function>'
    )
    fixed = repair(text, TOOLS)
    assert "get_weather" not in [c.name for c in fixed.tool_calls]
    for call in fixed.tool_calls:
        assert call.arguments["content"] == before + inner
