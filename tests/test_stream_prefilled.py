"""``reasoning_prefilled``: what it means for ``repair()``, the model-name table, and how
``LiteLLMExecutor`` and the manual processor set it from the model and the request."""

from __future__ import annotations

import asyncio

import pytest
from conftest import WEATHER
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FixConfig, LiteLLMExecutor, ManualToolCallFixProcessor, Prompt, repair
from toolfix.formats import (
    PREFILLED_MODELS,
    PrefilledModel,
    reasoning_prefilled_for,
)

ON = FixConfig(reasoning_prefilled=True)
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
        ("Qwen/Qwen3-32B", None, False),
        ("deepseek-ai/DeepSeek-V3.1", None, False),
        ("deepseek-ai/DeepSeek-V3.1", {"thinking": True}, True),
        ("Qwen/QwQ-32B", {"enable_thinking": False}, False),
        ("gpt-4o", None, False),
        (None, None, False),
    ],
)
def test_the_model_table(model: str | None, kwargs: dict[str, bool] | None, expected: bool) -> None:
    assert reasoning_prefilled_for(model, kwargs) is expected


def test_every_entry_cites_its_template() -> None:
    assert all(e.source.startswith("https://") for e in PREFILLED_MODELS)


def test_users_extend_the_table() -> None:
    assert not reasoning_prefilled_for("acme/my-reasoner-7b")
    PREFILLED_MODELS.append(PrefilledModel(r"my-reasoner", "https://example.org/template"))
    try:
        assert reasoning_prefilled_for("acme/my-reasoner-7b")
    finally:
        PREFILLED_MODELS.pop()


def test_litellm_executor_says_so_from_model_and_request() -> None:
    prompt = Prompt.of("hi")
    assert LiteLLMExecutor().reasoning_prefilled(prompt, "hosted_vllm/Qwen/QwQ-32B")
    assert not LiteLLMExecutor().reasoning_prefilled(
        prompt, "hosted_vllm/deepseek-ai/DeepSeek-V3.1"
    )
    on = LiteLLMExecutor(extra_body={"chat_template_kwargs": {"thinking": True}})
    assert on.reasoning_prefilled(prompt, "hosted_vllm/deepseek-ai/DeepSeek-V3.1")
    off = LiteLLMExecutor(chat_template_kwargs={"enable_thinking": False})
    assert not off.reasoning_prefilled(prompt, "Qwen/QwQ-32B")


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
