"""Three shapes of a call body at a break (toolfix/_repair/splicedkeys.py,
escapedjson.py, cutclosers.py).

- A key written again at a member's break without its colon (Qwen3.5 in opencode,
  anomalyco/opencode issue 6918: ``"filePath": "/p",\\n "filePath"/p"``) is never read
  into the string value before it: the call is invalid, its raw text kept (promise 6,
  rule G3), never ``filePath = '/p",\\n "filePath"/p'``.
- A JSON body written escaped (``{\\"url\\":\\"...\\"}``: gpt-oss on llama.cpp, pull
  15091) is read as the JSON it escapes, by both strict decodes; text that only shows
  escaped JSON is no call.
- A family's wrapper closer cut at the end of the text (Kimi-K2 in opencode, issue
  8851: ``<|tool_calls_section_end|`` without ``>``) counts as that closer for the
  reasoning's last element (rule G1); prose after it still leaves the calls as text.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.cutclosers import cut_closer_start
from toolfix._repair.escapedjson import escaped_value
from toolfix._repair.families import families
from toolfix._repair.splicedkeys import spliced_key


def _tool(name: str, **props: str) -> dict[str, Any]:
    properties = {k: {"type": t} for k, t in props.items()}
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": properties, "required": list(props)[:1]},
        },
    }


_WRITE = [_tool("write", content="string", filePath="string", mode="string")]
_FETCH = [_tool("fetch", url="string", max_length="integer"), _tool("get_weather", city="string")]
_PLAIN = st.text(st.sampled_from("abcdefghij /._-0123456789:"), min_size=1, max_size=20)
_WITH_QUOTES = st.text(st.sampled_from('abcdefgh /._-"'), min_size=1, max_size=20)


def _native(arguments: str) -> dict[str, Any]:
    call = {"name": "write", "arguments": arguments}
    return {"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": call}]}


def _values(out: Any) -> list[str]:
    return [v for c in out.tool_calls for v in (c.arguments or {}).values() if isinstance(v, str)]


# ---- a key written again without its colon ------------------------------------------


def test_the_opencode_6918_repeat_is_an_invalid_call_with_its_text() -> None:
    text = (
        '{    "content": "My good content....",\n     "filePath": "/project/snake.sh",\n'
        '     "filePath"/project/snake.sh"\n}'
    )
    out = repair(_native(text), _WRITE)
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert bad.kind == "invalid_json"
    assert "filePath" in bad.error
    assert bad.raw == text


@settings(max_examples=200, deadline=None)
@given(
    _WITH_QUOTES,
    _PLAIN,
    st.sampled_from(["filePath", "mode"]),
    st.booleans(),
    st.sampled_from([",\n ", ",\n     ", " ,\r\n\t"]),
)
def test_a_declared_key_spliced_at_a_break_never_comes_back_as_data(
    value: str, rest: str, key: str, repeated: bool, brk: str
) -> None:
    first = f'"{key}": "{rest}",\n "content"' if repeated else '"content"'
    text = f'{{{first}: "{value}"{brk}"{key}"/{rest}"\n}}'  # (no colon after the key)
    out = repair(_native(text), _WRITE)
    for v in _values(out):
        assert f'"{key}"' not in v  # never a value that swallowed the next key


@settings(max_examples=100, deadline=None)
@given(_PLAIN, _PLAIN)
def test_a_value_that_quotes_a_key_in_valid_json_is_read_back_exactly(a: str, b: str) -> None:
    args = {"content": f'{a}",\n "filePath"{b}', "filePath": b}
    out = repair(_native(json.dumps(args)), _WRITE)
    (call,) = out.tool_calls
    assert call.arguments == args


def test_an_array_item_named_like_a_key_is_no_splice() -> None:
    assert spliced_key('{"content": ["a",\n "filePath"], "filePath": 1', ("filePath",)) is None
    assert spliced_key('{"a": "x",\n "b"/y"}', ("b",)) == "b"
    assert spliced_key('{"a": "x",\n "b"/y"}', ()) is None  # (neither declared nor a key)
    assert spliced_key('{"a": "x", "b"/y"}', ("b",)) is None  # (no break: no line)


# ---- JSON written escaped -----------------------------------------------------------

_URL = st.text(st.sampled_from("abcdefgh/:._-?=&"), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(_URL, st.integers(0, 10**6), st.sampled_from(["reasoning_content", "content"]))
def test_a_harmony_body_written_escaped_is_read_back_exactly(
    url: str, size: int, field: str
) -> None:
    args = {"url": url, "max_length": size}
    body = json.dumps(args, separators=(",", ":")).replace('"', '\\"')
    text = f"<|start|>assistant<|channel|>commentary to=fetch json<|message|>{body}"
    out = repair({"content": "" if field != "content" else text, field: text}, _FETCH)
    (call,) = out.tool_calls
    assert (call.name, call.arguments) == ("fetch", args)


@settings(max_examples=100, deadline=None)
@given(_URL)
def test_prose_that_shows_escaped_json_is_not_a_call(url: str) -> None:
    body = json.dumps({"url": url}).replace('"', '\\"')
    text = f"The request body was {body} and the server answered 200."
    out = repair({"content": text}, _FETCH)
    assert out.tool_calls == []
    assert out.invalid_tool_calls == []


def test_only_a_whole_escaped_value_is_read() -> None:
    assert escaped_value('{\\"a\\": 1}') == (True, {"a": 1})
    assert escaped_value('[{\\"a\\": \\"x\\"}]') == (True, [{"a": "x"}])
    assert escaped_value('{\\"a\\": "x"}') == (False, None)  # (a bare quote)
    assert escaped_value('{\\"a\\": 1') == (False, None)  # (not whole)
    assert escaped_value('{"a": 1}') == (False, None)


_WEATHER = [_tool("get_weather", location="string"), _tool("get_time", location="string")]


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["get_weather", "get_time"]), _PLAIN),
        min_size=1,
        max_size=3,
        unique=True,
    )
)
def test_calls_written_as_json_strings_of_a_list_are_read_back_exactly(
    calls: list[tuple[str, str]],
) -> None:
    items = [
        json.dumps({"type": "function", "name": n, "parameters": {"location": v}}) for n, v in calls
    ]
    out = repair({"content": json.dumps(items)}, _WEATHER)
    assert [(c.name, c.arguments) for c in out.tool_calls] == [
        (n, {"location": v}) for n, v in calls
    ]


@settings(max_examples=80, deadline=None)
@given(st.lists(_PLAIN, min_size=1, max_size=3))
def test_a_list_of_data_objects_as_strings_is_not_a_call(values: list[str]) -> None:
    items = [json.dumps({"location": v, "note": "seen"}) for v in values]
    out = repair({"content": f"The log held {json.dumps(items)} today."}, _WEATHER)
    assert out.tool_calls == []
    assert out.invalid_tool_calls == []


# ---- a wrapper closer cut at the end ------------------------------------------------

_SB, _SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"


def _kimi_section(calls: list[dict[str, Any]]) -> str:
    body = "".join(
        f" <|tool_call_begin|> functions.get_weather:{i} <|tool_call_argument_begin|> "
        f"{json.dumps(c)} <|tool_call_end|>"
        for i, c in enumerate(calls)
    )
    return f"I'll check. {_SB}{body} "


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.builds(dict, city=_PLAIN), min_size=1, max_size=4, unique_by=str
    ),  # (a repeat is one call)
    st.integers(3, len(_SE) - 1),
)
def test_calls_before_a_cut_wrapper_closer_in_reasoning_are_read(
    calls: list[dict[str, Any]], keep: int
) -> None:
    text = _kimi_section(calls) + _SE[:keep]
    out = repair({"content": "", "reasoning_content": text}, _FETCH)
    assert [c.arguments for c in out.tool_calls] == calls


@settings(max_examples=60, deadline=None)
@given(st.lists(st.builds(dict, city=_PLAIN), min_size=1, max_size=3), st.integers(3, 20))
def test_prose_after_a_cut_closer_leaves_the_calls_as_reasoning(
    calls: list[dict[str, Any]], keep: int
) -> None:
    text = _kimi_section(calls) + _SE[:keep] + " then I will decide."
    out = repair({"content": "", "reasoning_content": text}, _FETCH)
    assert out.tool_calls == []


def test_every_familys_closer_cut_is_found_at_the_end_only() -> None:
    for closer in {c for f in families() for c in f.closers if len(c) > 3}:
        for size in range(3, len(closer)):
            text = "x " + closer[:size]
            assert cut_closer_start(text, len(text)) == 2, (closer, size)
        assert cut_closer_start("x <|", 4) == 4  # (too short to say which)
