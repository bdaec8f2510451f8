"""LLMBasedToolCallFixProcessor with scripted replies: every branch, and the budget."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolfix import (
    InvalidToolCallPart,
    Message,
    Prompt,
    Response,
    ResponseProcessor,
    ToolCallPart,
    ToolRegistry,
)
from toolfix._llm import LLMBasedToolCallFixProcessor, build_llm_processor, llm_calls_of
from toolfix._pipeline.processor import ToolsLike
from toolfix.errors import ConfigurationError
from toolfix.messages import TextPart, ToolChoice, Usage
from toolfix.processors import FixerPrompts, IntentPrecheck
from toolfix.testing import ScriptedExecutor

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
SEARCH = {
    "type": "function",
    "function": {
        "name": "search_web",
        "description": "Search",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}
TOOLS = ToolRegistry.from_openai([WEATHER, SEARCH])
PROMPT = Prompt.of("What's the weather in Paris?")
MODEL = "test-model"


def native(name: str, raw: str, id: str = "call_1") -> ToolCallPart:
    """A native call as a provider conversion makes it (arguments parsed when JSON)."""
    try:
        args = json.loads(raw)
    except ValueError:
        args = None
    return ToolCallPart(
        id=id, name=name, arguments_raw=raw, arguments=args if isinstance(args, dict) else None
    )


def resp(*parts: Any) -> Response:
    return Response(parts=tuple(TextPart(text=p) if isinstance(p, str) else p for p in parts))


def openai_call(name: str, args: dict[str, Any] | str, id: str = "fix_1") -> dict[str, Any]:
    raw = args if isinstance(args, str) else json.dumps(args)
    return {
        "content": None,
        "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": raw}}
        ],
    }


def calls_of(r: Response) -> list[tuple[str, dict[str, Any] | None]]:
    return [(c.name, c.arguments) for c in r.tool_calls]


def llm_records(r: Response) -> list[Any]:
    return [x for x in r.repairs if x.kind == "llm_fix"]


async def run(
    fixer: LLMBasedToolCallFixProcessor,
    executor: ScriptedExecutor,
    response: Response,
    prompt: Prompt = PROMPT,
) -> Response:
    out = await fixer.process(executor, prompt, MODEL, TOOLS, [response])
    assert len(out) == 1
    return out[0]


def last_user_text(ex: ScriptedExecutor, i: int = -1) -> str:
    return ex.prompts[i].messages[-1].text


# ---- no LLM call ------------------------------------------------------------------------


async def test_valid_call_spends_nothing() -> None:
    ex = ScriptedExecutor([])
    original = resp(native("get_weather", '{"city": "Paris"}'))
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert out is original
    assert ex.calls == []


async def test_precheck_skips_plain_answer() -> None:
    ex = ScriptedExecutor([])
    original = resp("It is 18°C and sunny in Paris.")
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert out is original
    assert ex.calls == []


async def test_tool_choice_none_spends_nothing() -> None:
    ex = ScriptedExecutor([])
    prompt = PROMPT.model_copy(update={"tool_choice": ToolChoice.none()})
    original = resp("Let me look up the weather.")
    assert (await run(LLMBasedToolCallFixProcessor(), ex, original, prompt)) is original
    assert ex.calls == []


# ---- intent -------------------------------------------------------------------------------


async def test_intent_question_no_keeps_text_and_records_cost() -> None:
    ex = ScriptedExecutor(["No."], usage=Usage(input_tokens=20, output_tokens=1))
    original = resp("I'll keep it short: Paris is lovely in spring.")
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert out.parts == original.parts
    assert out.tool_calls == []
    (rec,) = llm_records(out)
    assert rec.llm_calls == 1
    assert rec.usage == Usage(input_tokens=20, output_tokens=1, requests=1)
    assert "intent question: no" in rec.detail
    asked = ex.prompts[0]
    assert asked.tool_choice == ToolChoice.auto()  # no tool choice sent ...
    assert len(ex.calls[0][2]) == 0  # ... and no tools: the question only asks
    assert "yes or no" in asked.messages[-1].text
    assert asked.messages[-2].role == "assistant"
    assert asked.messages[-2].text == original.text
    assert llm_calls_of(out) == 1


async def test_intent_yes_then_asks_for_the_call() -> None:
    ex = ScriptedExecutor(["Yes", openai_call("get_weather", {"city": "Paris"})])
    original = resp("Let me look up the weather in Paris for you.")
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    assert out.text == original.text
    assert len(ex.calls) == 2
    fix_prompt, model, tools = ex.calls[1]
    assert model == MODEL
    assert fix_prompt.tool_choice == ToolChoice.required()
    assert tools.names == ["get_weather", "search_web"]
    assert "made no tool call" in fix_prompt.messages[-1].text
    (rec,) = llm_records(out)
    assert rec.llm_calls == 2
    assert out.tool_calls[0].repairs[-1].kind == "intent_only"


async def test_intent_reply_that_is_a_call_counts_as_no() -> None:
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    original = resp("Checking the weather now.")
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert out.parts == original.parts  # no call is ever taken from the intent reply
    assert len(ex.calls) == 1
    (rec,) = llm_records(out)
    assert rec.llm_calls == 1
    assert "intent question: answered with a tool call, counted as no" in rec.detail


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Maybe, it depends.", "unclear answer 'Maybe, it depends.', counted as no"),
        ("", "unclear answer '', counted as no"),
        ("I did intend to.", "unclear answer 'I did intend to.', counted as no"),
        ("No, that was the answer.", "intent question: no"),
    ],
)
async def test_intent_reply_other_than_yes_counts_as_no(answer: str, said: str) -> None:
    ex = ScriptedExecutor([answer])
    original = resp("Let me think about Paris.")
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert out.parts == original.parts
    assert len(ex.calls) == 1
    assert said in llm_records(out)[0].detail


@pytest.mark.parametrize(
    "answer",
    [
        'Yes. <tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>',
        '**Yes**<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>\nyes',
    ],
)
async def test_yes_around_markup_is_yes_but_no_call_is_taken(answer: str) -> None:
    ex = ScriptedExecutor([answer, openai_call("get_weather", {"city": "Paris"})])
    out = await run(LLMBasedToolCallFixProcessor(), ex, resp("Let me check Paris."))
    # the call comes from the fix call, not from the markup in the intent reply (Rome)
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    assert len(ex.calls) == 2
    assert "intent question: yes (call markup in the reply not used)" in llm_records(out)[0].detail


async def test_markup_without_a_yes_counts_as_no() -> None:
    answer = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
    ex = ScriptedExecutor([answer])
    original = resp("Let me check Paris.")
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert out.parts == original.parts
    assert len(ex.calls) == 1
    assert "counted as no" in llm_records(out)[0].detail


async def test_intent_question_drops_tool_params() -> None:
    ex = ScriptedExecutor(["no"])
    prompt = PROMPT.model_copy(
        update={"params": {"temperature": 0, "parallel_tool_calls": False, "tool_choice": "auto"}}
    )
    await run(LLMBasedToolCallFixProcessor(), ex, resp("Let me check Paris."), prompt)
    assert ex.prompts[0].params == {"temperature": 0}


@pytest.mark.parametrize(
    ("precheck", "asked"),
    [
        (IntentPrecheck(), False),  # the default: plain prose is not asked about
        (IntentPrecheck(enabled=False), True),  # disabled: every message is asked about
        (IntentPrecheck().extend(action_phrases=["capital of"]), True),  # configured
    ],
    ids=["default", "disabled", "extended"],
)
async def test_precheck_can_be_disabled_and_configured(
    precheck: IntentPrecheck, asked: bool
) -> None:
    ex = ScriptedExecutor(["no"])
    original = resp("Paris is the capital of France.")
    out = await run(LLMBasedToolCallFixProcessor(precheck=precheck), ex, original)
    assert len(ex.calls) == int(asked)
    assert out.parts == original.parts  # "no": nothing changes either way


async def test_without_its_action_phrases_the_precheck_lets_an_announcement_pass() -> None:
    ex = ScriptedExecutor(["no"])
    fixer = LLMBasedToolCallFixProcessor(precheck=IntentPrecheck(action_phrases=()))
    await run(fixer, ex, resp("Let me check Paris."))  # asked about by default (above)
    assert ex.calls == []


async def test_a_configured_action_phrase_is_what_the_precheck_asks_about() -> None:
    text = "I shall consult the oracle about Paris."
    default, configured = ScriptedExecutor(["no"]), ScriptedExecutor(["no"])
    await run(LLMBasedToolCallFixProcessor(), default, resp(text))
    fixer = LLMBasedToolCallFixProcessor(
        precheck=IntentPrecheck().extend(action_phrases=["consult the oracle"])
    )
    await run(fixer, configured, resp(text))
    assert (len(default.calls), len(configured.calls)) == (0, 1)


# ---- broken calls ------------------------------------------------------------------------


async def test_invalid_json_feedback_and_fix_keeps_call_id() -> None:
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    out = await run(
        LLMBasedToolCallFixProcessor(), ex, resp(native("get_weather", "city=Paris", id="c9"))
    )
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    assert out.tool_calls[0].id == "c9"
    assert out.invalid_tool_calls == []
    feedback = last_user_text(ex)
    assert "could not be parsed" in feedback
    assert "city=Paris" in ex.prompts[0].messages[-2].text
    assert ex.prompts[0].tool_choice == ToolChoice.named("get_weather")
    assert out.tool_calls[0].repairs[-1].kind == "invalid_json"


async def test_unknown_name_feedback_lists_tools() -> None:
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    out = await run(
        LLMBasedToolCallFixProcessor(), ex, resp(native("lookup_weather_now", '{"city": "Paris"}'))
    )
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    feedback = last_user_text(ex)
    assert "'lookup_weather_now'" in feedback
    assert "get_weather, search_web" in feedback
    assert ex.prompts[0].tool_choice == ToolChoice.required()
    assert out.tool_calls[0].repairs[-1].kind == "unknown_name"


async def test_invalid_arguments_feedback_has_errors_and_schema() -> None:
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris", "unit": "celsius"})])
    broken = native("get_weather", '{"city": "Paris", "unit": "kelvin"}')
    out = await run(LLMBasedToolCallFixProcessor(), ex, resp(broken))
    assert calls_of(out) == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    feedback = last_user_text(ex)
    assert "'kelvin' is not one of ['celsius', 'fahrenheit']" in feedback
    assert json.dumps(TOOLS["get_weather"].parameters) in feedback


async def test_success_on_last_retry() -> None:
    ex = ScriptedExecutor(
        [
            openai_call("get_weather", "{not json"),
            openai_call("get_weather", '{"town": "Paris"}'),
            openai_call("get_weather", {"city": "Paris"}),
        ]
    )
    fixer = LLMBasedToolCallFixProcessor(max_retries=3)
    out = await run(fixer, ex, resp(native("get_weather", "city=Paris")))
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    assert len(ex.calls) == 3
    (rec,) = llm_records(out)
    assert rec.llm_calls == 3
    assert "3 fix call(s); fixed 1 of 1" in rec.detail
    # the conversation grows: each attempt sees the previous reply and new feedback
    assert len(ex.prompts[2].messages) == len(ex.prompts[0].messages) + 4
    assert "'city' is a required property" in last_user_text(ex, 2)


async def test_exhaustion_without_fallback_marks_call_invalid() -> None:
    ex = ScriptedExecutor([openai_call("get_weather", "{bad")], repeat_last=True)
    fixer = LLMBasedToolCallFixProcessor(max_retries=2)
    out = await run(fixer, ex, resp("Sure.", native("get_weather", "city=Paris", id="c1")))
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw, bad.kind) == (
        "c1",
        "get_weather",
        "city=Paris",
        "invalid_json",
    )
    assert out.text == "Sure."
    assert len(ex.calls) == 2
    (rec,) = llm_records(out)
    assert rec.llm_calls == 2
    assert "calls left invalid" in rec.detail


class _Recorder(ResponseProcessor):
    def __init__(self) -> None:
        self.seen: list[Response] = []

    async def process(
        self,
        executor: Any,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],
    ) -> list[Response]:
        self.seen.extend(responses)
        return [Response.text_only("fallback answer")]


async def test_exhaustion_with_fallback_gets_original() -> None:
    ex = ScriptedExecutor(["still nothing"], repeat_last=True)
    fallback = _Recorder()
    fixer = LLMBasedToolCallFixProcessor(max_retries=2, fallback=fallback)
    original = resp(native("get_weather", "city=Paris"))
    out = await run(fixer, ex, original)
    assert fallback.seen == [original]
    assert out.text == "fallback answer"
    (rec,) = llm_records(out)
    assert rec.llm_calls == 2
    assert "fallback" in rec.detail
    assert "no tool call" in last_user_text(ex)


async def test_max_retries_zero_spends_nothing_on_broken_call() -> None:
    ex = ScriptedExecutor([])
    out = await run(
        LLMBasedToolCallFixProcessor(max_retries=0), ex, resp(native("get_weather", "city=Paris"))
    )
    assert ex.calls == []
    assert [p.raw for p in out.invalid_tool_calls] == ["city=Paris"]


# ---- tool choice ------------------------------------------------------------------------------


async def test_required_tool_choice_skips_the_question() -> None:
    ex = ScriptedExecutor([openai_call("search_web", {"query": "paris weather"})])
    prompt = PROMPT.model_copy(update={"tool_choice": ToolChoice.required()})
    out = await run(LLMBasedToolCallFixProcessor(), ex, resp("Paris is nice."), prompt)
    assert calls_of(out) == [("search_web", {"query": "paris weather"})]
    assert len(ex.calls) == 1
    assert ex.prompts[0].tool_choice == ToolChoice.required()


async def test_named_tool_choice_is_kept_for_the_fix_call() -> None:
    ex = ScriptedExecutor([openai_call("search_web", {"query": "paris"})])
    prompt = PROMPT.model_copy(update={"tool_choice": ToolChoice.named("search_web")})
    out = await run(LLMBasedToolCallFixProcessor(), ex, resp("Paris is nice."), prompt)
    assert calls_of(out) == [("search_web", {"query": "paris"})]
    assert ex.prompts[0].tool_choice == ToolChoice.named("search_web")


# ---- parallel calls ------------------------------------------------------------------------


async def test_parallel_valid_sibling_is_kept_and_not_reasked() -> None:
    good = native("get_weather", '{"city": "Paris"}', id="a")
    broken = native("search_web", "{}", id="b")
    ex = ScriptedExecutor(
        [
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "x1",
                        "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
                    },
                    {"id": "x2", "function": {"name": "search_web", "arguments": '{"query":"q"}'}},
                ],
            }
        ]
    )
    out = await run(LLMBasedToolCallFixProcessor(), ex, resp(good, broken))
    assert out.tool_calls[0] is good
    assert calls_of(out) == [("get_weather", {"city": "Paris"}), ("search_web", {"query": "q"})]
    assert out.tool_calls[1].id == "b"
    feedback = last_user_text(ex)
    assert 'get_weather({"city": "Paris"})' in feedback  # told which calls are kept
    assert "'query' is a required property" in feedback
    assert ex.prompts[0].tool_choice == ToolChoice.named("search_web")


async def test_parallel_two_broken_fixed_in_one_conversation() -> None:
    ex = ScriptedExecutor(
        [
            {
                "content": None,
                "tool_calls": [
                    {
                        "id": "x1",
                        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                    },
                    {"id": "x2", "function": {"name": "search_web", "arguments": '{"query":"q"}'}},
                ],
            }
        ]
    )
    original = resp(native("get_weather", "city=Oslo", id="a"), native("search_web", "{}", id="b"))
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert [(c.id, c.name, c.arguments) for c in out.tool_calls] == [
        ("a", "get_weather", {"city": "Oslo"}),
        ("b", "search_web", {"query": "q"}),
    ]
    assert len(ex.calls) == 1
    assert ex.prompts[0].tool_choice == ToolChoice.required()


# ---- wiring, idempotence, configuration --------------------------------------------------------


async def test_with_processor_wraps_executor_and_is_idempotent() -> None:
    inner = ScriptedExecutor(
        [
            resp(native("get_weather", "city=Paris")),
            openai_call("get_weather", {"city": "Paris"}),
        ]
    )
    fixer = LLMBasedToolCallFixProcessor()
    wrapped = inner.with_processor(fixer)
    (out,) = await wrapped.execute(PROMPT, MODEL, TOOLS)
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    assert len(inner.calls) == 2
    again = await fixer.process(inner, PROMPT, MODEL, TOOLS, [out])
    assert again == [out]
    assert len(inner.calls) == 2


async def test_needs_an_executor_when_a_call_is_broken() -> None:
    with pytest.raises(ConfigurationError):
        await LLMBasedToolCallFixProcessor().process(
            None, PROMPT, MODEL, TOOLS, [resp(native("get_weather", "city=Paris"))]
        )


async def test_own_executor_and_model_are_used() -> None:
    own = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    fixer = LLMBasedToolCallFixProcessor(registry=TOOLS, executor=own, model="fixer-model")
    (out,) = await fixer.process(None, PROMPT, MODEL, None, [resp(native("get_weather", "x"))])
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    assert own.calls[0][1] == "fixer-model"


async def test_custom_prompts_are_sent() -> None:
    prompts = FixerPrompts(invalid_json="BROKEN {label}: {error} <<{raw}>>")
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    await run(LLMBasedToolCallFixProcessor(prompts=prompts), ex, resp(native("get_weather", "zz")))
    assert "BROKEN #1 (get_weather)" in last_user_text(ex)
    assert "<<zz>>" in last_user_text(ex)


def test_negative_retries_rejected() -> None:
    with pytest.raises(ConfigurationError):
        LLMBasedToolCallFixProcessor(max_retries=-1)


def test_build_llm_processor_for_the_cli() -> None:
    p = build_llm_processor("openai/m", "http://127.0.0.1:9/v1", 2)
    assert p.max_retries == 2
    assert p.model == "openai/m"
    assert p.executor is not None
    assert getattr(p.executor, "api_base", None) == "http://127.0.0.1:9/v1"


def test_sync_surface() -> None:
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    (out,) = LLMBasedToolCallFixProcessor().process_sync(
        ex, PROMPT, MODEL, TOOLS, [resp(native("get_weather", "?"))]
    )
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]


# ---- the budget (promise 8) ------------------------------------------------------------------

REPLIES = st.sampled_from(
    [
        "yes",
        "no",
        "maybe",
        "",
        openai_call("get_weather", {"city": "Paris"}),
        openai_call("get_weather", "{oops"),
        openai_call("nope_tool", {"a": 1}),
        openai_call("search_web", {"query": "x", "extra": 1}),
        '<tool_call>{"name": "search_web", "arguments": {"query": "z"}}</tool_call>',
    ]
)
INITIAL = st.sampled_from(
    [
        resp(native("get_weather", '{"city": "Paris"}')),
        resp(native("get_weather", "city=Paris")),
        resp(native("nope", "{}")),
        resp(
            native("get_weather", '{"city": "Paris"}', id="a"), native("search_web", "{}", id="b")
        ),
        resp("Let me search the web for that."),
        resp("Paris is the capital of France."),
        resp('{"name": "get_weather", "arguments": {"town": "Paris"}}'),
    ]
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    initial=INITIAL,
    replies=st.lists(REPLIES, min_size=1, max_size=8),
    max_retries=st.integers(min_value=0, max_value=4),
    forced=st.booleans(),
    with_fallback=st.booleans(),
)
def test_budget_never_exceeded(
    initial: Response,
    replies: list[Any],
    max_retries: int,
    forced: bool,
    with_fallback: bool,
) -> None:
    ex = ScriptedExecutor(replies, repeat_last=True)
    prompt = PROMPT.model_copy(
        update={"tool_choice": ToolChoice.required() if forced else ToolChoice.auto()}
    )
    fallback = _Recorder() if with_fallback else None
    fixer = LLMBasedToolCallFixProcessor(max_retries=max_retries, fallback=fallback)
    (out,) = fixer.process_sync(ex, prompt, MODEL, TOOLS, [initial])
    assert len(ex.calls) <= 1 + max_retries
    if initial.tool_calls and all(
        c.name in TOOLS and TOOLS[c.name].is_valid(c.arguments) for c in initial.tool_calls
    ):
        assert ex.calls == []
    assert llm_calls_of(out) == len(ex.calls) or (
        fallback is not None and out.text == "fallback answer"
    )
    recs = llm_records(out)
    assert sum(r.llm_calls for r in recs) == len(ex.calls)
    for c in out.tool_calls:  # never a tool outside the registry, never an invalid call
        assert TOOLS[c.name].is_valid(c.arguments)
    assert not any(isinstance(p, InvalidToolCallPart) and p.raw == "" for p in out.parts)


# ---- toolfix.testing executors -------------------------------------------------------------


async def test_scripted_executor_replies_in_order_and_records_calls() -> None:
    from toolfix.testing import ScriptExhaustedError

    def computed(prompt: Prompt, model: str, tools: ToolRegistry) -> str:
        return f"{model}:{prompt.messages[-1].text}:{len(tools)}"

    ex = ScriptedExecutor(["plain", openai_call("get_weather", {"city": "Oslo"}), computed])
    (a,) = await ex.execute(PROMPT, MODEL, TOOLS)
    (b,) = await ex.execute(PROMPT, MODEL, [WEATHER])
    (c,) = await ex.execute(Prompt.of("hey"), "m2", TOOLS)
    assert a.text == "plain"
    assert calls_of(b) == [("get_weather", {"city": "Oslo"})]
    assert c.text == "m2:hey:2"
    assert [m for _, m, _ in ex.calls] == [MODEL, MODEL, "m2"]
    assert ex.calls[1][2].names == ["get_weather"]
    assert ex.prompts[2] == Prompt.of("hey")
    assert ex.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="no reply left for request #4"):
        await ex.execute(PROMPT, MODEL, TOOLS)


async def test_scripted_executor_repeat_last_and_usage() -> None:
    ex = ScriptedExecutor(["a", "b"], repeat_last=True, usage=Usage(input_tokens=3))
    texts = [(await ex.execute(PROMPT, MODEL))[0].text for _ in range(4)]
    assert texts == ["a", "b", "b", "b"]
    assert (await ex.execute(PROMPT, MODEL))[0].usage == Usage(input_tokens=3)


async def test_function_executor_sync_async_and_choices() -> None:
    from toolfix.testing import FunctionExecutor

    async def two(prompt: Prompt, model: str, tools: ToolRegistry) -> list[str]:
        return ["one", "two"]

    ex = FunctionExecutor(two)
    assert [r.text for r in await ex.execute(PROMPT, MODEL)] == ["one", "two"]
    echo = FunctionExecutor(lambda p, m, t: Response.text_only(p.messages[-1].text))
    assert echo.execute_sync(Prompt.of("x"), MODEL)[0].text == "x"
    assert len(echo.calls) == 1


async def test_repeated_fixed_call_is_not_duplicated() -> None:
    two = {
        "content": None,
        "tool_calls": [
            {"id": "x1", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}},
            {"id": "x2", "function": {"name": "search_web", "arguments": "{}"}},
        ],
    }
    again = {
        "content": None,
        "tool_calls": [
            {"id": "y1", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}},
            {"id": "y2", "function": {"name": "search_web", "arguments": '{"query":"q"}'}},
        ],
    }
    original = resp(native("get_weather", "city=Oslo", id="a"), native("search_web", "?", id="b"))
    ex = ScriptedExecutor([two, again])
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert [(c.id, c.name, c.arguments) for c in out.tool_calls] == [
        ("a", "get_weather", {"city": "Oslo"}),
        ("b", "search_web", {"query": "q"}),
    ]
    assert len(ex.calls) == 2
    assert ex.prompts[1].tool_choice == ToolChoice.named("search_web")


# ---- matching reply calls to broken calls (by tool name and id, never by position) -----------


async def test_feedback_follows_the_call_when_the_reply_swaps_the_order() -> None:
    original = resp(
        native("get_weather", '{"town": "Oslo"}', id="a"), native("search_web", "{}", id="b")
    )
    swapped = {
        "content": None,
        "tool_calls": [
            {"id": "x1", "function": {"name": "search_web", "arguments": '{"q": "oslo"}'}},
            {"id": "x2", "function": {"name": "get_weather", "arguments": '{"town": "Oslo"}'}},
        ],
    }
    ex = ScriptedExecutor([swapped], repeat_last=True)
    out = await run(LLMBasedToolCallFixProcessor(max_retries=2), ex, original)
    bad = {p.id: p for p in out.invalid_tool_calls}
    assert sorted(bad) == ["a", "b"]
    assert bad["a"].name == "get_weather"
    assert "search_web" not in bad["a"].error
    assert "query" not in bad["a"].error
    assert bad["b"].name == "search_web"
    assert "get_weather" not in bad["b"].error
    assert "city" not in bad["b"].error
    # the second feedback speaks of each call under its own label
    paragraphs = last_user_text(ex).split("\n\n")
    weather = next(p for p in paragraphs if "(get_weather)" in p)
    search = next(p for p in paragraphs if "(search_web)" in p)
    assert "'city' is a required property" in weather
    assert "'query' is a required property" in search
    assert "#1 (get_weather)" in weather
    assert "#2 (search_web)" in search


async def test_reply_calls_matched_by_id_before_name() -> None:
    original = resp(
        native("get_weather", '{"town": "Oslo"}', id="a"),
        native("get_weather", '{"town": "Rome"}', id="b"),
    )
    reply = {
        "content": None,
        "tool_calls": [
            {"id": "b", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}},
            {"id": "a", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
        ],
    }
    ex = ScriptedExecutor([reply])
    out = await run(LLMBasedToolCallFixProcessor(), ex, original)
    assert [(c.id, c.arguments) for c in out.tool_calls] == [
        ("a", {"city": "Oslo"}),
        ("b", {"city": "Rome"}),
    ]


# ---- truncated calls -----------------------------------------------------------------------


def cut_off(raw: str, partial: dict[str, Any], id: str = "c1") -> InvalidToolCallPart:
    """A call cut off at the end of the output, as the manual fixer reports it."""
    return InvalidToolCallPart(
        id=id,
        name="get_weather",
        raw=raw,
        error="the output ended inside the call",
        kind="truncated",
        arguments=partial,
    )


async def test_truncated_call_feedback_says_cut_off_and_asks_for_the_whole_call() -> None:
    # the partial arguments already validate: the call is still re-asked, as a whole
    broken = cut_off('{"city": "Paris", "unit": "cel', {"city": "Paris"})
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris", "unit": "celsius"})])
    out = await run(LLMBasedToolCallFixProcessor(), ex, resp(broken))
    assert [(c.id, c.name, c.arguments) for c in out.tool_calls] == [
        ("c1", "get_weather", {"city": "Paris", "unit": "celsius"})
    ]
    feedback = last_user_text(ex)
    assert "The call #1 (get_weather) was cut off" in feedback
    assert "Send the whole call again" in feedback
    assert '{"city": "Paris", "unit": "cel' in feedback
    assert "do not match the schema" not in feedback
    assert ex.prompts[0].tool_choice == ToolChoice.named("get_weather")
    assert out.tool_calls[0].repairs[-1].kind == "truncated"


async def test_truncated_call_left_invalid_keeps_kind_and_partial_arguments() -> None:
    broken = cut_off('{"city": "Pa', {})
    ex = ScriptedExecutor([openai_call("get_weather", '{"city": "Pa')], repeat_last=True)
    out = await run(LLMBasedToolCallFixProcessor(max_retries=1), ex, resp(broken))
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert (bad.kind, bad.raw, bad.arguments) == ("truncated", '{"city": "Pa', {})


# ---- custom prompts: system message, functions of the failure ----------------------------


async def test_prompt_functions_get_the_failure() -> None:
    from toolfix.processors import FixFailure

    seen: list[FixFailure] = []

    def invalid_arguments(f: FixFailure) -> str:
        seen.append(f)
        return f"FIX {f.label}: {', '.join(f.issues)} | tools={list(f.tool_names)}"

    prompts = FixerPrompts(
        invalid_arguments=invalid_arguments,
        fix_request=lambda f: f"{len(f.problems)} problem(s), first {f.kind}:\n" + f.problems[0],
    )
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    broken = native("get_weather", '{"town": "Paris"}', id="w1")
    await run(LLMBasedToolCallFixProcessor(prompts=prompts), ex, resp(broken))
    (f,) = seen
    assert (f.kind, f.label, f.name, f.call_id) == (
        "missing_required",
        "#1 (get_weather)",
        "get_weather",
        "w1",
    )
    assert f.arguments == {"town": "Paris"}
    assert f.schema == TOOLS["get_weather"].parameters
    assert last_user_text(ex) == (
        "1 problem(s), first missing_required:\n"
        "FIX #1 (get_weather): unknown key 'town': the tool has no such parameter, "
        "missing required key: 'city' is a required property, "
        "the tool's parameters are: city, unit | "
        "tools=['get_weather', 'search_web']"
    )


async def test_system_message_added_to_the_fixer_calls_only() -> None:
    prompts = FixerPrompts(system=lambda f: f"You repair tool calls ({f.request}, {f.kind}).")
    ex = ScriptedExecutor(["yes", openai_call("get_weather", {"city": "Paris"})])
    prompt = Prompt.of(Message.system("You are a travel agent."), "Weather in Paris?")
    out = await run(
        LLMBasedToolCallFixProcessor(prompts=prompts), ex, resp("Let me check Paris."), prompt
    )
    assert calls_of(out) == [("get_weather", {"city": "Paris"})]
    # the intent question, then the fix call: the function learns which it writes
    for asked, kind in zip(ex.prompts, ["intent_question", "fix_call"], strict=True):
        first = asked.messages[0]
        assert first.role == "system"
        assert (
            first.text == f"You are a travel agent.\n\nYou repair tool calls ({kind}, intent_only)."
        )
        assert [m.role for m in asked.messages].count("system") == 1
    assert prompt.messages[0].text == "You are a travel agent."  # the caller's prompt unchanged


async def test_system_template_without_a_system_message_comes_first() -> None:
    prompts = FixerPrompts(system="Fix calls. Tools: {tool_names}.")
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris"})])
    await run(LLMBasedToolCallFixProcessor(prompts=prompts), ex, resp(native("get_weather", "?")))
    first = ex.prompts[0].messages[0]
    assert (first.role, first.text) == ("system", "Fix calls. Tools: get_weather, search_web.")
    assert ex.prompts[0].messages[1] == PROMPT.messages[0]


def test_prompt_templates_and_functions_are_validated() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        FixerPrompts(invalid_json=3)  # type: ignore[arg-type]
    assert FixerPrompts(truncated=str).truncated is str


async def test_intent_question_sends_tool_history_as_text() -> None:
    earlier = Response(
        parts=(TextPart(text="Checking."), native("get_weather", '{"city": "Oslo"}', id="t1"))
    )
    prompt = Prompt.of("Weather in Oslo, then Paris?").with_messages(
        earlier.to_message(),
        Message.tool_result("t1", "get_weather", "rain"),
    )
    ex = ScriptedExecutor(["no"])
    await run(LLMBasedToolCallFixProcessor(), ex, resp("Let me check Paris too."), prompt)
    system, *asked = ex.prompts[0].messages
    assert system.role == "system"
    assert system.text == FixerPrompts().intent_system  # the intent question's own default
    assert [m.role for m in asked] == ["user", "assistant", "user", "assistant", "user"]
    for m in asked:
        assert all(isinstance(p, TextPart) for p in m.parts)
    assert asked[1].text == 'Checking.\n{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    assert asked[2].text == "Result of get_weather (call t1): rain"
    assert prompt.messages[2].role == "tool"  # the caller's prompt is unchanged


async def test_raw_cut_off_text_is_re_asked_end_to_end() -> None:
    # raw text cut off inside the arguments: the manual fixer makes it an invalid
    # `truncated` call (never a valid one), and the LLM fixer re-asks for the whole call
    from toolfix._repair.manual import ManualToolCallFixProcessor

    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "unit": "cel'
    chain = ManualToolCallFixProcessor() + LLMBasedToolCallFixProcessor()
    ex = ScriptedExecutor([openai_call("get_weather", {"city": "Paris", "unit": "celsius"})])
    (out,) = await chain.process(ex, PROMPT, MODEL, TOOLS, [resp(text)])
    assert calls_of(out) == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert out.invalid_tool_calls == []
    assert [r.kind for r in out.tool_calls[0].repairs][-1] == "truncated"
    assert len(ex.prompts) == 1
    feedback = last_user_text(ex)
    assert "The call #1 (get_weather) was cut off" in feedback
    assert "Send the whole call again" in feedback


async def test_raw_cut_off_text_manual_only_is_invalid_with_partial_arguments() -> None:
    from toolfix._repair.manual import ManualToolCallFixProcessor

    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "unit": "cel'
    (out,) = await ManualToolCallFixProcessor().process(
        ScriptedExecutor([]), PROMPT, MODEL, TOOLS, [resp(text)]
    )
    assert out.tool_calls == []
    (bad,) = out.invalid_tool_calls
    assert (bad.name, bad.kind, bad.arguments) == ("get_weather", "truncated", {"city": "Paris"})
