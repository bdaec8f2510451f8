"""Performance benchmarks of toolfix's manual fixer (plain script, not a test).

Run from the repository root::

    python benchmarks/perf.py all --out benchmarks/results/perf.md
    python benchmarks/perf.py fast-path          # (a) overhead on already-valid calls
    python benchmarks/perf.py repair             # (b) broken calls vs json_repair.loads
    python benchmarks/perf.py scaling            # (c) 1 KB -> 1 MB, growth per doubling
    python benchmarks/perf.py memory             # (d) tracemalloc peak for a 1 MB input
    python benchmarks/perf.py long-string        # (e) long valid argument in <tool_call>
    python benchmarks/perf.py many-calls         # (f) peak memory, thousands of small calls

``--json PATH`` also writes the headline figures (what ``benchmarks/readme_perf.py``
turns into the README's performance paragraph).

Every figure is measured in the same run: each timing is the median of several
repeats (``time.perf_counter_ns``), and the baselines run interleaved with toolfix so
that machine drift affects both sides alike.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib.metadata
import json
import math
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import json_repair
from jsonschema import Draft202012Validator

import toolfix
from toolfix import (
    FixConfig,
    Limits,
    ManualToolCallFixProcessor,
    Response,
    ToolRegistry,
    as_response,
    repair,
)
from toolfix._convert import response_from_openai

ROOT = Path(__file__).resolve().parent
CORPORA = ROOT / "corpora"
KB = 1024

Lines = list[str]

#: Headline figures of this run, by benchmark (written with ``--json``).
FIGURES: dict[str, dict[str, Any]] = {}


# ------------------------------------------------------------------ timing helpers


def _time_batch_ns(fn: Callable[[], object], number: int) -> float:
    """Nanoseconds per call of ``fn``, over one batch of ``number`` calls."""
    start = time.perf_counter_ns()
    for _ in range(number):
        fn()
    return (time.perf_counter_ns() - start) / number


def _interleaved_medians(
    fns: Sequence[Callable[[], object]], *, repeat: int, number: int
) -> list[float]:
    """Median ns per call of each function, batches interleaved across functions."""
    samples: list[list[float]] = [[] for _ in fns]
    for fn in fns:  # warm-up (caches, lazy imports)
        _time_batch_ns(fn, max(1, number // 10))
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            for i, fn in enumerate(fns):
                samples[i].append(_time_batch_ns(fn, number))
    finally:
        if gc_was_enabled:
            gc.enable()
    return [statistics.median(s) for s in samples]


def _fmt_ns(ns: float) -> str:
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def _percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


# ------------------------------------------------------------------ (a) fast path


def _fn_tool(name: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} tool",
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


FAST_TOOLS = [
    _fn_tool(
        "get_weather",
        {"location": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        ["location"],
    ),
    _fn_tool(
        "web_search",
        {"query": {"type": "string"}, "num_results": {"type": "integer", "minimum": 1}},
        ["query"],
    ),
    _fn_tool(
        "create_event",
        {
            "title": {"type": "string"},
            "start": {"type": "string"},
            "attendees": {"type": "array", "items": {"type": "string"}},
            "location": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "room": {"type": "string"}},
            },
        },
        ["title", "start"],
    ),
    _fn_tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}, ["path"]),
]

FAST_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_weather", {"location": "Paris", "unit": "c"}),
    ("web_search", {"query": "latest python release", "num_results": 5}),
    (
        "create_event",
        {
            "title": "Planning",
            "start": "2025-07-01T09:00:00Z",
            "attendees": ["ana@example.com", "bo@example.com", "cy@example.com"],
            "location": {"name": "HQ", "room": "4.12"},
        },
    ),
    ("write_file", {"path": "notes.md", "content": "# Notes\n\n" + "- item with some text\n" * 20}),
]


def _fast_messages() -> list[dict[str, Any]]:
    """Assistant messages with 1..3 native calls whose arguments are valid."""
    msgs: list[dict[str, Any]] = []
    for i in range(len(FAST_CALLS)):
        for width in (1, 2, 3):
            calls = [FAST_CALLS[(i + k) % len(FAST_CALLS)] for k in range(width)]
            msgs.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{i}_{k}",
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                        for k, (name, args) in enumerate(calls)
                    ],
                }
            )
    return msgs


EXTENDED_TOOLS = [
    _fn_tool(
        "get_weather",
        {
            "location": {"type": "string", "minLength": 1, "maxLength": 100},
            "unit": {"anyOf": [{"type": "string", "enum": ["c", "f"]}, {"type": "null"}]},
        },
        ["location"],
    ),
    _fn_tool(
        "web_search",
        {
            "query": {"type": "string", "minLength": 1, "maxLength": 500},
            "num_results": {"type": "integer", "minimum": 1, "maximum": 50},
        },
        ["query"],
    ),
    _fn_tool(
        "create_event",
        {
            "title": {"type": "string", "maxLength": 200},
            "start": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T"},
            "attendees": {
                "type": "array",
                "maxItems": 50,
                "items": {"type": "string", "maxLength": 100},
            },
            "location": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "room": {"type": "string"}},
                    },
                    {"type": "null"},
                ]
            },
        },
        ["title", "start"],
    ),
    _fn_tool(
        "write_file",
        {
            "path": {"type": "string", "pattern": "^[A-Za-z0-9_./-]+$"},
            "content": {"type": "string", "maxLength": 100000},
        },
        ["path"],
    ),
]


def _fast_rows(label: str, tools: list[dict[str, Any]], repeat: int) -> tuple[Lines, float]:
    """Rows for one schema set; returns them and the worst end-to-end ratio."""
    registry = ToolRegistry.from_openai(tools)
    fixer = ManualToolCallFixProcessor()
    messages = _fast_messages()
    responses = [as_response(m) for m in messages]
    validators = {
        t["function"]["name"]: Draft202012Validator(t["function"]["parameters"]) for t in tools
    }
    # sanity: every call is valid for the reference, and the fast path returns the very same
    # object (nothing changed)
    for m in messages:
        for tc in m["tool_calls"]:
            fn = tc["function"]
            assert validators[fn["name"]].is_valid(json.loads(fn["arguments"])), fn
    untouched = sum(fixer.fix(r, registry) is r for r in responses)
    assert untouched == len(responses), "fast path altered a valid response"
    for m in messages:
        fixed = repair(m, tools)
        assert fixed.tool_calls
        assert not fixed.invalid_tool_calls
        assert not fixed.all_repairs

    def reference() -> None:
        for m in messages:
            for tc in m["tool_calls"]:
                fn = tc["function"]
                if not validators[fn["name"]].is_valid(json.loads(fn["arguments"])):
                    raise AssertionError("invalid")

    def with_registry() -> None:
        for m in messages:
            repair(m, registry)

    def with_dicts() -> None:
        for m in messages:
            repair(m, tools)

    def with_new_list() -> None:
        for m in messages:
            repair(m, list(tools))  # a new list of the same dicts on every call

    def fix_only() -> None:
        for r in responses:
            fixer.fix(r, registry)

    def convert_only() -> None:
        for m in messages:
            as_response(m)

    ref, reg, dicts, new_list, fix, conv = _interleaved_medians(
        [reference, with_registry, with_dicts, with_new_list, fix_only, convert_only],
        repeat=repeat,
        number=20,
    )
    per = len(messages)
    FIGURES.setdefault("fast_path_rows", {})[label] = {
        "registry": reg / ref,
        "dicts": dicts / ref,
        "new_list": new_list / ref,
        "dicts_vs_registry": max(dicts, new_list) / reg,
    }
    rows = [
        f"| {label} | reference: `json.loads` + compiled `Draft202012Validator.is_valid` | "
        f"{_fmt_ns(ref / per)} | 1.00× |",
        f"| {label} | `repair(msg, registry)` | {_fmt_ns(reg / per)} | **{reg / ref:.2f}×** |",
        f"| {label} | `repair(msg, tool dicts)` (same list each call) | {_fmt_ns(dicts / per)} | "
        f"**{dicts / ref:.2f}×** ({dicts / reg:.2f}× the registry) |",
        f"| {label} | `repair(msg, list(tool dicts))` (a new list of the same dicts) | "
        f"{_fmt_ns(new_list / per)} | **{new_list / ref:.2f}×** ({new_list / reg:.2f}× the "
        "registry) |",
        f"| {label} | of which `as_response(msg)` | {_fmt_ns(conv / per)} | {conv / ref:.2f}× |",
        f"| {label} | `fixer.fix(response, registry)` (pre-converted) | {_fmt_ns(fix / per)} | "
        f"{fix / ref:.2f}× |",
    ]
    return rows, max(reg, dicts, new_list) / ref


def bench_fast_path(repeat: int = 41) -> Lines:
    """(a) Already-valid native calls: ``repair()`` vs ``json.loads`` + compiled jsonschema."""
    messages = _fast_messages()
    n_calls = sum(len(m["tool_calls"]) for m in messages)
    common, worst_common = _fast_rows("common", FAST_TOOLS, repeat)
    extended, worst_ext = _fast_rows("extended", EXTENDED_TOOLS, repeat)
    worst = max(worst_common, worst_ext)
    dicts_vs_reg = max(r["dicts_vs_registry"] for r in FIGURES["fast_path_rows"].values())
    FIGURES["fast_path"] = {"worst_common": worst_common, "worst_extended": worst_ext}
    checker_rows = _checker_rows(repeat)
    return [
        "## (a) Fast path: already-valid native calls",
        "",
        f"{len(messages)} plain OpenAI assistant messages (dicts), {n_calls} native calls "
        "(1-3 per message, 4 tools incl. nested arrays/objects); median of "
        f"{repeat} interleaved batches, all rows of a schema set measured in one run. "
        "Common schemas: types, `required`, an enum, nested objects and arrays. Extended: "
        "the same plus bounds, lengths, two `pattern`s and `anyOf [T, null]`.",
        "",
        "| schemas | what | per message | vs reference |",
        "| --- | --- | --- | --- |",
        *common,
        *extended,
        "",
        f"Target ≤ 0.50× with dicts or a registry: **"
        f"{'met' if worst <= 0.5 else f'missed by {worst / 0.5 - 1:.0%}'}** (worst {worst:.2f}×). "
        "Every response came back unchanged (same object) and without repairs. "
        f"Target tool dicts within 1.2× of the registry: **"
        f"{'met' if dicts_vs_reg <= 1.2 else f'missed by {dicts_vs_reg / 1.2 - 1:.0%}'}** "
        f"(worst {dicts_vs_reg:.2f}×).",
        "",
        *checker_rows,
    ]


def _checker_rows(repeat: int) -> Lines:
    """Per call: the hand-written checker (toolfix._repair.fastcheck) against jsonschema-rs."""
    import jsonschema_rs

    from toolfix._repair.fastcheck import compile_checker

    rows = [
        "Validity check alone, per call (arguments pre-parsed), the hand-written checker "
        "that answered `is_valid` before against jsonschema-rs's compiled validator "
        "(`ToolDescriptor.is_valid` now asks jsonschema-rs):",
        "",
        "| tool (common schema) | `toolfix._repair.fastcheck` | jsonschema-rs `is_valid` | ratio |",
        "| --- | --- | --- | --- |",
    ]
    for tool, (name, args) in zip(FAST_TOOLS, FAST_CALLS, strict=True):
        schema = tool["function"]["parameters"]
        hand = compile_checker(schema)
        rs = jsonschema_rs.Draft202012Validator(schema)
        if hand is None:
            rows.append(f"| `{name}` | declines the schema | – | – |")
            continue
        assert hand(args)
        assert rs.is_valid(args)
        h, r = _interleaved_medians(
            [functools.partial(hand, args), functools.partial(rs.is_valid, args)],
            repeat=repeat,
            number=2000,
        )
        rows.append(f"| `{name}` | {_fmt_ns(h)} | {_fmt_ns(r)} | {h / r:.1f}× |")
    return [*rows, ""]


# ------------------------------------------------------------------ (b) repair on corpus cases


@dataclass(frozen=True)
class BrokenCase:
    """One corpus case with a broken call, as toolfix input and as raw text."""

    id: str
    file: str
    registry: ToolRegistry
    response: Response
    raw: str


def load_broken_cases(corpora: Path = CORPORA) -> list[BrokenCase]:
    """Cases of ``corpora/*.jsonl`` that carry a broken call (not plain answers, not intent)."""
    out: list[BrokenCase] = []
    for path in sorted(corpora.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            for line in f:
                case = json.loads(line)
                tags = set(case.get("tags", ()))
                if tags & {"no_call", "intent_only"}:
                    continue
                resp = case["response"]
                raw = (
                    resp.get("content")
                    or resp.get("reasoning_content")
                    or "\n".join(tc["function"]["arguments"] for tc in resp.get("tool_calls", ()))
                )
                out.append(
                    BrokenCase(
                        id=case["id"],
                        file=path.name,
                        registry=ToolRegistry.from_openai(case["tools"]),
                        response=response_from_openai(resp),
                        raw=raw,
                    )
                )
    return out


def _json_repair(text: str) -> object:
    return json_repair.loads(text)


def _fix_call(
    fixer: ManualToolCallFixProcessor, response: Response, registry: ToolRegistry
) -> Callable[[], object]:
    """A no-argument closure running one fix (binds its arguments now)."""
    return lambda: fixer.fix(response, registry)


def _repair_call(text: str) -> Callable[[], object]:
    return lambda: _json_repair(text)


def _row(label: str, tf: Sequence[float], jr: Sequence[float]) -> Lines:
    med_tf, med_jr = statistics.median(tf), statistics.median(jr)
    p99_tf, p99_jr = _percentile(tf, 99), _percentile(jr, 99)
    return [
        f"| {label} | {len(tf)} | {_fmt_ns(med_tf)} | {_fmt_ns(med_jr)} | "
        f"{med_tf / med_jr:.2f}× | {_fmt_ns(p99_tf)} | {_fmt_ns(p99_jr)} | "
        f"{p99_tf / p99_jr:.2f}× |"
    ]


#: Corpora generated from BFCL tasks (not the outputs of a model or an engine).
_GENERATED = frozenset({"bfcl_generated.jsonl"})


def bench_repair(repeat: int | None = None) -> Lines:
    """(b) Broken calls from the corpora: toolfix vs ``json_repair.loads`` on the same text."""
    cases = load_broken_cases()
    rep = repeat or (21 if len(cases) <= 200 else 7)
    fixer = ManualToolCallFixProcessor()
    tf: list[float] = []
    jr: list[float] = []
    for c in cases:
        a, b = _interleaved_medians(
            [_fix_call(fixer, c.response, c.registry), _repair_call(c.raw)],
            repeat=rep,
            number=5,
        )
        tf.append(a)
        jr.append(b)
    per_case = [a / b for a, b in zip(tf, jr, strict=True)]
    slowest = sorted(zip(tf, (c.id for c in cases), strict=True), reverse=True)[:3]
    files = sorted({c.file for c in cases})
    out = [
        "## (b) Repair time on broken calls",
        "",
        f"{len(cases)} cases with a broken call from `benchmarks/corpora/*.jsonl` (plain "
        "answers and intent-only messages left out); per case the median of "
        f"{rep} interleaved batches of 5.",
        "`json_repair.loads` gets the same raw text (content, else reasoning, else the raw "
        "arguments strings); it only repairs JSON, while toolfix also finds the call, "
        "parses native markup, aliases keys, coerces and validates against the schema.",
        "",
        "| cases | n | toolfix median | json_repair median | ratio | toolfix p99 | "
        "json_repair p99 | ratio |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in files:
        idx = [i for i, c in enumerate(cases) if c.file == name]
        out += _row(f"`{name}`", [tf[i] for i in idx], [jr[i] for i in idx])
    # outputs of real models and engines (verbatim, conformance), apart from the
    # generated BFCL cases that are most of the set
    real = [i for i, c in enumerate(cases) if c.file not in _GENERATED]
    tf_real, jr_real = [tf[i] for i in real], [jr[i] for i in real]
    out += _row("not generated (all but `bfcl_generated`)", tf_real, jr_real)
    out += _row("**all**", tf, jr)
    med = statistics.median(tf) / statistics.median(jr)
    p99 = _percentile(tf, 99) / _percentile(jr, 99)
    real_med = statistics.median(tf_real) / statistics.median(jr_real)
    real_p99 = _percentile(tf_real, 99) / _percentile(jr_real, 99)
    FIGURES["repair"] = {
        "cases": len(cases),
        "toolfix_median_us": statistics.median(tf) / 1e3,
        "json_repair_median_us": statistics.median(jr) / 1e3,
        "median_ratio": med,
        "p99_ratio": p99,
        "real_cases": len(real),
        "real_median_ratio": real_med,
        "real_p99_ratio": real_p99,
    }
    # the targets hold on both sets: all cases, and the real outputs alone (the
    # generated cases are most of the set, and longer: they would carry the median)
    out += [
        "",
        f"Targets: median ≤ 1.00× json_repair: **{_verdict(max(med, real_med), 1.0)}** "
        f"(all {med:.2f}×, not generated {real_med:.2f}×); p99 ≤ 0.50×: "
        f"**{_verdict(max(p99, real_p99), 0.5)}** (all {p99:.2f}×, not generated "
        f"{real_p99:.2f}×).",
    ]
    out += [
        "",
        f"Total over all cases: toolfix {_fmt_ns(sum(tf))}, json_repair {_fmt_ns(sum(jr))} "
        f"({sum(tf) / sum(jr):.2f}×). Per-case ratio toolfix / json_repair: median "
        f"{statistics.median(per_case):.2f}×, min {min(per_case):.2f}×, max "
        f"{max(per_case):.2f}×. Slowest toolfix cases: "
        + ", ".join(f"`{cid}` {_fmt_ns(t)}" for t, cid in slowest)
        + ".",
        "",
    ]
    return out


# ------------------------------------------------------------------ (c) scaling

PROSE = (
    "The quarterly report covers revenue, churn and hiring across all regions. "
    "Numbers are preliminary and may change after the audit is complete; "
    "see the appendix for the methodology and the list of excluded accounts. "
)

SCALE_TOOLS = [
    _fn_tool("get_weather", {"location": {"type": "string"}}, ["location"]),
    _fn_tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}, ["path"]),
    _fn_tool(
        "save_records",
        {
            "records": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "name": {"type": "string"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "dims": {"type": "object"},
                    },
                    "required": ["id"],
                },
            }
        },
        ["records"],
    ),
]


def _filler(n: int) -> str:
    reps = n // len(PROSE) + 1
    return (PROSE * reps)[:n]


def _prose_call(size: int) -> str:
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>'
    room = max(0, size - len(call) - 2)
    return _filler(room // 2) + "\n" + call + "\n" + _filler(room - room // 2)


def _string_arg(size: int, broken: bool = False) -> str:
    head = '{"name": "write_file", "arguments": {"path": "report.md", "content": "'
    tail = '",}}' if broken else '"}}'
    unit = 'Line with \\"quotes\\" and a tab\\t and unicode é.\\n'
    body_len = max(0, size - len(head) - len(tail))
    body = (unit * (body_len // len(unit) + 1))[:body_len]
    while body.endswith("\\"):  # never cut an escape in half
        body = body[:-1]
    return head + body + tail


def _nested_args(size: int) -> str:
    head = '<tool_call>\n{"name": "save_records", "arguments": {"records": ['
    tail = "]}}\n</tool_call>"
    items: list[str] = []
    total = len(head) + len(tail)
    i = 0
    while True:
        item = json.dumps(
            {"id": i, "name": f"item {i}", "tags": ["a", "b"], "dims": {"w": 1.5, "h": [2, 3]}}
        )
        if total + len(item) + 2 > size and items:
            break
        items.append(item)
        total += len(item) + 2
        i += 1
    return head + ", ".join(items) + tail


SHAPES: dict[str, Callable[[int], str]] = {
    "call inside growing prose": _prose_call,
    "call with growing string argument": _string_arg,
    "same, broken JSON (trailing comma)": lambda n: _string_arg(n, broken=True),
    "growing nested arguments (array of objects)": _nested_args,
}


def _big_fixer() -> ManualToolCallFixProcessor:
    """A fixer whose limits admit the 1 MB inputs (the defaults cap one span at 1,000,000)."""
    return ManualToolCallFixProcessor(
        config=FixConfig(limits=Limits(max_input_chars=8_000_000, max_span_chars=8_000_000))
    )


def _check_recovered(fixer: ManualToolCallFixProcessor, reg: ToolRegistry, text: str) -> str:
    resp = fixer.fix(Response.text_only(text), reg)
    if resp.tool_calls:
        return resp.tool_calls[0].name
    errors = [i.error for i in resp.invalid_tool_calls]
    return f"NO CALL ({errors[:1]})"


def bench_scaling(max_kb: int = 1024) -> Lines:
    """(c) Time per input size from 1 KB to ``max_kb`` KB and the growth per doubling."""
    fixer = _big_fixer()
    reg = ToolRegistry.from_openai(SCALE_TOOLS)
    sizes = []
    s = KB
    while s <= max_kb * KB:
        sizes.append(s)
        s *= 2
    out = [
        "## (c) Scaling with input size",
        "",
        "Content text (no native calls) handed to `fixer.fix`; limits raised to 8 MB for "
        "this run. Each time is the median of 3-41 repeats (fewer for large inputs). "
        "'×/doubling' is t(n) / t(n/2): about 2.0 means linear.",
        "",
    ]
    for shape, make in SHAPES.items():
        texts = [make(n) for n in sizes]
        found = _check_recovered(fixer, reg, texts[-1])
        times: list[float] = []
        for text in texts:
            resp = Response.text_only(text)
            rep = 41 if len(text) <= 64 * KB else 11 if len(text) <= 256 * KB else 3
            (t,) = _interleaved_medians([_fix_call(fixer, resp, reg)], repeat=rep, number=1)
            times.append(t)
        out += [
            f"### {shape}",
            "",
            f"Recovered at {sizes[-1] // KB} KB: `{found}`.",
            "",
            "| size | time | per KB | ×/doubling |",
            "| --- | --- | --- | --- |",
        ]
        for i, (n, t) in enumerate(zip(sizes, times, strict=True)):
            growth = f"{t / times[i - 1]:.2f}" if i else "–"
            out.append(f"| {n // KB} KB | {_fmt_ns(t)} | {_fmt_ns(t / (n / KB))} | {growth} |")
        tail = [times[i] / times[i - 1] for i in range(len(times) // 2, len(times))]
        exponent = statistics.fmean(math.log2(g) for g in tail)
        FIGURES.setdefault("scaling", {})[shape] = exponent
        out += [
            "",
            f"Upper half (≥ {sizes[len(sizes) // 2] // KB} KB): mean growth per doubling "
            f"{statistics.fmean(tail):.2f}× (empirical exponent {exponent:.2f}; 1.00 = linear).",
            "",
        ]
    return out


# ------------------------------------------------------------------ (d) memory


def _peak_bytes(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def bench_memory(size_kb: int = 1024) -> Lines:
    """(d) Peak traced memory for one 1 MB input, per shape, vs ``json_repair.loads``."""
    fixer = _big_fixer()
    reg = ToolRegistry.from_openai(SCALE_TOOLS)
    n = size_kb * KB
    out = [
        "## (d) Peak memory for a 1 MB input",
        "",
        "`tracemalloc` peak during one `fixer.fix` call (the input string and its Response "
        "are built before tracing starts), next to `json_repair.loads` on the same text.",
        "",
        "| shape | input | toolfix peak | × input | json_repair peak | × input |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for shape, make in SHAPES.items():
        text = make(n)
        resp = Response.text_only(text)
        fixer.fix(resp, reg)  # warm caches outside the trace
        tf = _peak_bytes(_fix_call(fixer, resp, reg))
        jr = _peak_bytes(_repair_call(text))
        size = len(text.encode("utf-8"))
        out.append(
            f"| {shape} | {size / KB / KB:.2f} MB | {tf / KB / KB:.1f} MB | {tf / size:.1f} | "
            f"{jr / KB / KB:.1f} MB | {jr / size:.1f} |"
        )
    out.append("")
    return out


# ------------------------------------------------------------------ (e) long string in markup


def _verdict(value: float, target: float) -> str:
    return "met" if value <= target else f"missed by {value / target - 1:.0%}"


def _markup_string_call(size: int) -> str:
    """One ``<tool_call>`` whose JSON body is valid and mostly one long string argument."""
    return "<tool_call>\n" + _string_arg(size) + "\n</tool_call>"


def bench_long_string(sizes_kb: Sequence[int] = (64, 256, 1024), repeat: int = 7) -> Lines:
    """(e) A long valid string argument inside ``<tool_call>``: toolfix vs json_repair."""
    fixer = _big_fixer()
    reg = ToolRegistry.from_openai(SCALE_TOOLS)
    validator = Draft202012Validator(SCALE_TOOLS[1]["function"]["parameters"])
    out = [
        "## (e) Long valid string argument inside `<tool_call>`",
        "",
        '`<tool_call>{"name": "write_file", "arguments": {"path": ..., '
        '"content": "<long string with escapes and non-ASCII>"}}</tool_call>` handed '
        "to `fixer.fix` (limits raised to 8 MB); `json_repair.loads` gets the same raw "
        "text; the last column is `json.loads` + compiled jsonschema on the JSON body "
        f"alone (a floor: no markup to find). Median of {repeat} interleaved runs.",
        "",
        "| size | toolfix | per MB | json_repair | per MB | ratio | json.loads+schema | ratio |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    ratio = math.nan
    for kb in sizes_kb:
        text = _markup_string_call(kb * KB)
        body = text[len("<tool_call>\n") : -len("\n</tool_call>")]
        resp = Response.text_only(text)
        assert _check_recovered(fixer, reg, text) == "write_file"

        def reference(body: str = body) -> None:
            validator.is_valid(json.loads(body)["arguments"])

        tf, jr, ref = _interleaved_medians(
            [_fix_call(fixer, resp, reg), _repair_call(text), reference],
            repeat=repeat,
            number=1,
        )
        mb = len(text) / KB / KB
        ratio = tf / jr
        out.append(
            f"| {kb} KB | {_fmt_ns(tf)} | {_fmt_ns(tf / mb)} | {_fmt_ns(jr)} | {_fmt_ns(jr / mb)} "
            f"| **{ratio:.2f}×** | {_fmt_ns(ref)} | {tf / ref:.2f}× |"
        )
        FIGURES.setdefault("long_string", {})[f"{kb}KB"] = {
            "toolfix_ms_per_mb": tf / mb / 1e6,
            "json_repair_ms_per_mb": jr / mb / 1e6,
            "ratio": ratio,
            "ratio_json_loads_schema": tf / ref,
        }
    FIGURES["long_string"]["ratio"] = ratio
    out += ["", f"Target ≤ 3× json_repair at 1 MB: **{_verdict(ratio, 3.0)}** ({ratio:.2f}×).", ""]
    return out


# ------------------------------------------------------------------ (f) many small calls

SMALL_CALL = (
    '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\n'
)


def bench_many_calls(sizes_kb: Sequence[int] = (64, 256, 1024)) -> Lines:
    """(f) Peak traced memory for thousands of small complete calls, vs the input size."""
    fixer = _big_fixer()
    reg = ToolRegistry.from_openai(SCALE_TOOLS)
    out = [
        "## (f) Many small calls: peak memory",
        "",
        "Complete `<tool_call>` calls repeated up to the size (about 80 bytes each), "
        "handed to `fixer.fix` with the default `max_calls` (the first calls are taken, "
        "the rest reported as one over-limit record); `tracemalloc` peak during the call "
        "(input and Response built before tracing), `json_repair.loads` on the same text "
        "beside it.",
        "",
        "| size | calls in text | taken | toolfix peak | × input | json_repair peak | × input |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    worst = 0.0
    for kb in sizes_kb:
        text = SMALL_CALL * (kb * KB // len(SMALL_CALL))
        resp = Response.text_only(text)
        fixed = fixer.fix(resp, reg)  # warm caches outside the trace
        tf = _peak_bytes(_fix_call(fixer, resp, reg))
        jr = _peak_bytes(_repair_call(text))
        size = len(text.encode("utf-8"))
        worst = max(worst, tf / size) if kb >= 256 else worst
        out.append(
            f"| {kb} KB | {text.count('<tool_call>')} | {len(fixed.tool_calls)} | "
            f"{tf / KB / KB:.1f} MB | **{tf / size:.1f}** | {jr / KB / KB:.1f} MB | "
            f"{jr / size:.1f} |"
        )
        FIGURES.setdefault("many_calls", {})[f"{kb}KB"] = tf / size
    FIGURES["many_calls"]["worst_from_256KB"] = worst
    out += [
        "",
        f"Target ≤ 8× the input (from 256 KB on; below, the {fixer.config.limits.max_calls} "
        f"calls taken weigh more than the text): **{_verdict(worst, 8.0)}** ({worst:.1f}×).",
        "",
    ]
    return out


# ------------------------------------------------------------------ CLI


def _version(dist: str) -> str:
    return importlib.metadata.version(dist)


def _header(argv: Sequence[str]) -> Lines:
    return [
        "# toolfix performance figures",
        "",
        "Command (from the repository root):",
        "",
        "```",
        "python benchmarks/perf.py " + " ".join(argv),
        "```",
        "",
        f"toolfix {toolfix.__version__}, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.machine()}, "
        f"json_repair {_version('json_repair')}, jsonschema {_version('jsonschema')}.",
        "",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: ``python benchmarks/perf.py {fast-path,repair,scaling,memory,all}``."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "what",
        choices=[
            "fast-path",
            "repair",
            "scaling",
            "memory",
            "long-string",
            "many-calls",
            "all",
        ],
    )
    parser.add_argument("--out", type=Path, help="also write the report (markdown) here")
    parser.add_argument("--json", type=Path, help="also write the headline figures here")
    parser.add_argument("--max-kb", type=int, default=1024, help="largest scaling size in KB")
    args = parser.parse_args(args_list)
    benches: dict[str, Callable[[], Lines]] = {
        "fast-path": bench_fast_path,
        "repair": bench_repair,
        "scaling": lambda: bench_scaling(args.max_kb),
        "memory": lambda: bench_memory(args.max_kb),
        "long-string": bench_long_string,
        "many-calls": bench_many_calls,
    }
    lines = _header(args_list)
    print("\n".join(lines), flush=True)
    for name, bench in benches.items():
        if args.what in (name, "all"):
            part = bench()
            print("\n".join(part), flush=True)
            lines += part
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines), encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "command": "python benchmarks/perf.py " + " ".join(args_list),
            "toolfix": toolfix.__version__,
            "python": platform.python_version(),
            "machine": f"{platform.system()} {platform.machine()}",
            "json_repair": _version("json_repair"),
        }
        args.json.write_text(
            json.dumps({"meta": meta, **FIGURES}, indent=2, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
