"""Qwen-style calls written with openers only (issue 28, docs/design.md promise 9).

``<function=NAME>`` then ``<parameter=KEY> value`` elements and no closer at all: the
shape of continuedev/continue#13057 (``benchmarks/corpora/verbatim_anchored.jsonl``) and
of two Hugging Face threads of 2026 (froggeric/Qwen-Fixed-Chat-Templates discussions 55,
titled "Early termination", and 69). A value that runs to the end of the text may have
been cut off there, and nothing in the text says it was not: the call stays the invalid
``truncated`` call promise 9 asks for, and the schema-anchored reader does not take it
over. A call the next ``<function=`` ends is complete and is taken; a ``</function>``
after the last value closes the call.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FailureKind, repair

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "write_note",
            "parameters": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
                "required": ["title", "body"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "list_dir",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
]

_VALUE = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789/._-"), min_size=1, max_size=20
)
_GLUE = st.sampled_from([" ", "\n"])  # the HF pages show the elements on one line


def _open_style(title: str, body: str, glue: str) -> str:
    return (
        f"<function=write_note>{glue}<parameter=title>{glue}{title}{glue}"
        f"<parameter=body>{glue}{body}"
    )


@settings(max_examples=60, deadline=None)
@given(_VALUE, _VALUE, _GLUE)
def test_a_last_value_at_the_end_of_the_text_is_reported_cut_off(
    title: str, body: str, glue: str
) -> None:
    fixed = repair(_open_style(title, body, glue), TOOLS)
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert bad.name == "write_note"
    assert bad.kind == FailureKind.TRUNCATED


@settings(max_examples=60, deadline=None)
@given(_VALUE, _VALUE, _GLUE)
def test_the_function_closer_after_the_last_value_closes_the_call(
    title: str, body: str, glue: str
) -> None:
    fixed = repair(_open_style(title, body, glue) + f"{glue}</function>", TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("write_note", {"title": title, "body": body})
    ]
    assert fixed.invalid_tool_calls == []


@settings(max_examples=60, deadline=None)
@given(_VALUE, _VALUE, _VALUE, _GLUE)
def test_the_next_function_ends_the_call_before_it(
    path: str, title: str, body: str, glue: str
) -> None:
    # discussion 69: the first call is complete, the last one reaches the end of the text
    text = f"<function=list_dir>{glue}<parameter=path>{glue}{path}{glue}" + _open_style(
        title, body, glue
    )
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("list_dir", {"path": path})]
    [bad] = fixed.invalid_tool_calls
    assert (bad.name, bad.kind) == ("write_note", FailureKind.TRUNCATED)
