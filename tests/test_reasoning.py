"""``split_reasoning``: ``<think>`` markup moved out of the content."""

from __future__ import annotations

import pytest

from toolfix._messages import ReasoningPart
from toolfix._repair.reasoning import split_reasoning


def test_no_markup_returns_same_object() -> None:
    text = "  The capital of France is Paris.\n"
    reasoning, content = split_reasoning(text)
    assert reasoning is None
    assert content is text


def test_qwen3_block_at_start() -> None:
    text = (
        "<think>\nThe user wants the weather. I should call get_weather.\n</think>\n\nIt is sunny."
    )
    assert split_reasoning(text) == (
        "The user wants the weather. I should call get_weather.",
        "It is sunny.",
    )


def test_lone_close_deepseek_r1() -> None:
    # the template put <think> in the prompt: everything before </think> is reasoning
    text = "Okay, let me think.\nParis is the capital.\n</think>\n\nParis."
    assert split_reasoning(text) == ("Okay, let me think.\nParis is the capital.", "Paris.")


def test_unclosed_think() -> None:
    text = "Answer first. <think>still going and cut off"
    assert split_reasoning(text) == ("still going and cut off", "Answer first. ")


def test_several_blocks_and_content_kept_byte_for_byte() -> None:
    text = "A  <think>one</think> B\t<think> two </think>C  \n"
    assert split_reasoning(text) == ("one\n\ntwo", "A  B\tC  \n")


def test_no_space_lost_between_words() -> None:
    assert split_reasoning("a<think>x</think>b") == ("x", "ab")
    assert split_reasoning("a <think>x</think> b") == ("x", "a b")


def test_empty_think_block_non_thinking_mode() -> None:
    text = '<think>\n\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    assert split_reasoning(text) == (
        None,
        '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
    )


def test_call_inside_reasoning_stays_in_reasoning() -> None:
    text = '<think>I could call {"name": "f"} here</think>Done.'
    assert split_reasoning(text) == ('I could call {"name": "f"} here', "Done.")


def test_unicode() -> None:
    assert split_reasoning("<think>思考中…</think>答案是 42。") == ("思考中…", "答案是 42。")


@pytest.mark.parametrize("n", [1, 10_000])
def test_many_blocks_linear(n: int) -> None:
    text = "x<think>r</think>" * n
    reasoning, content = split_reasoning(text)
    assert content == "x" * n
    assert reasoning == "\n\n".join(["r"] * n)


def test_huge_unclosed() -> None:
    text = "<think>" * 200_000
    reasoning, content = split_reasoning(text)
    assert content == ""
    assert reasoning == "<think>" * 199_999


# ---- Magistral [THINK]...[/THINK] (issue 11: a [TOOL_CALLS] written while thinking) ----


def test_magistral_think_block_is_reasoning_and_its_markup_no_call() -> None:
    from conftest import BASIC_TOOLS

    from toolfix import repair

    text = (
        '[THINK]I could write [TOOL_CALLS]search_web[ARGS]{"query": "x"} but no.[/THINK]'
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
    )
    fixed = repair(text, BASIC_TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert fixed.invalid_tool_calls == []
    assert fixed.text == ""
    assert [p.text for p in fixed.parts if isinstance(p, ReasoningPart)] == [
        'I could write [TOOL_CALLS]search_web[ARGS]{"query": "x"} but no.'
    ]


def test_split_reasoning_reads_both_think_syntaxes() -> None:
    assert split_reasoning("[THINK]a[/THINK]Answer") == ("a", "Answer")
    assert split_reasoning("<think>a</think>[THINK]b[/THINK] Answer") == ("a\n\nb", "Answer")
    assert split_reasoning('Say "[THINK]" literally.') == (None, 'Say "[THINK]" literally.')


@pytest.mark.parametrize(
    ("opener", "closer"),
    [("<think>", "</think>"), ("[THINK]", "[/THINK]"), ("<|START_THINKING|>", "<|END_THINKING|>")],
)
def test_long_text_reasoning_split_by_the_fixer(opener: str, closer: str) -> None:
    # past 16 KB the fixer asks which markers occur before splitting: every family's
    # reasoning tokens must be among them (Cohere's were not)
    from toolfix import ManualToolCallFixProcessor, Response, ToolRegistry

    reg = ToolRegistry.from_openai(
        [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    )
    prose = "word " * 5000
    text = f"{opener}{prose}{closer}The answer."
    out = ManualToolCallFixProcessor().fix(Response.text_only(text), reg)
    reasoning = [p for p in out.parts if isinstance(p, ReasoningPart)]
    assert [r.text for r in reasoning] == [prose.strip()]
    assert out.text == "The answer."
    assert [r.kind for r in out.repairs] == ["in_reasoning"]


def test_every_reasoning_token_holds_think() -> None:
    """The scan skips split_reasoning on a short text without "think" / "THINK": that
    test must answer for every token split_reasoning reads."""
    from toolfix._repair.textscan import _REASONING_TOKENS

    assert len(_REASONING_TOKENS) == 8
    assert all("think" in t or "THINK" in t for t in _REASONING_TOKENS)
