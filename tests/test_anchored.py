"""The schema-anchored reader (issue 28, docs/finding-calls.md): the manual fixer's last
stage reads an offered tool's name and its parameters' names in whatever syntax surrounds
them, delimited by structure; a sentence that mentions a tool stays text."""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import BASIC_TOOLS
from hypothesis import given, settings
from hypothesis import strategies as st
from streamcheck import assert_stream_adds_up

from toolfix import FailureKind, FixConfig, repair
from toolfix._repair.anchored import _HOLD_HEAD

TOOLS: list[dict[str, Any]] = [
    *BASIC_TOOLS,
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
]


def _calls(text: str, config: FixConfig | None = None) -> list[tuple[str, dict[str, Any]]]:
    fixed = repair(text, TOOLS, config=config)
    return [(c.name, c.arguments) for c in fixed.tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # key => value and --flag runs in a bracket block (hermes-agent #11994, #35935)
        (
            '[TOOL_CALL]\n{tool => "search_web", args => {\n  --query "tides"\n}}\n[/TOOL_CALL]',
            ("search_web", {"query": "tides"}),
        ),
        # a display line a client prints for a call (Copilot gateway #79, hermes-studio #942)
        (
            '[Tool call: get_weather({"city":"Paris","days":2})]',
            ("get_weather", {"city": "Paris", "days": 2}),
        ),
        # the name under a key of its own, the arguments under an unknown one
        (
            '{\n  "tool_name": "read_file",\n  "inputs": {\n    "path": "/tmp/a.md"\n  }\n}',
            ("read_file", {"path": "/tmp/a.md"}),
        ),
        # a command line in a fence that is the whole message (odysseus #2447)
        (
            '```\nread_file path="/etc/hosts" limit=20\n```',
            ("read_file", {"path": "/etc/hosts", "limit": 20}),
        ),
        # attribute pairs in a self-closing element, inside an unknown wrapper
        (
            '<tool_call>get_weather city="Rome" days=4/>',
            ("get_weather", {"city": "Rome", "days": 4}),
        ),
        # keyword arguments on a line of their own
        ('functions.get_weather(city="Oslo")', ("get_weather", {"city": "Oslo"})),
        # a name that starts a line, its arguments after it (hermes-agent issue 13031:
        # ``execute_code code="..."``); the stream holds back from such a line
        (
            'get_weather city="Paris" unit=celsius days=2\n',
            ("get_weather", {"city": "Paris", "unit": "celsius", "days": 2}),
        ),
        ('read_file limit=3 path="/etc/hosts"', ("read_file", {"path": "/etc/hosts", "limit": 3})),
        # the name on its own line, then key: value lines, inside a fence
        (
            "```\nget_weather\ncity: Lima\ndays: 3\n```",
            ("get_weather", {"city": "Lima", "days": 3}),
        ),
    ],
)
def test_calls_in_shapes_no_family_knows(text: str, expected: tuple[str, Any]) -> None:
    fixed = repair(text, TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [expected]
    [call] = fixed.tool_calls
    assert FailureKind.SCHEMA_ANCHORED in [r.kind for r in call.repairs]
    assert fixed.invalid_tool_calls == []


@pytest.mark.parametrize(
    "text",
    [
        "I'll call get_weather for Paris.",
        "Let me use get_weather with city: Paris.",
        "You can run `read_file path=/etc/hosts` yourself.",
        "The read_file tool takes a path: the file to read.",
        # a fenced example with prose around it is documentation, not a call
        "Call it like this:\n```\nread_file path=/etc/hosts\n```\nand it prints the file.",
        # a name that differs in its letters is not the tool's name
        "get_weathers city=Paris",
        # every required parameter must be there
        "get_weather days=2",
        # an argument from a different construct (a later sentence) is not taken
        "get_weather\n\nThe city: Paris is lovely.",
        # a name inside a line is no call: nothing delimits it (the stream holds back
        # from a line that starts with an offered name, not from a word in a sentence)
        "Then get_weather city=Paris",
        # the name's line, then a sentence (or a heading) is no command
        "get_weather\nThe city of Paris is lovely.",
        # with no markup, only key=value pairs on the name's line are read: a
        # "key: value" is prose ("Get_weather city: Paris, sunny"), and key: value lines
        # under a bare name have no two public sources yet
        "get_weather\ncity: Lima",
        "get_weather city: Lima",
        "Get_weather city=Lima",
        # with no closer, a bare last value that runs to the end of the text, or a
        # parameter left out, may be the cut of a longer line (G1)
        'get_weather city="Paris" unit=celsius days=2',
        'get_weather city="Paris"',
        'read_file path="/etc/hosts"',
    ],
)
def test_mentions_of_tools_stay_text(text: str) -> None:
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.text == text


def test_the_switch_turns_the_reader_off() -> None:
    text = '<get_weather city="Paris"/>'
    assert _calls(text) == [("get_weather", {"city": "Paris"})]
    assert _calls(text, FixConfig(schema_anchored=False)) == []


def test_values_are_coerced_and_validated_as_usual() -> None:
    # a bare value is text until the schema types it; an enum value outside the set fails
    assert _calls("<get_weather city=Rome days=4/>") == [
        ("get_weather", {"city": "Rome", "days": 4})
    ]
    assert _calls("<get_weather city=Rome days=four/>") == []


def test_a_call_cut_off_stays_reported_as_cut_off() -> None:
    # the family reader reports a truncated call: the anchored reader never replaces it
    fixed = repair('<tool_call>{"name": "get_weather", "arguments": {"city": "Pa', TOOLS)
    assert fixed.tool_calls == []
    [bad] = fixed.invalid_tool_calls
    assert bad.kind == FailureKind.TRUNCATED


def test_an_unclosed_quoted_value_is_not_guessed() -> None:
    assert _calls('<get_weather city="Paris') == []


def test_the_stream_hold_pattern_is_the_streams() -> None:
    from toolfix._repair.anchored import _STREAM_HOLD
    from toolfix._stream.core import _MARKUP_START

    assert _STREAM_HOLD.pattern == _MARKUP_START.pattern


def test_family_markers_are_noise_not_grammar() -> None:
    # an unknown wrapper around a known invoke grammar, spelled with curly quotes
    text = (
        "[Calling tool: read_file]\n"
        "<parameter name=\u201cpath\u201d>/srv/x.log</parameter>\n</invoke>"
    )
    assert _calls(text) == [("read_file", {"path": "/srv/x.log"})]


def test_the_text_around_a_call_stays() -> None:
    fixed = repair('Checking now.\n<get_weather city="Oslo"/>\nBack soon.', TOOLS)
    assert [c.name for c in fixed.tool_calls] == ["get_weather"]
    assert fixed.text == "Checking now.\nBack soon."


_WORDS = st.sampled_from(
    ["I", "will", "call", "the", "use", "then", "city", "Paris", "with", "now", "and", "query"]
)


@settings(max_examples=100, deadline=None)
@given(
    before=st.lists(_WORDS, min_size=1, max_size=6),
    name=st.sampled_from(["get_weather", "search_web", "read_file", "functions.get_weather"]),
    after=st.lists(
        st.sampled_from(["city=Paris", "query: tides", "path=/a", "Paris", "."]), max_size=4
    ),
)
def test_a_name_inside_a_sentence_is_never_a_call(
    before: list[str], name: str, after: list[str]
) -> None:
    """Safety: words before the name on its line make it a mention, whatever follows."""
    text = " ".join([*before, name, *after])
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []


_NOISE = st.text(alphabet="ab=:\"'{}[]<>/-\n \t,", max_size=40)


@settings(max_examples=150, deadline=None)
@given(
    head=_NOISE,
    name=st.sampled_from(["get_weather", "read_file", "search_web"]),
    tail=_NOISE,
    keys=st.lists(st.sampled_from(["city", "days", "path", "limit", "query", "x"]), max_size=4),
)
def test_anchored_calls_are_valid_and_keep_to_the_schema(
    head: str, name: str, tail: str, keys: list[str]
) -> None:
    """Whatever the surrounding syntax, a call the reader makes validates: its tool is
    offered, its keys are that tool's parameters, its required ones are all there."""
    text = head + "\n" + name + " " + " ".join(f"{k}=1" for k in keys) + tail
    fixed = repair(text, TOOLS)
    props = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
    for call in fixed.tool_calls:
        schema = props[call.name]
        assert set(call.arguments) <= set(schema["properties"])
        assert set(schema.get("required", ())) <= set(call.arguments)


_SHAPES = st.sampled_from(
    [
        '[TOOL_CALL]\n{tool => "search_web", args => {\n  --query "tides"\n}}\n[/TOOL_CALL]',
        '[Tool call: get_weather({"city":"Paris","days":2})]',
        '{"tool_name": "read_file", "inputs": {"path": "/tmp/a"}}',
        '<get_weather city="Oslo"/>',
        "```\nread_file path=/etc/hosts\n```",
        "get_weather city=Paris",
        "I'll call get_weather for Paris.",
        "get_weather\ncity: Lima",
        "<parameter=read_file>\n<parameter=path>\n/tmp/a\n</parameter>\n</function>",
        "<parameter=read_file>\n<parameter=path>\n/tmp/a\n</parameter>",  # (not closed)
        '[Tool Use: get_weather]\n<parameter name="city">Lima</parameter>\n</invoke>',
        "[Tool Use: get_weather]",  # (no argument: the city is required)
        "<parameter=list_tools>\n</function>",
        "Use list_tools next.\n</function>",
    ]
)
_PROSE = st.sampled_from(["", "Sure.\n", "Checking now. ", "\nDone."])


@settings(max_examples=120, deadline=None)
@given(
    before=_PROSE,
    shape=_SHAPES,
    after=_PROSE,
    cuts=st.lists(st.integers(0, 200), max_size=8),
)
def test_a_stream_adds_up_to_repair_on_anchored_shapes(
    before: str, shape: str, after: str, cuts: list[int]
) -> None:
    """Streaming promise: any split of a message holding an anchored call (or a mention)
    adds up to what repair() gives for the whole message, and never sends its text."""
    assert_stream_adds_up(before + shape + after, TOOLS, cuts)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *("a", " ", ":", "=", "<", "(", "to", "to=", "Action", "call", "recall"),
                *("functools", "functools_x", "Thought", "Observation", "\n", "é", "_"),
                *("x1", "｜", "`"),
                *(" " * 40, "\n\n" * 20, "Input", "Action" + " " * 30, "word " * 8),
            ]
        ),
        max_size=14,
    ),
    st.integers(0, 400),
    st.integers(_HOLD_HEAD + 1, 80),
)
def test_the_quick_hold_search_is_the_streams(pieces: list[str], upto: int, reach: int) -> None:
    """The reader's bounded search finds where the stream starts holding content back
    whenever that is at or before ``upto`` (the last name's end), and otherwise a place
    past it or none; stopped after ``reach`` more characters (blank runs that reach the
    stop included: ``Action`` and 30 blanks, then more)."""
    from toolfix._repair.anchored import _STREAM_HOLD, _stream_hold

    text = "".join(pieces)
    m = _STREAM_HOLD.search(text)
    full = m.start() if m else -1
    held = _stream_hold(text, upto, reach)
    if 0 <= full <= upto:
        assert held == full
    else:
        assert held == -1 or held > upto


def test_the_hold_search_heads_are_short() -> None:
    """:func:`_stream_hold` relies on the markup starts' fixed heads being shorter than
    ``_HOLD_HEAD`` and holding, past it, only blanks and letters (word openers)."""
    from toolfix._repair.anchored import _STREAM_HOLD

    pattern = _STREAM_HOLD.pattern
    inner = pattern[pattern.index("(?:") + 3 : -1]  # (past the first characters' lookahead)
    for alt in re.split(r"(?<!\\)\|", inner):
        if alt.startswith("["):
            continue  # (one character)
        alt = alt.removeprefix("(?<![^\\n])")  # (a line's start: stripped.py's heads)
        words = alt.removeprefix("\\b").replace("\\s*", " ").replace("\\s+", " ")
        head, _, rest = words.partition(" ")
        assert len(head) < _HOLD_HEAD, alt
        assert all(c.isalpha() or c in " :" for c in rest), alt


# ---- the name as the first argument element's, a display header, no-argument tools ------

_ZERO = [
    *TOOLS,
    {
        "type": "function",
        "function": {"name": "list_tools", "parameters": {"type": "object", "properties": {}}},
    },
]


def _zero_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in repair(text, _ZERO).tool_calls]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # signalnine/q27 #24 and #38: the tool's name in the first <parameter=...> opener
        (
            "<parameter=read_file>\n<parameter=path>\n/tmp/a.md\n</parameter>\n</function>",
            [("read_file", {"path": "/tmp/a.md"})],
        ),
        (
            "<parameter=list_tools>\n</function>\n<parameter=read_file>\n"
            "<parameter=path>\n/b\n</parameter>\n</function>\n</tool_call>",
            [("list_tools", {}), ("read_file", {"path": "/b"})],
        ),
        # Roo-Code #10547: a display header, then the arguments as elements
        (
            '[Tool Use: get_weather]\n<parameter name="city">Lima</parameter>\n</invoke>',
            [("get_weather", {"city": "Lima"})],
        ),
        # a tool without arguments: its name, then only its construct's closer
        ("<parameter=list_tools></function>", [("list_tools", {})]),
        ("<list_tools></list_tools>", [("list_tools", {})]),
        ("list_tools()", [("list_tools", {})]),
    ],
)
def test_a_name_an_opener_puts_first_is_read(
    text: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    assert _zero_calls(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # cut before the wrapper's end tag: the next argument may still come
        "<parameter=read_file>\n<parameter=path>\n/tmp/a.md\n</parameter>\n",
        '[Tool Use: get_weather]\n<parameter name="city">Lima</parameter>\n',
        # a header with no argument of a tool that requires one (Roo-Code #10459)
        "[Tool Use: get_weather]",
        # a name without arguments and no closer, or a tool that requires arguments
        "<parameter=list_tools>\n",
        "Use list_tools next.\n</function>",
        "<parameter=get_weather>\n</function>",
        # the opener in prose or inline code is no opener
        "We use `[Tool Use: get_weather]` headers.",
        "The `<parameter=read_file>` element is the name.\n</function>",
    ],
)
def test_what_an_opener_does_not_close_stays_text(text: str) -> None:
    assert _zero_calls(text) == []


def _reader_operations(text: str) -> int:
    """Function calls the manual fixer makes to repair ``text`` (operations: a count, not a
    time, so a loaded machine does not move it)."""
    import cProfile
    import pstats

    from toolfix import ManualToolCallFixProcessor, ToolRegistry
    from toolfix._convert import response_from_openai

    registry = ToolRegistry.from_openai(_ZERO)
    fixer = ManualToolCallFixProcessor()
    response = response_from_openai({"role": "assistant", "content": text})
    fixer.fix(response, registry)  # (warm: the registry's tables built once)
    prof = cProfile.Profile()
    prof.enable()
    fixer.fix(response, registry)
    prof.disable()
    return int(pstats.Stats(prof).total_calls)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "unit",
    [
        "<parameter=read_file>\n<parameter=path>\n/a\n</parameter>\n</function>\n",
        "[Tool Use: get_weather]\n",
        "<parameter=list_tools>\n",
        "read_file get_weather list_tools ",
        "<parameter=read_file>\n<parameter=path>\n",
        # names that start lines (read without markup: key=value pairs, a name alone)
        'get_weather city="a"\n',
        "get_weather city: a\n",
        "get_weather\n",
        'Use get_weather.\n{"city": "a"}\n',
    ],
)
def test_the_readers_work_grows_linearly(unit: str) -> None:
    """Doubling the input at most doubles the operations (with room for constants): names,
    openers and unclosed runs are each read once, left to right."""
    small, big = _reader_operations(unit * 30), _reader_operations(unit * 120)
    assert big <= 4.5 * small, (small, big)
