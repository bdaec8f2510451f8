"""The span bookkeeping of the manual fixer: nested spans are allowed, crossing ones not."""

from __future__ import annotations

from corpus_texts import corpus_texts

from toolfix._errors import LimitExceededError
from toolfix._repair.textscan import _Spans


def test_nested_spans_are_kept_crossing_ones_refused() -> None:
    s = _Spans()
    s.add(10, 20)
    assert not s.crosses(12, 18)  # inside
    assert not s.crosses(5, 30)  # holds it
    assert not s.crosses(10, 25)  # same start, holds it
    assert not s.crosses(20, 30)  # after it
    assert s.crosses(15, 25)  # starts inside, ends after
    assert s.crosses(5, 15)  # starts before, ends inside
    s.add(12, 18)  # held: only outermost spans are kept
    assert (s.starts, s.ends) == ([10], [20])
    s.add(30, 40)
    s.add(5, 45)  # holds both: replaces them
    assert (s.starts, s.ends) == ([5], [45])
    s.add(5, 50)  # same start, longer
    assert (s.starts, s.ends) == ([5], [50])


def test_covers_sees_only_whitespace_outside() -> None:
    s = _Spans()
    text = "  abc  def "
    s.add(2, 5)
    assert not s.covers(text)
    s.add(7, 10)
    assert s.covers(text)


def test_may_open_before_never_hides_a_span() -> None:
    """``may_open_before(text, pos)`` is False only when no span of the format starts
    before ``pos`` and holds the markup there (the masking pass then skips the format).
    Checked on every corpus text: at its own split tokens, and with ``</think>`` written
    in at up to 12 word starts of it."""
    from toolfix import FixConfig
    from toolfix._repair.formats import ScanContext
    from toolfix._repair.textscan import _SPLIT_TOKENS, TextScanner

    formats = TextScanner(FixConfig())._formats
    checked = skipped = 0
    # a lone closer: the span starts at the JSON before it, think markup inside a value
    lone = '{"name": "get_weather", "arguments": {"city": "Paris </think> Nice"}}</tool_call>'
    for original, names in [*corpus_texts(), (lone, frozenset({"get_weather"}))]:
        ctx = ScanContext(tool_names=names)
        starts = [
            i
            for i in range(1, len(original))
            if original[i - 1].isspace() and not original[i].isspace()
        ]
        step = max(1, len(starts) // 12)
        trials = [(original, i) for tok in _SPLIT_TOKENS for i in _all(original, tok)]
        trials += [(original[:i] + "</think>" + original[i:], i) for i in starts[::step]]
        for text, pos in trials:
            for fmt in formats:
                if not fmt.detect(text.__contains__):
                    continue
                try:
                    spans = [(c.start, c.end) for c in fmt.extract(text, ctx)]
                except LimitExceededError:  # a limit, reported as such: not this test's subject
                    continue
                checked += 1
                if not fmt.may_open_before(text, pos):
                    skipped += 1
                    assert not [(s, e) for s, e in spans if s < pos < e], (fmt.name, pos, text)
    assert skipped > 1000  # the test does test something
    assert checked > skipped


def _all(text: str, sub: str) -> list[int]:
    out, i = [], text.find(sub)
    while i != -1:
        out.append(i)
        i = text.find(sub, i + 1)
    return out
