"""The readers' compiled fast paths give what their general paths give.

- the pythonic reader's hand reading of simple literals (lists and dicts included)
  against :func:`ast.parse` and the whitelist walker;
- the tag reader's patterns (openers, closers, attribute lists, a closer's prefix)
  against the loops that define them, for every declared tagged grammar, and the
  attributes its call and argument steps read in their match against :meth:`_Tags.attrs`;
- the family scanner's wrapper lookups against a first-in-order search;
- a code fence's info string and line end read by matches against a character loop;
- a value decoded by the JSON scanner (typed tag values, name maps, Gemma's tokens)
  against ``json.loads``.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix._repair.formats import pythonic
from toolfix._repair.scanner import _Wrappers
from toolfix._repair.spec import TaggedCalls
from toolfix._repair.specs import ALL_SPECS
from toolfix._repair.tags import _MAX_ATTRS, _attr_dict, _Tags
from toolfix._repair.text import NOT_JSON, next_fence, whole_json

_LIMITS = pythonic.Limits()


def _parsed(src: str) -> pythonic.PyCall | None:
    """``parse_call`` through the parser only."""
    original = pythonic._simple_call
    pythonic._simple_call = lambda _src: None  # type: ignore[assignment]
    try:
        return pythonic.parse_call(src, _LIMITS)
    finally:
        pythonic._simple_call = original  # type: ignore[assignment]


def _typed(value: Any) -> Any:
    """A value with its types spelled out (``1 == 1.0 == True`` in Python)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}, list(value)
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return type(value).__name__, value


def _agree(src: str) -> None:
    fast = pythonic._simple_call(src.strip())
    if fast is None:
        return
    slow = _parsed(src)
    assert slow is not None, src
    assert fast.name == slow.name, src
    assert _typed(fast.arguments) == _typed(slow.arguments), src
    assert (fast.reason, fast.notes) == (slow.reason, slow.notes), src


@pytest.mark.parametrize(
    "src",
    [
        "f(steps=[])",
        "f(a={})",
        "f(a=[1,2,], b={'x': 1, 'x': 2,})",
        'f(a=[1, -2.5, None, ["x"]], b=3)',
        "f(a={'k': [1, {'z': 'y'}]}, )",
        "f(a=[\n  1,\n  2\n])",
        "register_user(name='John Doe', age=37, address={'city': 'San Francisco', "
        "'state': 'CA'}, role=null, passed_test=true, aliases=['John', 'Johnny'])",
        "g.h(x=[true, false, null, True, False, None, -0, -0.0, 0.5])",
        "f(a=[1]b=2)",
        "f(a=[,1])",
        "f(a={,})",
        "f(a=[1 2])",
        "f(a=[1,2][0])",
        "f(a=[1,2] if x else 3)",
        "f(a={1, 2})",
        "f(a={1: 2})",
        "f(a={'k' 'j': 2})",
        "f(a=['x' 'y'])",
        "f(a=[(1)])",
        "f(a=[*b])",
        "f(a={**b})",
        "f(a=[x for x in y])",
        "f(a=[[[[[[[[[[1]]]]]]]]]])",
        "f(a=[1], a=[2])",
        "f(a=[1],\r b=2)",
        "f(a=[1 # c\n])",
    ],
)
def test_simple_literals_read_as_the_parser_reads_them(src: str) -> None:
    _agree(src)


_SCALARS = st.sampled_from(
    ["1", "-2", "0", "3.25", "-0.0", "'a b'", '"x"', "''", "None", "true", "null", "False"]
)
_BLANK = st.sampled_from(["", " ", "\n", "  \t"])


def _values(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _SCALARS
    inner = _values(depth - 1)
    items = st.lists(st.tuples(_BLANK, inner, _BLANK), max_size=3)
    lists = st.builds(
        lambda xs, comma: "[" + ",".join(b + v + a for b, v, a in xs) + "," * comma + "]",
        items,
        st.booleans(),
    )
    keys = st.sampled_from(["'k'", '"k"', "'j'", "1", "None"])
    pairs = st.lists(st.tuples(keys, _BLANK, inner), max_size=3)
    dicts = st.builds(lambda ps: "{" + ", ".join(f"{k}{b}:{v}" for k, b, v in ps) + "}", pairs)
    return st.one_of(inner, lists, dicts)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "if", "c_1"]), _values(3)), max_size=3))
def test_generated_literals_read_as_the_parser_reads_them(args: list[tuple[str, str]]) -> None:
    _agree("f(" + ", ".join(f"{k}={v}" for k, v in args) + ")")


_GRAMMARS = [
    g
    for spec in ALL_SPECS
    for g in (spec.grammar, *spec.alternatives)
    if isinstance(g, TaggedCalls)
]


def _texts(tags: _Tags) -> list[str]:
    """Short texts around the grammar's tags: its own spellings, other prefixes,
    stray characters after the word, attribute lists of every shape."""
    s, g = tags.s, tags.g
    words = [w for w in (g.call, g.param, "other") if w]
    prefixes = [*s.prefixes, "x:", "｜DSML｜"]
    tails = [
        "",
        " ",
        "\n",
        s.end,
        "/",
        "=",
        "a",
        "²",
        "1",
        "Ġ",
        ' name="f"' + s.end,
        ' name="f" string="true"' + s.end,
        " name='f'/" + s.end,
        ' name="f" / ' + s.end,
        ' a="1" b="2" c="3"' + s.end,
        'name="f"' + s.end,
        ' name="a&amp;b" x="&quot;"' + s.end,
        ' 1="x"' + s.end,
        ' name="f"Ġ' + s.end,
        ' name="f"/Ġ' + s.end,
        ' name = "f"' + s.end,
        ' name="f' + s.end,
        ' name="f"',
    ]
    out = []
    for word, prefix, tail in itertools.product(words, prefixes, tails):
        out.append(s.open + prefix + word + tail)
        out.append("x" + s.close + prefix + word + s.end + tail)
    return out


@pytest.mark.parametrize("grammar", _GRAMMARS, ids=lambda g: f"{g.call}-{g.syntax.open}")
def test_tag_patterns_agree_with_the_loops(grammar: TaggedCalls) -> None:
    tags = _Tags(grammar)
    words = [w for w in (grammar.call, grammar.param, "other") if w]
    for text in _texts(tags):
        for word in words:
            for k in range(min(len(text), 3)):
                assert tags.open_at(text, k, word) == tags._open_loop(text, k, word), text
            k = text.find(tags.s.close)
            if k != -1:
                loop = _close_loop(tags, text, k, word)
                assert tags.close_at(text, k, word) == loop, text
            assert tags.find_close(text, word, 0, len(text)) == _find_close_loop(
                tags, text, word
            ), text
        for i in range(len(text)):
            assert tags.attrs(text, i) == tags._attrs_loop(text, i), (text, i)


@pytest.mark.parametrize("grammar", _GRAMMARS, ids=lambda g: f"{g.call}-{g.syntax.open}")
def test_folded_attributes_agree_with_attrs(grammar: TaggedCalls) -> None:
    """``head`` and ``step`` read an opener's attributes in their own match (groups 1
    and 4); where those groups match within the bound, the readers take them as
    :meth:`_Tags.attrs` would read them after the opener."""
    tags = _Tags(grammar)
    s = tags.s
    long = ' name="' + "x" * _MAX_ATTRS + '"' + s.end
    texts = _texts(tags)
    texts += [s.open + p + w + long for p in s.prefixes for w in (grammar.call, grammar.param) if w]
    seen = 0
    for text in texts:
        for rx, group in ((tags.head, 1), (tags.step, 4)):
            m = None if rx is None else rx.match(text)
            if m is None or m.lastindex != group:
                continue
            seen += 1
            at = m.start(group)
            if m.end() - at > _MAX_ATTRS:  # the readers ask attrs() then
                continue
            *pairs, closing = m.group(*range(group + 1, group + 8))
            folded = _attr_dict(*pairs, grammar.unescape_attrs), m.end(), closing is not None
            assert folded == tags.attrs(text, at), text
    assert seen or tags.head is None


def _close_loop(tags: _Tags, text: str, k: int, word: str) -> int:
    s = tags.s
    if not text.startswith(s.close, k):
        return -1
    j = k + len(s.close)
    for prefix in s.prefixes:
        if text.startswith(prefix + word + s.end, j):
            return j + len(prefix + word + s.end)
    return -1


def _find_close_loop(tags: _Tags, text: str, word: str) -> tuple[int, int]:
    target = word + tags.s.end
    pos = 0
    while True:
        k = text.find(target, pos)
        if k == -1:
            return -1, -1
        for prefix in tags.s.prefixes:
            start = k - len(prefix) - len(tags.s.close)
            if start >= 0 and text.startswith(tags.s.close + prefix, start):
                return start, k + len(target)
        pos = k + 1


def test_wrapper_lookups_take_the_first_token_in_order() -> None:
    rng = random.Random(7)
    wrappers = (("<a>", "</a>"), ("x<a>", "</a>x"), ("<b>", ""), ("", "</b>"), ("a>", "</"))
    w = _Wrappers(wrappers)
    opens = [o for o, _c in wrappers if o]
    closes = [c for _o, c in wrappers if c]
    pieces = ["<a>", "x<a>", "a>", "<b>", "</a>", "</a>x", "</b>", "</", " ", "\n", "z"]
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        first = next((o for o in opens if text.endswith(o)), "")
        assert w._first_end(text) == len(first), text
        # up to four times: white space, then the first closer in order
        end = 0
        for _ in range(4):
            k = len(text) - len(text[end:].lstrip())
            hit = next((c for c in closes if text.startswith(c, k)), None)
            if hit is None:
                break
            end = k + len(hit)
        assert w._closes is not None
        assert w._closes.match(text).end() == end, text  # type: ignore[union-attr]


def _fence_loop(text: str, pos: int, max_lang_chars: int) -> tuple[int, int, int, int, str, bool]:
    """:func:`next_fence` read a character at a time (what its matches stand for)."""
    n = len(text)
    start = text.find("```", pos)
    tilde = text.find("~~~", pos, n if start == -1 else start)
    if tilde != -1:
        start = tilde
    if start == -1:
        return (-1, -1, -1, -1, "", False)
    i = start + 3
    while i < n and text[i] == text[start]:
        i += 1
    ticks = text[start:i]
    j = i
    limit = min(n, i + max_lang_chars)
    while j < limit and (text[j].isalnum() or text[j] in "_-+.#"):
        j += 1
    body_start = k = j
    while k < n and text[k] in " \t":
        k += 1
    if k < n and text[k] == "\n":
        body_start = k + 1
    close = text.find(ticks, body_start)
    if close == -1:
        return (start, body_start, n, n, text[i:j].lower(), False)
    return (start, body_start, close, close + len(ticks), text[i:j].lower(), True)


def test_fence_matches_read_as_the_character_loop_reads() -> None:
    rng = random.Random(11)
    pieces = ["`", "~", "a", "Z", "1", "²", "ǅ", "_", "-", "+", ".", "#", " ", "\t", "\n"]
    pieces += ["\r", "{", "é", "٣", "Ⅻ", "\u3000", "\u00a0"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        for most in (40, 3):
            fence = next_fence(text, 0, max_lang_chars=most)
            got = (-1, -1, -1, -1, "", False) if fence is None else dataclasses.astuple(fence)
            assert got == _fence_loop(text, 0, most), text


def _loads(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return NOT_JSON


@pytest.mark.parametrize(
    "body",
    [
        "true",
        "false",
        "null",
        "42",
        "-0",
        "0123",
        "1.5e3",
        "NaN",
        "-Infinity",
        '"a"',
        '"a',
        "[1, 2]",
        '{"a": [1]}',
        "{}",
        "[1] x",
        r'"a\"b"',
        r'"\u00e9"',
        r'"bad\x"',
        '"tab\tin"',
        "1 2",
        "",
        "\ufeff1",
        "tru",
        "1,",
        "[1,]",
        "'a'",
    ],
)
def test_typed_json_value_as_json_loads(body: str) -> None:
    got, want = whole_json(body), _loads(body)
    assert _typed(got) == _typed(want) or (got != got and want != want), body


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='[]{}"0123456789.,:-+eE tfrunlasTINaN\\\n\ufeff', max_size=12))
def test_typed_json_value_as_json_loads_on_any_text(text: str) -> None:
    body = text.strip()
    got, want = whole_json(body), _loads(body)
    assert (got is NOT_JSON) == (want is NOT_JSON), body
    if got is not NOT_JSON:
        assert json.dumps(got) == json.dumps(want), body
