"""More ways a text tells about a call instead of making one (issue 28, precision).

Four classes added to ``toolfix/_repair/narration.py``, each from at least two public
pages in ``benchmarks/corpora/prose_negatives.jsonl``:

- **quoted**: the call is inside a quotation attributed to a third party ("the model
  mixing the two: \\"Sure, I'll read the file: {...}\\"": news.ycombinator.com; "le
  modèle peut dire : « J'ai besoin d'appeler get_weather(...) »": lcarli.github.io); the
  "I'll" inside the quotation is the quoted speaker's, not the writer's.
- **looks like**: an example lead-in ending with how a call looks ("A typical call looks
  like this:": toolswift.com; "This is what ... look like, on the wire": ajinkya.ai).
- **another language**: an example or expected output named in another language
  ("Exemple de sortie attendue :": forum.hacf.fr; "...結果如下:": dotblogs.com.tw).
- **nested in a told document**: a call-shaped object inside a larger JSON document
  that the lead-in tells about (the same two pages: an expected output's ``actions``,
  a quoted response's ``output`` items).

For every family's call each is text, in ``repair()`` and in a stream; the same call
after a neutral sentence of the model's own is still a call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import accumulate, repair, repair_stream
from toolfix._repair import narration

NEGATIVES = Path(__file__).resolve().parents[1] / "benchmarks" / "corpora" / "prose_negatives.jsonl"
FAMILIES = sorted(WRITERS)

#: Who a quotation is attributed to, and how it opens.
QUOTERS = ("the model mixing the two: ", "The assistant replied, ", "the user says ")
QUOTES = (('"', '"'), ("\u201c", "\u201d"), ("\u00ab ", " \u00bb"))
LOOKS = (
    "A typical call looks like this:",
    "The request would look like:",
    "Here is what a call looks like:",
    "It looks something like this:",
)
FOREIGN = (
    "Exemple de sortie attendue :",
    "Ejemplo:",
    "- Beispiel:",
    "\u7b2c\u4e00\u6b21\u56de\u50b3\u7684\u7d50\u679c\u5982\u4e0b:",
    "\u793a\u4f8b:",
)
DOCUMENT_LEADS = ("Exemple de sortie attendue :", "The model returns:", "Expected output:")


@st.composite
def told(draw: st.DrawFn) -> str:
    """A template that tells about the call at ``{c}`` in one of the four classes."""
    way = draw(st.sampled_from(["quoted", "looks", "foreign", "nested", "from_model"]))
    gap = draw(st.sampled_from([" ", "\n", "\n\n"]))
    if way == "quoted":
        left, right = draw(st.sampled_from(QUOTES))
        who = draw(st.sampled_from(QUOTERS))
        return f"The failure mode is {who}{left}Sure, I'll do it: {{c}}{right} - that breaks."
    if way == "looks":
        return f"GLM uses XML for calls. {draw(st.sampled_from(LOOKS))}{gap}{{c}}\nThat's all."
    if way == "foreign":
        return f"Notes\n{draw(st.sampled_from(FOREIGN))}{gap}{{c}}"
    if way == "from_model":
        return f"Tool definition: above.\n\nTool call from model:{gap}{{c}}\n\nTool response: 15"
    lead = draw(st.sampled_from(DOCUMENT_LEADS))
    return f'{lead}\n{{\n"intent": "mail",\n"actions": [\n{{c}}\n],\n"memory": []\n}}'


def _streamed(text: str) -> list[str]:
    chunks = [
        {"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": text[i : i + 9]}}]}
        for i in range(0, len(text), 9)
    ]
    return [c.name for c in accumulate(list(repair_stream(chunks, TOOLS))).tool_calls]


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["", "\n"]), told())
def test_any_family_call_told_in_these_classes_is_text(family: str, nl: str, template: str) -> None:
    text = template.replace("{c}", inner_call(family, nl))
    fixed = repair(text, TOOLS)
    assert fixed.tool_calls == [], text
    assert _streamed(text) == [], text


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.sampled_from(["", "\n"]),
    st.sampled_from(
        [
            "Sure, I'll send it:\n",
            'The user asked "send it" twice. Sending now:\n',
            "I'll search for \"Sure, I'll\":\n",
            "It looks like the report is ready. Sending it:\n",
            "C'est parti, j'envoie le message :\n",
            "Looks good. Sending:\n",
            "Here is the call:\n",
            "The examples folder is empty.\n\n",
        ]
    ),
)
def test_the_same_call_after_a_neutral_lead_in_is_a_call(family: str, nl: str, lead: str) -> None:
    text = lead + inner_call(family, nl)
    assert [c.name for c in repair(text, TOOLS).tool_calls] == ["send_email"], text
    assert _streamed(text) == ["send_email"]


def test_a_string_opened_in_code_is_no_quotation() -> None:
    """An unclosed string before a call (a broken argument, a Windows path) is not a
    quotation: the quotation test reads only prose before the quote."""
    text = '{"file_path": "C:\\Users\\admin\\file.txt} <|x|> the user says: '
    assert not narration._quoted_from(text)
    assert narration._quoted_from("the user says: \"Sure, I'll do it: ")


@pytest.mark.parametrize(
    "case_id",
    [
        "fresh4web-hn-48207313-mixed-call-example",
        "fresh4web-toolswift-glm5-typical-call-example",
        "fresh4web-gemma4-research-native-format-doc",
        "fresh4web-hacf-rex-llm-decision-json-example",
        "prec2-theneuralbase-formatting-tool-calls-quoted-saying",
        "prec2-dotblogs-zh-responses-output-as-follows",
    ],
)
def test_a_told_call_from_the_corpus_stays_in_the_text(case_id: str) -> None:
    lines = NEGATIVES.read_text(encoding="utf-8").splitlines()
    (case,) = [c for c in map(json.loads, lines) if c["id"] == case_id]
    fixed = repair(case["response"], case["tools"])
    assert fixed.tool_calls == []
    assert fixed.text == case["response"]["content"]


def test_finding_the_document_a_call_is_nested_in_is_linear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted, not timed: the characters read looking back for a document's opener
    grow linearly with the text (at most ``_DOCUMENT_CHARS`` per call)."""
    read = [0]
    find = narration._told_documents

    def counted(text: str, start: int) -> bool:
        read[0] += min(start, narration._DOCUMENT_CHARS)
        return find(text, start)

    monkeypatch.setattr(narration, "_told_documents", counted)
    unit = '[\n{"name": "send_email", "arguments": {"to": "x@y"}},\n'
    counts = []
    for n in (300, 1200):
        read[0] = 0
        repair(unit * n, TOOLS)
        counts.append(read[0])
    assert counts[0] > 0, counts
    assert counts[1] <= 4.5 * counts[0], counts
