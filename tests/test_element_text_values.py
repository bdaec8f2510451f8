"""An argument element's text is a text value, typed by its parameter's schema like any
other (anchored.py, then coercion): for a string parameter it is the value as written, so a
shell test (``<command>[ -f x ] && ls</command>``), a lone bracket or a JSON-looking text
come back exactly; for an array or object parameter it is decoded as JSON.
Found by ``tests/test_wrapper_attribute_cuts.py``'s generator (``<command>[</command>``
gave no call).
"""

from __future__ import annotations

from conftest import openai_tool
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair

TOOLS = [
    openai_tool("bash", {"command": {"type": "string"}, "ids": {"type": "array"}}, ["command"])
]
_text = st.text(
    st.characters(codec="utf-8", exclude_characters="<>&\r", exclude_categories=("Cs", "Cc")),
    max_size=16,
)
_bracketed = st.builds(
    lambda o, body, close: (o + body + close).strip(),
    st.sampled_from(["[", "{", "[ ", "{ "]),
    _text,
    st.sampled_from(["", "]", "}", " ]", "] && ls"]),
).filter(lambda v: v != "" and v.strip() == v)


@settings(max_examples=300, deadline=None)
@given(_bracketed, st.sampled_from(["invoke", "tool_call", "function"]))
def test_a_string_element_opening_with_a_bracket_is_read_as_written(value: str, word: str) -> None:
    text = f'<{word} name="bash"><command>{value}</command></{word}>'
    out = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in out.tool_calls] == [("bash", {"command": value})], text


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-99, 99), max_size=4))
def test_an_array_element_is_read_as_json(ids: list[int]) -> None:
    text = f'<invoke name="bash"><command>ls</command><ids>{ids}</ids></invoke>'
    out = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in out.tool_calls] == [
        ("bash", {"command": "ls", "ids": ids})
    ], text
