"""Shell command data found from the scanner's index (``toolfix/_repair/shelldata.py``).

``command_data_spans`` read a long text whole three times (``"curl" in text``, ``"echo "
in text``, ``"printf " in text``) on every message, ~1.3 ms per MB of prose. Given the
scanner's index of a character's positions, it now looks for a command only before the
quotes that open a JSON document, found from the indexed ``{`` and ``[``. The spans are
the same as the whole-text search's (a property over drawn texts), and a long text with
an indexed ``{`` is not searched whole.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix._repair import shelldata
from toolfix._repair.shelldata import command_data_spans


def _index(text: str, most: int = 32):  # type: ignore[no-untyped-def]
    def positions(ch: str) -> list[int] | None:
        found = [m.start() for m in re.finditer(re.escape(ch), text)]
        return None if len(found) > most else found

    return positions


_pieces = st.sampled_from(
    [
        "curl ", "curl -X POST http://h ", "-d ", "--data ", "--data-raw=", "--json ",
        "echo ", "printf ", "printf -n ", "echo -e ", "x", "a_", "-", ";", "\n", "\t", "  ",
        "'", '"', "\\", "{", "[", "}", "]", '{"a": 1}', "' | jq", "word ", "xecho ",
    ]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(st.lists(_pieces, max_size=30).map("".join))
def test_the_indexed_search_finds_the_same_spans(text: str) -> None:
    whole = command_data_spans(text)
    indexed = command_data_spans(text, None, _index(text, most=10_000))
    assert indexed == whole, text


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=30).map("".join))
def test_an_unindexed_character_falls_back_to_the_whole_text(text: str) -> None:
    assert command_data_spans(text, None, _index(text, most=1)) == command_data_spans(text)


class _Counting(str):
    """A text that counts its whole-text reads (``in`` and ``find`` with no bounds)."""

    reads = 0

    def __contains__(self, key: object) -> bool:
        _Counting.reads += 1
        return str.__contains__(self, key)  # type: ignore[operator]

    def find(self, sub: str, *args: int) -> int:  # type: ignore[override]
        if not args:
            _Counting.reads += 1
        return str.find(self, sub, *args)


def test_a_long_text_with_an_indexed_brace_is_not_read_whole() -> None:
    prose = "The weather is fine, echo the printf of curl today. " * 20_000
    body = prose + 'curl -d \'{"name": "note"}\' http://x\n' + prose
    text = _Counting(body)
    _Counting.reads = 0
    spans = command_data_spans(text, text.__contains__, _index(body))
    assert _Counting.reads == 0
    assert spans == command_data_spans(body)
    assert len(spans) == 1
    assert len("--data-binary=") <= shelldata._HEAD_WORD
