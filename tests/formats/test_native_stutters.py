"""Damaged native markup read by the family readers (issue 28).

Two classes:

- a family's argument closer written again on the next line (``</parameter>`` twice:
  llama-swap #856, Qwen3.6; GLM's ``</arg_key>`` twice: vllm #54971) is a stutter of the
  value's own closer: the value is read back exactly and never keeps the closer as text
  (the Qwen3-Coder, tagged and key/value grammars); a closer written right after a
  value's text, with no line break between, stays the value's text
  (docs/design.md#promise-9, tests/formats/test_markers_in_values.py);
- Qwen-Agent's labelled sections (``✿FUNCTION✿: name`` / ``✿ARGS✿: {...}``) are read
  whichever comes first (deer-flow #395 wrote the arguments first); an arguments section
  with no name section next to it, or a name that is no offered tool after it, is text.
"""

from __future__ import annotations

import json

from hostile import S3_B, S3_CB, S3_CE, S3_E, S3_SEP, TOOLS
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair

DSML = "｜DSML｜"

#: Each family's call to ``note(text=...)`` with the value's closer written twice.
DOUBLED = {
    "qwen_xml": lambda v: (
        f"<tool_call>\n<function=note>\n<parameter=text>\n{v}\n</parameter>\n</parameter>\n"
        "</function>\n</tool_call>"
    ),
    "minimax": lambda v: (
        f'<minimax:tool_call>\n<invoke name="note">\n<parameter name="text">{v}</parameter>\n'
        "</parameter>\n</invoke>\n</minimax:tool_call>"
    ),
    "dsml": lambda v: (
        f'<{DSML}function_calls>\n<{DSML}invoke name="note">\n'
        f'<{DSML}parameter name="text" string="true">{v}</{DSML}parameter>\n'
        f"</{DSML}parameter>\n</{DSML}invoke>\n</{DSML}function_calls>"
    ),
    "seed_attrs": lambda v: (
        f'<seed:tool_call>\n<function name="note">\n<parameter name="text" string="true">{v}'
        "</parameter>\n</parameter>\n</function>\n</seed:tool_call>"
    ),
    "step3": lambda v: (
        f'{S3_B}{S3_CB}function{S3_SEP}<steptml:invoke name="note">\n'
        f'<steptml:parameter name="text">{v}</steptml:parameter>\n</steptml:parameter>\n'
        f"</steptml:invoke>{S3_CE}{S3_E}"
    ),
    "glm_key": lambda v: (
        f"<tool_call>note<arg_key>text</arg_key></arg_key><arg_value>{v}</arg_value></tool_call>"
    ),
    "glm_value": lambda v: (
        f"<tool_call>note\n<arg_key>text</arg_key>\n<arg_value>{v}</arg_value>\n</arg_value>\n"
        "</tool_call>"
    ),
}

#: Values with no markup: letters, digits, punctuation and inner line breaks.
VALUES = st.text(
    alphabet=st.sampled_from("abcXYZ019 ./_-:;,'\"()[]{}\n\t"), min_size=0, max_size=40
).map(lambda s: f"v{s}w")


def _calls(text: str) -> tuple[list[tuple[str, dict[str, object]]], list[str]]:
    fixed = repair(text, TOOLS)
    return [(c.name, dict(c.arguments)) for c in fixed.tool_calls], [
        c.name for c in fixed.invalid_tool_calls
    ]


@settings(max_examples=200, deadline=None)
@given(family=st.sampled_from(sorted(DOUBLED)), value=VALUES)
def test_a_doubled_closer_is_read_back_exactly(family: str, value: str) -> None:
    assert _calls(DOUBLED[family](value)) == ([("note", {"text": value})], [])


def test_the_llama_swap_856_output() -> None:
    text = (
        "<tool_call>\n<function=read_file>\n<parameter=filepath>\n/home/abc/ck/tests/test_ck.py\n"
        "</parameter>\n</parameter>\n</function>\n</tool_call>"
    )
    tools = [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "parameters": {"type": "object", "properties": {"filepath": {"type": "string"}}},
            },
        }
    ]
    fixed = repair(text, tools)
    assert [c.arguments for c in fixed.tool_calls] == [
        {"filepath": "/home/abc/ck/tests/test_ck.py"}
    ]


@settings(max_examples=100, deadline=None)
@given(value=VALUES)
def test_a_closer_written_right_after_the_text_stays_text(value: str) -> None:
    # no line break between the two closers: the first is the value's text (promise 9)
    text = (
        f'<minimax:tool_call>\n<invoke name="note">\n<parameter name="text">{value}</parameter>'
        "</parameter>\n</invoke>\n</minimax:tool_call>"
    )
    assert _calls(text) == ([("note", {"text": value + "</parameter>"})], [])


# ---- Qwen-Agent's labelled sections ---------------------------------------------------

QA_F, QA_A = "✿FUNCTION✿", "✿ARGS✿"
SEPARATORS = st.sampled_from([" ", "\n", "\n\n", "  \n"])


@settings(max_examples=200, deadline=None)
@given(
    value=VALUES, sep=SEPARATORS, args_first=st.booleans(), colon=st.sampled_from([":", "：", ""])
)
def test_qwen_agent_sections_in_either_order(
    value: str, sep: str, args_first: bool, colon: str
) -> None:
    args = json.dumps({"text": value}, ensure_ascii=False)
    name_part, args_part = f"{QA_F}{colon} note", f"{QA_A}{colon} {args}"
    text = f"{args_part}{sep}{name_part}" if args_first else f"{name_part}{sep}{args_part}"
    fixed = repair(text, TOOLS)
    assert [(c.name, dict(c.arguments)) for c in fixed.tool_calls] == [("note", {"text": value})]
    assert fixed.text.strip() == ""
    details = [r.detail for r in fixed.tool_calls[0].repairs]
    assert any("arguments section came before" in d for d in details) == args_first


def test_two_calls_in_the_declared_order_and_a_result_left_as_text() -> None:
    text = (
        f'{QA_F}: note\n{QA_A}: {{"text": "a"}}\n{QA_F}: note\n{QA_A}: {{"text": "b"}}\n'
        "✿RESULT✿: done"
    )
    fixed = repair(text, TOOLS)
    assert [dict(c.arguments) for c in fixed.tool_calls] == [{"text": "a"}, {"text": "b"}]
    assert fixed.text.strip() == "✿RESULT✿: done"


WORDS = st.sampled_from(["the", "note", "label", "then", "JSON", "name", "writes", "."])


@settings(max_examples=200, deadline=None)
@given(words=st.lists(WORDS, max_size=8), label=st.sampled_from([QA_F, QA_A]))
def test_prose_that_mentions_the_labels_is_no_call(words: list[str], label: str) -> None:
    # an arguments label followed by words, with or without a name label: no JSON, no
    # name next to it, or a name that runs on into prose
    text = f"Qwen-Agent marks calls with {label}: " + " ".join(words) + f" and {QA_F} before."
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == []
    assert fixed.text == text


def test_an_arguments_section_then_an_unknown_name_is_text() -> None:
    text = f'{QA_A}: {{"text": "a"}} {QA_F}: notes'
    fixed = repair(text, TOOLS)
    assert (fixed.tool_calls, fixed.invalid_tool_calls, fixed.text) == ([], [], text)


def test_more_arguments_sections_after_a_pair_are_more_calls_of_its_function() -> None:
    # Qwen-Agent's parser splits what follows a name section on the arguments label
    text = f'{QA_F}: note\n{QA_A}: {{"text": "a"}}\n{QA_A}: {{"text": "b"}}'
    fixed = repair(text, TOOLS)
    assert [(c.name, dict(c.arguments)) for c in fixed.tool_calls] == [
        ("note", {"text": "a"}),
        ("note", {"text": "b"}),
    ]
    assert fixed.text.strip() == ""
