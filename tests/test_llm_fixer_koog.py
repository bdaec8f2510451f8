"""The LLM fixer as Koog users expect it (issue 30) and its reply gate (issue 26, item 7).

- feedback quotes the arguments the model sent and names each problem;
- the intent question and the fix call have their own system texts;
- ``max_retries=0`` spends no LLM call;
- a fix reply may only replace the calls it was asked about; the rest is dropped and
  recorded; the intent question carries no tool option at all;
- a streamed inline error names the real provider.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai_stub import StubServer, openai_sse, run_stub_server

from toolfix import (
    LLMBasedToolCallFixProcessor,
    Prompt,
    Response,
    ResponseProcessor,
    ToolRegistry,
    as_response,
)
from toolfix._pipeline.litellm import LiteLLMExecutor
from toolfix._pipeline.processor import ToolsLike
from toolfix._tool_options import is_tool_option
from toolfix.errors import ExecutorError
from toolfix.messages import ToolChoice
from toolfix.processors import FixerPrompts
from toolfix.testing import ScriptedExecutor


def get_weather(city: str, days: int = 1) -> str:
    """Weather forecast for a city."""
    return f"sunny in {city}"


def send_email(to: str, body: str) -> str:
    """Send an email."""
    return "sent"


def search_web(query: str) -> str:
    """Search the web."""
    return "results"


TOOLS = ToolRegistry.from_functions(get_weather, send_email, search_web)
PROMPT = Prompt.of("Weather in Paris?")
MODEL = "m"


def native(name: str, args: str, cid: str = "c1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}
        ],
    }


def reply_calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "content": None,
        "tool_calls": [
            {"id": f"r{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ],
    }


def fix(
    given_: Any, replies: list[Any], prompt: Prompt = PROMPT, **kw: Any
) -> tuple[Response, ScriptedExecutor]:
    ex = ScriptedExecutor(replies)
    out = LLMBasedToolCallFixProcessor(**kw).process_sync(
        ex, prompt, MODEL, TOOLS, as_response(given_)
    )
    return out, ex


def record(out: Response) -> str:
    return next(r.detail for r in out.repairs if r.kind == "llm_fix")


# ---- feedback ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given_",
    [
        native("get_weather", '{"town": "Paris", "days": "three"}'),
        {
            "role": "assistant",
            "content": '{"name": "get_weather", "arguments": {"town": "Paris", "days": "three"}}',
        },
        {
            "role": "assistant",
            "content": '{"function": {"name": "get_weather", '
            '"parameters": {"town": "Paris", "days": "three"}}}',
        },
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "get_weather", '
            '"arguments": {"town": "Paris", "days": "three"}}</tool_call>',
        },
    ],
    ids=["native", "json-in-content", "wrapped", "hermes-markup"],
)
def test_feedback_quotes_what_the_model_sent_and_names_each_problem(given_: Any) -> None:
    out, ex = fix(given_, [reply_calls(("get_weather", {"city": "Paris", "days": 3}))])
    assert [(c.name, c.arguments) for c in out.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
    asked = ex.prompts[0].messages[-1].text
    assert 'The arguments you sent: {"town": "Paris", "days": "three"}' in asked
    assert "- unknown key 'town': the tool has no such parameter" in asked
    assert "- missing required key: 'city' is a required property" in asked
    assert "- wrong type at $.days: 'three' is not of type 'integer'" in asked


# ---- system texts -----------------------------------------------------------------------


def test_the_intent_question_and_the_fix_call_have_their_own_system_texts() -> None:
    out, ex = fix(
        {"role": "assistant", "content": "Now I have to do that."},
        ["yes", reply_calls(("get_weather", {"city": "Paris"}))],
    )
    assert [(c.name, c.arguments) for c in out.tool_calls] == [("get_weather", {"city": "Paris"})]
    intent, fix_call = (p.messages[0] for p in ex.prompts)
    defaults = FixerPrompts()
    assert intent.role == fix_call.role == "system"
    assert intent.text == defaults.intent_system
    assert fix_call.text == str(defaults.fix_system).format(
        tool_names="get_weather, send_email, search_web"
    )
    assert intent.text != fix_call.text


def test_system_texts_can_be_turned_off() -> None:
    _, ex = fix(
        native("get_weather", "{}"),
        [reply_calls(("get_weather", {"city": "Paris"}))],
        prompts=FixerPrompts(fix_system=None),
    )
    assert ex.prompts[0].messages[0].role == "user"


# ---- max_retries=0 ------------------------------------------------------------------------


class _Fallback(ResponseProcessor):
    def __init__(self) -> None:
        self.got: list[Response] = []

    async def process(
        self, executor: Any, prompt: Prompt, model: str, tools: ToolsLike, responses: Any
    ) -> list[Response]:
        self.got.extend(responses)
        return [Response.text_only("handled by the fallback")]


@pytest.mark.parametrize(
    "given_",
    [
        {"role": "assistant", "content": "Let me check the weather in Paris."},
        {"role": "assistant", "content": "Computing the sum now."},
        native("get_weather", "city=Paris"),
    ],
    ids=["announced", "koog-example", "broken"],
)
def test_max_retries_zero_spends_no_llm_call(given_: Any) -> None:
    out, ex = fix(given_, [], max_retries=0)
    assert ex.calls == []
    assert not any(r.llm_calls for r in out.all_repairs)
    fallback = _Fallback()
    out, ex = fix(given_, [], max_retries=0, fallback=fallback)
    assert ex.calls == []
    if as_response(given_).tool_calls:  # a broken call goes straight to the fallback
        assert [r.text for r in [out]] == ["handled by the fallback"]
        assert len(fallback.got) == 1


# ---- the reply gate (issue 26, item 7) ----------------------------------------------------


def test_a_call_the_fixer_did_not_ask_for_is_dropped_and_recorded() -> None:
    out, _ = fix(
        native("get_weather", "{}"),
        [
            reply_calls(
                ("get_weather", {"city": "Paris"}), ("send_email", {"to": "x@y.z", "body": "hi"})
            )
        ],
    )
    assert [c.name for c in out.tool_calls] == ["get_weather"]
    assert "dropped 1 call(s) not asked for: send_email(" in record(out)


def test_a_named_tool_choice_admits_only_that_tool() -> None:
    prompt = PROMPT.model_copy(update={"tool_choice": ToolChoice.named("get_weather")})
    out, ex = fix(
        {"role": "assistant", "content": "Let me look."},
        [reply_calls(("search_web", {"query": "paris"}), ("get_weather", {"city": "Paris"}))],
        prompt=prompt,
    )
    assert ex.prompts[0].tool_choice == ToolChoice.named("get_weather")
    assert [c.name for c in out.tool_calls] == ["get_weather"]
    assert "search_web(" in record(out)


EXTRA = st.tuples(
    st.sampled_from(["get_weather", "send_email", "search_web"]),
    st.fixed_dictionaries(
        {},
        optional={
            "city": st.text(max_size=5),
            "to": st.text(max_size=5),
            "body": st.text(max_size=5),
            "query": st.text(max_size=5),
        },
    ),
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    before=st.lists(EXTRA, max_size=3),
    after=st.lists(EXTRA, max_size=3),
    broken_tool=st.sampled_from(["get_weather", "send_email", "search_web"]),
)
def test_random_extra_calls_in_a_fix_reply_are_never_admitted(
    before: list[tuple[str, dict[str, Any]]],
    after: list[tuple[str, dict[str, Any]]],
    broken_tool: str,
) -> None:
    good = {
        "get_weather": {"city": "Paris"},
        "send_email": {"to": "a", "body": "b"},
        "search_web": {"query": "q"},
    }
    # only calls of other tools precede the answer: a same-tool call before it would be
    # taken as the answer (it is the same tool, as asked)
    before = [c for c in before if c[0] != broken_tool]
    reply = reply_calls(*before, (broken_tool, good[broken_tool]), *after)
    out, ex = fix(native(broken_tool, "{}"), [reply], max_retries=1)
    assert len(ex.calls) == 1
    assert [c.name for c in out.tool_calls] == [broken_tool]  # one call asked, one admitted
    assert out.tool_calls[0].arguments == good[broken_tool]
    extras = len(before) + len(after)
    if extras:
        assert f"dropped {extras} call(s) not asked for" in record(out)


# ---- the intent question carries no tool option --------------------------------------------

TOOL_KEYS = st.sampled_from(
    [
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "functions",
        "function_call",
        "toolConfig",
        "allowed_tools",
        "Tool_Resources",
        "FUNCTION_CALLING_CONFIG",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    tool_params=st.dictionaries(TOOL_KEYS, st.booleans(), max_size=4),
    other=st.dictionaries(st.sampled_from(["temperature", "top_p", "seed"]), st.integers(0, 2)),
    executor_options=st.dictionaries(TOOL_KEYS, st.booleans(), max_size=3),
)
def test_the_intent_question_carries_no_tool_option(
    tool_params: dict[str, Any], other: dict[str, Any], executor_options: dict[str, Any]
) -> None:
    prompt = PROMPT.model_copy(update={"params": {**tool_params, **other}})
    _, ex = fix({"role": "assistant", "content": "Let me check."}, ["no"], prompt=prompt)
    (question,) = ex.prompts
    assert question.params == other
    assert len(ex.calls[0][2]) == 0  # no tools
    # and what the LiteLLM executor would send for it
    sent = LiteLLMExecutor(**executor_options).request_kwargs(question, "openai/m", ex.calls[0][2])
    assert not [k for k in sent if is_tool_option(k)], sent
    assert {k: sent[k] for k in other} == other


def test_a_request_with_tools_keeps_the_tool_options() -> None:
    sent = LiteLLMExecutor(parallel_tool_calls=False).request_kwargs(PROMPT, "openai/m", TOOLS)
    assert sent["parallel_tool_calls"] is False
    assert "tools" in sent


# ---- streamed inline errors name the real provider -----------------------------------------


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with contextlib.contextmanager(run_stub_server)() as server:
        yield server


async def test_a_streamed_inline_error_names_the_real_provider(stub: StubServer) -> None:
    sse = openai_sse(["Hel"])
    last = sse["__sse__"][-1]["choices"][0]
    last["finish_reason"] = "error"
    last["error"] = {
        "code": 502,
        "message": "Upstream overloaded",
        "metadata": {"provider_name": "Fireworks"},
    }
    stub.reply(sse)
    ex = LiteLLMExecutor(api_base=stub.openai_base, api_key="sk-test")
    with pytest.raises(ExecutorError) as info:
        async for _ in ex.execute_stream(Prompt.of("hi"), "openai/router-model"):
            pass
    assert info.value.provider == "Fireworks"
