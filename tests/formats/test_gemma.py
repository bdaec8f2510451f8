"""Gemma ```tool_code``` fences, FunctionGemma and Gemma 4 ``call:name{...}``."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx
from op_count import assert_linear

from toolfix._config import Limits
from toolfix._errors import InputTooLargeError, NestingTooDeepError, TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.gemma import GemmaFormat, parse_gemma_args

FMT = GemmaFormat()
CTX = ScanContext(tool_names=frozenset({"get_weather", "get_time", "get_current_temperature"}))
FENCE = ("call_in_content", "code_fence", "pythonic")
FENCE_T = (*FENCE, "truncated")
MARKUP = ("call_in_content", "native_markup")
MARKUP_T = (*MARKUP, "truncated")


run = FormatRunner(FMT, CTX, "gemma", ("name", "arguments", "payload", "kinds", "truncated"))
"""Scan, check the invariants, return the compared fields and the text left."""


# ---- ```tool_code fences (Gemma 3 function-calling prompts) ---------------------------


def test_tool_code_single_call_with_text_around() -> None:
    text = 'Let me check.\n```tool_code\nget_weather(city="Paris")\n```\nOne moment.'
    assert run(text) == (
        [("get_weather", {"city": "Paris"}, None, FENCE, False)],
        "Let me check.\n\nOne moment.",
    )


def test_tool_code_parallel_print_and_namespace() -> None:
    text = (
        "```tool_code\nprint(default_api.get_weather(city='Zürich', days=3))\n"
        'get_time(tz="Asia/東京")\n```'
    )
    assert run(text) == (
        [
            ("get_weather", {"city": "Zürich", "days": 3}, None, FENCE, False),
            ("get_time", {"tz": "Asia/東京"}, None, FENCE, False),
        ],
        "",
    )


def test_tool_code_list_nested_and_empty() -> None:
    text = (
        '```tool_code\n[get_weather(city="Paris", opts={"u": ["c", "f"], "d": {"x": None}}), '
        "get_time()]\n```"
    )
    assert run(text) == (
        [
            (
                "get_weather",
                {"city": "Paris", "opts": {"u": ["c", "f"], "d": {"x": None}}},
                None,
                FENCE,
                False,
            ),
            ("get_time", {}, None, FENCE, False),
        ],
        "",
    )


def test_tool_code_rejected_arguments_keep_raw_text() -> None:
    # positional arguments are outside the whitelist: the raw text goes to the interpreter
    assert run('```tool_code\nget_weather("Paris")\n```') == (
        [("get_weather", 'get_weather("Paris")', None, FENCE, False)],
        "",
    )


def test_tool_code_truncated() -> None:
    assert run('Sure.\n```tool_code\nget_weather(city="Par') == (
        [("get_weather", 'get_weather(city="Par', None, FENCE_T, True)],
        "Sure.\n",
    )


def test_tool_code_with_json_body() -> None:
    text = '```tool_code\n{"name": "get_time", "args": {}}\n```'
    assert run(text) == (
        [
            (
                None,
                None,
                '{"name": "get_time", "args": {}}',
                ("call_in_content", "code_fence"),
                False,
            )
        ],
        "",
    )


def test_verbatim_lm_studio_gemma3_output() -> None:
    # Verbatim assistant content of gemma-3-4b-it served by LM Studio (a user's log of
    # an unparsed call, quoted in a public repository; see also
    # https://ai.google.dev/gemma/docs/capabilities/function-calling for the prompt)
    text = "```tool_code\nprint(get_current_temperature(location='Paris'))\n```"
    assert run(text) == (
        [("get_current_temperature", {"location": "Paris"}, None, FENCE, False)],
        "",
    )


# ---- FunctionGemma / Gemma 4 -----------------------------------------------------------


def test_verbatim_functiongemma_docs() -> None:
    # Verbatim model turns from Google's FunctionGemma formatting guide:
    # https://ai.google.dev/gemma/docs/functiongemma/formatting-and-best-practices
    text = (
        "<start_function_call>call:get_current_weather{location:<escape>Tokyo, Japan<escape>}"
        "<end_function_call>"
    )
    assert run(text) == (
        [("get_current_weather", {"location": "Tokyo, Japan"}, None, MARKUP, False)],
        "",
    )
    text2 = (
        "<start_function_call>call:get_current_temperature{location:<escape>Paris<escape>,"
        "unit:<escape>celsius<escape>}<end_function_call>"
    )
    assert run(text2)[0] == [
        ("get_current_temperature", {"location": "Paris", "unit": "celsius"}, None, MARKUP, False)
    ]


def test_functiongemma_parallel_typed_nested_text_around() -> None:
    text = (
        "Sure! <start_function_call>call:get_weather{city:<escape>Zürich, {CH}<escape>,days:3,"
        "metric:true,opts:{hours:[1,2.5],note:null}}<end_function_call>"
        "<start_function_call>call:get_time{}<end_function_call> Done."
    )
    assert run(text) == (
        [
            (
                "get_weather",
                {
                    "city": "Zürich, {CH}",
                    "days": 3,
                    "metric": True,
                    "opts": {"hours": [1, 2.5], "note": None},
                },
                None,
                MARKUP,
                False,
            ),
            ("get_time", {}, None, MARKUP, False),
        ],
        "Sure!  Done.",
    )


def test_gemma4_quote_tokens() -> None:
    text = '<|tool_call>call:get_weather{city:<|"|>東京<|"|>,days:2}<tool_call|>'
    assert run(text) == ([("get_weather", {"city": "東京", "days": 2}, None, MARKUP, False)], "")


def test_call_truncated() -> None:
    text = "<start_function_call>call:get_weather{city:<escape>Par"
    assert run(text) == ([("get_weather", {"city": "Par"}, None, MARKUP_T, True)], "")
    text2 = "<start_function_call>call:get_weather{city:<escape>Paris<escape>,days:"
    assert run(text2) == (
        [("get_weather", {"city": "Paris", "days": None}, None, MARKUP_T, True)],
        "",
    )


def test_unwrapped_call_only_for_registry_tools() -> None:
    assert run("call:get_time{}") == ([("get_time", {}, None, MARKUP, False)], "")
    assert FMT.extract("Please call:mom{soon}", CTX) == []


def test_parse_gemma_args_depth_limit() -> None:
    deep = "{a:" * 80 + "1" + "}" * 80
    with pytest.raises(NestingTooDeepError):
        parse_gemma_args(deep)
    assert parse_gemma_args("{a:{b:[1,<escape>x<escape>]}}") == ({"a": {"b": [1, "x"]}}, False)


@pytest.mark.parametrize(
    "text",
    [
        "It is sunny in Paris today.",
        "```python\nget_weather(city='Paris')\n```",  # a python fence is the pythonic format's
        "```tool_code\nprint(1 + 1)\n```",  # code that is not a call
        "```tool_code\nimport os\nos.system('ls')\n```",
        "Gemma answers in a tool_code fence when it calls a function.",
        "Remember to call: the plumber {tomorrow}.",
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_pythonic_length_cap() -> None:
    ctx = ScanContext(tool_names=CTX.tool_names, limits=Limits(max_pythonic_chars=50))
    with pytest.raises(InputTooLargeError):
        FMT.extract("```tool_code\nget_weather(city='" + "x" * 100 + "')\n```", ctx)


def test_too_many_calls_raises() -> None:
    with pytest.raises(TooManyCallsError):
        FMT.extract("<|tool_call>call:get_time{}<tool_call|>" * 200, CTX)


def test_markers_alone_take_linear_work() -> None:
    ctx = ScanContext(tool_names=frozenset({"x"}))
    assert_linear(lambda n: FMT.extract("call:x{a:<escape>" * n, ctx))
    assert_linear(lambda n: FMT.extract("```tool_code\n" * n, CTX))
    assert_linear(lambda n: FMT.extract("call:" * n, CTX))


def test_many_calls_take_linear_work() -> None:
    one = "<start_function_call>call:get_time{tz:<escape>UTC<escape>}<end_function_call>"
    assert_many_calls_linear(FMT, one, many_calls_ctx())


@pytest.mark.parametrize(
    "text",
    [
        # the brace is missing: the next call's opener closes the first call
        "<start_function_call>call:get_weather{city:<escape>Paris<escape>"
        "<start_function_call>call:get_time{}<end_function_call>",
        # ... or its own end token does
        "<start_function_call>call:get_weather{city:<escape>Paris<escape><end_function_call>"
        "<start_function_call>call:get_time{}<end_function_call>",
    ],
)
def test_the_next_call_is_never_read_as_arguments(text: str) -> None:
    names_args, _ = run(text)
    assert [(n, a) for n, a, *_ in names_args] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {}),
    ]


def test_strings_without_their_opener_take_linear_work() -> None:
    # each bare value looks ahead for a lone closing delimiter: the look-ahead is
    # shared, so a long list of bare values (or of lone closers) stays linear
    assert_linear(lambda n: FMT.extract("call:get_time{tz:[" + "1," * n + "]}", CTX))
    assert_linear(lambda n: FMT.extract("call:get_time{tz:[" + 'a, b<|"|>,' * n + "]}", CTX))
    assert_linear(lambda n: parse_gemma_args("{a:[" + "x " * n + "]}"))
