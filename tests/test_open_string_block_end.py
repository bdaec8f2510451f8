"""A string left open inside one tagged call does not run into the next call
(toolfix/_repair/text.py, ``json_past_markers`` and ``_left_open_before``).

A family's reader reads a JSON body on past its closer when the closer was text inside
one of the body's strings (``{"a": "</tool_call>"}``). When a string is left open
instead (``"preferences": "['A']}}`` then ``</tool_call>``), the same reading took the
next ``<tool_call>`` block as the rest of that string, paired the quotes of the next
call the wrong way and merged the two calls into one. Two recorded outputs show it:
Llama-3.1-8B on an L4 (joerosh/BFCL-hardware-efficiency-study, four blocks whose list
value never closes its quote) and Hermes-2-Pro-Mistral-7B (HuanzhiMao/BFCL-Result,
four blocks whose key closes its quote with ``'``). A value read past its marker now
keeps the markup as text only when it is JSON or crosses no second marker.
"""

from __future__ import annotations

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

DNA = openai_tool(
    "generate_DNA_sequence",
    {
        "length": {"type": "integer"},
        "preferences": {"type": "array", "items": {"type": "string"}},
    },
    ["length", "preferences"],
)
NOTE = openai_tool("save_note", {"text": {"type": "string"}}, ["text"])

LETTERS = st.text(string.ascii_uppercase, min_size=1, max_size=6)


def _block(letter: str, open_string: bool) -> str:
    value = f"\"['{letter}']" if open_string else f'["{letter}"]'
    args = f'{{"length": 500, "preferences": {value}}}'
    return f'<tool_call>\n{{"name": "generate_DNA_sequence", "arguments": {args}}}\n</tool_call>'


def test_a_string_left_open_ends_at_its_own_block() -> None:
    text = "\n\n".join(_block(x, True) for x in "ATCG")
    out = repair(text, [DNA])
    assert [c.arguments["preferences"] for c in out.tool_calls] == [["A"], ["T"], ["C"], ["G"]]
    assert out.invalid_tool_calls == []


def test_a_quoted_call_inside_a_json_value_stays_text() -> None:
    # the value is JSON: the markup in its string is text, as before
    inner = '<tool_call>{\\"name\\": \\"x\\"}</tool_call>\\n<tool_call>{}</tool_call>'
    text = f'<tool_call>\n{{"name": "save_note", "arguments": {{"text": "{inner}"}}}}\n</tool_call>'
    [call] = repair(text, [NOTE]).tool_calls
    assert call.arguments["text"] == json.loads(f'"{inner}"')


def test_one_closer_inside_a_json_value_stays_text() -> None:
    body = '{"name": "save_note", "arguments": {"text": "a </tool_call> b"}}'
    text = f"<tool_call>\n{body}\n</tool_call>"
    [call] = repair(text, [NOTE]).tool_calls
    assert call.arguments["text"] == "a </tool_call> b"


@settings(max_examples=120, deadline=None)
@given(
    blocks=st.lists(st.tuples(LETTERS, st.booleans()), min_size=2, max_size=5),
    sep=st.sampled_from(["\n", "\n\n", " ", ""]),
)
def test_each_block_gives_its_own_call_and_no_other_value(
    blocks: list[tuple[str, bool]], sep: str
) -> None:
    """Whichever blocks leave their string open, every block gives one call with its
    own value: no call takes a value of another block (no made-up merge)."""
    text = sep.join(_block(letter, open_string) for letter, open_string in blocks)
    out = repair(text, [DNA])
    got = [c.arguments["preferences"] for c in out.tool_calls]
    assert got == [[letter] for letter, _ in blocks]


@settings(max_examples=80, deadline=None)
@given(
    words=st.lists(
        st.text(string.ascii_letters + " <>/_", min_size=1, max_size=12), min_size=1, max_size=3
    ),
)
def test_markup_quoted_in_a_json_value_is_kept_whole(words: list[str]) -> None:
    """A value that quotes closers and openers, written as JSON, is read whole."""
    value = "</tool_call><tool_call>".join(words)
    body = json.dumps({"name": "save_note", "arguments": {"text": value}})
    text = f"<tool_call>\n{body}\n</tool_call>"
    [call] = repair(text, [NOTE]).tool_calls
    assert call.arguments["text"] == value
