"""Promise 12: a stream never takes a call back.

The property: for every prefix of a stream and every continuation of its text, the calls
the stream released after the prefix are a prefix of ``repair(prefix + continuation)``'s
calls (name and arguments). Checked on every corpus case (each at the points where the
stream released calls, under each reasoning setting) against a fixed set of hostile
continuations, and on generated messages against generated continuations: a lone
``</think>``, orphan closers of enclosing elements, more markup, prose.

And ``reasoning_prefilled`` (``True``, ``None``, ``False``): every case whose text holds a
reasoning closer streams, with each, to exactly ``repair()``'s result with it, at every
split.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import SEARCH, WEATHER
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_stream import _at_markers, _completion, _cut, _key

from toolfix import FixConfig, accumulate, repair, repair_stream
from toolfix._stream.core import StreamRepairer

ROOT = Path(__file__).resolve().parent.parent / "benchmarks"
#: the round's fresh split is run once by the lead at the end, never fed to the code before
UNRUN = [
    pattern
    for pattern in (ROOT / "heldout" / "UNRUN").read_text().splitlines()
    if pattern and not pattern.startswith("#")
]
CASES = [
    json.loads(line)
    for path in sorted((ROOT / "corpora").glob("*.jsonl"))
    + sorted((ROOT / "heldout").glob("*.jsonl"))
    if not any(path.match(pattern) for pattern in UNRUN)
    for line in path.read_text().splitlines()
]
PREFILLED = FixConfig(reasoning_prefilled=True)
NOT_PREFILLED = FixConfig(reasoning_prefilled=False)

#: Continuations that overturn a call when the rule is wrong: a lone reasoning closer, the
#: closers of enclosing elements (a tool-named tag, a raw-text value, a JSON string),
#: more markup, prose.
HOSTILE = (
    "",
    "\n</think>\n",
    "\n</think>\n\nThe answer is 4.",
    " [/THINK] ok",
    "\n</content>\n</write_to_file>",
    "</parameter>\n</function>\n</tool_call>",
    '"}}',
    '"}}\n</tool_call>',
    '"}]',
    "`",
    "\n```",
    '\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>',
    "\nThanks.",
)


def _messages(text: str, reasoning: str | None) -> list[dict[str, Any]]:
    msg = {"role": "assistant", "content": text}
    if reasoning:
        msg["reasoning_content"] = reasoning
    return [msg]


def _released(text: str, tools: Any, config: FixConfig, size: int) -> list[tuple[int, list[Any]]]:
    """``(prefix length, calls released so far)`` each time the stream released calls."""
    return [(end, calls) for end, calls, _ in _sent(text, tools, config, size) if calls is not None]


def _sent(
    text: str, tools: Any, config: FixConfig, size: int
) -> list[tuple[int, list[Any] | None, str]]:
    """After each chunk that sent something: ``(prefix length, calls released so far or
    None when none came with this chunk, content sent so far)``."""
    state = StreamRepairer(tools, config=config)
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    content: list[str] = []
    out: list[tuple[int, list[Any] | None, str]] = []
    for i in range(0, len(text), size):
        chunk = {"choices": [{"index": 0, "delta": {"content": text[i : i + size]}}]}
        grew = sent = False
        for c in state.feed(chunk):
            delta = c["choices"][0]["delta"]
            if delta.get("content"):
                content.append(delta["content"])
                sent = True
            for tc in delta.get("tool_calls") or ():
                fn = tc.get("function") or {}
                names[tc["index"]] = names.get(tc["index"], "") + (fn.get("name") or "")
                args[tc["index"]] = args.get(tc["index"], "") + (fn.get("arguments") or "")
                grew = True
        if grew or sent:
            calls = [(names[k], json.loads(args[k] or "{}")) for k in sorted(names)]
            out.append((min(i + size, len(text)), calls if grew else None, "".join(content)))
    return out


def _calls(text: str, tools: Any, config: FixConfig) -> list[Any]:
    r = repair({"role": "assistant", "content": text}, tools, config=config)
    return [(c.name, c.arguments) for c in r.tool_calls]


def _check_never_taken_back(text: str, tools: Any, config: FixConfig, more: tuple[str, ...]) -> int:
    """Every release point of ``text`` (chunks of 3 and 7) against ``more``; returns the
    number of release points checked."""
    points = 0
    for size in (3, 7):
        for end, released, content in _sent(text, tools, config, size):
            points += released is not None
            for tail in (*more, text[end:], text[end:] + "\n</think>\n"):
                whole = repair(
                    {"role": "assistant", "content": text[:end] + tail}, tools, config=config
                )
                assert whole.text.startswith(content), (end, tail)  # prose is never taken back
                if released is not None:
                    got = [(c.name, c.arguments) for c in whole.tool_calls]
                    assert got[: len(released)] == released, (end, tail)
    return points


SETTINGS = {
    "as written": ("", FixConfig()),
    "after a think block": ("<think>ok</think>\n", FixConfig()),
    "prefilled": ("ok</think>\n", PREFILLED),
    "not prefilled": ("", NOT_PREFILLED),
    "not prefilled, after a think block": ("<think>ok</think>\n", NOT_PREFILLED),
}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_no_corpus_case_takes_a_call_back(setting: str) -> None:
    head, config = SETTINGS[setting]
    rng = random.Random(12)
    points = 0
    for case in CASES:
        text = case["response"].get("content") or ""
        if not text or case["response"].get("tool_calls"):
            continue
        # every case against two hostile continuations, a sample against all of them
        more = HOSTILE if rng.random() < 0.1 else tuple(rng.sample(HOSTILE, 2))
        points += _check_never_taken_back(head + text, case["tools"], config, more)
    if setting != "as written":
        assert points > 200  # the rule still lets calls go out early


# ---- generated messages -------------------------------------------------------------

TOOLS = [
    WEATHER,
    SEARCH,
    {
        "type": "function",
        "function": {
            "name": "write_to_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
]
CITY = st.sampled_from(
    ["Paris", "Oslo", "New </tool_call> York", "Lima]", 'a"b', "x </think> y", "<think>"]
)


def _call(family: str, city: str) -> str:
    args = json.dumps({"city": city})
    name = "get_weather"
    return {
        "hermes": f'<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>',
        "qwen_xml": f"<tool_call>\n<function={name}>\n<parameter=city>\n{city}\n</parameter>\n"
        "</function>\n</tool_call>",
        "mistral": f'[TOOL_CALLS][{{"name": "{name}", "arguments": {args}}}]',
        "kimi": f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0"
        f"<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>",
        "deepseek": f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "harmony": f"<|channel|>commentary to=functions.{name} <|constrain|>json"
        f"<|message|>{args}<|call|>",
    }[family]


CALL = st.builds(
    _call, st.sampled_from(["hermes", "qwen_xml", "mistral", "kimi", "deepseek", "harmony"]), CITY
)
PROSE = st.sampled_from(
    ["", "\n", "Let me check.", "I will call it:\n", "a < b ", "ok.\n", "</think>\n", "<think>"]
)


@st.composite
def _enclosed(draw: Any) -> str:
    """A call, alone or opened inside something that may turn out to hold it as a value."""
    # (text after the call: what follows its closer decides whether it may leave)
    call = draw(CALL) + draw(st.sampled_from(["\nNext, ", "\n\nok ", " and "]))
    how = draw(st.sampled_from(["alone", "cline", "qwen_value", "json_value", "think", "fence"]))
    if how == "cline":
        return f"<write_to_file>\n<path>a.md</path>\n<content>\n{call}\n"
    if how == "qwen_value":
        return f"<tool_call>\n<function=write_to_file>\n<parameter=content>\n{call}\n"
    if how == "json_value":
        dumped = json.dumps(call)[:-1]
        return f'{{"name": "write_to_file", "arguments": {{"path": "a", "content": {dumped}'
    if how == "think":
        return f"<think>\n{call}\n"
    if how == "fence":
        return f"```\n{call}\n"
    return call


CONTINUATION = st.one_of(
    st.sampled_from(HOSTILE),
    st.lists(st.one_of(PROSE, CALL, st.sampled_from(HOSTILE)), max_size=3).map("".join),
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(list(SETTINGS)),
    st.lists(st.one_of(PROSE, CALL, _enclosed()), min_size=1, max_size=4).map("".join),
    st.lists(CONTINUATION, min_size=1, max_size=3),
)
def test_generated_streams_never_take_a_call_back(setting: str, text: str, more: list[str]) -> None:
    head, config = SETTINGS[setting]
    _check_never_taken_back(head + text, TOOLS, config, tuple(more))


def test_the_known_overturns_are_held() -> None:
    """The two cases of issue 26: a Cline element whose content quotes a Hermes call, and
    raw reasoning that quotes a call before a lone ``</think>``."""
    quoted = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    cline = f"<write_to_file>\n<path>a.md</path>\n<content>\n{quoted}\n</content>\n</write_to_file>"
    for text, config in (
        (cline, FixConfig()),
        (cline, NOT_PREFILLED),
        (f"ok</think>\n{cline}", PREFILLED),
        (f"<think>ok</think>{cline}", FixConfig()),
    ):
        assert _released(text, TOOLS, config, 5) == []
        whole = repair({"role": "assistant", "content": text}, TOOLS, config=config)
        assert [c.name for c in (*whole.tool_calls, *whole.invalid_tool_calls)] == ["write_to_file"]
    r1 = f"The user wants Paris.\n{quoted}\nNo, I must not.\n</think>\n\nI can't help."
    assert _released(r1, TOOLS, FixConfig(), 5) == []
    assert _calls(r1, TOOLS, FixConfig()) == []
    # known that the prompt opened no block: the closer is text, the call leaves at once
    released = _released(r1, TOOLS, NOT_PREFILLED, 5)
    assert released
    assert released[0][0] < r1.index("</think>")
    paris = [("get_weather", {"city": "Paris"})]
    assert released[-1][1] == _calls(r1, TOOLS, NOT_PREFILLED) == paris
    # a lone closer written inside a call's value settles nothing (repair() masks it)
    valued = quoted.replace("Paris", "x </think> y")
    text = f"{valued}{quoted}"
    assert _released(text, TOOLS, FixConfig(), 3) == []
    # with the closer known to come, the call after it leaves before the stream ends
    after = f"Thinking.\n</think>\n\n{quoted}\n{quoted}\nDone."
    released = _released(after, TOOLS, PREFILLED, 5)
    assert released
    assert released[0][0] < len(after)


# ---- reasoning_prefilled: every split gives repair()'s result -------------------------

THINK_CASES = [c for c in CASES if "</think>" in (c["response"].get("content") or "")]


def _splits(text: str, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    sizes = [rng.randint(1, 24) for _ in range(32)]
    return [[text], _cut(text, sizes), _at_markers(text), list(text)]


@pytest.mark.parametrize("prefilled", [True, None, False])
@pytest.mark.parametrize(
    "index",
    list(range(len(THINK_CASES))),
    ids=lambda i: THINK_CASES[i]["id"],
)
def test_prefilled_streams_give_repairs_result_at_every_split(
    index: int, prefilled: bool | None
) -> None:
    case = THINK_CASES[index]
    response = case["response"]
    config = FixConfig(reasoning_prefilled=prefilled)
    want = _key(repair(_completion(response), case["tools"], config=config))
    for pieces in _splits(response["content"], index):
        chunks = [
            {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": p}}]}
            for p in pieces
        ]
        for i, tc in enumerate(response.get("tool_calls") or ()):
            # the provider's own calls stream after the text, as the completion carries them
            fn, args = tc["function"], tc["function"]["arguments"]
            call = {"index": i, "id": tc.get("id"), "type": "function", "function": fn}
            if not isinstance(args, str):
                call["function"] = {**fn, "arguments": json.dumps(args)}
            delta = {"tool_calls": [call]}
            chunks.append({"id": "s", "model": "m", "choices": [{"index": 0, "delta": delta}]})
        chunks[-1]["choices"][0]["finish_reason"] = "stop"  # as the completion says
        if response.get("reasoning_content"):
            delta = {"reasoning_content": response["reasoning_content"]}
            chunks.insert(0, {"id": "s", "model": "m", "choices": [{"index": 0, "delta": delta}]})
        out = list(repair_stream(chunks, case["tools"], config=config))
        assert _key(accumulate(out)) == want
        assert out[-1]["toolfix"]["release_mismatch"] is False
        assert out[-1]["toolfix"]["content_mismatch"] is False


def test_some_cases_hold_a_lone_closer() -> None:
    assert len(THINK_CASES) >= 4


def test_deciding_reasoning_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of reasoning tokens that settle nothing: the work stays linear (counted
    characters), and the stream holds (it cannot know)."""
    import toolfix._stream.core as core

    read: list[int] = []
    real = core.reasoning_gate

    def counting(text: str, prefilled: bool | None) -> Any:
        read.append(len(text))
        return real(text, prefilled)

    monkeypatch.setattr(core, "reasoning_gate", counting)
    text = (
        "</think>x " * 3000 + '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>\n.'
    )
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": text[i : i + 4]}}]}
        for i in range(0, len(text), 4)
    ]
    out = list(repair_stream(chunks, TOOLS))
    assert sum(read) <= (core.RELEASE_BUDGET + 1) * len(text) + 4096
    assert out[-1]["toolfix"]["released_early"] == 0
    assert _key(accumulate(out)) == _key(repair(_completion({"content": text}), TOOLS))
