"""What a stream costs beyond the repair itself (benchmarks/perf_stream.py), counted,
never timed: streams share their configuration's fixer (no scanner, interpreter or
name tables built per stream), their id seed travels with each repair and gives the
ids a seeded configuration gives, the per-chunk reasoning-token check decides exactly as
the generator it replaced, and a megabyte of prose in 4-character chunks costs linear
work."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

from conftest import WEATHER
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_stream import _completion, _key

import toolfix._stream.core as core
from toolfix import FixConfig, ToolRegistry, accumulate, repair, repair_stream
from toolfix._repair import engine
from toolfix._repair.families import THINK_HINTS
from toolfix.testing import pinned_ids

TOOLS = [WEATHER]
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def _chunks(text: str, size: int = 4) -> list[dict[str, Any]]:
    return [
        {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": text[i:j]}}]}
        for i in range(0, len(text), size)
        for j in [i + size]
    ]


def test_streams_share_their_configurations_fixer() -> None:
    """Forty streams (default configuration, and one given without a seed) build at most
    one fixer each: the per-stream seed no longer makes a configuration of its own."""
    registry = ToolRegistry.of(TOOLS)
    given = FixConfig(reasoning_prefilled=False)
    for config in (None, given):
        list(repair_stream(_chunks("warm " + CALL), registry, config=config))
        before = engine.fixer_for.cache_info()
        for i in range(20):
            out = list(repair_stream(_chunks(f"call {i} " + CALL), registry, config=config))
            assert [c.name for c in accumulate(out).tool_calls] == ["get_weather"]
        after = engine.fixer_for.cache_info()
        assert after.misses == before.misses
        assert after.hits >= before.hits + 20


def test_each_stream_has_its_own_ids() -> None:
    """The same text streamed twice gets fresh ids (a seed per stream), and each stream's
    released calls keep theirs to the end."""
    text = "done</think>\n" + CALL + "\n" + CALL
    config = FixConfig(reasoning_prefilled=True)
    with pinned_ids(None):  # (the suite pins ids: fresh ones here, as by default)
        one = accumulate(list(repair_stream(_chunks(text), TOOLS, config=config)))
        two = accumulate(list(repair_stream(_chunks(text), TOOLS, config=config)))
    assert len(one.tool_calls) == len(two.tool_calls) == 2
    assert {c.id for c in one.tool_calls}.isdisjoint(c.id for c in two.tool_calls)


PIECES = st.sampled_from(
    [
        "Let me check. ",
        "\n",
        "<think>",
        "</think>",
        "[THINK]",
        "[/THINK]",
        "<|START_THINKING|>",
        "<|END_THINKING|>",
        "think> ",
        CALL,
        '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
        "`",
        "get_weather\n",
        "]",
        ">",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(PIECES, max_size=12),
    size=st.integers(1, 9),
    prefilled=st.sampled_from([None, True, False]),
    seed=st.integers(0, 2**62),
)
def test_seed_given_or_made_streams_the_same(
    pieces: list[str], size: int, prefilled: bool | None, seed: int
) -> None:
    """A stream whose seed it made itself gives, chunk by chunk, exactly the output of a
    stream given that seed in its configuration (the seed once rode in a per-stream copy
    of the configuration; now it travels with each repair)."""
    text = "".join(pieces)
    chunks = _chunks(text, size)
    given_seed = list(
        repair_stream(chunks, TOOLS, config=FixConfig(reasoning_prefilled=prefilled, id_seed=seed))
    )
    with mock.patch.object(core, "stream_seed", return_value=seed):
        made = list(repair_stream(chunks, TOOLS, config=FixConfig(reasoning_prefilled=prefilled)))
    for a, b in zip(given_seed, made, strict=True):
        a.pop("created", None)
        b.pop("created", None)
        assert a == b


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(PIECES, max_size=12),
    size=st.integers(1, 9),
    prefilled=st.sampled_from([None, True]),
)
def test_reasoning_check_decides_as_the_generator_did(
    pieces: list[str], size: int, prefilled: bool | None
) -> None:
    """On every chunk, :meth:`_Core._open_gate` goes on to decide the gate (it spends
    budget) exactly when the generator it once used, ``any(t in window for t in
    THINK_HINTS)`` over the same window, finds a reasoning hint."""
    real = core._Core._open_gate
    seen: list[tuple[bool, bool]] = []

    def checked(self: Any, piece: str) -> str:
        expected = any(t in self._think_tail + piece for t in THINK_HINTS)
        spent = self._gate_spent
        out = real(self, piece)
        seen.append((expected, self._gate_spent != spent))
        return out

    text = "".join(pieces)
    config = FixConfig(reasoning_prefilled=prefilled)
    with mock.patch.object(core._Core, "_open_gate", checked):
        list(repair_stream(_chunks(text, size), TOOLS, config=config))
    assert all(expected == went_on for expected, went_on in seen)


def test_the_reasoning_check_sees_every_hint() -> None:
    """Each hint of the registry, split across two chunks anywhere, is seen."""
    for hint in THINK_HINTS:
        for cut in range(1, len(hint)):
            core_ = core._Core(TOOLS, FixConfig(), hold=False)
            core_.add("Let me check " + hint[:cut])
            spent = core_._gate_spent
            core_.add(hint[cut:] + " ok")
            assert core_._gate_spent > spent, (hint, cut)


def test_a_megabyte_of_prose_costs_linear_work() -> None:
    """1 MB of prose (a few reasoning-token look-alikes in it) in 4-character chunks,
    with the default reasoning setting and with content flowing
    (``reasoning_prefilled=False``): the text given to the gate, the name-line search and
    the repairs adds up to a small multiple of the text."""
    line = "We compare the thinking> of models on long inputs, and weather data.\n"
    text = line * (1_000_000 // len(line)) + CALL
    read: list[int] = []
    gate, lines, fix = core.reasoning_gate, core.name_line_start, core.fix

    def gate_counted(text: str, prefilled: bool | None) -> Any:
        read.append(len(text))
        return gate(text, prefilled)

    def lines_counted(pending: str, *args: Any) -> Any:
        read.append(len(pending))
        return lines(pending, *args)

    def fix_counted(message: Any, *args: Any) -> Any:
        read.append(len(message.text))
        return fix(message, *args)

    for prefilled in (None, False):
        read.clear()
        config = FixConfig(reasoning_prefilled=prefilled)
        with (
            mock.patch.object(core, "reasoning_gate", gate_counted),
            mock.patch.object(core, "name_line_start", lines_counted),
            mock.patch.object(core, "fix", fix_counted),
        ):
            out = list(repair_stream(_chunks(text), TOOLS, config=config))
        assert sum(read) <= (core.RELEASE_BUDGET + 4) * len(text) + 4096
        got = accumulate(out)
        assert _key(got) == _key(repair(_completion({"content": text}), TOOLS, config=config))
        assert json.loads(got.tool_calls[0].arguments_raw) == {"city": "Paris"}
