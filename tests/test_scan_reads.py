"""What a scan remembers (``ScanReads``) never changes what a format reads.

A scan hands one ``ScanReads`` to every format (``ScanContext.reads``): spans found by
a C-speed decode, a long value decoded once, failed decodes capped per text. A format
given none reads by the plain bracket scan. Every format, on every corpus text and on
the hostile generator's texts, must find the same candidates either way, with one
``ScanReads`` shared by all formats as in a scan."""

from __future__ import annotations

from corpus_texts import corpus_texts
from hostile import INNER_NAME, OUTER_NAME, Example, hostile_examples
from hypothesis import HealthCheck, given, settings

from toolfix import FixConfig
from toolfix._errors import LimitExceededError
from toolfix._repair.formats import Candidate, ScanContext, ToolCallFormat
from toolfix._repair.jsonparse import ScanReads
from toolfix._repair.textscan import TextScanner

FORMATS = TextScanner(FixConfig())._formats


def _read(fmt: ToolCallFormat, text: str, ctx: ScanContext) -> list[Candidate] | str:
    try:
        return fmt.extract(text, ctx)
    except LimitExceededError as exc:  # (the same limit, with or without reads)
        return f"{type(exc).__name__}: {exc}"


def _same_with_and_without_reads(text: str, names: frozenset[str]) -> int:
    """How many formats read ``text``; each read it alike with and without reads."""
    plain = ScanContext(tool_names=names)
    scan = ScanContext(tool_names=names, reads=ScanReads())  # one for all, as in a scan
    read = 0
    for fmt in FORMATS:
        if not fmt.detect(text.__contains__):
            continue
        read += 1
        assert _read(fmt, text, scan) == _read(fmt, text, plain), (fmt.name, text[:200])
    return read


def test_every_format_reads_every_corpus_text_alike_with_or_without_reads() -> None:
    texts = corpus_texts()
    read = sum(_same_with_and_without_reads(text, names) for text, names in texts)
    assert len(texts) > 1000
    assert read > len(texts)  # (the formats did read them)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(example=hostile_examples())
def test_every_format_reads_hostile_texts_alike_with_or_without_reads(example: Example) -> None:
    """Every family's call inside every other family's values, quoted, in reasoning."""
    r = example.response
    texts = [r] if isinstance(r, str) else [r.get("content"), r.get("reasoning_content")]
    for text in texts:
        if isinstance(text, str) and text:
            _same_with_and_without_reads(text, frozenset({OUTER_NAME, INNER_NAME}))
