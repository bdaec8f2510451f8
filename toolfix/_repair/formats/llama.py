"""Llama 3.1-3.3 ``<|python_tag|>`` calls.

``<|python_tag|>{"name": "f", "parameters": {...}}<|eom_id|>``: the JSON-based
custom tool call after the ``<|python_tag|>`` token, ending at ``<|eom_id|>``,
``<|eot_id|>``, the next ``<|python_tag|>`` or the end of the text (the end
token belongs to the span). Several objects may follow one tag, separated by
``;`` or newlines (vLLM's llama3_json parser splits on ``;``). The built-in
tools use Python syntax after the tag (``brave_search.call(query="...")``): read
with the pythonic whitelist walker. Any other body (code for the code
interpreter) is handed over as the payload, so the interpreter reports it rather
than dropping it. Bare ``{"name": ..., "parameters": ...}`` without the tag is
the generic JSON format's job.

Sources: Meta's Llama 3.1 prompt format
(https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_1/) and vLLM
``llama_tool_parser.py``
(https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/tool_parsers/llama_tool_parser.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..text import ExtendBudget, MarkerFinder, find_bracket_end, json_past_markers, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat
from .pythonic import parse_call, read_dotted_name, rejection

__all__ = ["LlamaFormat"]

TAG = "<|python_tag|>"
END_TOKENS = ("<|eom_id|>", "<|eot_id|>")
_SEPARATORS = " \t\r\n;"


class LlamaFormat(ToolCallFormat):
    """``<|python_tag|>`` followed by JSON calls (or a built-in tool's Python call)."""

    name = "llama"
    args_key = "parameters"
    markers = (TAG,)
    spans_start_at_markers = True
    priority = 10
    source: ClassVar[str] = (
        "https://www.llama.com/docs/model-cards-and-prompt-formats/llama3_1/; "
        "https://github.com/vllm-project/vllm/blob/main/vllm/entrypoints/openai/"
        "tool_parsers/llama_tool_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        """The calls after each ``<|python_tag|>``, in order."""
        out: list[Candidate] = []
        finder = MarkerFinder(text)
        budget = ExtendBudget()
        n = len(text)
        pos = 0
        while pos < n:
            tag = finder.find(TAG, pos)
            if tag == -1:
                break
            body_start = tag + len(TAG)
            body_end, which = finder.first((*END_TOKENS, TAG), body_start, n)
            first = skip_ws(text, body_start)
            if body_end < n and first < body_end and text[first] == "{":
                # an end token inside a JSON string of the call is text, not its end
                past = json_past_markers(
                    text, first, body_end, (*END_TOKENS, TAG), ctx.limits, budget, reads=ctx.reads
                )
                if past is not None:
                    body_end, which = finder.first((*END_TOKENS, TAG), past, n)
            end = body_end + len(which) if which in END_TOKENS else body_end
            out.extend(self._body(text, tag, body_start, body_end, end, which in END_TOKENS, ctx))
            pos = max(end, body_start)
        return out

    def _body(
        self, text: str, tag: int, lo: int, hi: int, end: int, ended: bool, ctx: ScanContext
    ) -> list[Candidate]:
        first = skip_ws(text, lo)
        if first >= hi:
            return []
        if text[first] != "{":
            other = self._other(text, tag, first, hi, end, ctx)
            # raw code is only reported when an end token closes it (not a prose mention)
            return [other] if other.name is not None or ended else []
        found: list[Candidate] = []
        p = first
        while p < hi and text[p] == "{":
            span = find_bracket_end(text, p, ctx.limits, stop=hi, reads=ctx.reads)
            start = tag if not found else found[-1].end
            # an end token after unbalanced JSON: broken JSON, not a cut-off output
            cut = span.truncated and not ended and hi >= len(text)
            found.append(self._make(text, start, span.end, cut, payload=text[p : span.end]))
            p = span.end
            while p < hi and text[p] in _SEPARATORS:
                p += 1
        # whatever follows the last object inside the section, and the end token, go with it
        last = found[-1]
        tail_end = end if p >= hi else last.end
        found[-1] = self._make(text, last.start, tail_end, last.truncated, payload=last.payload)
        return found

    def _other(
        self, text: str, tag: int, first: int, hi: int, end: int, ctx: ScanContext
    ) -> Candidate:
        """A body that is not JSON: a built-in tool's Python call, or raw code."""
        body = text[first:hi].strip()
        name_end = read_dotted_name(text, first)
        if name_end > first and name_end < hi and text[name_end] == "(":
            call = (
                parse_call(body, ctx.limits) if len(body) <= ctx.limits.max_pythonic_chars else None
            )
            if call is not None:
                args: str | Mapping[str, Any] = body if call.arguments is None else call.arguments
                return self._make(
                    text,
                    tag,
                    end,
                    False,
                    name=_builtin_name(call.name, ctx),
                    arguments=args,
                    extra=("pythonic",),
                    error=rejection(call),
                )
        return self._make(text, tag, end, False, payload=body)


_CALL_METHOD = ".call"


def _builtin_name(name: str, ctx: ScanContext) -> str:
    """The tool a built-in call names: Llama 3.1 writes ``brave_search.call(...)`` for the
    tool ``brave_search`` (Meta's prompt format; llama-models reads ``<tool>.call`` as the
    tool), so the ``.call`` method is not part of the name unless a tool is offered under
    the whole dotted name."""
    if name.endswith(_CALL_METHOD) and len(name) > len(_CALL_METHOD) and not ctx.is_tool(name):
        return name[: -len(_CALL_METHOD)]
    return name
