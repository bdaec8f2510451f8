"""A call only the schema-anchored reader reads, in the reasoning (``textscan``
``_last_anchored``): taken under the reasoning policy as a family's call is, when it is
the reasoning's last element and the response has no answer (GLM-4.7's
``<invoke name="bash"><command>…</command></invoke>`` in ``reasoning_content``,
opencode PR 6883); a plan or an example that text follows, or a call in reasoning
followed by an answer, is not."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import FixConfig, repair

TOOLS: list[dict[str, Any]] = [
    openai_tool(
        "bash", {"command": {"type": "string"}, "description": {"type": "string"}}, ["command"]
    ),
    openai_tool("read", {"filePath": {"type": "string"}}, ["filePath"]),
]

_VALUE = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="<>&"),
    min_size=1,
    max_size=30,
).filter(lambda v: v.strip() == v)
_PLAIN = st.from_regex(r"[a-z][a-z ./-]{0,20}[a-z]", fullmatch=True)
_LEAD = st.sampled_from(["", "Let me run the tests.\n\n", "I'll check it.\n"])
_AFTER = st.sampled_from(
    [
        "\nThat is how the call would look; first I answer the user.",
        "\n\nBut I should not run it yet.",
        "\nOr maybe read the file first.",
    ]
)


def _invoke(command: str, description: str) -> str:
    return (
        f'<invoke name="bash">\n  <command>{command}</command>\n'
        f"  <description>{description}</description>\n</invoke>"
    )


def _message(reasoning: str, content: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "reasoning_content": reasoning}


@settings(max_examples=150, deadline=None)
@given(lead=_LEAD, command=_VALUE, description=_VALUE)
def test_a_finished_call_ending_the_reasoning_is_read_as_in_content(
    lead: str, command: str, description: str
) -> None:
    call = _invoke(command, description)
    as_content = [(c.name, c.arguments) for c in repair(call, TOOLS).tool_calls]
    fixed = repair(_message(lead + call), TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == as_content
    assert all(c.repairs[0].kind == "in_reasoning" for c in fixed.tool_calls)


@settings(max_examples=100, deadline=None)
@given(lead=_LEAD, command=_PLAIN)
def test_a_plain_call_ending_the_reasoning_is_read(lead: str, command: str) -> None:
    fixed = repair(_message(lead + _invoke(command, "Run tests")), TOOLS)
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [
        ("bash", {"command": command, "description": "Run tests"})
    ]


@settings(max_examples=150, deadline=None)
@given(lead=_LEAD, command=_VALUE, description=_VALUE, after=_AFTER)
def test_a_call_that_text_follows_in_reasoning_is_no_call(
    lead: str, command: str, description: str, after: str
) -> None:
    fixed = repair(_message(lead + _invoke(command, description) + after), TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []


@settings(max_examples=150, deadline=None)
@given(command=_VALUE, description=_VALUE, answer=st.sampled_from(["Done.", "Tests pass."]))
def test_a_call_in_reasoning_before_an_answer_is_no_call(
    command: str, description: str, answer: str
) -> None:
    fixed = repair(_message(_invoke(command, description), answer), TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == answer


@settings(max_examples=100, deadline=None)
@given(command=_PLAIN)
def test_the_policy_decides(command: str) -> None:
    msg = _message(_invoke(command, "x"))
    assert repair(msg, TOOLS, config=FixConfig(reasoning_calls="ignore")).tool_calls == []
    promoted = repair(msg | {"content": "ok"}, TOOLS, config=FixConfig(reasoning_calls="promote"))
    assert [c.name for c in promoted.tool_calls] == ["bash"]


@settings(max_examples=100, deadline=None)
@given(command=_VALUE, cut=st.integers(1, 40))
def test_a_cut_call_ending_the_reasoning_is_never_valid(command: str, cut: int) -> None:
    text = _invoke(command, "run it")
    fixed = repair(_message(text[: len(text) - cut]), TOOLS)
    assert fixed.tool_calls == []
