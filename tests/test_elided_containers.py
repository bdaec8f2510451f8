"""A list or object whose every item is an ellipsis holds no value (gate G5).

``[{"q": "..."}]`` (Kuberwastaken/claurst#395: a DeepSeek V4 DSML call with its
question elided) and ``["..."]`` (jundot/omlx#2221) stand for items the text does not
hold: the call is invalid with its raw text and the parsed arguments attached (promise
6), never made with the ellipses (``toolfix/_repair/elision.py``). A container with one
real item beside an ellipsis, and a lone ``"..."`` value, are data and read back exactly;
a native call that validates passes through as it came (promise 5).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair
from toolfix._repair.elision import elided_value

TOOLS = [
    openai_tool(
        "question", {"questions": {"type": "array"}, "note": {"type": "string"}}, ["questions"]
    )
]

#: The ways an ellipsis is written as a whole item.
DOTS = st.sampled_from(["...", "....", "\u2026", " ... ", "(...)", "[...]"])

#: Containers (non-empty at every level) of nothing but ellipses.
ELIDED = st.recursive(
    DOTS,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(st.sampled_from(["q", "a", "text", "id"]), inner, min_size=1, max_size=3)
    ),
    max_leaves=8,
).filter(lambda v: not isinstance(v, str))

#: A real item: text that is not an ellipsis, or a number.
REAL = st.text(alphabet="abcxyz .,!?0123", min_size=1, max_size=12).filter(
    lambda s: s.strip(" .") != ""
) | st.integers(-5, 5)


def _dsml(value: object) -> str:
    body = json.dumps(value, ensure_ascii=False)
    return (
        '<\uff5cDSML\uff5ctool_calls>\n<\uff5cDSML\uff5cinvoke name="question">\n'
        f'<\uff5cDSML\uff5cparameter name="questions" string="false">{body}'
        "</\uff5cDSML\uff5cparameter>\n</\uff5cDSML\uff5cinvoke>\n</\uff5cDSML\uff5ctool_calls>"
    )


def _json(value: object) -> str:
    return json.dumps({"name": "question", "arguments": {"questions": value}})


@settings(max_examples=120, deadline=None)
@given(ELIDED, st.sampled_from([_dsml, _json]))
def test_a_container_of_nothing_but_ellipses_is_no_value(
    value: object, write: Callable[[object], str]
) -> None:
    as_list = value if isinstance(value, list) else [value]
    text = write(as_list)
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    # nothing dropped: the invalid call with its raw text, or (an ellipsis the text scan
    # already finds, ``["..."]`` in JSON text) the text as it came
    if fixed.invalid_tool_calls:
        [bad] = fixed.invalid_tool_calls
        assert bad.name == "question"
        assert "elided" in (bad.error or "")
        assert bad.raw
    else:
        assert fixed.text == text
    assert elided_value({"questions": as_list}) == "questions"


@settings(max_examples=120, deadline=None)
@given(ELIDED, REAL)
def test_one_real_item_beside_ellipses_is_read_back_exactly(value: object, real: object) -> None:
    # (DSML: in JSON text, the text scan refuses ``["..."]`` wherever it is: elided_at)
    items = [{"q": real}, value]
    assert elided_value({"questions": items}) is None
    fixed = repair(_dsml(items), TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("question", {"questions": json.loads(json.dumps(items))})
    ]


def test_a_lone_ellipsis_value_and_an_empty_list_stay_data() -> None:
    assert elided_value({"note": "..."}) is None  # (a lone ``...`` is data: elision.py)
    assert elided_value({"questions": []}) is None
    assert elided_value({"questions": [{}]}) is None
    call = {"name": "question", "arguments": {"questions": [1], "note": "..."}}
    fixed = repair(json.dumps(call), TOOLS)
    assert [c.arguments for c in fixed.tool_calls] == [{"questions": [1], "note": "..."}]


def test_the_claurst_call_is_refused_with_its_arguments() -> None:
    fixed = repair(_dsml([{"q": "..."}]), TOOLS)
    [bad] = fixed.invalid_tool_calls
    assert fixed.tool_calls == []
    assert bad.arguments == {"questions": [{"q": "..."}]}
    assert "\uff5cDSML\uff5cinvoke" in (bad.raw or "")


def test_a_native_call_that_validates_passes_through() -> None:  # promise 5
    raw = '{"questions": [{"q": "..."}]}'
    native = {"id": "c1", "type": "function", "function": {"name": "question", "arguments": raw}}
    fixed = repair({"content": None, "tool_calls": [native]}, TOOLS)
    [call] = fixed.tool_calls
    assert call.arguments_raw == raw
    assert call.repairs == ()


def test_a_deep_container_is_bounded() -> None:
    deep: object = "..."
    for _ in range(200):
        deep = [deep]
    assert elided_value({"questions": deep}) is None  # past the bound: not looked at
    wide = ["..."] * 100
    assert elided_value({"questions": wide}) is None
    assert elided_value({"questions": ["..."] * 10}) == "questions"
