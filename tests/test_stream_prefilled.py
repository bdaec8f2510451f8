"""``reasoning_prefilled`` (``True``, ``None``, ``False``): what each means for ``repair()``,
the model-name table, and how ``LiteLLMExecutor`` and the manual processor set it from the
model and the request."""

from __future__ import annotations

import asyncio

import pytest
from conftest import WEATHER
from hypothesis import given, settings
from hypothesis import strategies as st
from test_stream import _completion, _cut, _key

from toolfix import (
    FixConfig,
    LiteLLMExecutor,
    ManualToolCallFixProcessor,
    Prompt,
    accumulate,
    repair,
    repair_stream,
)
from toolfix.formats import (
    PREFILLED_MODELS,
    PrefilledModel,
    reasoning_prefilled_for,
)

ON = FixConfig(reasoning_prefilled=True)
OFF = FixConfig(reasoning_prefilled=False)
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def test_text_up_to_the_first_closer_is_reasoning() -> None:
    r = repair(f"The user wants Paris.\n</think>\n\nSure. {CALL}", [WEATHER], config=ON)
    assert r.reasoning == "The user wants Paris."
    assert r.text == "Sure."
    assert [c.name for c in r.tool_calls] == ["get_weather"]


def test_without_a_closer_everything_is_reasoning() -> None:
    r = repair("Still thinking about Paris and Oslo", [WEATHER], config=ON)
    assert r.reasoning == "Still thinking about Paris and Oslo"
    assert r.text == ""


def test_a_later_lone_closer_is_text_once_reasoning_has_closed() -> None:
    r = repair("a</think>\n\nb [/THINK] c", [WEATHER], config=ON)
    assert (r.reasoning, r.text) == ("a", "b [/THINK] c")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["a", " ", "\n", "</think>", "<think>", CALL]), max_size=12)
    .map("".join)
    .filter(str.strip)
)
def test_prefilled_is_the_text_with_the_opener_written(text: str) -> None:
    """With the opener in the prompt, the output reads as if the model had written it."""
    got = repair(text, [WEATHER], config=ON)
    want = repair("<think>" + text, [WEATHER])
    assert got.reasoning == want.reasoning
    assert [c.arguments for c in got.tool_calls] == [c.arguments for c in want.tool_calls]
    if got.reasoning is not None:  # (empty reasoning, no call: the text part is kept as is)
        assert got.text == want.text


@pytest.mark.parametrize(
    ("model", "kwargs", "expected"),
    [
        ("deepseek-ai/DeepSeek-R1-0528", None, True),
        ("hosted_vllm/deepseek-r1-distill-qwen-32b", None, True),
        ("Qwen/QwQ-32B", None, True),
        ("openai/Qwen/Qwen3-235B-A22B-Thinking-2507", None, True),
        ("Qwen/Qwen3-32B", None, None),
        ("deepseek-ai/DeepSeek-V3.1", None, None),
        ("deepseek-ai/DeepSeek-V3.1", {"thinking": True}, True),
        ("deepseek-ai/DeepSeek-V3.1", {"thinking": False}, False),
        ("Qwen/QwQ-32B", {"enable_thinking": False}, False),
        ("Qwen/Qwen3-32B", {"enable_thinking": False}, False),
        ("Qwen/Qwen3-32B", {"enable_thinking": True}, None),
        ("gpt-4o", None, None),
        (None, None, None),
    ],
)
def test_the_model_table(
    model: str | None, kwargs: dict[str, bool] | None, expected: bool | None
) -> None:
    assert reasoning_prefilled_for(model, kwargs) is expected


def test_every_entry_cites_its_template() -> None:
    assert all(e.source.startswith("https://") for e in PREFILLED_MODELS)


def test_users_extend_the_table() -> None:
    assert reasoning_prefilled_for("acme/my-reasoner-7b") is None
    PREFILLED_MODELS.append(PrefilledModel(r"my-reasoner", "https://example.org/template"))
    try:
        assert reasoning_prefilled_for("acme/my-reasoner-7b")
    finally:
        PREFILLED_MODELS.pop()


def test_litellm_executor_says_so_from_model_and_request() -> None:
    prompt = Prompt.of("hi")
    assert LiteLLMExecutor().reasoning_prefilled(prompt, "hosted_vllm/Qwen/QwQ-32B") is True
    unknown = LiteLLMExecutor().reasoning_prefilled(prompt, "hosted_vllm/deepseek-ai/DeepSeek-V3.1")
    assert unknown is None
    on = LiteLLMExecutor(extra_body={"chat_template_kwargs": {"thinking": True}})
    assert on.reasoning_prefilled(prompt, "hosted_vllm/deepseek-ai/DeepSeek-V3.1") is True
    off = LiteLLMExecutor(chat_template_kwargs={"enable_thinking": False})
    assert off.reasoning_prefilled(prompt, "Qwen/QwQ-32B") is False


def test_the_processor_repairs_with_it_when_the_executor_says_so() -> None:
    text = f"User wants Paris: {CALL} but no.\n</think>\n\nI can't."
    proc = ManualToolCallFixProcessor(registry=[WEATHER])
    prompt = Prompt.of("hi")
    [r] = asyncio.run(
        proc.process(LiteLLMExecutor(), prompt, "Qwen/QwQ-32B", None, [repair(text, [])])
    )
    assert r.reasoning is not None
    assert r.text == "I can't."
    assert not r.tool_calls


# ---- False: known that the prompt opened no reasoning block ----------------------------


def test_known_none_keeps_a_lone_closer_as_written() -> None:
    text = f"The user wants Paris.\n</think>\n\nSure. {CALL}"
    unknown = repair(text, [WEATHER])
    assert unknown.reasoning == "The user wants Paris."
    r = repair(text, [WEATHER], config=OFF)
    assert r.reasoning is None
    assert r.text == "The user wants Paris.\n</think>\n\nSure."
    assert [c.arguments for c in r.tool_calls] == [{"city": "Paris"}]


def test_known_none_still_reads_the_blocks_the_model_wrote() -> None:
    r = repair(f"<think>Paris.</think>\n\nSure. {CALL}", [WEATHER], config=OFF)
    assert (r.reasoning, r.text) == ("Paris.", "Sure.")


def _first_markup_is_a_lone_closer(text: str) -> bool:
    from toolfix._repair.reasoning import first_markup

    first = first_markup(text)
    return first is not None and first[2]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", " ", "\n", "</think>", "<think>", "[/THINK]", "[THINK]", CALL]),
        max_size=12,
    ).map("".join)
)
def test_false_differs_from_none_only_at_a_first_lone_closer(text: str) -> None:
    """``False`` reads a text as ``None`` does unless its first reasoning markup is a lone
    closer; then nothing before it is reasoning, and the closer stays in the text."""
    off = repair(text, [WEATHER], config=OFF)
    unknown = repair(text, [WEATHER])
    if not _first_markup_is_a_lone_closer(text):
        assert off == unknown
    elif "<think>" not in text and "[THINK]" not in text:
        assert off.reasoning is None
        calls = [c.arguments for c in (*off.tool_calls, *off.invalid_tool_calls)]
        assert calls == [{"city": "Paris"}] * text.count(CALL)
        assert off.text.count("</think>") == text.count("</think>")


def test_the_processor_repairs_with_false_when_the_request_turns_thinking_off() -> None:
    text = f"User wants Paris: {CALL} but no.\n</think>\n\nI can't."
    proc = ManualToolCallFixProcessor(registry=[WEATHER])
    prompt = Prompt.of("hi")
    off = LiteLLMExecutor(chat_template_kwargs={"enable_thinking": False})
    [r] = asyncio.run(proc.process(off, prompt, "Qwen/Qwen3-32B", None, [repair(text, [])]))
    assert r.reasoning is None
    assert [c.arguments for c in r.tool_calls] == [{"city": "Paris"}]
    # the config's own setting wins over the executor's
    mine = ManualToolCallFixProcessor(registry=[WEATHER], config=ON)
    [r] = asyncio.run(mine.process(off, prompt, "Qwen/Qwen3-32B", None, [repair(text, [])]))
    assert r.reasoning is not None
    assert not r.tool_calls


# ---- streams under each setting add up to repair() with the same setting ---------------


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([True, None, False]),
    st.lists(
        st.sampled_from(["a", " ", "\n", "ok.", "</think>", "<think>", "[/THINK]", "```", CALL]),
        min_size=1,
        max_size=10,
    ).map("".join),
    st.lists(st.integers(1, 12), min_size=1, max_size=8),
    st.sampled_from([None, "before", "after"]),
)
def test_streams_add_up_to_repair_under_each_setting(
    prefilled: bool | None, text: str, sizes: list[int], split_out: str | None
) -> None:
    """Also with reasoning the server split out, sent before the content or after it."""
    config = FixConfig(reasoning_prefilled=prefilled)
    chunks = [
        {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": piece}}]}
        for piece in _cut(text, sizes)
    ]
    message = {"role": "assistant", "content": text}
    if split_out is not None:
        thought = {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {}}]}
        thought["choices"][0]["delta"] = {"reasoning_content": "Thinking it over."}
        chunks.insert(0 if split_out == "before" else len(chunks), thought)
        message["reasoning_content"] = "Thinking it over."
    out = list(repair_stream(chunks, [WEATHER], config=config))
    whole = repair(_completion(message), [WEATHER], config=config)
    assert _key(accumulate(out)) == _key(whole)
    assert out[-1]["toolfix"]["release_mismatch"] is False
    assert out[-1]["toolfix"]["content_mismatch"] is False


# ---- reasoning the server split out, and hosted APIs ------------------------------------


def test_a_text_with_no_closer_beside_split_out_reasoning_is_the_answer() -> None:
    """A hosted API that splits reasoning out (``reasoning_content``) sends its answer as
    the content: ``True`` must not read that answer as more reasoning."""
    split = {"role": "assistant", "content": "It is 4.", "reasoning_content": "2+2"}
    r = repair(split, [WEATHER], config=ON)
    assert r.text == "It is 4."
    assert r.reasoning == "2+2"
    # a lone closer in the text still ends the block the prompt opened
    closed = {**split, "content": "so 4</think>It is 4."}
    r = repair(closed, [WEATHER], config=ON)
    assert r.text == "It is 4."
    # and with no reasoning of its own, True reads the whole text as reasoning
    r = repair({"role": "assistant", "content": "It is 4."}, [WEATHER], config=ON)
    assert r.text == ""
    assert r.reasoning == "It is 4."


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["a", " ", "\n", "ok.", "<think>", "```", CALL]), max_size=8).map(
        "".join
    ),
)
def test_split_out_reasoning_keeps_every_closerless_text_as_none_reads_it(text: str) -> None:
    message = {"role": "assistant", "content": text or "x", "reasoning_content": "r"}
    on = repair(message, [WEATHER], config=ON)
    unknown = repair(message, [WEATHER], config=FixConfig())
    assert _key(on) == _key(unknown)


def test_the_model_table_is_read_only_for_servers_that_run_the_template() -> None:
    prompt = Prompt.of("hi")
    hosted = LiteLLMExecutor()
    for model in ("deepseek/deepseek-reasoner", "openrouter/deepseek/deepseek-r1"):
        assert hosted.reasoning_prefilled(prompt, model) is None
    for model in ("hosted_vllm/deepseek-r1", "ollama_chat/qwq"):
        assert hosted.reasoning_prefilled(prompt, model) is True
    own = LiteLLMExecutor(api_base="http://127.0.0.1:8000/v1")
    assert own.reasoning_prefilled(prompt, "openai/deepseek-r1") is True
    off = Prompt.of("hi", extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    assert hosted.reasoning_prefilled(off, "deepseek/deepseek-reasoner") is False


def test_false_lets_prose_and_calls_out_before_the_end() -> None:
    from toolfix._stream.core import StreamRepairer

    text = f"Let me check the weather for you now.\n{CALL}\nDone, more text follows here."
    for config, early in ((FixConfig(), False), (OFF, True)):
        state = StreamRepairer([WEATHER], config=config)
        sent = [
            c["choices"][0]["delta"]
            for piece in _cut(text, [4])
            for c in state.feed({"choices": [{"index": 0, "delta": {"content": piece}}]})
        ]
        assert any(d.get("content") for d in sent) is early
        assert any(d.get("tool_calls") for d in sent) is early
        assert state.finish()[-1]["toolfix"]["released_early"] == (1 if early else 0)
