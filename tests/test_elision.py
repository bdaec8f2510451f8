"""A bare ``...`` is a placeholder, not a value (issue 28, promises 3 and 6).

hermes-agent#59291 quotes a call as ``{"action":"clarify","question":"...","choices":[...]}``
and opencode#856 as ``{"command":"glob **/server/**", ...}``: values left out by the
writer. json-repair reads ``[...]`` as ``[]`` and drops ``, ...``, which made a call with
arguments nobody wrote. The JSON repair (``jsonparse.parse_lenient``), the decoding of a
JSON string (``coerce.decode_double_encoded``) and the schema-anchored reader's bare
values now refuse a bare ellipsis; a quoted ``"..."`` is a string like any other.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import accumulate, repair, repair_stream
from toolfix._repair.elision import elided_at

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "clarify",
            "parameters": {
                "type": "object",
                "properties": {
                    "question": {"type": "string"},
                    "choices": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["question"],
            },
        },
    }
]

_TEXT = st.text(alphabet=st.sampled_from("ab .,:[]{}'\"\u2026\\\n"), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


def _valid(content: str) -> list[tuple[str, dict[str, Any]]]:
    out = repair({"content": content}, TOOLS)
    return [(c.name, dict(c.arguments or {})) for c in out.tool_calls]


def test_the_hermes_envelope_with_elided_choices_gives_no_call() -> None:
    content = '{"action":"clarify","question":"...","choices":[...]}'
    out = repair({"content": content}, TOOLS)
    assert out.tool_calls == []
    assert content in out.text or out.invalid_tool_calls  # nothing dropped


def test_elided_members_and_items_are_refused() -> None:
    for content in (
        '{"name": "clarify", "arguments": {"question": "Which?", "choices": ["a", ...]}}',
        '{"name": "clarify", "arguments": {"question": "Which?", "choices": [\u2026]}}',
        '{"name": "clarify", "arguments": {"question": "Which?", "choices": ["a"], ...}}',
        '{"name": "clarify", "arguments": {"question": ...}}',
        '<tool_call>{"name": "clarify", "arguments": {"question": "Q", "choices": [...]}}'
        "</tool_call>",
    ):
        assert _valid(content) == [], content


def test_an_elided_array_in_a_markup_element_is_an_invalid_call() -> None:
    content = (
        "<tool_call>\n<function=clarify>\n<parameter=question>Which?</parameter>\n"
        "<parameter=choices>[...]</parameter>\n</function>\n</tool_call>"
    )
    out = repair({"content": content}, TOOLS)
    assert out.tool_calls == []
    assert out.invalid_tool_calls
    assert "choices" in out.invalid_tool_calls[0].error


def test_an_ellipsis_inside_a_string_is_a_value() -> None:
    content = '{"name": "clarify", "arguments": {"question": "...", "choices": ["a", "..."]}}'
    assert _valid(content) == [("clarify", {"question": "...", "choices": ["a", "..."]})]
    broken = "{'name': 'clarify', 'arguments': {'question': 'a, ..., b', 'choices': ['x']}}"
    assert _valid(broken) == [("clarify", {"question": "a, ..., b", "choices": ["x"]})]


def _only_ellipses(value: Any) -> bool:
    """Does ``value`` hold an array whose items are all the string ``"..."``?"""
    if isinstance(value, dict):
        return any(_only_ellipses(v) for v in value.values())
    if isinstance(value, list):
        if value and all(isinstance(v, str) and _ELLIPSIS.fullmatch(v) for v in value):
            return True
        return any(_only_ellipses(v) for v in value)
    return False


_ELLIPSIS = re.compile(r"\.{3,}|\u2026")


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_no_json_text_is_read_as_elided(value: Any) -> None:
    """Every ellipsis in a JSON text is inside a string: none is a placeholder, unless
    an array's items are all ``"..."`` (``["..."]``: a template's list of strings)."""
    if _only_ellipses(value):
        assert elided_at(json.dumps(value)) >= 0
        return
    assert elided_at(json.dumps(value)) == -1
    assert elided_at(json.dumps(value, ensure_ascii=False, indent=1)) == -1


_GAPS = st.sampled_from(["...", "\u2026", "....", " ... "])


@settings(max_examples=200, deadline=None)
@given(
    question=st.text(alphabet=st.sampled_from("ab .,?"), min_size=1, max_size=10),
    choices=st.lists(st.text(alphabet="ab", min_size=1, max_size=3), max_size=3),
    gap=_GAPS,
    where=st.sampled_from(["items", "first_item", "last_item", "member", "value"]),
    wrap=st.sampled_from(["{}", "<tool_call>{}</tool_call>", "```json\n{}\n```"]),
)
def test_a_call_with_an_elided_value_is_never_valid(
    question: str, choices: list[str], gap: str, where: str, wrap: str
) -> None:
    q = json.dumps(question)
    items = ", ".join(json.dumps(c) for c in choices)
    args = {
        "items": f'{{"question": {q}, "choices": [{gap}]}}',
        "first_item": f'{{"question": {q}, "choices": [{gap}, {items or "[]"}]}}',
        "last_item": f'{{"question": {q}, "choices": [{items + ", " if items else ""}{gap}]}}',
        "member": f'{{"question": {q}, "choices": [{items}], {gap}}}',
        "value": f'{{"question": {gap}, "choices": [{items}]}}',
    }[where]
    call = '{"name": "clarify", "arguments": ' + args + "}"
    assert _valid(wrap.replace("{}", call)) == []


@settings(max_examples=100, deadline=None)
@given(
    family=st.sampled_from(["json", "hermes", "qwen_xml"]),
    items=st.lists(st.sampled_from(['"..."', '"\u2026"', '"...."']), min_size=1, max_size=3),
    blank=st.sampled_from(["", " ", "\n"]),
)
def test_an_array_of_only_ellipsis_strings_is_a_placeholder(
    family: str, items: list[str], blank: str
) -> None:
    """``["..."]`` (jundot/omlx#2221's ``<parameter=messages>["..."]``, and how prompt
    templates write "a list of strings") holds no item: no valid call comes of it, and
    the raw text comes back (an invalid call, or the text)."""
    arr = "[" + blank + ("," + blank).join(items) + blank + "]"
    if family == "qwen_xml":
        content = (
            "<tool_call>\n<function=clarify>\n<parameter=question>Which?</parameter>\n"
            f"<parameter=choices>\n{arr}\n</parameter>\n</function>\n</tool_call>"
        )
    else:
        call = f'{{"name": "clarify", "arguments": {{"question": "Q", "choices": {arr}}}}}'
        content = call if family == "json" else f"<tool_call>{call}</tool_call>"
    out = repair({"content": content}, TOOLS)
    assert out.tool_calls == [], content
    assert out.invalid_tool_calls or arr in out.text


def test_elided_at_is_one_pass() -> None:
    """Unclosed quotes and long punctuation runs: no backtracking blow-up (the call
    returns; counted by its result, not timed)."""
    assert elided_at('"' + "[, " * 200_000) == -1
    assert elided_at("'" * 100_000 + "[...]") in (-1, 100_000)
    assert elided_at("[" * 100_000 + "...]") == 99_999


def _chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": "s",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=80), max_size=6))
def test_a_stream_releases_no_call_for_an_elided_value(cuts: list[int]) -> None:
    call = '{"name": "clarify", "arguments": {"question": "Q", "choices": [...]}}'
    content = f"<tool_call>{call}</tool_call>"
    points = [0, *sorted({c for c in cuts if c < len(content)}), len(content)]
    pieces = [content[a:b] for a, b in itertools.pairwise(points) if b > a]
    chunks = [_chunk({"content": p}, None) for p in pieces] + [_chunk({}, "stop")]
    whole = accumulate(list(repair_stream(chunks, TOOLS)))
    assert whole.tool_calls == []
    assert whole.invalid_tool_calls  # the raw text comes back as an invalid call
