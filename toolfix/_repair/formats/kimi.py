"""Kimi K2 special-token tool-call sections.

Chat template of ``moonshotai/Kimi-K2-Instruct`` (the model repo's tool_call_guidance.md) and
vLLM ``vllm/tool_parsers/kimi_k2_tool_parser.py``::

    <|tool_calls_section_begin|>
    <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}
    <|tool_call_end|>
    <|tool_calls_section_end|>

The call id is the whole ``functions.get_weather:0``; the tool name drops the
``functions.`` prefix and the ``:N`` counter. Some engines print the singular
``<|tool_call_section_begin|>`` or ``<|tool_call_arguments_begin|>``; both are
accepted. A bare counter id (``0``) carries no name: the candidate's name is
then the counter itself, which the interpreter reports as an unknown tool. An id
written without its separators (``functions_Bash_2``, ``functionsexec5``) is read by
:mod:`toolfix._repair.formats.kimi_ids` when it names exactly one offered tool.

A lone marker in prose yields nothing (a call needs an id after
``<|tool_call_begin|>``); a complete call quoted inside a code block is still
taken, since these special tokens are not something a model writes as prose.
"""

from __future__ import annotations

import re

from ..text import skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat, arguments_before
from .kimi_ids import damaged_id_name

__all__ = ["KimiFormat", "kimi_name"]

_SECTION_BEGIN = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
_SECTION_END = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
_CALL_BEGIN = "<|tool_call_begin|>"
_ARG_BEGIN = ("<|tool_call_argument_begin|>", "<|tool_call_arguments_begin|>")
_CALL_END = "<|tool_call_end|>"
_MAX_ID = 512


#: What no call id holds (``functions.get_weather:0``, ``call_abc``, ``0``): a call opener
#: followed by these is text that mentions the token (a value holding it, issue 27).
_NOT_IN_ID = re.compile(r'[\n"{}\[\]]')
#: An arguments object that starts with the tool's name (``{"name": "f", ...}``).
_NAME_KEY = re.compile(r'\{\s*"(?:name|function|tool_name)"\s*:\s*"')


def kimi_name(call_id: str) -> str:
    """``functions.get_weather:0`` -> ``get_weather`` (prefix and counter removed)."""
    name = call_id.strip()
    colon = name.rfind(":")
    if colon != -1 and name[colon + 1 :].strip().isdigit():
        name = name[:colon].strip()
    if name.startswith("functions."):
        name = name[len("functions.") :]
    return name


def _starts(text: str, i: int, options: tuple[str, ...]) -> str | None:
    for o in options:
        if text.startswith(o, i):
            return o
    return None


class KimiFormat(ToolCallFormat):
    """Kimi K2 ``<|tool_call_begin|>functions.NAME:N<|tool_call_argument_begin|>{json}``."""

    name = "kimi"
    markers = ("<|tool_call_begin|>", "<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
    spans_start_at_markers = True
    priority = 5
    source = (
        "https://huggingface.co/moonshotai/Kimi-K2-Instruct/blob/main/docs/tool_call_guidance.md; "
        "vllm-project/vllm vllm/tool_parsers/kimi_k2_tool_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        n = len(text)
        pos = 0
        floor = 0
        while True:
            cb = text.find(_CALL_BEGIN, pos)
            if cb == -1:
                break
            start = cb
            # a section opener right before the call belongs to the candidate
            lo = max(floor, cb - 256)
            back = text[lo:cb].rstrip()
            for sb in _SECTION_BEGIN:
                if back.endswith(sb):
                    start = lo + len(back) - len(sb)
                    break
            id_start = cb + len(_CALL_BEGIN)
            # the id runs to the argument marker; it is short and has no markup in it
            limit = min(n, id_start + _MAX_ID + 1)
            arg_tok: str | None = None
            j = text.find("<", id_start, limit)
            while j != -1:
                arg_tok = _starts(text, j, _ARG_BEGIN)
                if arg_tok is not None or text.startswith("<|", j):
                    break
                j = text.find("<", j + 1, limit)
            if j == -1:
                j = limit  # no markup within reach: the id ran on (to the end, or too long)
            call_id = text[id_start:j].strip()
            if _NOT_IN_ID.search(call_id):  # JSON or a line break: text, not a call's id
                pos = id_start
                continue
            truncated = False
            arguments: str | dict[str, object]
            if arg_tok is not None:
                a = skip_ws(text, j + len(arg_tok))
                stop = text.find("<|", a)
                stop = n if stop == -1 else stop
                arguments, end, truncated = arguments_before(text, a, stop, ctx.limits, ctx.reads)
            elif j >= n or (j - id_start > _MAX_ID):
                if j - id_start > _MAX_ID:  # not a Kimi call after all
                    pos = id_start
                    continue
                arguments, end, truncated = "", n, True
            elif _cut_token(text, j):
                arguments, end, truncated = "", n, True  # cut inside the argument marker
            else:
                arguments, end = {}, j  # no argument marker: a call without arguments
            if not call_id:
                pos = max(end, id_start)
                continue
            end = _closing_end(text, end)
            self.check_call_count(len(out), ctx, text, start)
            name, payload, notes = _name_of(call_id, arguments, ctx)
            out.append(
                self._make(
                    text,
                    start,
                    end,
                    truncated,
                    name=name,
                    payload=payload,
                    arguments=None if payload is not None else arguments,
                    call_id=call_id,
                    notes=notes,
                )
            )
            floor = pos = end
        return out


def _closing_end(text: str, end: int) -> int:
    """Where a call ending at ``end`` ends with its closing tokens: the call end, then the
    section end (or up to the next call of the section)."""
    p = skip_ws(text, end)
    if text.startswith(_CALL_END, p):
        end = p + len(_CALL_END)
        p = skip_ws(text, end)
    se = _starts(text, p, _SECTION_END)
    if se is not None:
        return p + len(se)
    return p if text.startswith(_CALL_BEGIN, p) else end


def _name_of(
    call_id: str, arguments: str | dict[str, object], ctx: ScanContext
) -> tuple[str | None, str | None, tuple[tuple[str, str], ...]]:
    """The call's tool name, the payload when the arguments object is the whole call, and
    the notes of the reading."""
    name = kimi_name(call_id)
    if isinstance(arguments, str) and not ctx.is_tool(name) and _NAME_KEY.match(arguments):
        # an OpenAI-style id (``call_abc123``) in the id's place and the name in the
        # arguments object (vllm #32146): the object is the whole call
        return None, arguments, ()
    if name.isdigit() and len(ctx.tool_names) == 1:
        # a bare counter for an id, no name: with one tool offered it can only be that
        # one, as vLLM reads it (test_kimi_k2_tool_parser: test_bare_counter)
        (only,) = ctx.tool_names
        return only, None, (("unknown_name", "the call named no tool: read as the only one"),)
    if not ctx.is_tool(name) and (read := damaged_id_name(call_id, ctx.tool_names)) is not None:
        # the id's separators written otherwise or left out (functions_Bash_2): kimi_ids
        return read, None, (("unknown_name", f"read the call id {call_id!r} as {read!r}"),)
    return name, None, ()


def _cut_token(text: str, j: int) -> bool:
    """Does the output end inside a special token at ``j`` (``<|tool_call_argu``)? Then
    the call was cut off there: it is no call without arguments."""
    rest = text[j:]
    return len(rest) < 40 and any(
        t.startswith(rest) and t != rest for t in (*_ARG_BEGIN, _CALL_END, *_SECTION_END)
    )
