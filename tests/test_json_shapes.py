"""JSON-ish shapes read by what the tools declare (issue 28): a string value's bare inner
quotes (innerquotes.py), a regular expression's backslashes (quickfix.py), a call
written as Gemini's ``print(default_api.f(...))`` statement (formats/pythonic.py), and
an object keyed by the tool's name (namekeyed.py). Each: damaged values drawn by
hypothesis read back exactly, and the prose or data that only looks like it stays text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up
from tooldefs import openai_tool

from toolfix import FailureKind, repair
from toolfix._config import Limits
from toolfix._repair.innerquotes import escape_inner_quotes
from toolfix._repair.jsonparse import parse_lenient

WRITE = openai_tool(
    "write_file",
    {"path": {"type": "string"}, "content": {"type": "string"}},
    ["path", "content"],
)
SEARCH = openai_tool(
    "web_search", {"query": {"type": "string"}, "count": {"type": "integer"}}, ["query"]
)
SHELL = openai_tool(
    "shell",
    {"command": {"type": "array", "items": {"type": "string"}}, "workdir": {"type": "string"}},
    ["command"],
)
GREET = openai_tool("Greetings", {}, [])
TOOLS: list[dict[str, Any]] = [WRITE, SEARCH, SHELL, GREET]


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, dict(c.arguments or {})) for c in repair(text, TOOLS).tool_calls]


def _native(arguments: str, name: str = "write_file") -> list[tuple[str, dict[str, Any]]]:
    response = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
        ],
    }
    return [(c.name, dict(c.arguments or {})) for c in repair(response, TOOLS).tool_calls]


# ---- a string value's bare inner quotes ---------------------------------------------------

#: Text a file's content may hold: quotes, markup, blanks, line breaks; no ``,`` ``}``
#: ``]`` right after a quote (then the quote would end the value: the grammar's reading).
_CONTENT = st.text(alphabet='abc XY<>="/\n\t-:.1', min_size=1, max_size=60)


def _bare(value: str) -> str:
    """``value`` as a JSON string literal whose inner quotes are left bare."""
    return json.dumps(value).replace('\\"', '"')


@settings(max_examples=300, deadline=None)
@given(path=st.text(alphabet="abc/._-", min_size=1, max_size=20), content=_CONTENT)
def test_bare_inner_quotes_read_back_exactly(path: str, content: str) -> None:
    raw = '{"path": ' + json.dumps(path) + ', "content": ' + _bare(content) + "}"
    assert _native(raw) == [("write_file", {"path": path, "content": content})]


@settings(max_examples=200, deadline=None)
@given(content=_CONTENT)
def test_bare_inner_quotes_before_the_next_key(content: str) -> None:
    head = '{"name": "write_file", "arguments": {"content": '
    raw = head + _bare(content) + ', "path": "a.txt"}}'
    assert _calls(raw) == [("write_file", {"content": content, "path": "a.txt"})]


def test_the_html_of_openclaude_287() -> None:
    raw = (
        '{"name": "write_file", "arguments": {"path": "/p/index.html", "content": '
        '"\\n<html lang="en">\\n<meta name="viewport" content="width=device-width">'
        '\\n  Document\\n\\n"}}'
    )
    [(_, args)] = _calls(raw)
    assert args["content"] == (
        '\n<html lang="en">\n<meta name="viewport" content="width=device-width">\n  Document\n\n'
    )


@settings(max_examples=200, deadline=None)
@given(value=st.recursive(st.text(max_size=8) | st.integers(), lambda c: st.lists(c, max_size=3)))
def test_valid_json_is_never_rewritten(value: Any) -> None:
    text = json.dumps({"a": value, "b": "x"})
    assert escape_inner_quotes(text) is None  # (every quote of valid JSON ends or opens)
    assert parse_lenient(text, Limits()).value == {"a": value, "b": "x"}


@settings(max_examples=200, deadline=None)
@given(content=_CONTENT, cut=st.integers(1, 40))
def test_a_cut_inside_a_value_with_bare_quotes_is_never_valid(content: str, cut: int) -> None:
    whole = '{"name": "write_file", "arguments": {"path": "a", "content": ' + _bare(content)
    text = whole[: len(whole) - min(cut, len(_bare(content)) - 1)]  # (cut inside the value)
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []


def test_keys_and_array_items_are_left_as_they_are() -> None:
    assert escape_inner_quotes('["say "hi" there", "b"]') is None
    assert escape_inner_quotes('{"a "b": 1}') is None


# ---- a regular expression's backslashes -----------------------------------------------

_REGEX_PART = st.sampled_from(["\\(", "\\)", "\\|", "\\.", "\\*", "\\+", "cpp", "h", ".*", "$"])


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(_REGEX_PART, min_size=1, max_size=8))
def test_a_regex_keeps_its_backslashes(parts: list[str]) -> None:
    regex = "\\." + "".join(parts)  # (one of a regular expression's escapes, at least)
    raw = '{"command": ["find", ".", "-regex", "' + regex + '"], "workdir": "/w"}'
    assert _native(raw, "shell") == [
        ("shell", {"command": ["find", ".", "-regex", regex], "workdir": "/w"})
    ]


def test_codex_1273_and_ninfer_101() -> None:
    raw = '{"command": ["find", ".", "-type", "f", "-regex", ".*\\(\\.cpp\\|\\.h\\)$"]}'
    assert _native(raw, "shell") == [
        ("shell", {"command": ["find", ".", "-type", "f", "-regex", ".*\\(\\.cpp\\|\\.h\\)$"]})
    ]
    raw = '{"command": ["grep -n \'^\\*\\|^* \' notes.md"]}'
    assert _native(raw, "shell") == [("shell", {"command": ["grep -n '^\\*\\|^* ' notes.md"]})]


def test_markdown_escapes_elsewhere_are_dropped() -> None:
    raw = '{"query": "snake\\_case and \\*bold\\*"}'
    assert _native(raw, "web_search") == [("web_search", {"query": "snake_case and *bold*"})]


# ---- print(default_api.f(...)) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('print(default_api.web_search(query="tides"))', ("web_search", {"query": "tides"})),
        (
            "print(web_search(query='tides', count=2))",
            ("web_search", {"query": "tides", "count": 2}),
        ),
        # the tool_code fence's tag glued to it, its backticks lost (autogen 6505)
        ("tool_codeprint(default_api.Greetings())", ("Greetings", {})),
        ('Searching.\nprint(default_api.web_search(query="x"))\n', ("web_search", {"query": "x"})),
    ],
)
def test_a_printed_call_is_the_call(text: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert _calls(text) == [expected]
    assert_stream_adds_up(text, TOOLS, list(range(1, len(text))))


@pytest.mark.parametrize(
    "text",
    [
        'print(web_search(query="x"), 3)',
        'print(lookup(query="x"))',
        'x = print(web_search(query="x"))',
        'You can write print(web_search(query="x")) to see it.',
        'print(default_api.web_search(query="x")) # then read it',
        '```python\nimport os\nprint(web_search(query="x"))\n```',
        'print("web_search(query=1)")',
        'print(default_api.web_search(query="x")',
    ],
)
def test_print_that_is_code_or_prose_stays_text(text: str) -> None:
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []


@settings(max_examples=100, deadline=None)
@given(words=st.text(alphabet="abc de.,", min_size=1, max_size=30))
def test_a_sentence_around_a_printed_call_keeps_it_text(words: str) -> None:
    text = f'{words.strip() or "so"} print(default_api.web_search(query="x")) {words}'
    assert repair(text, TOOLS).tool_calls == []


# ---- {"tool_name": {arguments}} ----------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=30), count=st.integers(-5, 500), wrap=st.booleans())
def test_a_name_keyed_object_reads_back_exactly(query: str, count: int, wrap: bool) -> None:
    args: dict[str, Any] = {"query": query, "count": count}
    text = json.dumps({"web_search": {"parameters": args} if wrap else args})
    [call] = repair(text, TOOLS).tool_calls
    assert (call.name, call.arguments) == ("web_search", args)
    assert FailureKind.KEY_ALIAS in [r.kind for r in call.repairs]


def test_name_keyed_objects_in_a_list_and_unbalanced() -> None:
    text = '[{"web_search": {"query": "a"}}, {"write_file": {"path": "p", "content": "c"}}]'
    assert _calls(text) == [
        ("web_search", {"query": "a"}),
        ("write_file", {"path": "p", "content": "c"}),
    ]
    # one closing brace short at the end (nanobot 603): cut off, never valid (promise 9)
    fixed = repair('{ "web_search": { "parameters": { "query": "Hello" } }', TOOLS)
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert bad.name == "web_search"


@pytest.mark.parametrize(
    "text",
    [
        '{"web_search": {"enabled": true}}',  # a key the tool does not declare
        '{"web_search": {"query": "a"}, "other": 1}',  # two keys
        '{"websearch2": {"query": "a"}}',  # a name with other letters
        '{"web_search": "a"}',  # no arguments object
        '{"web_search": {}}',  # nothing the tool declares
        'Settings: {"web_search": {"parameters": {"safe": true}}}',
    ],
)
def test_objects_that_are_not_name_keyed_calls_stay_text(text: str) -> None:
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == text


# ---- a fence's tag between a placed name and its arguments ------------------------------

READ = openai_tool(
    "Read",
    {"file_path": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
    ["file_path"],
)


@settings(max_examples=100, deadline=None)
@given(path=st.text(alphabet="abc/._-", min_size=1, max_size=20), offset=st.integers(0, 999))
def test_a_fenced_json_after_a_marked_name_reads_back(path: str, offset: int) -> None:
    args = {"file_path": path, "offset": offset}
    text = "Let me look.\n\n<｜DSML｜toolcall>Read\n\n```json\n" + json.dumps(args) + "\n```"
    [call] = repair(text, [READ]).tool_calls
    assert (call.name, call.arguments) == ("Read", args)


@pytest.mark.parametrize(
    "text",
    [
        'Read\n```json\n{"file_path": "a.py"}\n```',  # no markup: a plain name reads key=
        '### Read\n```json\n{"file_path": "a.py"}\n```\nReturns the file.',
        'Use Read like this:\n```json\n{"file_path": "a.py"}\n```',
    ],
)
def test_a_fenced_json_after_an_unmarked_name_stays_text(text: str) -> None:
    assert repair(text, [READ]).tool_calls == []
