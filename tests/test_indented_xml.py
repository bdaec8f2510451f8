"""Qwen3-Coder XML calls written indented (issue 28).

Some models write every line of the call after the first indented: Nemotron 3 Super on
vLLM (eugr/spark-vllm-docker issue 196: ``\\n <parameter=command>\\n cd lfs-build &&
ls -la\\n </parameter>``), Qwen3.6-27B on llama.cpp (ggml-org/llama.cpp issue 24644) and
Qwen 3.x under pi (froggeric/Qwen-Fixed-Chat-Templates, case fresh2-q27-38). A closer
that starts a line after that indentation closes the value, as an unindented one does,
and the value loses the layout's indentation: the closer line's, and each line's when
every line carries it. Before, the indented ``</parameter>`` was read as text of the
value: the call came out cut off, or with the markup after it inside its argument.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

_BASH = openai_tool("bash", {"command": {"type": "string"}, "cwd": {"type": "string"}}, ["command"])

#: One line of a command: printable, no markup, not blank at either end.
_LINE = st.text(
    alphabet=st.characters(
        min_codepoint=33,
        max_codepoint=0x2FF,
        blacklist_characters="<>",
        categories=["L", "N", "P", "S"],
    ),
    min_size=1,
    max_size=20,
)


def _calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = repair({"role": "assistant", "content": text}, [_BASH])
    return [(p.name, dict(p.arguments or {})) for p in out.parts if p.type == "tool_call"]


def _indented(pad: str, params: dict[str, list[str]]) -> str:
    lines = ["<tool_call>", f"{pad}<function=bash>"]
    for key, value in params.items():
        lines += [f"{pad}<parameter={key}>", *(pad + line for line in value), f"{pad}</parameter>"]
    return "\n".join([*lines, f"{pad}</function>", f"{pad}</tool_call>"])


@settings(max_examples=150, deadline=None)
@given(
    pad=st.sampled_from([" ", "  ", "    ", "\t"]),
    command=st.lists(_LINE, min_size=1, max_size=4),
    cwd=st.none() | st.lists(_LINE, min_size=1, max_size=2),
)
def test_an_indented_call_is_read_back_exactly(
    pad: str, command: list[str], cwd: list[str] | None
) -> None:
    params = {"command": command} if cwd is None else {"command": command, "cwd": cwd}
    expected = {key: "\n".join(value) for key, value in params.items()}
    assert _calls(_indented(pad, params)) == [("bash", expected)]


def test_the_harvested_output_is_read() -> None:
    text = (
        "<tool_call>\n <function=bash>\n <parameter=command>\n cd lfs-build && ls -la\n"
        " </parameter>\n </function>\n </tool_call>"
    )
    assert _calls(text) == [("bash", {"command": "cd lfs-build && ls -la"})]


def test_a_value_keeps_its_own_indentation() -> None:
    """Only the layout's indentation goes: a line indented further keeps the rest, and a
    value whose lines are not all indented keeps them as written."""
    heredoc = _indented("  ", {"command": ["cat <<EOF", "    nested", "EOF"]})
    assert _calls(heredoc) == [("bash", {"command": "cat <<EOF\n    nested\nEOF"})]
    mixed = "<function=bash>\n<parameter=command>\n  a\nb\n  </parameter>\n</function>"
    assert _calls(mixed) == [("bash", {"command": "  a\nb"})]


def test_a_closer_inside_a_line_stays_text_of_the_value() -> None:
    """The template's rule is kept: in a value written on its own lines, a tag that does
    not start a line (after blanks) is text of the value."""
    text = (
        "<function=bash>\n<parameter=command>\necho '</parameter>' > x\n</parameter>\n</function>"
    )
    assert _calls(text) == [("bash", {"command": "echo '</parameter>' > x"})]
