"""Name-keyed calls listed inside a wrapper object (issue 28, ``actionlist.py``).

The class: an agent's output that is one JSON object whose actions are a list of
``{tool_name: {arguments}}`` objects beside its other fields, written as the whole
message, bare or fenced:

- ``{"current_state": {...}, "action": [{"click_element": {"index": 14}}]}``
  (browser-use/web-ui issue 620, Hunyuan);
- ```` ```json {"action_sequence": [{"click_element": ...}, {"scroll_down": ...}]} ````
  (browser-use/browser-use issue 488, deepseek-r1:14b).

The listed calls are read in order with exactly their arguments; the wrapper's other
fields never become arguments. A list that is data is no call: an empty action list
(browser-use issue 192), a list in which one element is not ``{offered_name: {declared
keys}}``, a list in a JSON document that prose surrounds.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import accumulate, repair, repair_stream

_TOOLS = [
    openai_tool("click_element", {"index": {"type": "integer"}}, ["index"]),
    openai_tool(
        "input_text", {"index": {"type": "integer"}, "text": {"type": "string"}}, ["index", "text"]
    ),
    openai_tool("go_to_url", {"url": {"type": "string"}}, ["url"]),
]

_TEXTS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20
).filter(lambda v: v.strip() == v and "..." not in v and "…" not in v)
_ACTIONS = st.one_of(
    st.builds(lambda i: ("click_element", {"index": i}), st.integers(0, 999)),
    st.builds(lambda i, t: ("input_text", {"index": i, "text": t}), st.integers(0, 999), _TEXTS),
    st.builds(
        lambda u: ("go_to_url", {"url": "https://" + u}),
        st.from_regex(r"[a-z]{1,12}\.com", fullmatch=True),
    ),
)
#: The wrapper's other fields: data of any JSON shape, under keys that are no tool names.
_STATE = st.dictionaries(
    st.sampled_from(
        ["current_state", "memory", "next_goal", "evaluation_previous_goal", "thought"]
    ),
    st.one_of(_TEXTS, st.dictionaries(st.sampled_from(["memory", "goal"]), _TEXTS, max_size=2)),
    max_size=3,
)


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = repair({"role": "assistant", "content": text}, _TOOLS)
    return [(c.name, dict(c.arguments or {})) for c in out.tool_calls]


def _streamed(text: str) -> list[tuple[str, dict[str, Any]]]:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text[i : i + 7]}}]}
        for i in range(0, len(text), 7)
    ]
    out = accumulate(repair_stream(chunks, _TOOLS))
    return [(c.name, dict(c.arguments or {})) for c in out.tool_calls]


def _message(
    state: dict[str, Any], key: str, actions: list[tuple[str, dict[str, Any]]]
) -> dict[str, Any]:
    return {**state, key: [{name: args} for name, args in actions]}


@settings(max_examples=80, deadline=None)
@given(
    state=_STATE,
    key=st.sampled_from(["action", "action_sequence", "actions", "steps"]),
    actions=st.lists(_ACTIONS, min_size=1, max_size=4),
    fenced=st.booleans(),
    indent=st.sampled_from([None, 2]),
)
def test_listed_calls_are_read_back_exactly_in_order(
    state: dict[str, Any],
    key: str,
    actions: list[tuple[str, dict[str, Any]]],
    fenced: bool,
    indent: int | None,
) -> None:
    body = json.dumps(_message(state, key, actions), ensure_ascii=False, indent=indent)
    text = f"```json\n{body}\n```" if fenced else body
    assert _calls(text) == actions
    assert _streamed(text) == actions


def test_the_two_sources_are_read() -> None:
    webui = (
        '{"current_state": {"evaluation_previous_goal": "Success", "memory": "typed", '
        '"next_goal": "Click"}, "action": [{"click_element": {"index": 14}}]}'
    )
    assert _calls(webui) == [("click_element", {"index": 14})]
    fenced = (
        '\n\n```json\n{\n  "action_sequence": [\n    {"click_element": {"index": 1}},\n'
        '    {"go_to_url": {"url": "https://a.com"}}\n  ]\n}\n```'
    )
    assert _calls(fenced) == [
        ("click_element", {"index": 1}),
        ("go_to_url", {"url": "https://a.com"}),
    ]


@settings(max_examples=60, deadline=None)
@given(state=_STATE, actions=st.lists(_ACTIONS, min_size=1, max_size=3), data=st.data())
def test_one_element_that_is_not_a_call_makes_the_list_data(
    state: dict[str, Any], actions: list[tuple[str, dict[str, Any]]], data: st.DataObject
) -> None:
    """A tool name keying something else (an undeclared key, a value that is no object,
    an unknown tool, two keys): the list is data and none of it is a call."""
    odd = data.draw(
        st.sampled_from(
            [
                {"click_element": {"description": "Click an element"}},
                {"click_element": "enabled"},
                {"scroll_down": {"amount": 3}},
                {"click_element": {"index": 1}, "go_to_url": {"url": "https://a.com"}},
                "click_element",
            ]
        )
    )
    listed: list[Any] = [{name: args} for name, args in actions]
    listed.insert(data.draw(st.integers(0, len(listed))), odd)
    assert _calls(json.dumps({**state, "action": listed})) == []


@settings(max_examples=40, deadline=None)
@given(
    actions=st.lists(_ACTIONS, min_size=1, max_size=3),
    lead=st.sampled_from(
        ["Here is the config:\n", "The agent returned this last time: ", "Example:\n"]
    ),
    tail=st.sampled_from(["", "\nThat is what the schema looks like."]),
)
def test_a_listed_json_in_prose_is_no_call(
    actions: list[tuple[str, dict[str, Any]]], lead: str, tail: str
) -> None:
    """Prose that shows such a document: not the message's whole payload, no call."""
    body = json.dumps({"memory": "m", "action": [{n: a} for n, a in actions]})
    assert _calls(lead + body + tail) == []


def test_an_empty_action_list_is_no_call() -> None:
    text = (
        '```json\n{\n  "current_state": {"memory": "", "next_goal": "Start browser",},\n'
        '  "action": []\n}\n```'
    )
    assert _calls(text) == []


def test_two_lists_of_calls_say_no_order() -> None:
    text = json.dumps(
        {"action": [{"click_element": {"index": 1}}], "fallback": [{"click_element": {"index": 2}}]}
    )
    assert _calls(text) == []


def test_the_wrapper_is_recorded() -> None:
    out = repair(
        {
            "role": "assistant",
            "content": '{"memory": "m", "action": [{"click_element": {"index": 3}}]}',
        },
        _TOOLS,
    )
    (call,) = out.tool_calls
    assert any("listed under 'action'" in r.detail for r in call.repairs)
