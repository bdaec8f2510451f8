"""Time of ``toolfix.repair`` against input size, per pathological input family.

For each family the input is built at 1 KB, 2 KB, 4 KB ... up to ``--max-kb``
(default 1024 = 1 MB) and repaired; the script prints the best-of-``--repeat``
time and the growth ratio per doubling (about 2 means linear, 4 quadratic).
A family whose last ratios stay clearly above 2 is super-linear: profile it
with ``--profile FAMILY``.

Usage::

    python benchmarks/perf_pathological.py [--max-kb 1024] [--repeat 3]
        [--only FAMILY ...] [--markdown benchmarks/results/pathological.md]
        [--json benchmarks/results/pathological.json] [--profile FAMILY]
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

from toolfix import ToolfixError, ToolRegistry, repair

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_web",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "parameters": {
                "type": "object",
                "properties": {"key": {"type": "string", "pattern": "^[a-z]+$"}},
                "required": ["key"],
            },
        },
    },
]
"""The ``lookup`` tool carries a benign ``pattern``: the exponential ``^(a+)+$`` cannot be
timed here because it does not finish below the 10,000-char cap (see pathological.md)."""
REGISTRY = ToolRegistry.of(TOOLS)  # built once: the timings are of the repair, not of schema checks


def _rep(unit: str, n: int) -> str:
    return unit * max(1, n // len(unit))


def _wrap_call(prefix: str, suffix: str, filler: Callable[[int], str]) -> Callable[[int], str]:
    def build(n: int) -> str:
        return prefix + filler(max(1, n - len(prefix) - len(suffix))) + suffix

    return build


FAMILIES: dict[str, Callable[[int], str]] = {
    "nested_brackets": lambda n: _rep("[", n),
    "nested_braces_in_tag": lambda n: "<tool_call>" + _rep('{"a":', n),
    "nested_pythonic": lambda n: "[" + _rep("f(", n),
    "huge_number": _wrap_call(
        '{"name": "get_weather", "arguments": {"city": "a", "days": ', "}}", lambda k: "9" * k
    ),
    "long_string": _wrap_call(
        '{"name": "get_weather", "arguments": {"city": "', '"}}', lambda k: "a" * k
    ),
    "long_string_pattern": _wrap_call(
        '<tool_call>{"name": "lookup", "arguments": {"key": "',
        '!"}}</tool_call>',
        lambda k: "a" * k,
    ),
    "unclosed_tool_call": lambda n: _rep("<tool_call>", n),
    "unclosed_tool_call_json": lambda n: _rep('<tool_call>{"name": "get_weather", ', n),
    "unclosed_fences": lambda n: _rep("```json\n{", n),
    "backslash_bait": lambda n: '{"a":"' + "\\" * n,
    "quote_bait": lambda n: _rep('{"', n),
    "function_eq": lambda n: _rep("<function=", n),
    "parameter_eq": lambda n: "<function=get_weather>" + _rep("<parameter=", n),
    "tool_calls_token": lambda n: _rep("[TOOL_CALLS]", n),
    "python_tag": lambda n: _rep("<|python_tag|>", n),
    "think_open": lambda n: _rep("<think>", n),
    "many_calls": lambda n: _rep(
        '<tool_call>{"name": "get_weather", "arguments": {"city": "a"}}</tool_call>', n
    ),
    "prose_with_braces": lambda n: _rep("word {x} [y] (z) 'q' \"r\" ", n),
    # the schema-anchored reader (docs/finding-calls.md): many names and key runs it reads
    "anchored_calls": lambda n: _rep("get_weather city: a\n", n),
    "anchored_names_one_line": lambda n: _rep("get_weather ", n),
    "anchored_name_lines": lambda n: _rep('get_weather city="a"\n', n),
    "anchored_named_object": lambda n: _rep("Use get_weather.\n", n) + '{"city": "a"}',
    "anchored_key_run": lambda n: "get_weather " + _rep("city=a ", n),
    "anchored_name_in_long_word": lambda n: _rep("weather", n),
    "anchored_unclosed_quote": lambda n: 'get_weather city="' + _rep("a city=", n),
    "anchored_calls_one_line": lambda n: _rep('<get_weather city="a"/> ', n),
    # names an opener puts first (issue 28): closed, never closed, a header per line
    "anchored_parameter_openers": lambda n: _rep(
        "<parameter=get_weather>\n<parameter=city>\na\n</parameter>\n</function>\n", n
    ),
    "anchored_unclosed_openers": lambda n: _rep("<parameter=get_weather>\n<parameter=city>\n", n),
    "anchored_tool_use_headers": lambda n: _rep("[Tool Use: get_weather]\n", n),
    # invented delimiters (toolfix/_repair/delimiters.py): glyph-led names whose objects
    # never close, and template sections that open braces after every value
    "anchored_glyph_lines": lambda n: _rep('\u21ecget_weather\u21ec{"city": "a", \n', n),
    "anchored_template_sections": lambda n: _rep(
        '{{#tool_call}}get_weather{"city": "a"}{{/tool_call}}{{', n
    ),
    # many calls shown in an ```xml example block, with prose outside it
    "calls_in_xml_fence": lambda n: (
        "Example:\n```xml\n"
        + _rep(
            "<tool_call>\n<function=get_weather>\n<parameter=city>a</parameter>\n</function>\n</tool_call>\n",
            n,
        )
        + "```\nThat is the format."
    ),
}


def time_one(text: str, repeat: int) -> tuple[float, str]:
    """Best wall time of ``repeat`` repairs, and a one-word outcome."""
    best = float("inf")
    outcome = ""
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            r = repair(text, REGISTRY)
            outcome = f"calls={len(r.tool_calls)} invalid={len(r.invalid_tool_calls)}"
        except ToolfixError as exc:
            outcome = type(exc).__name__
        best = min(best, time.perf_counter() - start)
    return best, outcome


def run(
    families: list[str], max_kb: int, repeat: int
) -> list[tuple[str, list[tuple[int, float]], str]]:
    rows = []
    for name in families:
        build = FAMILIES[name]
        points: list[tuple[int, float]] = []
        outcome = ""
        kb = 1
        while kb <= max_kb:
            t, outcome = time_one(build(kb * 1024), repeat)
            points.append((kb, t))
            kb *= 2
        rows.append((name, points, outcome))
        ratios = [b[1] / a[1] if a[1] > 0 else float("nan") for a, b in itertools.pairwise(points)]
        print(
            f"{name:26s} {points[-1][0]:5d} KB {points[-1][1] * 1000:9.1f} ms  "
            f"ratios {' '.join(f'{r:.1f}' for r in ratios)}  [{outcome}]",
            flush=True,
        )
    return rows


def _median_tail_ratio(points: list[tuple[int, float]]) -> float:
    """Median growth per doubling over the last four doublings (about 2: linear)."""
    ratios = [b[1] / a[1] for a, b in itertools.pairwise(points) if a[1] > 0]
    tail = ratios[-4:]
    return sorted(tail)[len(tail) // 2] if tail else float("nan")


def to_json(rows: list[tuple[str, list[tuple[int, float]], str]], command: str) -> str:
    """The figures as JSON (read by ``benchmarks/readme_perf.py``)."""
    families = {
        name: {
            "median_ratio": _median_tail_ratio(points),
            "max_kb": points[-1][0],
            "ms_at_max": points[-1][1] * 1000,
            "outcome": outcome,
        }
        for name, points, outcome in rows
    }
    data = {"command": command, "python": sys.version.split()[0], "families": families}
    return json.dumps(data, indent=2) + "\n"


def to_markdown(rows: list[tuple[str, list[tuple[int, float]], str]], command: str) -> str:
    lines = [
        "# Pathological inputs: repair time against input size",
        "",
        f"Command: `{command}` (Python {sys.version.split()[0]}, best of the repeats).",
        "",
        "Growth ratio = time(2n) / time(n), for the last four doublings (about 2 is linear).",
        "",
        "| family | 1 KB ms | 64 KB ms | 1 MB ms | ratios (last 4 doublings) | median ratio "
        "| outcome at max size |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    for name, points, outcome in rows:
        t = dict(points)
        ratios = [b[1] / a[1] for a, b in itertools.pairwise(points) if a[1] > 0]
        tail = ratios[-4:]
        med = sorted(tail)[len(tail) // 2] if tail else float("nan")
        nan = float("nan")
        ratio_text = " ".join(f"{r:.2f}" for r in tail)
        lines.append(
            f"| {name} | {t.get(1, nan) * 1000:.2f} | {t.get(64, nan) * 1000:.1f} | "
            f"{t.get(1024, nan) * 1000:.1f} | {ratio_text} | {med:.2f} | {outcome} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-kb", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", choices=sorted(FAMILIES))
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    ap.add_argument("--profile", choices=sorted(FAMILIES))
    args = ap.parse_args()
    if args.profile:
        text = FAMILIES[args.profile](args.max_kb * 1024)
        prof = cProfile.Profile()
        prof.runcall(time_one, text, 1)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        return
    families = args.only or list(FAMILIES)
    rows = run(families, args.max_kb, args.repeat)
    command = "python benchmarks/perf_pathological.py " + " ".join(sys.argv[1:])
    if args.markdown:
        args.markdown.write_text(to_markdown(rows, command), encoding="utf-8")
    if args.json:
        args.json.write_text(to_json(rows, command), encoding="utf-8")


if __name__ == "__main__":
    main()
