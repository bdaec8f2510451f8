"""Configured argument-key aliases: ``FixConfig.argument_aliases`` (issue 28).

qwen3-coder writes ``<parameter=target_file>`` and DeepSeek V4
``<｜DSML｜parameter name="file">`` for a ``read_file`` whose parameter is ``path``
(hermes-agent PRs 7628 and 81237, ``benchmarks/corpora/verbatim_anchored.jsonl``). The
letters differ, so by default the key stays undeclared and the call is invalid
(promise 4); configured pairs rename it, and only where exactly one missing parameter
takes it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FixConfig, ToolRegistry, repair
from toolfix._messages import RepairRecord
from toolfix._repair.keyalias import apply_argument_aliases


def _tool(name: str, props: list[str], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {p: {"type": "string"} for p in props},
                "required": required,
            },
        },
    }


TOOLS = [_tool("read_file", ["path", "offset"], ["path"])]
HERMES = FixConfig(argument_aliases=(("target_file", "path"), ("file", "path")))
QWEN = (
    "<tool_call>\n<function=read_file>\n<parameter=target_file>main.py</parameter>\n"
    "</function>\n</tool_call>"
)
DSML = (
    '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="read_file">\n'
    '<｜DSML｜parameter name="file" string="true">/path/to/file</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜tool_calls>"
)


def test_by_default_a_key_with_other_letters_is_not_renamed() -> None:
    for content in (QWEN, DSML):
        out = repair({"content": content}, TOOLS)
        assert out.tool_calls == []
        assert "'path' is a required property" in out.invalid_tool_calls[0].error


def test_configured_pairs_rename_the_key_and_record_it() -> None:
    for content, path, alias in ((QWEN, "main.py", "target_file"), (DSML, "/path/to/file", "file")):
        call = repair({"content": content}, TOOLS, config=HERMES).tool_calls[0]
        assert (call.name, call.arguments) == ("read_file", {"path": path})
        details = [r.detail for r in call.repairs if r.kind == "key_alias"]
        assert details == [f"read the argument {alias!r} as 'path' (configured alias)"]


def test_a_native_call_with_an_alias_key() -> None:
    native = {
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"file": "a.py", "offset": "3"}'},
            }
        ]
    }
    call = repair(native, TOOLS, config=HERMES).tool_calls[0]
    assert call.arguments == {"path": "a.py", "offset": "3"}


def test_never_where_the_parameter_is_there_or_the_alias_is_declared() -> None:
    both = '{"name": "read_file", "arguments": {"path": "a.py", "file": "b.py"}}'
    call = repair({"content": both}, TOOLS, config=HERMES).tool_calls[0]
    assert call.arguments == {"path": "a.py", "file": "b.py"}  # not overwritten
    declared = [_tool("read_file", ["path", "file"], ["path"])]
    out = repair({"content": '{"name": "read_file", "arguments": {"file": "b.py"}}'}, declared)
    assert out.tool_calls == []  # ``file`` is the tool's own parameter: never renamed


def test_never_when_two_keys_or_two_parameters_compete() -> None:
    two_keys = '{"name": "read_file", "arguments": {"file": "a.py", "target_file": "b.py"}}'
    assert repair({"content": two_keys}, TOOLS, config=HERMES).tool_calls == []
    tools = [_tool("copy", ["path", "dest"], ["path", "dest"])]
    config = FixConfig(argument_aliases=(("file", "path"), ("file", "dest")))
    one_key = '{"name": "copy", "arguments": {"file": "a.py", "dest": "b.py"}}'
    call = repair({"content": one_key}, tools, config=config).tool_calls[0]
    assert call.arguments == {"path": "a.py", "dest": "b.py"}  # only ``path`` is missing
    neither = '{"name": "copy", "arguments": {"file": "a.py"}}'
    assert repair({"content": neither}, tools, config=config).tool_calls == []


_KEYS = st.sampled_from(["path", "file", "target_file", "dest", "src", "offset"])


@settings(max_examples=300, deadline=None)
@given(
    props=st.lists(_KEYS, min_size=1, max_size=4, unique=True),
    args=st.dictionaries(_KEYS, st.integers(), max_size=4),
    pairs=st.lists(st.tuples(_KEYS, _KEYS), max_size=5),
)
def test_renames_only_configured_keys_into_missing_parameters(
    props: list[str], args: dict[str, int], pairs: list[tuple[str, str]]
) -> None:
    tool = ToolRegistry.from_openai([_tool("t", props, [])])["t"]
    repairs: list[RepairRecord] = []
    out = apply_argument_aliases(dict(args), tool, tuple(pairs), repairs)
    assert sorted(out.values()) == sorted(args.values())  # nothing dropped or overwritten
    assert len(out) == len(args)
    renamed = set(args) - set(out)
    added = set(out) - set(args)
    assert len(repairs) == len(renamed) == len(added)
    assert added <= set(props)  # only into declared parameters the call lacked
    assert not renamed & set(props)  # a declared key is never renamed
    for key in renamed:
        assert any((key, t) in pairs and out[t] == args[key] for t in added)
    if not pairs:
        assert out == args
