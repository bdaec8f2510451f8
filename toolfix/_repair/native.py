"""Broken native ``tool_calls``: what a serving stack's parser handed over, repaired.

A call the engine returned as structured ``tool_calls`` but broken comes here (a valid
one never does: the manual fixer passes it through). Besides JSON repair, key aliases
and schema coercion (the finisher's work, as for calls found in text), five engine
failures are undone here, each from a public report:

- the model's markup leaked into the call's name (``read<arg_key>path...``): the
  parser split the call in the wrong place;
- the markup is the arguments string (vLLM #51804: with a named ``tool_choice`` the
  server put the generated ``<tool_call><function=...>`` XML verbatim into
  ``arguments``), down to the bare ``<parameter=key>value</parameter>`` elements once
  the server had taken the call's name from its ``<function=...>`` tag (opencode
  #1585, qwen-code #783: Qwen3-Coder behind LM Studio): they are read under the name
  the engine gave;
- a key/value call swallowed by its first value (llama.cpp #26608: ``{"file":
  "app.log</arg_value><arg_key>pattern</arg_key><arg_value>error..."}``);
- an object that broke off after a value and started over (opencode #17315): the
  complete second object is read;
- several argument objects glued in one string (litellm #40582:
  ``{"a": 1}{"a": 2}``): one call each, none dropped; the same object repeated is
  one call (hermes-agent #6841: a client accumulated the deltas twice).

Markup is read by the same scanner as text (:class:`~toolfix._repair.textscan.TextScanner`)
and taken only when it gives exactly one valid call of the same tool.
"""

from __future__ import annotations

import json
from typing import Any

from .._errors import ToolfixError
from .._messages import (
    CallPart,
    FailureKind,
    InvalidToolCallPart,
    RepairRecord,
    ToolCallPart,
    canonical_json,
    copied_with,
)
from .._tools import ToolRegistry
from .finish import CallShape, CallSite
from .formats import Candidate
from .gate import admits_as_sent, duplicate_keys
from .interpret import Interpreter
from .jsonparse import parse_lenient, raw_decode
from .textscan import TextScanner

__all__ = ["NativeCallFixer"]

K = FailureKind

#: Key/value markup an engine may leave inside a value it failed to split (GLM, Ling).
_KV_LEAK = ("</arg_value>", "<arg_key>")
_MARKUP_START = "<[{("


class NativeCallFixer:
    """Repairs the native calls of one response (one registry and configuration)."""

    def __init__(self, text: TextScanner, interp: Interpreter, registry: ToolRegistry):
        self._text = text
        self._interp = interp
        self._registry = registry
        self._cap = interp.config.limits.max_pattern_input_chars

    def fix(self, part: ToolCallPart, seed: str, *, cut: bool = False) -> list[CallPart]:
        """The call parts for ``part``: ``[part]`` itself when the gate admits it as it
        came, else its repair (several calls when its arguments were several objects
        glued). ``cut``: the output ended inside this call (``finish_reason: "length"``
        and the last call): arguments that do not close are a cut-off call."""
        if part.provider_executed:
            return [part]
        if not self._registry:  # promise 4: no tool is in an empty registry
            return [
                InvalidToolCallPart(
                    id=part.id,
                    name=part.name,
                    raw=part.arguments_raw,
                    error=f"no tools were offered; the call names {part.name!r}",
                    kind=K.UNKNOWN_NAME,
                    provider_data=part.provider_data,
                )
            ]
        tool = self._registry.get(part.name)
        if tool is not None and admits_as_sent(tool, part, self._cap):
            return [part]  # fast path: valid calls pass through exactly as they came
        if cut and tool is not None and part.arguments is None:
            return [self._finish(part, seed, cut=True)]
        raw = part.arguments_raw
        if tool is None and any(c in part.name for c in _MARKUP_START) and len(part.name) < 10_000:
            found = self._markup(part, part.name + raw, seed, "the call's name")
            if found is not None:
                return [found]
        if tool is not None and part.arguments is None and "<" in raw:
            found = self._markup(part, raw, seed, "the arguments string", same_tool=True)
            if found is not None:
                return [found]
        if tool is not None and part.arguments is not None and _kv_leak(part.arguments):
            found = self._markup(
                part, _as_kv_markup(part.name, part.arguments), seed, "an argument value"
            )
            if found is not None:
                return [found]
        if part.name and part.arguments is None:
            glued = _glued_objects(raw, self._interp)
            if glued is not None:
                return self._one_call_each(part, glued, seed)
            restarted = _restarted_object(raw)
            if restarted is not None:
                record = RepairRecord(
                    kind=K.INVALID_JSON,
                    detail="the arguments restarted before the object closed: read the "
                    "complete object written after",
                )
                return self._calls(part, [restarted], seed, record)
        return [self._finish(part, seed)]

    def _finish(self, part: ToolCallPart, seed: str, *, cut: bool = False) -> CallPart:
        interp, raw = self._interp, part.arguments_raw
        shape: CallShape | None
        if not part.name:
            # Some servers put the whole call object in the arguments string.
            try:
                shape = interp.shape(parse_lenient(raw, interp.config.limits).value)
            except ToolfixError:
                shape = None
            if shape is None:
                return InvalidToolCallPart(
                    id=part.id,
                    name=None,
                    raw=raw,
                    error="tool call without a name",
                    kind=K.UNKNOWN_NAME,
                    provider_data=part.provider_data,
                )
            shape.repairs.insert(
                0,
                RepairRecord(
                    kind=K.WRAPPER, detail="read the call object from the arguments string"
                ),
            )
            result = interp.finish(shape, None, CallSite(seed))
        elif part.arguments is not None:
            shape = CallShape(part.name, part.arguments, part.id, [], has_args_key=True)
            shape.duplicates = duplicate_keys(part.arguments_raw, part.arguments)
            result = interp.finish(shape, None, CallSite(seed), native=part)
        else:
            # The raw string *is* the arguments: parse it (not a double-encoding repair).
            shape = CallShape(part.name, raw, part.id, [], has_args_key=True)
            cand = Candidate(
                start=0,
                end=0,
                format="openai",
                raw=raw,
                name=part.name,
                arguments=raw,
                open_ended=True,
                truncated=cut,
            )
            result = interp.finish(shape, cand, CallSite(seed))
        return _as_native(result, part, part.id)

    def _markup(
        self, part: ToolCallPart, text: str, seed: str, where: str, *, same_tool: bool = False
    ) -> ToolCallPart | None:
        """The one valid call that ``text``, read as tool-call markup, holds (bare, or
        inside a ``<tool_call>`` wrapper), or ``None``. ``same_tool``: it must call
        ``part``'s tool (the engine knew the name)."""
        wrappings = [text, f"<tool_call>{text}</tool_call>"]
        if same_tool and _bare_parameters(text):
            wrappings.append(f"<tool_call><function={part.name}>{text}</function></tool_call>")
        for wrapped in wrappings:
            calls, _ = self._text.scan(wrapped, self._interp, f"{seed}:markup")
            if len(calls) != 1 or not isinstance(calls[0], ToolCallPart):
                continue
            found = calls[0]
            if same_tool and found.name != part.name:
                return None
            record = RepairRecord(
                kind=K.NATIVE_MARKUP, detail=f"read tool-call markup that leaked into {where}"
            )
            return copied_with(
                found,
                {
                    "id": part.id,
                    "provider_data": part.provider_data,
                    "repairs": (record, *found.repairs),
                },
            )
        return None

    def _one_call_each(self, part: ToolCallPart, objects: list[Any], seed: str) -> list[CallPart]:
        """A call per distinct argument object glued into one arguments string (ids
        ``call_0``, ``call_0_1``...). The same object written again is one call: a client
        that accumulated a streamed call's deltas twice (hermes-agent #6841)."""
        distinct = list({canonical_json(o): o for o in objects}.values())
        if len(distinct) < len(objects):
            detail = f"read arguments written {len(objects)} times over as one call each"
            if len(distinct) == 1:
                detail = f"read arguments written {len(objects)} times over once"
        else:
            detail = "split argument objects glued in one string, a call each"
        return self._calls(part, distinct, seed, RepairRecord(kind=K.CONCATENATED, detail=detail))

    def _calls(
        self, part: ToolCallPart, objects: list[Any], seed: str, record: RepairRecord
    ) -> list[CallPart]:
        """A call of ``part``'s tool per arguments object, each with ``record``; the
        first keeps the engine's id, the others get it with their index."""
        out: list[CallPart] = []
        for i, obj in enumerate(objects):
            shape = CallShape(part.name, obj, None, [record], has_args_key=True)
            result = self._interp.finish(shape, None, CallSite(seed, index=i))
            out.append(_as_native(result, part, part.id if i == 0 else f"{part.id}_{i}"))
        return out


def _as_native(result: CallPart, part: ToolCallPart, call_id: str) -> CallPart:
    """``result`` with the native call's id and provider data (an invalid one, with its
    raw arguments text when the finisher had none)."""
    if isinstance(result, ToolCallPart):
        return copied_with(result, {"id": call_id, "provider_data": part.provider_data})
    return copied_with(
        result,
        {
            "id": call_id,
            "raw": part.arguments_raw or result.raw,
            "provider_data": part.provider_data,
        },
    )


#: The argument element of the Qwen3-Coder grammar (``<parameter=key>value</parameter>``).
_PARAMETER_ELEMENT = "<parameter="


def _bare_parameters(raw: str) -> bool:
    """``raw`` is a run of Qwen3-Coder argument elements with no call around them: it
    opens with one (after blanks) and holds no ``<function=`` of its own."""
    return raw.lstrip().startswith(_PARAMETER_ELEMENT) and "<function=" not in raw


def _kv_leak(arguments: dict[str, Any]) -> bool:
    return any(isinstance(v, str) and all(t in v for t in _KV_LEAK) for v in arguments.values())


def _as_kv_markup(name: str, arguments: dict[str, Any]) -> str:
    """The key/value markup the engine read ``arguments`` from, written back: the
    leaked tags inside a value close it and open the keys it swallowed."""
    pairs = "".join(
        f"<arg_key>{k}</arg_key><arg_value>{v if isinstance(v, str) else canonical_json(v)}"
        "</arg_value>"
        for k, v in arguments.items()
    )
    return f"<tool_call>{name}{pairs}</tool_call>"


def _restarted_object(raw: str) -> dict[str, Any] | None:
    """The complete object that ends ``raw`` when an earlier one broke off right after a
    value, with neither a comma nor its ``}`` (opencode #17315: GLM-5 wrote
    ``{"command":"pwd"{"command": "pwd"}``): it is the model's second try."""
    pos = raw.find("{", 1)
    for _ in range(_RESTART_TRIES):
        if pos == -1:
            return None
        before = raw[:pos].rstrip()
        if before.endswith(('"', "}", "]", "e", "l")) or before[-1:].isdigit():
            try:
                value = json.loads(raw[pos:])
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict):
                return value
        pos = raw.find("{", pos + 1)
    return None


#: Openers :func:`_restarted_object` tries (each try may read the rest of the text).
_RESTART_TRIES = 8


def _glued_objects(raw: str, interp: Interpreter) -> list[Any] | None:
    """The JSON objects written one after the other in ``raw`` (two or more, all
    objects, nothing else between or after them), else ``None``.

    Each object must be valid JSON as written (one C-speed decode each): a repaired one
    is not a glued sequence, and the broken string goes on to the lenient parse."""
    limits = interp.config.limits
    if len(raw) > limits.max_span_chars and len(raw.strip()) > limits.max_span_chars:
        return None  # over the limit: the lenient parse reports it
    out: list[Any] = []
    pos, n = 0, len(raw)
    while True:
        while pos < n and raw[pos].isspace():
            pos += 1
        if pos >= n:
            break
        if raw[pos] != "{" or len(out) > limits.max_calls:
            return None
        try:
            value, pos = raw_decode(raw, pos)
        except (ValueError, RecursionError):
            return None
        out.append(value)
    return out if len(out) > 1 else None
