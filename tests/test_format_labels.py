"""A call under a label or a heading naming a model or a family is a format shown.

Documentation comparing tool-call formats shows one call in several families' markup,
each copy under a label naming the model or the family whose format it is ("gpt-oss
(Harmony):", "DeepSeek:", "GLM5:": thetypicalset.com; ``#### DeepSeek V3.1``, ``####
Bracket Markers (Mistral-style)``: ai-dynamo's parser patterns). The names are the
family registry's (``toolfix/_repair/formatlabels.py``). For every family's call under
every such label drawn from the registry, there is no call, in ``repair()`` and in a
stream (rule G2, promise 3); the same call under a label of the model's own, or a word
that only starts like a name, is still a call.
"""

from __future__ import annotations

import re

import pytest
from call_names import names, streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.families import families
from toolfix._repair.formatlabels import heading_names_family, label_names_family

FAMILIES = sorted(WRITERS)
SPENT = "benchmarks/heldout/verbatim_fresh8_hf.jsonl"


@pytest.mark.parametrize(
    "case",
    corpus_cases(SPENT, "fresh8hf-thetypicalset-same-call-"),
    ids=lambda c: str(c["id"]),
)
def test_the_same_call_in_three_wire_formats_is_no_call(case: dict[str, object]) -> None:
    assert repair(case["response"], case["tools"]).tool_calls == []


def _registry_names() -> list[str]:
    """Names as documentation writes them: each named family's name and the first
    word of each model it lists, as the registry spells them."""
    out: set[str] = set()
    for family in families():
        models = [m.strip() for m in family.models.split(",") if m.strip()]
        if not models or models[0].split()[0].lower() in ("any", "many"):
            continue
        out.add(family.name)
        out.update(m.split()[0].split("/")[0] for m in models)
    return sorted(n for n in out if re.match(r"[A-Za-z]{3}", n) and n not in ("any", "many"))


NAMES = _registry_names()
#: What may follow a name in a label: nothing, a version, a ``-style`` suffix.
SUFFIXES = ("", "5", "-V3.1", " 3.1", "-2", "-style", " V4")
#: Labels and headings naming a model (``{n}``, ``{m}``: drawn names), over a call.
LABELLED = (
    "Here is one call in several wire formats:\n\n{n}:\n\n{c}\n\n{m}:\n\n{c}\n",
    "{n}:\n{c}",
    "Each family's markup:\n{n}: {c}\n{m}: {c}\n",
    "{n} ({m}):\n\n{c}\n\nSame operation, other markers.",
    "#### {n}\n```\n{c}\n```\n- Parser: a parser\n",
    "### 6. {n}\n\n{c}\n",
    "#### Bracket Markers ({n})\n{c}\n- Keys: name, arguments\n",
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(LABELLED),
    st.sampled_from(NAMES),
    st.sampled_from(NAMES),
    st.sampled_from(SUFFIXES),
)
def test_any_family_call_under_a_model_label_is_text(
    family: str, nl: str, template: str, name: str, other: str, suffix: str
) -> None:
    call = inner_call(family, nl)
    text = template.replace("{n}", name + suffix).replace("{m}", other).replace("{c}", call)
    assert names(text, TOOLS) == [], text
    assert streamed_names(text, TOOLS, 9) == [], text


#: Labels of the model's own, or words that only start like a registry name.
OWN = (
    "Sending:\n{c}",
    "Step 3:\n{c}",
    "{w}:\n{c}",
    "## {w} notes\n\nSending it now.\n{c}",
    "Here it is, {w}:\n{c}",
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(OWN),
    st.sampled_from([n for n in NAMES if n[-1].isalpha()]),
    st.from_regex(r"[a-z]{1,6}", fullmatch=True),
)
def test_the_same_call_under_the_models_own_label_is_a_call(
    family: str, nl: str, template: str, name: str, tail: str
) -> None:
    word = name.lower() + "x" + tail  # (a name, then more letters: another word)
    text = template.replace("{w}", word).replace("{c}", inner_call(family, nl))
    assert names(text, TOOLS) == ["send_email"], text
    assert streamed_names(text, TOOLS, 9) == ["send_email"], text


@given(st.sampled_from(NAMES), st.sampled_from(SUFFIXES))
def test_every_registry_name_is_read_as_a_format_label(name: str, suffix: str) -> None:
    assert label_names_family(name + suffix)
    assert heading_names_family(f"### {name + suffix} format")


@given(st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), min_size=1, max_size=6))
def test_a_label_of_plain_words_names_no_model(words: list[str]) -> None:
    names_ = {n.lower() for n in NAMES}
    if any(w.startswith(n) for w in words for n in names_ | {"openai", "harmony"}):
        return  # (a word that is a name, or a name then letters: read per word below)
    assert not label_names_family(" ".join(words))
    assert not heading_names_family("## " + " ".join(words))


@pytest.mark.parametrize(
    ("label", "named"),
    [
        ("gpt-oss (Harmony)", True),
        ("DeepSeek", True),
        ("GLM5", True),
        ("Qwen3", True),
        ("Llama 3.1", True),
        ("Step 1", False),
        ("Gemma 4 emits", False),
        ("JSON", False),
        ("Output", False),
        ("llamas", False),
    ],
)
def test_labels(label: str, named: bool) -> None:
    assert label_names_family(label) is named
