"""gpt-oss harmony function calls and channel splitting."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx
from op_count import assert_linear
from tooldefs import WEATHER_CITY

from toolfix._errors import TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.harmony import HarmonyFormat, split_harmony

FMT = HarmonyFormat()
CTX = ScanContext(tool_names=frozenset({"get_weather", "get_time", "shell"}))
MARKUP = ("call_in_content", "native_markup")
TRUNC = (*MARKUP, "truncated")
ANALYSIS = "<|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>"


def call(name: str, args: str) -> str:
    """A function call as the gpt-oss chat template renders it."""
    return (
        f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json"
        f"<|message|>{args}<|call|>"
    )


run = FormatRunner(FMT, CTX, "harmony", ("name", "arguments", "id", "kinds", "truncated"))
"""Scan, check the invariants, return the compared fields and the text left."""


def test_single_call_after_analysis() -> None:
    text = ANALYSIS + call("get_weather", '{"city":"Paris"}')
    assert run(text) == ([("get_weather", '{"city":"Paris"}', None, MARKUP, False)], ANALYSIS)


def test_parallel_calls_unicode_nested() -> None:
    a1 = '{"city": "Zürich 東京", "opts": {"days": [1, 2], "x": {"y": null}}}'
    text = call("get_weather", a1) + call("get_time", "{}")
    assert run(text) == (
        [("get_weather", a1, None, MARKUP, False), ("get_time", "{}", None, MARKUP, False)],
        "",
    )


def test_recipient_before_channel_and_text_around() -> None:
    text = (
        "Before. <|start|>assistant to=functions.get_time<|channel|>commentary json"
        "<|message|>{}<|call|> After."
    )
    assert run(text) == ([("get_time", "{}", None, MARKUP, False)], "Before.  After.")


def test_engine_stripped_forms() -> None:
    # a bare header word no special token opened stays text: a stream has sent it as
    # prose before "to=" arrives (promise 12; issue 28, Rapid-MLX #480)
    assert run('commentary to=functions.get_weather json{"city": "Paris"} and then') == (
        [("get_weather", '{"city": "Paris"}', None, MARKUP, False)],
        "commentary  and then",
    )
    text = 'to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Oslo"}'
    assert run(text) == ([("get_weather", '{"city": "Oslo"}', None, MARKUP, False)], "")


def test_glued_json_suffix_dropped_for_registry_tool() -> None:
    # llama.cpp PR #15158: "Handles a common variant where models emit NAMEjson (e.g. shelljson)"
    text = '<|start|>assistant<|channel|>commentary to=functions.shelljson<|message|>{"cmd": "ls"}'
    assert run(text) == ([("shell", '{"cmd": "ls"}', None, MARKUP, False)], "")


def test_truncated_arguments() -> None:
    text = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Pa'
    assert run(text) == ([("get_weather", '{"city": "Pa', None, TRUNC, True)], "")
    assert run("<|channel|>commentary to=functions.get_time ") == (
        [("get_time", "", None, TRUNC, True)],
        "",
    )


def test_verbatim_lm_studio_truncated_output() -> None:
    # Verbatim "Model Output" from LM Studio bug #942 (gpt-oss-20b; the call is cut short):
    # https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/942
    args = (
        '{"data":{"envs":{"sd":{"namespaces":{"main":{"resources":{"requests":{"cpu":"100m",'
        '"memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}}}}},"pr":{"namespaces":'
        '{"main":{"resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"cpu":"1",'
        '"memory":"1Gi"}}}}}}}'
    )
    text = (
        "<|start|>assistant<|channel|>commentary to=functions.get_ecs_instructions"
        "<|constrain|>json<|message|>" + args
    )
    assert run(text) == ([("get_ecs_instructions", args, None, TRUNC, True)], "")


def test_verbatim_cookbook_conversation() -> None:
    # Verbatim completion from the harmony cookbook / openai/harmony README example:
    # https://cookbook.openai.com/articles/openai-harmony
    text = (
        '<|channel|>analysis<|message|>User asks: "What is the weather in Tokyo?" We need to use '
        "get_weather tool.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary "
        'json<|message|>{"location": "Tokyo"}<|call|>'
    )
    got, remaining = run(text)
    assert got == [("get_weather", '{"location": "Tokyo"}', None, MARKUP, False)]
    assert remaining == (
        '<|channel|>analysis<|message|>User asks: "What is the weather in Tokyo?" We need to use '
        "get_weather tool.<|end|>"
    )
    reasoning, content = split_harmony(text)
    assert (
        reasoning == 'User asks: "What is the weather in Tokyo?" We need to use get_weather tool.'
    )
    assert content == (
        "<|start|>assistant to=functions.get_weather<|channel|>commentary "
        'json<|message|>{"location": "Tokyo"}<|call|>'
    )


def test_split_harmony_final_and_preamble() -> None:
    text = (
        "<|channel|>analysis<|message|>Think 1.<|end|>"
        "<|start|>assistant<|channel|>commentary<|message|>Checking now.<|end|>"
        "<|start|>assistant<|channel|>analysis<|message|>Think 2.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>It is 21 °C in Paris.<|return|>"
    )
    assert split_harmony(text) == ("Think 1.\nThink 2.", "Checking now.It is 21 °C in Paris.")
    assert split_harmony("No harmony here.") == (None, "No harmony here.")
    assert split_harmony("<|channel|>final<|message|>Partial answ") == (None, "Partial answ")


@pytest.mark.parametrize(
    "text",
    [
        "The header carries to=functions.NAME before the message.",
        "Use `to=functions.get_weather` as recipient; then send the arguments.",
        "<|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>",
        "```\nto=functions.get_time is how gpt-oss addresses a tool\n```",
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_too_many_calls_raises() -> None:
    with pytest.raises(TooManyCallsError):
        FMT.extract(call("get_time", "{}") * 200, CTX)


def test_markers_alone_take_linear_work() -> None:
    ctx = many_calls_ctx()
    unit = "<|start|><|channel|>commentary to=functions.x "
    assert_linear(lambda n: FMT.extract(unit * n, ctx))
    assert_linear(lambda n: split_harmony("<|channel|>analysis<|message|>" * n))


def test_many_calls_take_linear_work() -> None:
    one = call("get_time", "{}")
    assert_many_calls_linear(FMT, one, many_calls_ctx())
    reasoning, content = split_harmony((ANALYSIS + one) * 5000)
    assert reasoning is not None
    assert content.count("<|call|>") == 5000


# ---- by recipient (issue 11): only messages addressed to a function are calls ------------

WEATHER_TOOLS = [WEATHER_CITY]
PARIS_JSON = '{"city": "Paris"}'


@pytest.mark.parametrize(
    "text",
    [
        # the recipient after the channel (the gpt-oss template)
        call("get_weather", PARIS_JSON),
        # the recipient in the role header
        "<|start|>assistant to=functions.get_weather<|channel|>commentary json"
        f"<|message|>{PARIS_JSON}<|call|>",
        # no <|start|>: the output starts at the recipient
        f" to=functions.get_weather<|channel|>commentary json<|message|>{PARIS_JSON}<|call|>",
        ANALYSIS + f" to=functions.get_weather<|channel|>commentary json<|message|>{PARIS_JSON}",
    ],
)
def test_a_message_addressed_to_a_function_is_a_call(text: str) -> None:
    from toolfix import repair

    fixed = repair(text, WEATHER_TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert fixed.invalid_tool_calls == []


ROME = '{"name": "get_weather", "arguments": {"city": "Rome"}}'
FINAL = "<|start|>assistant<|channel|>final<|message|>"


@pytest.mark.parametrize(
    ("text", "calls", "answer"),
    [
        # nothing to repair: the response comes back as it was
        (f"{FINAL}{ROME}<|return|>", 0, None),
        (f"{ANALYSIS}{FINAL}{ROME}<|return|>", 0, ROME),
        (
            f'{ANALYSIS}{FINAL}Write to=functions.get_weather {{"city": "Rome"}} to call it.',
            0,
            'Write to=functions.get_weather {"city": "Rome"} to call it.',
        ),
        # a commentary preamble (no recipient) holding JSON, then a real call
        (
            f"<|channel|>commentary<|message|>{ROME}<|end|>" + call("get_weather", PARIS_JSON),
            1,
            ROME,
        ),
    ],
)
def test_final_channel_and_preambles_are_content_even_as_json(
    text: str, calls: int, answer: str | None
) -> None:
    from toolfix import repair

    fixed = repair(text, WEATHER_TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ] * calls
    assert fixed.invalid_tool_calls == []
    assert fixed.text == (text if answer is None else answer)


def test_a_recipient_without_its_namespace() -> None:
    """``to=NAME`` (no ``functions.``) is read for an offered, undotted name before the
    header's ``<|message|>`` (kilocode#1775); otherwise it is text."""
    head = "<|start|>assistant<|channel|>commentary to="
    call = '<|constrain|>json<|message|>{"city":"Paris"}<|call|>'
    found = FMT.extract(f"{head}get_weather {call}", CTX)
    assert [(c.name, c.arguments) for c in found] == [("get_weather", '{"city":"Paris"}')]
    for text in (
        f"{head}lookup {call}",  # not offered
        f"{head}browser.get_weather {call}",  # a namespace other than functions.
        'mail it to=get_weather {"city":"Paris"} then <|message|>',  # no header token
    ):
        assert FMT.extract(text, CTX) == [], text
    assert not FMT.detect('send to=get_weather {"city":"Paris"}'.__contains__)


def test_bare_recipients_take_linear_work() -> None:
    assert_linear(lambda n: FMT.extract("to=get_weather x " * n + "<|message|>", CTX))
    assert_linear(lambda n: FMT.extract("a=1&to=b " * n + "<|message|>", CTX))
