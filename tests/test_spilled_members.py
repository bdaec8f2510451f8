"""A list's member that spilled into the object around it is not wrapped away
(coerce.py ``_spilled``; docs/design.md, promise 6).

A model that loses a list's brackets writes its first member where the list was due and
the next member's keys beside it: ``{"todos": {"content": "a", "status": "pending"},
"content": "b", "status": "done"}`` (qwen2.5-coder in opencode#12812; DeepSeek-V4-Flash's
``"options": {...}, "label": ..., "description": ...`` in opencode#24566). Schema coercion
wraps a lone object into the one-item array its schema asks for; here that would keep one
member and leave the other as undeclared keys beside it, a call the model did not write.
Such a call stays invalid, with its raw text, for the LLM fixer. A lone object with nothing
of the items' beside it is still wrapped.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

_KEY = st.from_regex(r"[a-z]{2,8}", fullmatch=True)
_VALUE = st.from_regex(r"[A-Za-z][A-Za-z ]{0,12}", fullmatch=True)


def _tool(list_key: str, item_keys: list[str], **extra: Any) -> dict[str, Any]:
    items = {"type": "object", "properties": {k: {"type": "string"} for k in item_keys}}
    return openai_tool("todo", {list_key: {"type": "array", "items": items}}, [list_key], **extra)


def _members(item_keys: list[str]) -> st.SearchStrategy[list[dict[str, str]]]:
    member = st.fixed_dictionaries(dict.fromkeys(item_keys, _VALUE))
    return st.lists(member, min_size=2, max_size=2)


#: A list parameter's key, its items' keys, and two members drawn for them.
_DRAWN = _KEY.flatmap(
    lambda list_key: st.lists(
        _KEY.filter(lambda k: k != list_key), min_size=1, max_size=4, unique=True
    ).flatmap(lambda keys: st.tuples(st.just(list_key), st.just(keys), _members(keys)))
)


@settings(max_examples=150, deadline=None)
@given(_DRAWN, st.booleans())
def test_a_spilled_member_is_no_call(drawn: tuple[str, list[str], Any], closed: bool) -> None:
    list_key, item_keys, (first, second) = drawn
    extra = {"additionalProperties": False} if closed else {}
    args = {list_key: first, **second}
    text = json.dumps({"name": "todo", "arguments": args})
    out = repair({"content": text}, [_tool(list_key, item_keys, **extra)])
    assert out.tool_calls == [], text
    (bad,) = out.invalid_tool_calls
    assert bad.raw  # kept for the LLM fixer (promise 6)


@settings(max_examples=100, deadline=None)
@given(_DRAWN)
def test_a_lone_member_is_still_wrapped(drawn: tuple[str, list[str], Any]) -> None:
    list_key, item_keys, (first, _) = drawn
    text = json.dumps({"name": "todo", "arguments": {list_key: first}})
    (call,) = repair({"content": text}, [_tool(list_key, item_keys)]).tool_calls
    assert call.arguments == {list_key: [first]}


def test_the_found_example_is_no_call() -> None:
    text = (
        '{"name",: "todowrite", "arguments": {"todos": {"content": ""check the docs.", '
        '"status": "pending", "priority": "high", "id: "1"}, "content": "write a README.", '
        '"status": "pending", "priority": "low", "id":"2"}}}'
    )
    tool = {
        "type": "function",
        "function": {
            "name": "todowrite",
            "parameters": {
                "type": "object",
                "properties": {
                    "todos": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                k: {"type": "string"}
                                for k in ("content", "status", "priority", "id")
                            },
                        },
                    }
                },
                "required": ["todos"],
            },
        },
    }
    out = repair({"content": text}, [tool])
    assert out.tool_calls == []
    assert len(out.invalid_tool_calls) == 1
