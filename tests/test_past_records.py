"""Calls shown, not made, in four more spellings (issue 28's negative corpus, branch
prec7; promise 3 and rules G2/G5):

- a record of a call already made, written back in the client's history format
  (``[TOOL_CALL_HISTORY]`` … ``[/TOOL_CALL_HISTORY]``, ``[Previous assistant tool use]``:
  ``toolfix/_repair/history.py``);
- a call as a shell command's data (``curl -d '{…}'``, ``echo '{…}' | server``:
  ``toolfix/_repair/shelldata.py``);
- a later step of a trace whose earlier step was answered, under a heading that names an
  example, written as a page renders it ("Example trace": ``narration._block_told``);
- a value that is a template slot naming its own parameter (``"filePath":
  "<filePath>"``: ``elision.names_own_slot``): the call is invalid, its text kept.

Each is decided by what precedes the call (or by the value itself), so a stream and a
whole text agree; the same call as the model's own message stays a call.
"""

from __future__ import annotations

import pytest
from call_names import names, streamed_names
from corpus_texts import corpus_cases
from hostile import TOOLS, WRITERS, inner_call, write
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair
from toolfix._repair.elision import names_own_slot
from toolfix._repair.history import history_spans
from toolfix._repair.shelldata import command_data_spans

FAMILIES = sorted(WRITERS)
#: The families whose call is a JSON document (what a shell command sends as data).
JSON_FAMILIES = [f for f in FAMILIES if inner_call(f, "").lstrip()[:1] in "{["]
LABELS = (
    ("[TOOL_CALL_HISTORY]\nstatus: already_called\n", "\n[/TOOL_CALL_HISTORY]"),
    ("[TOOL_CALL_HISTORY]\n", "\n[/TOOL_CALL_HISTORY]<\uff5cUser\uff5c>[TOOL_RESULT_HISTORY]"),
    ("[Previous assistant tool use]\n", "\n\nThe mail went out."),
    ("[previous-tool-call]\n", ""),
    ("[Tool call history]\n", "\n"),
)
COMMANDS = (
    ("curl -X POST http://localhost/mcp -d '", "'"),
    ("curl --request POST \\\n  --data '\n", "\n'\n"),
    ("echo '", "' | uv run server.py"),
    ("printf '", "\\n' | node server.js"),
)
PROSE = ("I'll mail it now.", "Sending the mail to x@y as asked.", "")
SLOT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"file_path": {"type": "string"}},
                "required": ["file_path"],
            },
        },
    }
]


def _streamed(text: str, tools: list[dict[str, object]] = TOOLS) -> list[str]:
    return streamed_names(text, tools)


def _names(text: str) -> list[str]:
    return names(text, TOOLS)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["", "\n"]), st.sampled_from(LABELS))
def test_a_call_in_a_record_of_past_calls_is_not_a_call(
    family: str, nl: str, label: tuple[str, str]
) -> None:
    call = inner_call(family, nl)
    text = f"Let me do it again.\n\n{label[0]}{call}{label[1]}"
    assert _names(text) == [], text
    assert _streamed(text) == [], text  # (a stream and the batch agree)
    assert _names(call) == ["send_email"]  # the model's own whole message is a call


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(LABELS), st.sampled_from(PROSE))
def test_a_call_after_a_closed_record_is_a_call(
    family: str, label: tuple[str, str], prose: str
) -> None:
    record = f"[TOOL_CALL_HISTORY]\nfunction.name: note\n[/TOOL_CALL_HISTORY]\n\n{prose}\n"
    text = record + inner_call(family, "")
    assert _names(text) == ["send_email"], text


@pytest.mark.parametrize(
    "label",
    [
        "[History of the project]",
        "[see previous answer]",
        "[TOOL_CALL]",
        "[Tool output]",
        "[Previous tool call failed]",
        "[Retrying the previous tool call with a longer timeout history]",
    ],
)
def test_a_label_without_a_past_call_opens_no_record(label: str) -> None:
    text = f'{label}\n{{"name": "send_email", "arguments": {{"to": "x@y"}}}}'
    assert _names(text) == ["send_email"], text


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(JSON_FAMILIES), st.sampled_from(COMMANDS))
def test_a_call_as_a_shell_commands_data_is_not_a_call(
    family: str, command: tuple[str, str]
) -> None:
    call = inner_call(family, "")
    if "'" in call:
        return  # (a single-quoted shell argument cannot hold one)
    text = f"Test it with:\n\n{command[0]}{call}{command[1]}"
    assert _names(text) == [], text
    assert _streamed(text) == [], text


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(PROSE))
def test_a_call_after_a_shell_command_is_a_call(family: str, prose: str) -> None:
    # the command's data is closed: the model's own call after it is a call
    text = f'curl -d \'{{"ping": 1}}\' http://x\necho "hello"\n{prose}\n\n{inner_call(family, "")}'
    assert _names(text) == ["send_email"], text


def test_a_shell_command_in_a_calls_own_value_stays_in_it() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "shell",
                "parameters": {
                    "type": "object",
                    "properties": {"command": {"type": "string"}},
                    "required": ["command"],
                },
            },
        }
    ]
    text = '{"name": "shell", "arguments": {"command": "echo \'{\\"a\\": 1}\' | jq ."}}'
    calls = repair(text, tools).tool_calls
    assert [c.arguments for c in calls] == [{"command": "echo '{\"a\": 1}' | jq ."}]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(["Example trace", "Example", "Sample run"]))
def test_a_later_step_of_an_answered_example_trace_is_not_a_call(family: str, heading: str) -> None:
    step = "Thought: find it.\nAction: note(text='a')\nObservation: found.\n\nThought: mail it.\n"
    text = f"{heading}\n\n{step}{inner_call(family, '')}"
    assert _names(text) == [], text
    assert _streamed(text) == [], text
    own = f"I will check first.\n\n{step}{inner_call(family, '')}"
    assert _names(own) == ["send_email"], own  # (no heading: the model's own trace)


_slot_forms = st.sampled_from(["<{}>", "{{{{{}}}}}", "{{{}}}", "[{}]", "${{{}}}", "< {} >"])
_spellings = st.sampled_from(["file_path", "filePath", "FILE_PATH", "file-path", "file path"])


#: Every family: when a family reader refuses a call (an elision mark, a slot), the
#: schema-anchored reader reads the region again; it takes no bare value holding a
#: model's special token (``<|"|>(...)<|"|>``, anchored.py ``_SPECIAL_TOKEN``), and MiniMax
#: M3's namespace token is a registry noise marker, so neither comes back as a value.
SLOT_FAMILIES = FAMILIES


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SLOT_FAMILIES), _slot_forms, _spellings)
def test_a_slot_naming_its_own_parameter_is_no_value(family: str, form: str, name: str) -> None:
    slot = form.format(name)
    text = write(family, "read_file", "file_path", slot, "")
    result = repair(text, SLOT_TOOLS)
    assert result.tool_calls == [], text
    # never dropped: an invalid call with the raw text, or the text itself
    assert result.invalid_tool_calls or slot in (result.text or ""), text


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(FAMILIES),
    st.one_of(
        st.sampled_from(["<topic>", "<br>", "{path}", "[draft]", "your_file_path", "<b>"]),
        st.text(st.sampled_from("abcxyz/._-"), min_size=1, max_size=20).map(str.strip),
    ),
)
def test_any_other_value_is_read_back_exactly(family: str, value: str) -> None:
    if not value or not value.strip("._-/"):
        return
    text = write(family, "read_file", "file_path", value, "")
    calls = repair(text, SLOT_TOOLS).tool_calls
    assert [c.arguments for c in calls] == [{"file_path": value}], text


@given(st.text(max_size=30), st.text(max_size=30))
def test_a_slot_is_read_only_for_its_own_name(key: str, value: str) -> None:
    if names_own_slot(key, value):
        assert key.replace("_", "").lower()[:1] in value.lower()


@pytest.mark.parametrize(
    "case",
    corpus_cases("benchmarks/corpora/prose_negatives.jsonl", "prec7-")
    + corpus_cases("benchmarks/heldout/verbatim_fresh6_cn.jsonl", "fresh6cn-ds2api-77"),
    ids=lambda c: str(c["id"]),
)
def test_the_sources_are_no_call(case: dict[str, object]) -> None:
    assert repair(case["response"], case["tools"]).tool_calls == []


@given(st.text(st.sampled_from("ab \n[]/_'\"{HISTORYPrevious tool curl -d echo"), max_size=300))
def test_the_spans_are_sorted_and_inside_the_text(text: str) -> None:
    for spans in (history_spans(text), command_data_spans(text)):
        assert spans == sorted(spans)
        assert all(0 <= s <= e <= len(text) for s, e in spans)


class _Counting(str):
    """A text that counts the ``find`` calls that found nothing: each one reads the
    text to its end, so their number must not grow with the text."""

    misses = 0

    def find(self, *args: object) -> int:  # type: ignore[override]
        at = str.find(self, *args)  # type: ignore[arg-type]
        _Counting.misses += at == -1
        return at


def _misses(text: str) -> int:
    _Counting.misses = 0
    history_spans(_Counting(text))
    command_data_spans(_Counting(text))
    return _Counting.misses


def test_the_span_work_is_linear_in_the_text() -> None:
    # labels without their closer: a label's closer is looked for once, not once per
    # label; a command inside an earlier command's open data is not read again
    def text(n: int) -> str:
        return "[TOOL_CALL_HISTORY]\nx\n\n" * n + "echo '{" + ' echo "{x' * n

    assert len(history_spans(text(1000))) == 1000
    assert len(command_data_spans(text(1000))) == 1
    assert _misses(text(4000)) == _misses(text(40)) <= 32
