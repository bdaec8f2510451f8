"""The quoted regions of a text (blockquote lines, HTML comments) found through the
text's markers (``textscan._Quotes``): on long texts the blockquote test reads the
positions of ``>``, on short ones one regex search; both answer as the line regex."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix._repair.textscan import _QUOTE_LINE_RE, _Markers, _may_quote_lines, _Quotes

_PIECES = st.sampled_from(
    ["\n", " ", "  ", "   ", "    ", ">", "a", "<!--", "-->", "\n>", "\n   >", "\n    >", "x>y"]
)


def _texts(min_chars: int) -> st.SearchStrategy[str]:
    """Texts of quote-like pieces, padded with prose to at least ``min_chars``."""
    return st.tuples(st.lists(_PIECES, max_size=30), st.integers(0, 40)).map(
        lambda t: (
            ("word " * (min_chars // 5 + 1))[: max(0, min_chars - 40)] + "".join(t[0]) + "z" * t[1]
        )
    )


@settings(max_examples=300, deadline=None)
@given(st.one_of(_texts(0), _texts(_Markers.MIN_CHARS)), st.booleans())
def test_quote_lines_are_found_as_the_line_regex_finds_them(text: str, lead: bool) -> None:
    if lead:
        text = "  > quoted\n" + text
    markers = _Markers(text)
    assert _may_quote_lines(markers) is (_QUOTE_LINE_RE.search(text) is not None)


@settings(max_examples=200, deadline=None)
@given(st.one_of(_texts(0), _texts(_Markers.MIN_CHARS)))
def test_quoted_spans_hold_what_the_regex_and_comments_hold(text: str) -> None:
    quotes = _Quotes(_Markers(text))
    spans = quotes.spans()
    lines = [m.end() for m in _QUOTE_LINE_RE.finditer(text)]
    for at in lines:  # (a line with nothing after its ``>`` quotes nothing)
        assert quotes.holds(at) or at == len(text) or text[at] == "\n"
    comment = text.find("<!--")
    if comment != -1:
        assert any(s == comment + 4 for s, _ in spans)
    if not lines and comment == -1:
        assert spans == []
