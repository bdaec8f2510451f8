"""GLM 4.5 / 4.6 / 4.7 ``<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>``.

Chat template of ``zai-org/GLM-4.5`` / ``GLM-4.6`` and vLLM
``vllm/tool_parsers/glm4_moe_tool_parser.py`` (GLM 4.7:
``glm47_moe_tool_parser.py``)::

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>

GLM 4.5 puts newlines between the parts, GLM 4.6/4.7 may put none
(``<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>``),
and llama.cpp users report spaces instead. Values are untyped text (the
template writes strings raw and other values as JSON), so candidates carry
``string_values=True`` and the interpreter types them by the schema. Keys are
stripped, values are kept verbatim.

A ``<tool_call>`` whose body has no ``<arg_key>`` is left to the Hermes format,
except a bare registry tool name closed by ``</tool_call>`` (a call without
arguments).

Tags mentioned in prose yield nothing (a call needs a name followed by
``<arg_key>``); a complete call quoted inside a code block is still taken.
"""

from __future__ import annotations

from .._scan import skip_ws
from ._base import Candidate, ScanContext, ToolCallFormat

__all__ = ["GlmFormat"]

_OPEN = "<tool_call>"
_CLOSE = "</tool_call>"
_KEY = "<arg_key>"
_KEY_END = "</arg_key>"
_VAL = "<arg_value>"
_VAL_END = "</arg_value>"
_MAX_NAME = 256
_NAME_STOP = frozenset("<\n{}[]\"'")


def _kinds(truncated: bool) -> tuple[str, ...]:
    base = ("call_in_content", "native_markup")
    return (*base, "truncated") if truncated else base


def _value_end(text: str, vs: int) -> int:
    """Where the value starting at ``vs`` ends (its ``</arg_value>``), or -1.

    Read by structure: ``<arg_value>``/``</arg_value>`` written inside the value pair up
    (a quoted call), and the value ends at a closer of its own that is followed by the
    next ``<arg_key>``, ``</tool_call>`` or the end of the text, where the template
    writes it. Failing that, the first closer of its own, else the first closer.
    """
    n = len(text)
    first = text.find(_VAL_END, vs)
    own = -1
    depth = 0
    p = vs
    for _ in range(_MAX_TAGS):
        c = text.find(_VAL_END, p)
        if c == -1:
            break
        o = text.find(_VAL, p, c)
        if o != -1:
            depth += 1
            p = o + len(_VAL)
            continue
        p = c + len(_VAL_END)
        if depth > 0:
            depth -= 1
            continue
        if own == -1:
            own = c
        k = skip_ws(text, p)
        if k >= n or text.startswith((_KEY, _CLOSE), k):
            return c
    return own if own != -1 else first


#: Tags read inside one value before the simple reading wins (keeps the scan linear).
_MAX_TAGS = 64


class GlmFormat(ToolCallFormat):
    """GLM-4.5+ ``<arg_key>``/``<arg_value>`` tool calls (runs before Hermes)."""

    name = "glm"
    markers = ("<arg_key>", "<tool_call>")
    priority = 5
    source = (
        "https://huggingface.co/zai-org/GLM-4.5/blob/main/chat_template.jinja; "
        "vllm-project/vllm vllm/tool_parsers/glm4_moe_tool_parser.py"
    )

    def extract(self, text: str, ctx: ScanContext) -> list[Candidate]:
        out: list[Candidate] = []
        pos = 0
        while True:
            start = text.find(_OPEN, pos)
            if start == -1:
                break
            cand = self._one(text, start, ctx)
            if cand is None:
                pos = start + len(_OPEN)
                continue
            self.check_call_count(len(out), ctx, text, start)
            out.append(cand)
            pos = cand.end
        return out

    def _one(self, text: str, start: int, ctx: ScanContext) -> Candidate | None:
        n = len(text)
        i = start + len(_OPEN)
        # ---- the name: up to a newline, a tag or a bracket (short)
        j = skip_ws(text, i)
        k = j
        while k < n and k - j <= _MAX_NAME and text[k] not in _NAME_STOP:
            k += 1
        if k - j > _MAX_NAME:
            return None
        name = text[j:k].strip()
        if not name or " " in name:
            return None
        p = skip_ws(text, k)
        if text.startswith(_CLOSE, p):
            # bare name: only a registry tool is a call without arguments
            if not ctx.is_tool(name):
                return None
            end = p + len(_CLOSE)
            return self._cand(text, start, end, name, {}, truncated=False)
        if not text.startswith(_KEY, p):
            if p >= n and ctx.is_tool(name):  # "<tool_call>get_time" then the output ended
                return self._cand(text, start, n, name, {}, truncated=True)
            return None
        # ---- key/value pairs
        args: dict[str, str] = {}
        truncated = False
        end = n
        while True:
            if text.startswith(_KEY, p):
                ks = p + len(_KEY)
                ke = text.find(_KEY_END, ks)
                if ke == -1:
                    truncated = True
                    break
                key = text[ks:ke].strip()
                p = skip_ws(text, ke + len(_KEY_END))
                if not text.startswith(_VAL, p):
                    if p >= n:
                        truncated = True
                        break
                    args[key] = ""  # key without a value: keep it visible to validation
                    continue
                vs = p + len(_VAL)
                ve = _value_end(text, vs)
                if ve == -1:
                    # unterminated value: it runs to the call's end tag or the end of text
                    ce = text.find(_CLOSE, vs)
                    if ce == -1:
                        args[key] = text[vs:]
                        truncated = True
                        break
                    args[key] = text[vs:ce]
                    end = ce + len(_CLOSE)
                    break
                args[key] = text[vs:ve]
                p = skip_ws(text, ve + len(_VAL_END))
            elif text.startswith(_CLOSE, p):
                end = p + len(_CLOSE)
                break
            elif p >= n:
                truncated = True
                break
            else:
                # stray text inside the call: close at the next end tag if there is one
                ce = text.find(_CLOSE, p)
                if ce == -1:
                    truncated = True
                    break
                end = ce + len(_CLOSE)
                break
        return self._cand(text, start, end, name, args, truncated=truncated)

    def _cand(
        self,
        text: str,
        start: int,
        end: int,
        name: str,
        args: dict[str, str],
        *,
        truncated: bool,
    ) -> Candidate:
        return Candidate(
            start=start,
            end=end,
            format=self.name,
            raw=text[start:end],
            kinds=_kinds(truncated),
            name=name,
            arguments=args,
            string_values=True,
            truncated=truncated,
        )
