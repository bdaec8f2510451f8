"""The fast paths give the answers of the slow ones they skip.

Each shortcut taken for speed (a C-speed decode of a well-formed JSON value, marker
presence by anchor characters, what a scan remembers in its ``ScanReads``, one shared
record past ``max_calls``, the generic scanners skipped inside explicit calls) is held
here to the result of the plain computation, on generated inputs where a promise holds.
What a scan remembers is checked by what it spares (decodes counted), never by its
fields.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import WRITE_FILE, openai_tool

from toolfix import FixConfig, Limits, ManualToolCallFixProcessor, Response, ToolRegistry
from toolfix._repair.jsonparse import DECODE_MISSES, ScanReads, parse_lenient
from toolfix._repair.quickfix import quick_fix
from toolfix._repair.text import find_bracket_end
from toolfix._repair.text import remove_spans as _remove_spans
from toolfix._repair.textscan import _Markers

TOOLS = [
    WRITE_FILE,
    openai_tool("get_weather", {"location": {"type": "string"}}, ["location"]),
]
REGISTRY = ToolRegistry.from_openai(TOOLS)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
containers = st.one_of(
    st.lists(json_values, max_size=4), st.dictionaries(st.text(max_size=6), json_values)
)


@settings(max_examples=300)
@given(
    value=containers,
    before=st.text(alphabet="ab {[\"'", max_size=5),
    after=st.text(alphabet="ab }]\"'<", max_size=5),
    compact=st.booleans(),
    stop_cut=st.integers(min_value=0, max_value=3),
)
def test_well_formed_json_span_matches_the_bracket_scan(
    value: Any, before: str, after: str, compact: bool, stop_cut: int
) -> None:
    body = json.dumps(value, separators=(",", ":") if compact else None, ensure_ascii=False)
    text = before + body + after
    start = len(before)
    stop = len(text) - stop_cut
    fast = find_bracket_end(text, start, Limits(), stop=stop, reads=ScanReads())
    slow = find_bracket_end(text, start, Limits(), stop=stop)  # (no reads: the bracket scan)
    assert fast == slow


#: JSON-ish pieces, well-formed or broken, that a text of several values is made of.
_pieces = st.sampled_from(
    [
        '{"a": 1}',
        '{"a": [1, 2}',
        '{"a": 1,}',
        "{'a': 'x'}",
        '{"a": "b"',
        '[{"a": "}"}]',
        "[1, 2",
        '{"a": {"b": [true, null]}}',
        "prose, ",
        "\n",
        "}",
    ]
)


@settings(max_examples=300)
@given(pieces=st.lists(_pieces, max_size=12), stop_cut=st.integers(min_value=0, max_value=4))
def test_what_a_scan_remembers_never_changes_a_span_or_a_parse(
    pieces: list[str], stop_cut: int
) -> None:
    """Reading every value of one text with one ``ScanReads`` (spans remembered, failed
    decodes counted and capped, known-broken payloads not decoded again) gives the
    spans and parses of reading each with none."""
    text = "".join(pieces)
    reads = ScanReads()
    limits = Limits()
    stop = max(0, len(text) - stop_cut)
    for start in [i for i, ch in enumerate(text) if ch in "{["]:
        for end_at in (None, stop):
            if end_at is not None and end_at <= start:
                continue
            kept = find_bracket_end(text, start, limits, stop=end_at, reads=reads)
            plain = find_bracket_end(text, start, limits, stop=end_at)
            assert kept == plain
            assert _parsed(text[start : kept.end], limits, reads) == _parsed(
                text[start : plain.end], limits, None
            )


def _parsed(payload: str, limits: Limits, reads: ScanReads | None) -> object:
    try:
        return parse_lenient(payload, limits, cut=False, reads=reads)
    except Exception as exc:  # (the same error, with or without reads)
        return (type(exc), str(exc))


@settings(max_examples=200)
@given(text=st.text(alphabet="ab<|[]=_:()>\n think", min_size=0, max_size=60))
def test_marker_presence_on_long_texts_is_substring_presence(text: str) -> None:
    long_text = "x" * _Markers.MIN_CHARS + text
    markers = _Markers(long_text)
    for marker in ("<|", "think>", "[ARGS]", "to=functions.", "call:", "(", "<tool_call>"):
        assert markers.has(marker) == (marker in long_text)


@settings(max_examples=200)
@given(value=containers, cut=st.booleans())
def test_quick_fix_leaves_valid_json_alone(value: Any, cut: bool) -> None:
    text = json.dumps(value, ensure_ascii=False)
    fixed = quick_fix(text, cut=cut)
    assert fixed.fixes == ()
    assert json.loads(fixed.text) == value


def test_quick_fix_repairs_in_one_stack_of_frames() -> None:
    # a cut-off nested list is dropped whole, the complete members stay
    cut = quick_fix('{"a": 1, "b": [1, 2', cut=True)
    assert json.loads(cut.text) == {"a": 1}
    assert cut.truncated
    # closed markup around unbalanced JSON: the closers are added
    closed = quick_fix("{'a': True, b: [None,", cut=False)
    assert json.loads(closed.text) == {"a": True, "b": [None]}
    assert "converted single-quoted strings" in closed.fixes
    assert "quoted unquoted keys" in closed.fixes


def _decoded_sizes(run: Callable[[], object]) -> list[int]:
    """The length of the text each JSON decode during ``run()`` read in
    (``JSONDecoder.raw_decode`` calls, ``json.loads``' included)."""
    sizes: list[int] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "raw_decode":
            sizes.append(len(frame.f_locals["s"]))

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return sizes


_LONG_ARGS = {"path": "a.md", "content": 'line with "quotes", a tab\t and é\n' * 5000}


@pytest.mark.parametrize(
    "text",
    [
        # a call object (the payload parse takes the span's decode)
        "<tool_call>\n"
        + json.dumps({"name": "write_file", "arguments": _LONG_ARGS}, ensure_ascii=False)
        + "\n</tool_call>",
        # markup that names the tool (the finisher's arguments parse takes it)
        "[TOOL_CALLS]write_file[ARGS]" + json.dumps(_LONG_ARGS, ensure_ascii=False),
    ],
    ids=["payload", "arguments"],
)
def test_a_long_argument_is_decoded_once_and_handed_out_once(text: str) -> None:
    args = _LONG_ARGS
    fixer = ManualToolCallFixProcessor(config=FixConfig(limits=Limits(max_span_chars=2_000_000)))
    fixed = fixer.fix(Response.text_only(text), REGISTRY)
    assert [c.name for c in fixed.tool_calls] == ["write_file"]
    assert fixed.tool_calls[0].arguments == args
    # the span's decode is the payload's parse: one decode of the long value per repair
    sizes = _decoded_sizes(lambda: fixer.fix(Response.text_only(text), REGISTRY))
    assert [size for size in sizes if size > 100_000] == [len(text)]
    # no value is handed out twice: a second repair of the same text gets its own
    again = fixer.fix(Response.text_only(text), REGISTRY)
    assert again.tool_calls[0].arguments == args
    assert again.tool_calls[0].arguments is not fixed.tool_calls[0].arguments


def test_parse_lenient_gives_the_same_value_with_or_without_reads() -> None:
    body = json.dumps({"content": "x" * 70_000})
    text = f"<tool_call>{body}</tool_call>"
    reads = ScanReads()
    find_bracket_end(text, len("<tool_call>"), Limits(), reads=reads)  # decodes the value
    remembered = parse_lenient(body, Limits(), reads=reads)
    fresh_sizes = _decoded_sizes(lambda: parse_lenient(body, Limits()))
    fresh = parse_lenient(body, Limits())
    assert remembered == fresh
    assert remembered.value is not fresh.value
    assert fresh_sizes == [len(body)]
    # the kept value was handed out: the next parse of the same text decodes it afresh
    remembered_sizes = _decoded_sizes(lambda: parse_lenient(body, Limits(), reads=reads))
    assert remembered_sizes == [len(body)]
    assert _decoded_sizes(lambda: parse_lenient(body, Limits(), reads=ScanReads())) == [len(body)]


def test_failed_decodes_in_one_text_are_capped() -> None:
    """A failed decode reads the whole text before it (its error counts the lines): a
    scan tries at most ``DECODE_MISSES`` of them in one text, for any number of broken
    calls, and a payload whose decode failed there is not decoded again."""
    broken = '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "b",}}'
    fixer = ManualToolCallFixProcessor(config=FixConfig(limits=Limits(max_calls=10_000)))
    for n in (100, 400):
        text = "Notes.\n" + (broken + "</tool_call>\n") * n
        sizes = _decoded_sizes(lambda text=text: fixer.fix(Response.text_only(text), REGISTRY))
        whole = sizes.count(len(text))
        assert whole == DECODE_MISSES
        # each payload is decoded once, repaired: as written it is known broken (the
        # same characters failed in the text)
        assert len(sizes) - whole == n
        fixed = fixer.fix(Response.text_only(text), REGISTRY)
        assert len(fixed.tool_calls) == n  # (each repaired: the trailing comma dropped)


def test_calls_past_max_calls_are_one_record_naming_each() -> None:
    call = '<tool_call>{"name": "get_weather", "arguments": {"location": "Oslo"}}</tool_call>'
    fixer = ManualToolCallFixProcessor(config=FixConfig(limits=Limits(max_calls=2)))
    fixed = fixer.fix(Response.text_only("Here:\n" + call * 5 + "\nDone."), REGISTRY)
    assert [c.name for c in fixed.tool_calls] == ["get_weather", "get_weather"]
    [over] = fixed.invalid_tool_calls
    # nested JSON inside a call's span is text of that call, never counted as a call
    assert over.error == "3 calls over max_calls=2 were not taken"
    assert over.raw == "get_weather, ?, ?"


def test_json_inside_an_explicit_call_is_not_read_again_as_a_call() -> None:
    inner = '{"name": "get_weather", "arguments": {"location": "Oslo"}}'
    call = {"name": "write_file", "arguments": {"path": "a", "content": inner}}
    text = f"See <tool_call>{json.dumps(call)}</tool_call> ok"
    fixed = ManualToolCallFixProcessor().fix(Response.text_only(text), REGISTRY)
    assert [c.name for c in fixed.tool_calls] == ["write_file"]
    assert fixed.tool_calls[0].arguments == {"path": "a", "content": inner}
    assert fixed.text == "See\nok"


def test_remove_spans_takes_flat_pairs() -> None:
    assert _remove_spans("a [x] b [y] c", [2, 5, 8, 11]) == "a\nb\nc"


@settings(max_examples=200)
@given(
    truncated=st.booleans(),
    where=st.sampled_from([("call_in_content", "native_markup"), ("code_fence",), ()]),
    extra=st.sampled_from([(), ("pythonic",)]),
    payload=st.none() | st.text(max_size=5),
    name=st.none() | st.text(max_size=5),
    string_values=st.booleans(),
    explicit=st.booleans(),
)
def test_format_make_is_make_candidate(
    truncated: bool,
    where: tuple[str, ...],
    extra: tuple[str, ...],
    payload: str | None,
    name: str | None,
    string_values: bool,
    explicit: bool,
) -> None:
    """A format's ``_make`` builds the candidate :func:`make_candidate` builds (it
    inlines it), kinds included (taken as ``where`` itself when nothing is added)."""
    from toolfix._repair.formats._base import _kinds, make_candidate
    from toolfix._repair.formats.llama import LlamaFormat

    fmt = LlamaFormat()  # (its arguments key is not the default one)
    text = "<x>some call text</x>"
    options: dict[str, Any] = {
        "payload": payload,
        "name": name,
        "arguments": {"a": 1},
        "where": where,
        "extra": extra,
        "string_values": string_values,
        "explicit": explicit,
        "call_id": "c1",
        "error": None,
        "notes": (("k", "d"),),
    }
    made = fmt._make(text, 3, 17, truncated, **options)
    general = make_candidate(
        text, 3, 17, fmt.name, truncated=truncated, args_key=fmt.args_key, **options
    )
    assert made == general
    assert made.kinds == _kinds(where, extra, truncated)


def _dumps_or_repr(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


@settings(max_examples=300)
@given(
    value=json_values
    | st.dictionaries(st.integers() | st.text(max_size=3), json_values, max_size=3)
    | st.floats()
    | st.sets(st.integers(), max_size=3)
    | st.tuples(st.integers(), st.text(max_size=3))
)
def test_id_text_is_json_dumps(value: Any) -> None:
    """An invalid call's id text (one C encoder made once, no circularity check) is what
    ``json.dumps`` with the same options gives, or the value's ``repr`` when it fails."""
    from toolfix._repair.gate import _id_text

    assert _id_text(value) == _dumps_or_repr(value)


def test_id_text_of_a_circular_value_is_its_repr() -> None:
    from toolfix._repair.gate import _id_text

    looped: dict[str, Any] = {"a": 1}
    looped["self"] = looped
    assert _id_text(looped) == _dumps_or_repr(looped) == repr(looped)
    assert _id_text({"a": object}) == _dumps_or_repr({"a": object})
