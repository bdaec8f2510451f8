"""The schema-anchored reader (issue 28, docs/finding-calls.md): the manual fixer's last
stage reads an offered tool's name and its parameters' names in whatever syntax surrounds
them, delimited by structure; a sentence that mentions a tool stays text."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from conftest import BASIC_TOOLS
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FailureKind, FixConfig, repair

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
        # no bracket, tag or fence at or before the name: a stream would already have
        # sent it as prose, so repair() leaves it too (docs/guides/streaming.md)
        "get_weather city=Paris",
        "get_weather\ncity: Lima",
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
    from toolfix import accumulate, repair_stream

    text = before + shape + after
    points = sorted({0, len(text), *(c for c in cuts if 0 < c < len(text))})
    chunks = [
        {
            "id": "s",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": text[a:b]}, "finish_reason": None}],
        }
        for a, b in itertools.pairwise(points)
    ]
    out = list(repair_stream(chunks, TOOLS))
    got = accumulate(out)
    whole = {"role": "assistant", "content": text}
    want = repair({"id": "s", "model": "m", "choices": [{"index": 0, "message": whole}]}, TOOLS)
    assert [(c.name, c.arguments) for c in got.tool_calls] == [
        (c.name, c.arguments) for c in want.tool_calls
    ]
    assert got.text == want.text
    assert out[-1]["toolfix"]["content_mismatch"] is False


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *("a", " ", ":", "=", "<", "(", "to", "to=", "Action", "call", "recall"),
                *("functools", "functools_x", "Thought", "Observation", "\n", "é", "_"),
                *("x1", "｜", "`"),
            ]
        ),
        max_size=14,
    )
)
def test_the_quick_hold_search_is_the_streams(pieces: list[str]) -> None:
    """The reader's two-step search finds where the stream starts holding content back."""
    from toolfix._repair.anchored import _STREAM_HOLD, _stream_hold

    text = "".join(pieces)
    m = _STREAM_HOLD.search(text)
    assert _stream_hold(text) == (m.start() if m else -1)
