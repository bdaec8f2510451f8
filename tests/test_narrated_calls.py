"""A call told about, not made, is text (issue 28's negative prose corpus).

Tutorials and glossaries show calls to explain tool calling: as what "the model emits"
(or what "it outputs", named as a call), after "something like" or "e.g.", after an
example named before a colon ("an example query:"), as the label of a sequence-diagram
message, as a literal assigned in code, inside an assistant message record, in a row of a
Markdown table, as a ReAct action whose observation follows
(``toolfix/_repair/narration.py`` names each class and its sources). For every family's
call, each of these is text, in ``repair()`` and in a stream; the same call after a
sentence of the model's own that ends with ``:`` and a line break is still a call."""

from __future__ import annotations

import json
import re

import pytest
from call_names import streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.narration import narrated

NEGATIVES = "benchmarks/corpora/prose_negatives.jsonl"
FAMILIES = sorted(WRITERS)


@pytest.mark.parametrize(
    "case",
    corpus_cases(NEGATIVES, ("prose3-", "prose4-")),
    ids=lambda c: str(c["id"]),
)
def test_a_told_call_in_the_corpus_is_no_call(case: dict[str, object]) -> None:
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []


@pytest.mark.parametrize(
    "case_id",
    [
        "fresh2-groneberg-sequence-diagram",
        "fresh2-heyitskundan-five-step-dance",
        "fresh2-runlocalai-glossary-json",
        "prose3-theneuralbase-writes-something-like",
        "prose3-meaningfool-returns-something-like",
        "prose3-backbenchlearner-sequence-diagram",
        "prose3-grubenwald-model-output-assignment",
        "prose3-lkim-react-example-bullets",
        "fresh3web-insiderllm-flow-list-inline-json",
        "fresh3gh-lmstudio-825-reasoning-example-query",
        "fresh3web-aimanual-qwen3vl-error-pattern-table",
        "prose4-openclaude-example-call-in-prose",
        "prose4-tecagent-protocol-blocks-table",
    ],
)
def test_a_told_call_stays_in_the_text_as_written(case_id: str) -> None:
    (case,) = [c for c in corpus_cases(NEGATIVES, "") if c["id"] == case_id]
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.text == case["response"]["content"]  # type: ignore[index]


#: Each class of telling, as the pages write it (the call goes where ``{c}`` is).
SUBJECTS = ("The model", "Model", "the LLM", "The assistant", "An LLM")
VERBS = ("emits", "outputs", "returns", "generates", "produces", "writes", "responds with")
MARKERS = ("something like", "like", "such as", "e.g.,", "for example,", "for instance")
#: What "it" is said to emit, named as a call (insiderllm.com, theneuralbase.com).
IT_EMITS = (
    "it outputs a JSON object",
    "it returns a tool call",
    "it emits JSON",
    "it writes a function call",
)
#: An example named before a colon (LM Studio #825's thinking, openclaude's parser test).
EXAMPLES = (
    "So, crafting an example query",
    "Example",
    "Here is an example call",
    "A sample call",
    "- Example tool call",
)


@st.composite
def told(draw: st.DrawFn) -> str:
    """A template that tells about the call at ``{c}``."""
    ways = ["third_party", "example", "from_model", "diagram", "recorded", "assigned"]
    ways += ["it_emits", "example_named", "table"]
    way = draw(st.sampled_from(ways))
    colon = draw(st.sampled_from(["", ":", ":\n"]))
    if way == "third_party":
        subject, verb = draw(st.sampled_from(SUBJECTS)), draw(st.sampled_from(VERBS))
        step = draw(st.sampled_from(["", "  2. "]))
        lead = f"{step}{subject} {verb} a function call{colon}"
        return f"It works like this.\n{lead} {{c}}. Then it runs."
    if way == "example":
        marker = draw(st.sampled_from(MARKERS))
        return f"Instead of text, it returns {marker}{colon} {{c}}\nYour code reads that text."
    if way == "it_emits":
        return (
            f"  3. If it wants a tool, {draw(st.sampled_from(IT_EMITS))}{colon} {{c}}\n  4. Run it."
        )
    if way == "example_named":
        tail = draw(st.sampled_from([": ", ":\n"]))
        return f"Thinking it over.\n\n{draw(st.sampled_from(EXAMPLES))}{tail}{{c}}\n\nThen plan."
    if way == "table":
        rule = draw(st.sampled_from(["|---|---|", "| --- | :--- |", "---|---"]))
        return f"| Pattern | Example |\n{rule}\n| Wrong call | {{c}} |\n| Other | none |"
    if way == "from_model":
        return "A function call from the model is, fundamentally, JSON:\n{c}\nThat's it."
    if way == "diagram":
        return "sequenceDiagram\nScript->>Tools: {c}\nTools-->>Script: done"
    if way == "recorded":  # (``{j}``: the call as a JSON string's body)
        return 'Response:\n{"role": "assistant", "content": "{j}", "tool_calls": []}'
    return draw(st.sampled_from(['example = """\n{c}\n"""\nprint(example)', "call = {c}\n"]))


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS, 9)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["", "\n"]), told())
def test_any_family_call_told_about_is_text(family: str, nl: str, template: str) -> None:
    call = inner_call(family, nl)
    if template.startswith("call = ") and not call.startswith(("{", "[")):
        template = 'call = """\n{c}\n"""'  # (a literal assigned: a bracket or a string)
    text = template.replace("{c}", call).replace("{j}", json.dumps(call)[1:-1])
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(
        [
            "I'll send it now:\n",
            "Sending the email now.\n\n",
            "Here is the call:\n",
            "Let me call the tool like this:\n",
            "I will use the tool, for example:\n",
            "The model list is long. Sending the email now:\n",
            "Checking the examples folder:\n",
            "Running the example:\n",
            "Mailing it so it sends the report:\n",
            "| a | b |\n|---|---|\n| x | y |\n\nSending the email now:\n",
            "| a | b |\n|---|---|\n| x | y |\n",
        ]
    ),
)
def test_the_same_call_after_the_models_own_sentence_is_a_call(
    family: str, nl: str, lead: str
) -> None:
    text = lead + inner_call(family, nl)
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
    assert _streamed(text) == ["send_email"]


REACT_CALL = 'Action: send_email\nAction Input: {"to": "x@y"}'


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        (f"Thought: mail it.\n{REACT_CALL}\nObservation: sent.\nThought: done.", []),
        (f"Thought: mail it.\n{REACT_CALL}", ["send_email"]),
        ('  \u2022 Action 1: send_email(to="x@y")\n  \u2022 Observation 1: [{"ok": true}]', []),
        ('Action 1: send_email(to="x@y")', ["send_email"]),
    ],
)
def test_an_action_answered_by_its_observation_is_a_transcript(text: str, calls: list[str]) -> None:
    assert [c.name for c in repair(text, TOOLS).tool_calls] == calls


@given(st.sampled_from(VERBS), st.sampled_from(["I", "I'll", "We", "Let me"]))
def test_a_lead_in_in_the_first_person_is_the_models_own(verb: str, who: str) -> None:
    text = f"{who} think the model {verb} this: {{}}"
    assert not narrated(text, len(text) - 2)
    assert narrated(text.replace(who, "So"), len(text.replace(who, "So")) - 2)


#: Texts dense in what the told classes match brackets for (records, assignments) or
#: read lead-ins before (calls after hints), one unit each. (Diagram lines and answered
#: actions are single regex matches bounded per line.)
DENSE = {
    "records": '{"role": "assistant", "a": "x"} ',
    "nested_records": '{"role": "assistant", "a": {"name": "send_email", "arguments": {}}, "b": ',
    "assignments": 'x = {"name": "send_email", "arguments": {"to": "x@y"}}\n',
    "open_assignments": 'x = {\n{"name": "send_email", "arguments": {"to": "x@y"}}\n',
    "lead_ins": 'The model emits like {"name": "send_email", "arguments": {"to": "x@y"}} ',
    "it_lead_ins": 'If so, it outputs a JSON object: {"name": "send_email", "arguments": {}} ',
    "example_leads": 'An example call: {"name": "send_email", "arguments": {"to": "x@y"}}\n',
    "table_rows": '|---|---|\n| x | {"name": "send_email", "arguments": {"to": "x@y"}} |\n',
    "table_rules": '| --- | --- |\n{"name": "send_email", "arguments": {"to": "x@y"}}\n',
}


@pytest.mark.parametrize("shape", sorted(DENSE))
def test_finding_told_calls_is_linear(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: the characters the told classes read (bracket matches from
    their starts to their ends, lead-ins, the text a table's separator is searched in)
    grow linearly with the text."""
    from toolfix._repair import narration

    read = [0]
    bracket, before = narration.find_bracket_end, narration._told_before

    def counted_bracket(text: str, start: int, *a: object, **k: object) -> object:
        read[0] += 1  # (a nesting too deep raises: the call is counted)
        span = bracket(text, start)
        read[0] += span.end - start
        return span

    def counted_before(text: str, start: int) -> bool:
        read[0] += min(start, narration._LEAD_CHARS)
        return before(text, start)

    class CountedRule:
        def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
            m = rule.search(text, pos)
            read[0] += 1 + (len(text) if m is None else m.end()) - pos
            return m

    rule = narration._TABLE_RULE_RE
    monkeypatch.setattr(narration, "_TABLE_RULE_RE", CountedRule())
    monkeypatch.setattr(narration, "find_bracket_end", counted_bracket)
    monkeypatch.setattr(narration, "_told_before", counted_before)
    counts = []
    for n in (500, 2000):
        read[0] = 0
        repair(DENSE[shape] * n, TOOLS)
        counts.append(read[0])
    assert counts[0] > 0, counts
    assert counts[1] <= 4.5 * counts[0], counts
