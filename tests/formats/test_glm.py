"""GLM 4.5 / 4.6 ``<arg_key>``/``<arg_value>`` tool calls."""

from __future__ import annotations

import pytest
from format_checks import FormatRunner, assert_many_calls_linear, many_calls_ctx
from op_count import assert_linear

from toolfix._errors import TooManyCallsError
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.scanner import SpecScanner
from toolfix._repair.specs.glm import GLM

FMT = SpecScanner([GLM])  # the declared family, read by the one scanner
CTX = ScanContext(tool_names=frozenset({"get_weather", "get_time", "ls"}))
MARKUP = ("call_in_content", "native_markup")
TRUNC = (*MARKUP, "truncated")


def glm45(name: str, args: dict[str, str]) -> str:
    """One call as the GLM-4.5 chat template renders it (newline after each part)."""
    body = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in args.items())
    return f"<tool_call>{name}\n{body}</tool_call>"


def glm46(name: str, args: dict[str, str]) -> str:
    """One call as GLM-4.6/4.7 may render it (no newlines)."""
    body = "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in args.items())
    return f"<tool_call>{name}{body}</tool_call>"


run = FormatRunner(
    FMT,
    CTX,
    "glm",
    ("name", "arguments", "kinds", "truncated"),
    where=lambda c: c.string_values and c.payload is None,
)
"""Scan, check the invariants, return the compared fields and the text left."""


@pytest.mark.parametrize("render", [glm45, glm46])
def test_single_call_with_text_around(render: object) -> None:
    assert callable(render)
    text = "Let me look.\n" + render("get_weather", {"city": "Paris", "days": "3"}) + "\nDone."
    assert run(text) == (
        [("get_weather", {"city": "Paris", "days": "3"}, MARKUP, False)],
        "Let me look.\n\nDone.",
    )


def test_parallel_calls_and_json_looking_values_stay_text() -> None:
    text = (
        glm45("get_weather", {"city": "東京", "opts": '{"units": ["c"], "deep": {"a": 1}}'})
        + "\n"
        + glm46("get_time", {"tz": "Europe/Zürich"})
    )
    assert run(text) == (
        [
            (
                "get_weather",
                {"city": "東京", "opts": '{"units": ["c"], "deep": {"a": 1}}'},
                MARKUP,
                False,
            ),
            ("get_time", {"tz": "Europe/Zürich"}, MARKUP, False),
        ],
        "\n",
    )


def test_values_are_verbatim_multiline_text() -> None:
    code = "def f():\n    return '<tool_call>'\n"
    text = glm45("get_weather", {"city": code})
    assert run(text) == ([("get_weather", {"city": code}, MARKUP, False)], "")


def test_bare_registry_name_is_a_call_without_arguments() -> None:
    assert run("Time? <tool_call>get_time</tool_call>") == (
        [("get_time", {}, MARKUP, False)],
        "Time? ",
    )


def test_truncated_inside_a_value_and_after_a_key() -> None:
    assert run("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Par") == (
        [("get_weather", {"city": "Par"}, TRUNC, True)],
        "",
    )
    assert run("ok <tool_call>get_weather\n<arg_key>city</arg_key>\n") == (
        [("get_weather", {}, TRUNC, True)],
        "ok ",
    )
    assert run("<tool_call>get_weather\n<arg_key>ci") == ([("get_weather", {}, TRUNC, True)], "")


def test_verbatim_glm_45_air_output_with_spaces() -> None:
    # Verbatim GLM-4.5-Air output from ik_llama.cpp discussion #753:
    # https://github.com/ikawrakow/ik_llama.cpp/discussions/753
    text = (
        "Let me search for configuration files in the backend directory to help locate this "
        "information: <tool_call>ls <arg_key>dirPath</arg_key> <arg_value>backend</arg_value> "
        "</tool_call>"
    )
    assert run(text) == (
        [("ls", {"dirPath": "backend"}, MARKUP, False)],
        "Let me search for configuration files in the backend directory to help locate this "
        "information: ",
    )


@pytest.mark.parametrize(
    "text",
    [
        # Hermes bodies are not GLM's
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        '<tool_call>{"name": "get_time"}</tool_call>',
        # a bare name that is not a registry tool
        "<tool_call>hello</tool_call>",
        # prose and code mentioning the tags
        "GLM writes <arg_key> and <arg_value> tags inside <tool_call> blocks.",
        "```xml\n<tool_call>{function-name}\n```",
        "Plain answer: it is sunny.",
    ],
)
def test_negatives_yield_nothing(text: str) -> None:
    assert FMT.extract(text, CTX) == []


def test_too_many_calls_raises() -> None:
    with pytest.raises(TooManyCallsError):
        FMT.extract(glm46("get_time", {"tz": "UTC"}) * 200, CTX)


def test_markers_alone_take_linear_work() -> None:
    assert_linear(lambda n: FMT.extract("<tool_call>x<arg_key>k</arg_key><arg_value>" * n, CTX))
    assert_linear(lambda n: FMT.extract("<tool_call>" * n, CTX))


def test_many_calls_take_linear_work() -> None:
    one = glm46("get_time", {"tz": "UTC"})
    assert_many_calls_linear(FMT, one, many_calls_ctx(CTX.tool_names))
