"""A lone JSON object written by position (``exec({"command": "pwd", "description":
"…"})``: Kimi K2.5 in openclaw/openclaw issue 41297) is the call's arguments object when
it holds the tool's one required (or only) parameter as a key
(toolfix/_repair/positional.py, ``bind_object``): its keys are kept as written,
undeclared ones included (promise 5), a key written twice with two values is refused
(G3), and an object without that key, or prose that mentions the call, is no call."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tooldefs import openai_tool
from toolfix import FailureKind, FixConfig, ManualToolCallFixProcessor, ToolRegistry, repair
from toolfix._convert import response_from_openai
from toolfix._messages import InvalidToolCallPart, ToolCallPart
from toolfix._repair.elision import is_placeholder

EXEC = openai_tool(
    "exec",
    {"command": {"type": "string"}, "workdir": {"type": "string"}, "timeout": {"type": "number"}},
    ["command"],
)
#: one parameter, an object: a lone object without the key ``config`` may be its value
CONFIG = openai_tool("set_config", {"config": {"type": "object"}}, [])
TOOLS = [EXEC, CONFIG]

#: The shapes of a call by position the schema-anchored reader reads (it binds an object
#: by position: toolfix/_repair/posread.py).
SHAPES = (
    "[{call}]",  # pythonic list (Llama 3.2 / 4, vllm-mlx #146)
    "{call}",  # pythonic call on its own line (openclaw #41297)
    "<|tool_call>call:{call}<tool_call|>",  # Gemma 4, Python-style
    "<tool_calls>\ninvoke {call}\n</tool_calls>",  # DeepSeek (DevoxxGenie issue 1288)
    "<function={call}</function>",  # Llama 3.3 on Groq (pydantic-ai #1714)
)

_TEXT = st.text(min_size=1, max_size=30).filter(
    lambda s: s.strip() == s and not is_placeholder(s) and "\n" not in s
)
_EXTRA = st.dictionaries(
    st.from_regex(r"[a-z][a-zA-Z]{2,10}", fullmatch=True).filter(
        lambda k: k not in ("command", "workdir", "timeout")
    ),
    _TEXT | st.integers(-1000, 1000) | st.booleans(),
    max_size=3,
)


def _js(value: Any) -> str:
    # (unescaped: a pythonic reader reads ``"\\ud800\\udc00"`` as Python does, two halves)
    return json.dumps(value, ensure_ascii=False)


def _calls(content: str) -> list[Any]:
    return [
        p
        for p in repair({"content": content, "tool_calls": []}, TOOLS).parts
        if isinstance(p, ToolCallPart | InvalidToolCallPart)
    ]


@settings(max_examples=200, deadline=None)
@given(
    shape=st.sampled_from(SHAPES),
    command=_TEXT,
    workdir=st.none() | _TEXT,
    extra=_EXTRA,
    first=st.booleans(),
)
def test_an_object_by_position_is_read_back_exactly(
    shape: str, command: str, workdir: str | None, extra: dict[str, Any], first: bool
) -> None:
    """Drawn values and undeclared keys, the required key first or last: every key
    comes back as written, and the record says how the call was read."""
    members: dict[str, Any] = {} if first else dict(extra)
    members["command"] = command
    if workdir is not None:
        members["workdir"] = workdir
    if first:
        members.update(extra)
    call = shape.format(call=f"exec({_js(members)})")
    (part,) = _calls(call)
    assert isinstance(part, ToolCallPart), (call, part)
    assert part.arguments == members
    assert any(r.kind == FailureKind.POSITIONAL_ARGUMENTS for r in part.repairs)


@settings(max_examples=100, deadline=None)
@given(shape=st.sampled_from(SHAPES), one=_TEXT, two=_TEXT)
def test_the_key_written_twice_with_two_values_is_refused(shape: str, one: str, two: str) -> None:
    members = f'{{"command": {_js(one)}, "command": {_js(two)}}}'
    parts = _calls(shape.format(call=f"exec({members})"))
    if one == two:
        assert [p.arguments for p in parts] == [{"command": one}]
    else:
        assert len(parts) == 1
        assert isinstance(parts[0], InvalidToolCallPart)
        assert parts[0].kind == FailureKind.DUPLICATE_ARGUMENT


@settings(max_examples=100, deadline=None)
@given(shape=st.sampled_from(SHAPES), extra=_EXTRA.filter(bool))
def test_an_object_without_the_required_key_is_not_bound(shape: str, extra: dict[str, Any]) -> None:
    """No ``command``: not exec's arguments object; for ``set_config`` an object without
    ``config`` may be the value of ``config``: neither is a valid call."""
    for name in ("exec", "set_config"):
        parts = _calls(shape.format(call=f"{name}({_js(extra)})"))
        assert not any(isinstance(p, ToolCallPart) for p in parts), (name, parts)


def test_the_object_holding_the_parameter_is_the_arguments() -> None:
    (part,) = _calls('set_config({"config": {"theme": "dark"}})')
    assert isinstance(part, ToolCallPart)
    assert part.arguments == {"config": {"theme": "dark"}}


@settings(max_examples=100, deadline=None)
@given(
    command=_TEXT,
    lead=st.sampled_from(["Then I ran ", "The model wrote ", "e.g. ", "I'll call "]),
    tail=st.sampled_from([" and it worked.", " in the log.", "", " — see above."]),
)
def test_prose_that_mentions_the_call_is_not_a_call(command: str, lead: str, tail: str) -> None:
    """The call inside a sentence of prose stays text (promise 3)."""
    text = f"{lead}exec({_js({'command': command, 'description': 'x'})}){tail}"
    assert _calls(text) == []


def test_the_openclaw_41297_paste() -> None:
    (part,) = _calls('exec({"command": "pwd", "description": "Print working directory"})')
    assert isinstance(part, ToolCallPart)
    assert part.arguments == {"command": "pwd", "description": "Print working directory"}


def test_with_the_reader_off_the_object_stays_an_invalid_call() -> None:
    """The family readers leave an object by position to the schema-anchored reader:
    with it off, the call is invalid with its raw text, as before (never dropped)."""
    text = 'exec({"command": "pwd", "description": "Print working directory"})'
    fixer = ManualToolCallFixProcessor(config=FixConfig(schema_anchored=False))
    response = response_from_openai({"role": "assistant", "content": text})
    out = fixer.fix(response, ToolRegistry.from_openai(TOOLS))
    assert out.tool_calls == []
    assert [c.raw for c in out.invalid_tool_calls] == [text]
