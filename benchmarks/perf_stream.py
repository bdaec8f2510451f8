"""Streaming repair against non-stream repair of the same texts, in one run.

For every case of the bundled corpora, the response is cut into chunks of 4
characters (about one token each) and streamed through ``repair_stream``, as OpenAI
``chat.completion.chunk``s and as Anthropic stream events; the same message is
repaired whole with ``repair()``, both with the case's tool registry built beforehand
(and the prepared inputs frozen out of the garbage collector's view).
Prints total and median times, the ratios, and the per-chunk overhead. Then
promptness: on every case with several calls, how many characters before the end of
the stream each call goes out (0 = at the end).

    python benchmarks/perf_stream.py [--chunk 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from toolfix import FixConfig, ToolRegistry, repair, repair_stream
from toolfix._stream.core import StreamRepairer

CORPORA = Path(__file__).resolve().parent / "corpora"


def _args(tc: dict[str, Any]) -> str:
    args = (tc.get("function") or {}).get("arguments")
    return args if isinstance(args, str) else json.dumps(args)


def _chunks(response: dict[str, Any], size: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for field in ("reasoning_content", "content"):
        text = response.get(field) or ""
        out += [
            {"choices": [{"index": 0, "delta": {field: text[i : i + size]}}]}
            for i in range(0, len(text), size)
        ]
    for i, tc in enumerate(response.get("tool_calls") or ()):
        fn = tc.get("function") or {}
        out.append(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": i,
                                    "id": tc.get("id"),
                                    "function": {"name": fn.get("name"), "arguments": _args(tc)},
                                }
                            ]
                        },
                    }
                ]
            }
        )
    return out


def _events(response: dict[str, Any], size: int) -> list[dict[str, Any]]:
    """The same message as Anthropic stream events."""
    out: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg", "model": "m", "usage": {}}}
    ]
    index = 0
    for kind, field, delta_kind in (
        ("thinking", "reasoning_content", "thinking_delta"),
        ("text", "content", "text_delta"),
    ):
        text = response.get(field) or ""
        if not text:
            continue
        out.append({"type": "content_block_start", "index": index, "content_block": {"type": kind}})
        key = "thinking" if kind == "thinking" else "text"
        out += [
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": delta_kind, key: text[i : i + size]},
            }
            for i in range(0, len(text), size)
        ]
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    for i, tc in enumerate(response.get("tool_calls") or ()):
        start = {"type": "tool_use", "id": tc.get("id") or f"toolu_{i}", "input": {}}
        start["name"] = (tc.get("function") or {}).get("name") or ""
        out.append({"type": "content_block_start", "index": index, "content_block": start})
        out.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": _args(tc)},
            }
        )
        out.append({"type": "content_block_stop", "index": index})
        index += 1
    out.append({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}})
    out.append({"type": "message_stop"})
    return out


def _time(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _jobs(
    response: Any, tools: Any, chunks: Any, events: Any, sinks: tuple[list[float], ...]
) -> list[tuple[list[float], Any]]:
    whole, openai, anthropic, held = sinks
    return [
        (whole, lambda: repair(response, tools)),
        (openai, lambda: list(repair_stream(chunks, tools))),
        (anthropic, lambda: list(repair_stream(events, tools))),
        (held, lambda: list(repair_stream(chunks, tools, release_calls=False))),
    ]


def cost(prepared: list[Any], repeat: int, chunk: int) -> dict[str, Any]:
    whole: list[float] = []
    openai: list[float] = []
    anthropic: list[float] = []
    held: list[float] = []
    n_chunks = sum(len(ch) for _, _, ch, _ in prepared)
    n_events = sum(len(ev) for _, _, _, ev in prepared)
    for r in range(repeat):
        for k, (response, tools, chunks, events) in enumerate(prepared):
            jobs = _jobs(response, tools, chunks, events, (whole, openai, anthropic, held))
            # rotate which goes first: all four share one fixer, and the first of them
            # warms its caches for the other three, so each job is first as often
            shift = (r + k) % 4
            for sink, job in jobs[shift:] + jobs[:shift]:
                sink.append(_time(job))
    tw, to, ta, th = sum(whole), sum(openai), sum(anthropic), sum(held)
    print(f"{len(prepared)} cases x {repeat}, chunks of {chunk} chars")
    print(f"  {n_chunks:,} OpenAI chunks, {n_events:,} Anthropic events per pass")
    for label, total, times in (
        ("non-stream repair", tw, whole),
        ("streaming, OpenAI chunks", to, openai),
        ("streaming, Anthropic events", ta, anthropic),
    ):
        median = statistics.median(times) * 1e6
        print(f"{label + ':':<29}total {total:.2f} s, median {median:.0f} µs")
    print(f"streaming, OpenAI, calls held to the end (release_calls=False): total {th:.2f} s")
    print(
        f"stream / non-stream, total: OpenAI {to / tw:.2f}x, Anthropic {ta / tw:.2f}x, "
        f"OpenAI without early release {th / tw:.2f}x (target <= 1.5x)"
    )
    print(
        f"overhead per chunk: OpenAI {(to - tw) / (n_chunks * repeat) * 1e6:.2f} µs, "
        f"Anthropic {(ta - tw) / (n_events * repeat) * 1e6:.2f} µs"
    )
    return {
        "cases": len(prepared),
        "chunk": chunk,
        "ratio_total": to / tw,
        "ratio_total_anthropic": ta / tw,
        "ratio_total_held": th / tw,
        "median_stream_us": statistics.median(openai) * 1e6,
        "median_whole_us": statistics.median(whole) * 1e6,
        "overhead_per_chunk_us": (to - tw) / (n_chunks * repeat) * 1e6,
    }


#: Reasoning settings promptness is measured under: (text written before the output,
#: ``FixConfig`` arguments). A stream releases a call only once no later reasoning closer
#: can turn it into reasoning (docs/guides/streaming.md): as written with the default
#: (``reasoning_prefilled=None``), no corpus text settles that before its end; with
#: ``False`` there is nothing to settle.
SETTINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "as written (None)": ("", {}),
    "after a <think> block (None)": ("<think>ok</think>\n", {}),
    "reasoning_prefilled=True": ("ok</think>\n", {"reasoning_prefilled": True}),
    "reasoning_prefilled=False": ("", {"reasoning_prefilled": False}),
}


def promptness(
    cases: list[dict[str, Any]], chunk: int, setting: str = "as written (None)"
) -> dict[str, Any] | None:
    """For every call of every case with several calls: characters of content still to
    come when the call's first delta went out. Returns the totals (calls, early, mean)."""
    leads: dict[str, list[int]] = defaultdict(list)
    not_last: dict[str, int] = defaultdict(int)
    head, options = SETTINGS[setting]
    if options and "reasoning_prefilled" not in FixConfig.model_fields:
        return None  # (a toolfix from before the setting)
    config = FixConfig(**options)
    for case in cases:
        text = case["response"].get("content") or ""
        if len(repair(case["response"], case["tools"]).tool_calls) < 2 or not text:
            continue
        text = head + text
        family = case["id"].rsplit("-", 2)[-2] if case["id"].startswith("bfcl") else "other"
        state = StreamRepairer(case["tools"], config=config)
        got: list[int] = []
        for i in range(0, len(text), chunk):
            out = state.feed({"choices": [{"index": 0, "delta": {"content": text[i : i + chunk]}}]})
            left = len(text) - min(len(text), i + chunk)
            got += [left for c in out if _opens_call(c)]
        got += [0 for c in state.finish() if _opens_call(c)]
        leads[family] += got
        not_last[family] += len(got) - 1  # the last call ends the text: it goes at the end
    print()
    print(f"promptness, {setting} (multi-call cases, chunks of {chunk} chars): characters")
    print("still to come")
    print("  when each call went out (0 = at the end of the stream)")
    print("(early: calls out before the end; not last: calls followed by another call)")
    print(
        f"{'family':<14}{'calls':>7}{'not last':>9}{'early':>7}{'median':>8}{'mean':>8}{'max':>7}"
    )
    every: list[int] = []
    for family, values in sorted(leads.items()):
        every += values
        early = sum(1 for v in values if v > 0)
        print(
            f"{family:<14}{len(values):>7}{not_last[family]:>9}{early:>7}"
            f"{statistics.median(values):>8.0f}"
            f"{statistics.mean(values):>8.1f}{max(values):>7}"
        )
    early = sum(1 for v in every if v > 0)
    print(
        f"{'all':<14}{len(every):>7}{sum(not_last.values()):>9}{early:>7}"
        f"{statistics.median(every):>8.0f}"
        f"{statistics.mean(every):>8.1f}{max(every):>7}"
    )
    return {"calls": len(every), "early": early, "mean_chars_to_come": statistics.mean(every)}


def _opens_call(chunk: dict[str, Any]) -> bool:
    calls = chunk["choices"][0]["delta"].get("tool_calls") or ()
    return any(tc.get("id") for tc in calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chunk", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    cases = [json.loads(x) for p in sorted(CORPORA.glob("*.jsonl")) for x in p.open()]
    prepared = [
        (
            c["response"],
            # built here, outside the timing: the corpora hold more distinct tool lists
            # than the registry caches keep, so tool dicts would time cache rebuilds
            # (in whichever job the rotation puts first), not the repair
            ToolRegistry.of(c["tools"]),
            _chunks(c["response"], args.chunk),
            _events(c["response"], args.chunk),
        )
        for c in cases
    ]
    for response, tools, chunks, events in prepared[:50]:  # warm the caches alike
        repair(response, tools)
        list(repair_stream(chunks, tools))
        list(repair_stream(events, tools))
    # The prepared inputs (some 350,000 chunk and event dicts) leave the collector's
    # view: otherwise every full collection walks them, and its pause lands in whichever
    # job runs then (the non-stream totals grew by a third while their median stayed).
    gc.collect()
    gc.freeze()
    figures = cost(prepared, args.repeat, args.chunk)
    figures["promptness"] = {s: promptness(cases, args.chunk, s) for s in SETTINGS}
    print()
    print("promptness by setting: calls out before the end, mean characters still to come")
    for setting, got in figures["promptness"].items():
        if got is not None:
            mean = got["mean_chars_to_come"]
            print(f"  {setting + ':':<31}{got['early']:>5} of {got['calls']}, {mean:.1f}")
    if args.json:
        figures["command"] = "python benchmarks/perf_stream.py " + " ".join(sys.argv[1:])
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
