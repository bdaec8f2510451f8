"""IBM Granite 3.x ``<|tool_call|>[{"name": ..., "arguments": {...}}]``.

Chat template of ``ibm-granite/granite-3.1-8b-instruct`` (and 3.2/3.3) and vLLM
``vllm/tool_parsers/granite_tool_parser.py``: the model writes the
``<|tool_call|>`` token followed by a JSON list of calls, with no closing tag::

    <|tool_call|>[{"name": "get_current_weather", "arguments": {"city": "Boston"}}]

Granite 3.0 wrote ``<tool_call>[...]`` (same list, no closing tag): taken here
when no ``</tool_call>`` follows the list (closed tags are Hermes'). Granite 4
uses Hermes-style ``<tool_call>{...}</tool_call>``, handled by the Hermes format.
"""

from __future__ import annotations

from ..text import MarkerFinder, escaped_json_end, find_bracket_end, skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["GraniteFormat"]

_TOKEN = "<|tool_call|>"  # noqa: S105 (a marker, not a secret)
_OLD = "<tool_call>"
_HERMES_CLOSE = "</tool_call>"


class GraniteFormat(ToolCallFormat):
    """Granite 3.x ``<|tool_call|>`` + JSON list (payload)."""

    name = "granite"
    markers = (_TOKEN, "<tool_call>[")
    spans_start_at_markers = True
    # before Hermes (10), so that Granite 3.0's unclosed ``<tool_call>[...]`` is not
    # reported as a truncated Hermes call
    priority = 9
    source = (
        "https://huggingface.co/ibm-granite/granite-3.1-8b-instruct (tokenizer_config.json); "
        "vllm-project/vllm vllm/tool_parsers/granite_tool_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        n = len(text)
        finder = MarkerFinder(text)
        has_old = "<tool_call>[" in text
        pos = 0
        while True:
            a = finder.find(_TOKEN, pos)
            b = finder.find(_OLD, pos) if has_old else -1
            if a == -1 and b == -1:
                break
            old = a == -1 or (b != -1 and b < a)
            start = b if old else a
            p = skip_ws(text, start + (len(_OLD) if old else len(_TOKEN)))
            pos = p
            if (
                old
                and p < n
                and text[p] == "["
                and not text.startswith(("{", "["), skip_ws(text, p + 1))
            ):
                continue  # "<tool_call>[" then no call object: text (e.g. inside a string)
            if p < n and text[p] in "[{":
                # escaped JSON is quoted in another call's string: it ends with it
                span = escaped_json_end(text, p) or find_bracket_end(
                    text, p, ctx.limits, reads=ctx.reads
                )
                end, truncated, payload = span.end, span.truncated, text[p : span.end]
                if old and not truncated and text.startswith(_HERMES_CLOSE, skip_ws(text, end)):
                    pos = end
                    continue  # a closed <tool_call> is Hermes'
            elif old:
                continue  # "<tool_call>" followed by something else: Hermes'
            else:
                # the token then no JSON: report what follows up to the next token (or the end)
                nxt = finder.find(_TOKEN, p)
                stop = n if nxt == -1 else nxt
                payload = text[p:stop].rstrip()
                end = p + len(payload)
                truncated = not payload
            self.check_call_count(len(out), ctx, text, start)
            out.append(self._make(text, start, end, truncated, payload=payload))
            pos = max(end, p + 1)
        return out
