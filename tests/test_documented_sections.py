"""A call under a documentation section's heading, or in a Chinese example exchange, is
shown, not made (issue 28's negative prose corpus, ``toolfix/_repair/leadins.py``).

Two classes, each with its sources in the module docs:

- **a heading over the lead-in**: a Markdown heading that names an example, a format or
  a model's family, right above the lead-in line (ending with ``:``) of the call: the
  Athena proxy's provider-formats spec ("### Parsed Tool Call Format (OpenAI-compatible)
  / After parsing the special tokens, convert to:"), joey00072's dataset card ("##
  Examples / Here are some example data points from this dataset:");
- **an input/output pair written in Chinese**: an input label (``用户：``, ``输入：``,
  ``问题：``) opens a line shortly before an output label (``AI调用：``, ``模型输出：``,
  ``助手回复：``) ending the lead-in: the English pair's class (roshangrewal, shshell.com)
  in a skill's examples file on skill.seembox.com.

For every family's call, each is text, in ``repair()`` and in a stream; the same call
under a heading that names neither, or after a lead-in of the model's own, is a call.
"""

from __future__ import annotations

import pytest
from call_names import streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.leadins import heading_over, io_pair

NEGATIVES = "benchmarks/corpora/prose_negatives.jsonl"
FAMILIES = sorted(WRITERS)

#: Headings that name an example, a format or a family (the heading over the lead-in).
HEADINGS = (
    "### Parsed Tool Call Format (OpenAI-compatible)",
    "## Examples",
    "#### Usage",
    "### Raw Model Output Format",
    "## DeepSeek V3.1",
    "### 2.3 Syntax",
)
#: Lead-in lines of any wording (the heading decides, not the sentence).
LEADS = (
    "After parsing the special tokens, convert to:",
    "Here are some data points from this dataset:",
    "The call becomes:",
    "转换后：",
)
#: Headings that name neither: the lead-in under one is read as before.
PLAIN_HEADINGS = ("### Native behaviour", "## Plan", "### Step 2", "# Sending the email")
#: Chinese input and output labels of an example exchange.
INPUTS = ("用户：北京今天天气", "输入：查一下天气", "问题: 上海明天会下雨吗", "- 用户：发邮件")
OUTPUTS = ("AI调用：", "AI：", "模型输出：", "助手回复：", "AI调用:")
#: Chinese lead-ins of the model's own (a user's words before one make no exchange).
OWN_LEADS = ("我来调用工具：", "调用：", "好的，发送邮件：", "用户：帮我发邮件\n好的，我来发送：")


@pytest.mark.parametrize(
    "case_id",
    [
        "fresh9cn-athena-provider-formats-kimi-k2-whole-section-special-tokens",
        "fresh9cn-seembox-city-weathers-skill-examples-user-ai-call-result-labels",
        "prec5-joey00072-dataset-card-example-points",
    ],
)
def test_the_documented_cases_stay_text_as_written(case_id: str) -> None:
    (case,) = [c for c in corpus_cases(NEGATIVES, "") if c["id"] == case_id]
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == case["response"]["content"]  # type: ignore[index]


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS, 9)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(HEADINGS),
    st.sampled_from(LEADS),
    st.sampled_from(["\n", "\n\n", "\n```\n"]),
)
def test_a_call_under_a_format_heading_and_its_lead_in_is_text(
    family: str, heading: str, lead: str, gap: str
) -> None:
    call = inner_call(family, "\n")
    closer = "\n```" if "```" in gap else ""
    text = f"Intro text.\n\n{heading}\n{lead}{gap}{call}{closer}\n\nMore text."
    assert repair(text, TOOLS).tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(PLAIN_HEADINGS),
    st.sampled_from(["Sending the email now:", "I'll send it:", "The call:"]),
)
def test_a_call_under_a_plain_heading_is_a_call(family: str, heading: str, lead: str) -> None:
    text = f"{heading}\n{lead}\n{inner_call(family, chr(10))}"
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
    assert _streamed(text) == ["send_email"]


def test_a_heading_with_a_blank_line_before_the_lead_in_is_not_over_it() -> None:
    text = "## Examples\n\nSending it now:\n"
    assert not heading_over(text, 0, text.index("Sending"))
    text = "## Examples\nSending it now:\n"
    assert heading_over(text, 0, text.index("Sending"))
    assert not heading_over(text, 0, 0)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(INPUTS),
    st.sampled_from(OUTPUTS),
    st.sampled_from(["\n", " "]),
)
def test_a_call_in_a_chinese_example_exchange_is_text(
    family: str, user: str, label: str, gap: str
) -> None:
    text = f"{user}\n{label}{gap}{inner_call(family, chr(10))}"
    assert repair(text, TOOLS).tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(OWN_LEADS),
)
def test_a_chinese_lead_in_of_the_models_own_is_a_call(family: str, lead: str) -> None:
    text = f"{lead}\n{inner_call(family, chr(10))}"
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text


@pytest.mark.parametrize(
    ("label", "pair"),
    [("ai调用", True), ("模型输出", True), ("助手", True), ("调用", False), ("我来调用", False)],
)
def test_a_chinese_output_label_needs_an_input_label_before_it(label: str, pair: bool) -> None:
    text = "用户：北京今天天气\n" + label + "：\n"
    assert io_pair(text, text.index(label), label) is pair
    assert not io_pair("随便说点什么\n" + label, 7, label)


#: Headings whose words name tool calls as their topic (gaoding's notes, Athena's spec,
#: llamaloop's doc, vLLM's guide), and Chinese headings naming an example or a format.
CALL_HEADINGS = (
    "### 4.2 连续多个工具调用",
    "#### Multiple Tool Calls",
    "## 2. Function Calling",
    "# Tool Call Parsers Explained",
    "### 模型输出格式",
    "## 调用示例",
)
#: Info strings of the fence holding the calls.
INFOS = ("python", "json", "xml", "text")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(CALL_HEADINGS), st.sampled_from(INFOS))
def test_every_call_of_a_fence_under_a_heading_about_calls_is_text(
    family: str, heading: str, info: str
) -> None:
    call = inner_call(family, "\n")
    assume("```" not in call)  # (a call holding a fence closes the outer one: Markdown)
    text = f"{heading}\n\n```{info}\n{call}\n\n{call}\n```\n\n**处理方式：**\n- 按顺序执行"
    assert repair(text, TOOLS).tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["### TOOL_CALL_START ###", "## Plan", "### 1. Send it", "# tool_call"]),
)
def test_calls_under_a_heading_naming_no_calls_are_calls(family: str, heading: str) -> None:
    text = f"{heading}\n\n{inner_call(family, chr(10))}"
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
    assert _streamed(text) == ["send_email"]


@pytest.mark.parametrize("family", ["json", "json_fence", "hermes"])
def test_a_code_comment_right_above_a_call_is_no_heading(family: str) -> None:
    text = f"# Tool call to send the email\n{inner_call(family, chr(10))}"
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
