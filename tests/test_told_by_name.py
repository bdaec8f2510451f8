"""Calls told about in reports and READMEs are text (issue 28, precision; prose5-).

A model named by its name emitting ("Llama 3.2 emits a bare JSON object …:",
kekzl/imp#1088; "GPT-4 replies (hidden from user):", ai.furybee.org; "a Qwen2.5-Coder
turn … produces a correct call —", aaif-goose/goose#9664), an output quoted as evidence
("Observed output …:", "Its response was:"), ``Example:`` alone on its line
(agentplaybooks.xyz): each lead-in may end with ``:`` or ``—`` and a blank line, or open
a fence the call is in. For every family's call, each is text in ``repair()`` and in a
stream; the same call after the model's own lead-in is still a call."""

from __future__ import annotations

from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import accumulate, repair, repair_stream

FAMILIES = sorted(WRITERS)
NAMED = ("Llama 3.2", "GPT-4o", "Qwen2.5-Coder", "Gemma 4", "DeepSeek", "Claude", "The model")
VERBS = ("emits a bare JSON object", "replies (hidden from user)", "produces a correct call")
REPORTED = ("Observed output in the UI", "Its response was", "Actual output", "Raw output")
ENDS = (":\n", ":\n\n", " —\n\n", ":\n```\n", ":\n\n```json\n")


def _streamed(text: str) -> list[str]:
    chunks = [
        {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": text[i : i + 9]}}]}
        for i in range(0, len(text), 9)
    ]
    return [c.name for c in accumulate(list(repair_stream(chunks, TOOLS))).tool_calls]


@st.composite
def told(draw: st.DrawFn) -> str:
    way = draw(st.sampled_from(["named", "reported", "example_line"]))
    end = draw(st.sampled_from(ENDS))
    if way == "named":
        lead = f"{draw(st.sampled_from(NAMED))} {draw(st.sampled_from(VERBS))}"
    elif way == "reported":
        lead = draw(st.sampled_from(REPORTED))
    else:
        lead, end = "Fallback A: strict block\nExample", draw(st.sampled_from([":\n", ":\n\n"]))
    close = "\n```" if end.endswith(("\n```\n", "```json\n")) else ""
    return f"Bug report.\n\n{lead}{end}{{c}}{close}\n\nNothing runs."


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["", "\n"]), told())
def test_a_call_told_by_name_or_reported_is_text(family: str, nl: str, template: str) -> None:
    call = inner_call(family, nl)
    if call.startswith("```") and "```" in template:  # (a fenced call in no second fence)
        template = template.replace(":\n\n```json\n", ":\n\n").replace(":\n```\n", ":\n")
        template = template.replace("{c}\n```", "{c}")
    text = template.replace("{c}", call)
    assert repair(text, TOOLS).tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(
        [
            "Sending it now:\n\n",
            "I'll send the email —\n\n",
            "Here is the call:\n```\n",
            "Sending the email now:\n\n```\n",
            "Output:\n",
        ]
    ),
)
def test_the_same_call_after_the_models_own_lead_in_is_a_call(
    family: str, nl: str, lead: str
) -> None:
    close = "\n```" if lead.endswith(("```\n", "```json\n")) else ""
    text = lead + inner_call(family, nl) + close
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
    assert _streamed(text) == ["send_email"]
