"""The scan's marker index answers ``marker in text`` through whichever callable is
cheapest for the text (``_Markers.tester``): a short text's own ``in``, a long text's
anchor index. Both answer as ``in`` does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix._repair.textscan import _Markers

_MARKERS = ["->>", "=", "= {", '"role"', "|", "---", "<!--", "name>", "Observation", "> "]
_pieces = st.sampled_from([*_MARKERS, "a", " ", "\n", "<", ">", "-", "x" * 50])


@settings(max_examples=200, deadline=None)
@given(st.lists(_pieces, max_size=40), st.integers(0, 2), st.sampled_from(_MARKERS))
def test_tester_answers_as_in(pieces: list[str], pad: int, marker: str) -> None:
    # (pad 1 and 2 make the text long: past _Markers.MIN_CHARS, the anchor index answers)
    text = "".join(pieces) + " " * (pad * _Markers.MIN_CHARS // 2)
    markers = _Markers(text)
    assert markers.tester()(marker) is (marker in text)
    assert markers.has(marker) is (marker in text)
