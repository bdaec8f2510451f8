"""A ``[TOOL_CALL]`` flags block (MiniMax: ``{tool => "x", args => { --key "v" }}``,
NousResearch/hermes-agent issue 11994, zeroclaw-labs/zeroclaw issue 4758) as a chat UI
shows it after markdown-it's typographer (``--`` as an en dash, quotes curly) and with
its soft line breaks joined (Mintplex-Labs/anything-llm issue 4675): anchored.py reads
the flags back exactly; a bare flag value stops at the braces that close the run, not at
braces it opens itself; prose with dashes stays text."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

SUMMARIZER = openai_tool(
    "document-summarizer",
    {
        "action": {"type": "string"},
        "document_filename": {"type": ["string", "null"]},
        "command": {"type": "string"},
    },
    [],
)
TOOLS: list[dict[str, Any]] = [SUMMARIZER]


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, dict(c.arguments or {})) for c in repair(text, TOOLS).tool_calls]


def _block(args: dict[str, str | None]) -> str:
    lines = [f'  --{k} "{v}"' if v is not None else f"  --{k} null" for k, v in args.items()]
    body = "\n".join(lines)
    return f'[TOOL_CALL]\n{{tool => "document-summarizer", args => {{\n{body}\n}}}}\n[/TOOL_CALL]'


def _typographer(text: str, dash: str, joined: bool) -> str:
    """markdown-it's typographer (``--`` to a dash, straight quotes curly), and the soft
    breaks of a paragraph shown joined."""
    out, opening = [], True
    for ch in text.replace("--", dash):
        if ch == '"':
            out.append("\u201c" if opening else "\u201d")
            opening = not opening
        else:
            out.append(ch)
    rendered = "".join(out)
    return " ".join(x.strip() for x in rendered.split("\n")) if joined else rendered


_WORD = st.text(alphabet="abcXYZ019 ._/", min_size=1, max_size=20).map(str.strip).filter(bool)


@settings(max_examples=150, deadline=None)
@given(
    action=_WORD,
    filename=st.one_of(st.none(), _WORD),
    dash=st.sampled_from(["--", "\u2013", "\u2014"]),
    joined=st.booleans(),
)
def test_a_rendered_flags_block_is_read_back_exactly(
    action: str, filename: str | None, dash: str, joined: bool
) -> None:
    args = {"action": action, "document_filename": filename}
    text = _typographer(_block(args), dash, joined)
    assert _calls(text) == [("document-summarizer", args)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            '[TOOL_CALL] {tool => "document-summarizer", args => '
            "{ --command awk '{print $1}' f }} [/TOOL_CALL]",
            "awk '{print $1}' f",
        ),
        (
            '[TOOL_CALL]\n{tool => "document-summarizer", args => {\n  --command echo {a} }\n}}\n'
            "[/TOOL_CALL]",
            "echo {a}",
        ),
    ],
)
def test_a_bare_value_keeps_the_braces_it_opens(text: str, value: str) -> None:
    assert _calls(text) == [("document-summarizer", {"command": value})]


@pytest.mark.parametrize(
    "text",
    [
        "The document-summarizer \u2013 action list \u2013 is what I would use.",
        "I could run document-summarizer \u2014action \u201clist\u201d later, if you want.",
        "Options of document-summarizer: \u2013action, \u2013document_filename.",
    ],
)
def test_prose_with_dashes_stays_text(text: str) -> None:
    assert _calls(text) == []
