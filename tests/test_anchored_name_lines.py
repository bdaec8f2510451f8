"""Name-anchored calls the schema-anchored reader reads (issue 28, docs/finding-calls.md):
a name that starts a line with its arguments after it, a name alone on the message's
first line then its one string argument, a bracketed ``[tool_call: name for key
'value']``, a name given as an open tag's attribute after others, the tool named in
prose then a bare arguments object; and the prose around such shapes that stays text."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up
from tooldefs import openai_tool

from toolfix import FailureKind, repair
from toolfix._repair.nametable import name_line_start, name_table

TOOLS: list[dict[str, Any]] = [
    openai_tool("bash", {"command": {"type": "string"}}, ["command"]),
    openai_tool("execute_code", {"code": {"type": "string"}}, ["code"]),
    openai_tool(
        "read_file",
        {"absolute_path": {"type": "string"}, "limit": {"type": "integer"}},
        ["absolute_path"],
    ),
    openai_tool(
        "web_search",
        {"query": {"type": "string"}, "time_filter": {"type": "string"}},
        ["query"],
    ),
    openai_tool("web_fetch", {"url": {"type": "string"}}, ["url"]),
    openai_tool(
        "tag_chat",
        {"chat_name": {"type": "string"}, "title": {"type": ["string", "null"]}},
        ["chat_name", "title"],
    ),
]


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    fixed = repair(text, TOOLS)
    for call in fixed.tool_calls:
        assert FailureKind.SCHEMA_ANCHORED in [r.kind for r in call.repairs]
    return [(c.name, c.arguments) for c in fixed.tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # name key="value" alone on a line (hermes-agent 13031, odysseus 2447)
        ('execute_code code="print(1)"', ("execute_code", {"code": "print(1)"})),
        (
            'Running it.\nweb_fetch url="https://a.example/x"',
            ("web_fetch", {"url": "https://a.example/x"}),
        ),
        # the gemini-cli display format: [tool_call: name for key 'value'] (easy-llm-cli 57)
        (
            "Let me check.\n\n[tool_call: read_file for absolute_path 'req.txt']\n\nThen more.",
            ("read_file", {"absolute_path": "req.txt"}),
        ),
        # the name as an open tag's attribute after another one, a JSON body (Memoh 435)
        (
            '<tool_call id="call_00_x" name="web_search">\n{"query": "tides"}\n</tool_call>',
            ("web_search", {"query": "tides"}),
        ),
        # the tool's name again as an attribute's quoted value inside its own call: not
        # the next call's name, the run goes on (openclaw 33258)
        (
            'Sure.\n<tool_call>web_fetch tool="web_fetch" url="https://a.example" />',
            ("web_fetch", {"url": "https://a.example"}),
        ),
        # a bare null for a parameter whose schema takes null (bayes-platform 731)
        (
            "default_api:tag_chat{chat_name:ops,title:null}",
            ("tag_chat", {"chat_name": "ops", "title": None}),
        ),
        # the tool named in the last line of prose, then its arguments object (odysseus 4085)
        (
            'Need to search. Use web_search function.\n\n{"query":"cookies","time_filter":"week"}',
            ("web_search", {"query": "cookies", "time_filter": "week"}),
        ),
    ],
)
def test_name_anchored_shapes_are_read(text: str, expected: tuple[str, Any]) -> None:
    assert _calls(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        # a name inside a sentence: nothing delimits a call
        "I'll call bash to echo X.",
        "Then run execute_code code=1 yourself.",
        # the name's line, then raw text: nothing closes it, so a cut output (G1) would
        # give a shorter command; it stays text (jjang-ai/vmlx 192)
        'bash\necho "Tool test successful!"',
        # a bare last value that runs to the end of the text may have been cut (G1)
        "execute_code code=print(1)",
        # the name's line, then a sentence, a heading, a blank line or more lines
        "bash\nRuns a shell command.",
        "bash\nUsage:",
        "bash\n\necho X",
        "bash\necho X\necho Y",
        "Sure.\nbash\necho X",
        # no markup: "key: value" is prose, and the name must be written as declared
        "web_search query: tides",
        "Web_search query=tides",
        # an unclosed quote does not reach past a name placed as a call's
        '<tool_call>web_fetch url="https://a.example\n<tool_call>web_fetch tool="x',
        # a shell's error message names the shell: no call
        "bash: foo: command not found",
        # a key before a quoted value with blanks only is a key only in a closed bracket
        "read_file absolute_path 'a.txt'",
        "[tool_call: read_file for absolute_path 'a.txt'",
        # the bare object: a lead-in to an example, two tools named, a key not declared,
        # a placeholder value, text after it
        'The web_search tool takes:\n{"query": "tides"}',
        'Use web_search or web_fetch.\n{"query": "tides"}',
        'Use web_search.\n{"query": "tides", "page": 2}',
        'Use web_search.\n{"query": "..."}',
        'Use web_search.\n{"query": "tides"}\nThat is the shape.',
        'Here is an example payload for web_search\n{"query": "tides"}',
        'The model emits a web_search call like\n{"query": "tides"}',
        # a bare "null" for a parameter that does not take null stays the string's
        # business of the gate: no call made from a quoted attribute of another tag
        '<a href="x" title="web_search">\n{"query": "tides"}\n</a>',
    ],
)
def test_prose_around_those_shapes_stays_text(text: str) -> None:
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.text == text


_VALUE = st.text(
    alphabet=st.characters(blacklist_characters='"\\\n\r', blacklist_categories=("Cs",)),
    min_size=1,
    max_size=40,
).filter(lambda v: v.strip() == v and v[-1] not in ".:" and v[0] not in "{[<`>")
# (``>`` opens a blockquote: quoted text, never read; the others open other markup)
_PROSE = st.sampled_from(["", "Sure.\n", "Checking it now.\n\n"])


@settings(max_examples=150, deadline=None)
@given(value=_VALUE, before=_PROSE)
def test_a_name_line_call_is_read_back_exactly(value: str, before: str) -> None:
    """A ``name key="value"`` line with any value (no quote or escape in it) is that
    call, its value exactly as written."""
    text = f'{before}execute_code code="{value}"'
    assert _calls(text) == [("execute_code", {"code": value})]


@settings(max_examples=100, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["I", "run", "the", "bash", "then", "Paris", "echo"]),
        min_size=1,
        max_size=6,
    ),
    name=st.sampled_from(["bash", "execute_code", "web_search"]),
    tail=st.sampled_from(['code="x"', "query: tides", "", "\necho X"]),
)
def test_a_name_after_words_on_its_line_is_never_a_call(
    words: list[str], name: str, tail: str
) -> None:
    """Safety: words before the name on its line make it a mention, whatever follows."""
    text = " ".join([*words, name, tail])
    assert repair(text, TOOLS).tool_calls == []


_SHAPES = st.sampled_from(
    [
        'execute_code code="print(1)"',
        "bash\necho X",
        "bash\nRuns a shell command.",
        "bash: foo: command not found",
        "[tool_call: read_file for absolute_path 'a.txt']",
        '<tool_call id="c1" name="web_search">\n{"query": "tides"}\n</tool_call>',
        'Use web_search function.\n\n{"query":"cookies"}',
        "Read web_search docs.\nweb_search\n",
        "bashful\nweb_fetchers",
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    before=st.sampled_from(["", "Sure.\n", "Checking now. ", "x\n"]),
    shape=_SHAPES,
    after=st.sampled_from(["", "\nDone.", " ok"]),
    cuts=st.lists(st.integers(0, 120), max_size=8),
)
def test_a_stream_adds_up_on_name_lines(
    before: str, shape: str, after: str, cuts: list[int]
) -> None:
    """Streaming promise: the stream holds back from a line that starts with an offered
    name, so any split adds up to what repair() gives for the whole message."""
    assert_stream_adds_up(before + shape + after, TOOLS, cuts)


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.sampled_from(["bash", "bash_x", "web_fetch", "\n", " ", "a", ".", ":", "é", "x" * 140]),
        max_size=12,
    ),
    start=st.integers(0, 60),
    at_start=st.booleans(),
)
def test_name_line_start_finds_the_first_name_line(
    pieces: list[str], start: int, at_start: bool
) -> None:
    """The stream's search: the first line at or after ``start`` whose whole first word
    (followed by something) is an offered name, exactly as a plain walk finds it."""
    text = "".join(pieces)
    names = name_table(("bash", "web_fetch"))
    want = -1
    for i in range(start, len(text)):
        if not ((i == 0 and at_start) or (i > 0 and text[i - 1] == "\n")):
            continue
        j = i
        while j < len(text) and (text[j].isalnum() or text[j] in "_.:-"):
            j += 1
        word = text[i:j].rstrip(".:-").replace(":", ".")
        last = word.rsplit(".", 1)[-1]  # (a namespace before the name: its last segment)
        if i < j < len(text) and j - i <= 128 and {word, last} & {"bash", "web_fetch"}:
            want = i
            break
    assert name_line_start(text, names, start, at_start) == want


def test_the_name_line_search_is_linear() -> None:
    """One pass: a megabyte of lines that start with words, none a name, is searched
    with one lookup per line (counted by the names' table)."""
    names = name_table(("bash", "web_fetch"))
    text = "word and more\n" * 70_000
    names.words.clear()
    assert name_line_start(text, names, 0, True) == -1
    assert set(names.words) == {"word"}


@settings(max_examples=200, deadline=None)
@given(
    value=_VALUE,
    tail=st.sampled_from(["", "\n", " then more", "\nDone."]),
    order=st.booleans(),
    data=st.data(),
)
def test_no_cut_of_a_name_line_call_is_admitted(
    value: str, tail: str, order: bool, data: st.DataObject
) -> None:
    """G1 as a property: a cut of a name-line call gives no call the whole text does
    not give (a bare value cut short, a quote left open: no call)."""
    pairs = [f'query="{value}"', "time_filter=week"]
    text = "web_search " + " ".join(pairs if order else pairs[::-1]) + tail
    whole = _calls(text)
    cut = data.draw(st.integers(0, len(text)))
    for call in _calls(text[:cut]):
        assert call in whole
