"""``repair(text, [])`` is never silent (issue 29): markup that names tools comes back
with a record saying no tools were offered; the text stays; no call is taken."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from toolfix import FailureKind, Response, repair

MARKUP = [
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
    '[TOOL_CALLS]get_weather{"city": "Paris"}',
    "<function=get_weather><parameter=city>Paris</parameter></function>",
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
]
prose = st.text(st.characters(blacklist_characters="<>[]{}`|"), max_size=40)


@given(prose, st.sampled_from(MARKUP), prose)
def test_markup_without_tools_is_recorded_and_left_in_the_text(
    before: str, markup: str, after: str
) -> None:
    text = f"{before}\n{markup}\n{after}"
    out = repair(text, [])
    assert (out.tool_calls, out.invalid_tool_calls, out.text) == ([], [], text)
    [note] = out.repairs
    assert note.kind == FailureKind.UNKNOWN_NAME
    assert "no tools were offered" in note.detail
    assert "get_weather" in note.detail
    assert repair(out, []) == out  # promise 7: a second pass adds nothing


@given(st.text(max_size=200))
def test_no_tools_never_takes_a_call_nor_changes_the_text(text: str) -> None:
    response = Response.text_only(text)
    out = repair(response, [])
    assert out.parts == response.parts
    assert out.tool_calls == []
    assert out.invalid_tool_calls == []
    assert all("no tools were offered" in r.detail for r in out.repairs)


@given(
    st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,20}", fullmatch=True),
    st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.integers(), max_size=3),
)
def test_a_native_call_with_no_tools_offered_is_an_invalid_call(
    name: str, args: dict[str, int]
) -> None:
    # promise 4: an empty registry holds no tool (vllm-mlx issue 162: a request with no
    # tools and tool_choice "none" came back with native calls named after fruits)
    raw = json.dumps(args)
    call = {"id": "c0", "type": "function", "function": {"name": name, "arguments": raw}}
    out = repair({"content": "", "tool_calls": [call]}, [])
    assert out.tool_calls == []
    [bad] = out.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw, bad.kind) == ("c0", name, raw, FailureKind.UNKNOWN_NAME)
    assert "no tools were offered" in (bad.error or "")
    assert repair(out, []) == out  # promise 7
