"""A call shown by documentation of a call format is text; an elided value is no value.

Model cards, engine guides, tutorials and echoed system prompts show a call to explain a
format (``toolfix/_repair/leadins.py`` names each class and its sources; the corpus is
``benchmarks/corpora/prose_negatives.jsonl``, ids ``prec5-``): the nearest lead-in above
the call decides for its whole block, a label naming an example or a format, an
input/output pair, a hypothetical, the same call in another format, the format's own
markup named in inline code before it. For every family's call each of these is text, in
``repair()`` and in a stream; the same call after a lead-in of the model's own is still a
call. And a value that is an elision mark (``(...)``, ``{ [...] }``: a quoter's cut,
``toolfix/_repair/elision.py``) is no value: the call is invalid, never made with it
(promises 3 and 6), while any other value is read back exactly.
"""

from __future__ import annotations

import json

import pytest
from call_names import streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.elision import elided_at, elided_value, is_placeholder

NEGATIVES = "benchmarks/corpora/prose_negatives.jsonl"
FAMILIES = sorted(WRITERS)


@pytest.mark.parametrize(
    "case",
    corpus_cases(NEGATIVES, "prec5-"),
    ids=lambda c: str(c["id"]),
)
def test_a_documented_call_in_the_corpus_is_no_call(case: dict[str, object]) -> None:
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []


def test_the_corpus_holds_the_harvest() -> None:
    assert len(corpus_cases(NEGATIVES, "prec5-")) >= 25


#: Each class, as the pages write it (the call goes where ``{c}`` is).
DOCUMENTED = (
    # a label naming an example or a format, then the example's block
    "Output format:\n\n{c}\n\nUse it as shown.",
    "Example Tool Call Output:\n\n{c}\n\nKey takeaway: tags.",
    "Valid call format for send_email:\n{c}\nInvalid formats: none.",
    "- Example Training Row:\n- Input: mail x@y\n{c}\nNext row.",
    # the block after a lead-in, several lines down
    "The demo runs the loop. Expect output like:\n\n[Tools] (1)\n  - send_email\n[Raw] {c}\n",
    'Example:\n\nInput: "Mail x@y"\nOutput: {c}\n\nMetrics follow.',
    # an input/output pair
    'Input: "Mail x@y, please."\nOutput: {c}',
    "User: Mail x@y\nModel: {c}",
    # a heading naming an example
    "## Example\n\nA mail to one address.\n{c}\n\n## Limits",
    # a hypothetical
    "Let's say we want to mail x@y. We would call the tool like so:\n{c}",
    "Suppose the user asks to mail x@y:\n{c}",
    "For example, to mail x@y, you would use:\n{c}",
    "For instance, to use the send_email tool:\n\n{c}",
    # the same call in another format
    "This is equivalent to the JSON:\n{c}",
    # the format's markup in inline code, then the call
    "The `<tool_call>` tag wraps a JSON object; `[TOOL_CALLS]` opens a list.\n\n{c}",
)


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS, 9)


def _markup_named(template: str, call: str) -> bool:
    """Does the template's inline code name markup this family's call uses?"""
    return "`" not in template or "<tool_call>" in call or "[TOOL_CALLS]" in call


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["", "\n"]), st.sampled_from(DOCUMENTED))
def test_any_family_call_in_documentation_is_text(family: str, nl: str, template: str) -> None:
    call = inner_call(family, nl)
    if not _markup_named(template, call):
        return  # (prose naming another family's markup documents that family, not this)
    text = template.replace("{c}", call)
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == [], text
    assert _streamed(text) == []


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(
        [
            "Using the correct format:\n",
            "I'll send it now, in the right format:\n",
            "Got it. Sending the email now:\n",
            "Input received. Sending the email:\n",
            "I know the `<tool_call>` format.\n\n",
            "## Sending\n\nSending the email now.\n",
            "The output is below.\n\n",
            "Let me call it:\n",
            "For example, the first one is ready. Sending it now:\n",
        ]
    ),
)
def test_the_same_call_after_the_models_own_lead_in_is_a_call(
    family: str, nl: str, lead: str
) -> None:
    text = lead + inner_call(family, nl)
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
    assert _streamed(text) == ["send_email"]


# ---- elided values --------------------------------------------------------------------

MARKS = ("(...)", "[...]", "{...}", "<...>", "(\u2026)", "( ... )", "{\n(...)\n }", "[ ... ]")


def _qwen(value: str) -> str:
    return (
        "<tool_call>\n<function=send_email>\n<parameter=to>\n"
        f"{value}\n</parameter>\n</function>\n</tool_call>"
    )


@given(st.sampled_from(MARKS), st.sampled_from(["qwen", "json", "kv"]))
def test_a_value_that_is_an_elision_mark_is_no_value(mark: str, shape: str) -> None:
    text = {
        "qwen": _qwen(mark),
        "json": json.dumps({"name": "send_email", "arguments": {"to": mark}}),
        "kv": f"<tool_call>send_email\n<arg_key>to</arg_key>\n<arg_value>{mark}</arg_value>"
        "\n</tool_call>",
    }[shape]
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == [], text
    assert elided_value({"to": mark}) == "to"


#: Values drawn for a raw-text parameter: no markup, no blank at either end.
VALUES = st.text(
    alphabet=st.characters(
        whitelist_categories=("L", "N", "P", "S", "Zs"), blacklist_characters="<>&\\"
    ),
    min_size=1,
    max_size=30,
).filter(lambda v: v == v.strip() and elided_value({"to": v}) is None)


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_any_other_raw_value_is_read_back_exactly(value: str) -> None:
    fixed = repair(_qwen(value), TOOLS)
    assert [(c.name, dict(c.arguments or {})) for c in fixed.tool_calls] == [
        ("send_email", {"to": value})
    ]


def test_a_bare_ellipsis_stays_data_and_a_mark_in_json_is_a_gap() -> None:
    assert elided_value({"to": "..."}) is None  # (a raw ``...`` is data: elision.py)
    assert elided_value({"to": "see (...) below"}) is None  # (a mark inside a value)
    assert elided_at('{"a": (...)}') >= 0
    assert elided_at('{"a": "(...)"}') == -1  # (inside a string: the gate reads it)
    assert is_placeholder("(...)")
    assert is_placeholder("...")
    assert not is_placeholder("(a)")
