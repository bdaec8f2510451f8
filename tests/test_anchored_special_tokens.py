"""No admitted value holds a model's special token (anchored.py ``_SPECIAL_TOKEN``;
docs/design.md, promises 3 and 6).

When a family reader refuses a call (a value elided by a mark), the schema-anchored reader
reads the region again. It read Gemma's string delimiters around the elided value as the
value (``<|tool_call>call:read_file{file_path:<|"|>(...)<|"|>}<tool_call|>`` came back as
``file_path='<|"|>(...)<|"|>'``; Gemma 3's ``<escape>{...}`` as ``'<escape>{...'``), a call
the model did not make. Over every family writer and every elision mark, the call stays
the family reader's invalid call, and no admitted value carries a special token.
"""

from __future__ import annotations

import re

from hostile import WRITERS, write
from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

_TOOLS = [openai_tool("read_file", {"file_path": {"type": "string"}}, ["file_path"])]
_MARKS = st.sampled_from(["(...)", "{...}", "[...]", "<...>", "…", "[…]"])
_TOKEN = re.compile(r"<\|[^\s<>|]{1,32}\|?>|<[^\s<>|]{1,32}\|>|<escape>")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(WRITERS)), _MARKS)
def test_an_elided_value_never_comes_back_with_tokens(family: str, mark: str) -> None:
    text = write(family, "read_file", "file_path", mark, "")
    out = repair(text, _TOOLS)
    for call in out.tool_calls:
        for value in call.arguments.values():
            assert not (isinstance(value, str) and _TOKEN.search(value)), (text, value)


def test_the_found_examples_stay_the_family_readers_invalid_calls() -> None:
    for text in (
        '<|tool_call>call:read_file{file_path:<|"|>(...)<|"|>}<tool_call|>',
        "<start_function_call>call:read_file{file_path:<escape>{...}<escape>}<end_function_call>",
    ):
        out = repair({"content": text}, _TOOLS)
        assert out.tool_calls == [], text
        (bad,) = out.invalid_tool_calls
        assert "elided" in bad.error
