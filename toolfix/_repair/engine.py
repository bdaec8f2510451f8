"""The repair engine: ``fix(Response, ToolRegistry, FixConfig) -> Response``.

Pure: no I/O, no LLM, no event loop; it imports only the model (messages, tools,
config, errors, conversions) and the rest of :mod:`toolfix._repair`. For each part:

* a native tool call whose arguments parse and validate passes through as the
  very same object (nothing to copy, no repair machinery);
* a broken native call goes through the interpreter (parse, alias, name repair,
  coercion, validation);
* text is split from ``<think>`` reasoning, scanned by every native format whose
  markers occur, then by the generic JSON scanner; the spans that turn out to
  be calls leave the text, everything else stays exactly as it was;
* reasoning is left alone, unless ``FixConfig.reasoning_calls`` is ``"promote"``
  (calls found only in reasoning are taken) or ``"when_no_answer"`` (taken only
  when the response has no call and no visible text besides the reasoning).

:class:`~toolfix.ManualToolCallFixProcessor` (the processor) and :func:`toolfix.repair`
(the front door) and the stream all repair through this module.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterable, Sequence

from .._cache import WeightedLRU
from .._config import FixConfig
from .._convert import response_with
from .._log import log, log_repair
from .._messages import (
    CallPart,
    FailureKind,
    InvalidToolCallPart,
    Part,
    ReasoningPart,
    RepairRecord,
    Response,
    TextPart,
    ToolCallPart,
)
from .._tools import ToolRegistry
from .ending import natural_stop
from .gate import admits_as_sent
from .ids import id_basis
from .interpret import Interpreter, derive_id
from .native import NativeCallFixer
from .notools import no_tools_note
from .reasoning import THINK_TOKENS
from .textscan import TextScanner

__all__ = ["DEFAULT_CONFIG", "Fixer", "fix", "fixer_for"]

#: The configuration of a repair given none (frozen: ``repair()`` and default streams
#: share it, so one fixer and one interpreter cache serve both).
DEFAULT_CONFIG = FixConfig()

#: Memory budget (estimated bytes) of the registries one fixer keeps interpreters for.
INTERPRETER_CACHE_BUDGET = 32 * 1024 * 1024

K = FailureKind


def fix(
    response: Response,
    registry: ToolRegistry,
    config: FixConfig | None = None,
    id_seed: int | None = None,
) -> Response:
    """Repair ``response``'s tool calls against ``registry`` (the engine's one entry point).

    Returns ``response`` itself when nothing changed. ``id_seed``: see :meth:`Fixer.fix`."""
    return fixer_for(None if config is DEFAULT_CONFIG else config).fix(response, registry, id_seed)


@functools.lru_cache(maxsize=32)
def fixer_for(config: FixConfig | None) -> Fixer:
    """One fixer per configuration, kept between calls: its formats and its interpreters
    (name caches per registry, bounded by memory) are built once. ``None`` stands for
    :data:`DEFAULT_CONFIG`, which :func:`fix` maps to it: ``repair()`` and streams given no
    configuration share that fixer, found without hashing a configuration (0.7 µs, a
    tenth of an already-valid call's repair)."""
    return Fixer(DEFAULT_CONFIG if config is None else config)


class Fixer:
    """The engine's state for one configuration: the text scanner (its formats) and an
    interpreter per registry (their name caches)."""

    def __init__(self, config: FixConfig | None = None) -> None:
        self.config = config or FixConfig()
        self._text = TextScanner(self.config)
        # read on every response's fast path (:meth:`_all_valid`): looked up once
        self._keep_reasoning = self.config.reasoning_calls == "ignore"  # else it is scanned
        self._cap = self.config.limits.max_pattern_input_chars
        # Interpreters per registry (their name caches), bounded by the registries' memory.
        self._interpreters: WeightedLRU[int, tuple[ToolRegistry, Interpreter]] = WeightedLRU(
            INTERPRETER_CACHE_BUDGET
        )
        # the last registry's interpreter, asked before the LRU (it holds that one
        # registry even once the LRU has let it go: one registry's weight at most)
        self._last: tuple[ToolRegistry, Interpreter] | None = None

    def fix(
        self, response: Response, registry: ToolRegistry, id_seed: int | None = None
    ) -> Response:
        """Repair one response (sync, no I/O). Returns ``response`` itself when nothing changed.

        ``id_seed``: the ids' seed in place of the configuration's (a stream's own seed:
        streams share their configuration's fixer instead of building one each)."""
        given = response.parts
        # (a text part first: there is text to scan; the test is spared)
        if (not given or given[0].type != "text") and self._all_valid(response, registry):
            return response  # the fast path: nothing to scan, every call valid
        prefilled = self.config.reasoning_prefilled
        if prefilled and _split_out(given):
            # the server split reasoning out and the text has no closer: it is the
            # answer, not more reasoning (e.g. a hosted API the model table named)
            prefilled = None
        interp = self._interpreter(registry)
        seed = id_basis(response.id, self.config.id_seed if id_seed is None else id_seed)
        new_parts: list[Part] = []
        extra_repairs: list[RepairRecord] = []
        changed = False
        # (the parts' ``type`` tags, not isinstance: a failed isinstance on a pydantic
        # model goes through ABCMeta, and this runs on every part of every response)
        existing = {(p.raw, p.error) for p in given if p.type == "invalid_tool_call"}
        native: NativeCallFixer | None = None
        has_tools = bool(registry)
        # cut off by the token limit: the last native call may be unfinished
        cut_at = _last_call(given) if response.finish_reason == "length" else -1
        # ended by the model itself: a call whose closers are all that is missing at the
        # end of the output is closed there (docs/design.md#promise-9, ending.py)
        ended = natural_stop(response.finish_reason)
        last_text = _last_text(given) if ended is not None else -1
        # a part's id basis counts the parts before it but not reasoning (its calls have
        # their own): a stream derives ids before the server's reasoning may arrive
        thoughts = 0
        for idx, part in enumerate(given):
            basis = f"{seed}:{idx - thoughts}"
            if part.type == "tool_call":
                native = native or NativeCallFixer(self._text, interp, registry)
                fixed = native.fix(part, basis, cut=idx == cut_at)
                changed |= len(fixed) != 1 or fixed[0] is not part
                new_parts.extend(fixed)
            elif part.type == "text" and has_tools:
                end = ended if idx == last_text else None
                parts, recs = self._read_text(part, interp, basis, existing, prefilled, end)
                parts = _without_echoes(parts, given, extra_repairs)
                changed |= len(parts) != 1 or parts[0] is not part
                new_parts.extend(parts)
                if recs:
                    extra_repairs.extend(r for r in recs if r not in response.repairs)
            else:
                new_parts.append(part)
                thoughts += part.type == "reasoning"
                if part.type == "text" and not has_tools:  # never silent (notools.py)
                    note = no_tools_note(self._text, interp, part.text, basis)
                    if note is not None and note not in response.repairs:
                        extra_repairs.append(note)
        policy = self.config.reasoning_calls
        if has_tools and (
            policy == "promote" or (policy == "when_no_answer" and _no_answer(new_parts))
        ):
            promoted = self._promote_from_reasoning(
                [p for p in new_parts if isinstance(p, ReasoningPart)],
                interp,
                seed,
                [p for p in new_parts if isinstance(p, ToolCallPart)],
            )
            if promoted:
                changed = True
                new_parts.extend(promoted)
        if not changed and not extra_repairs:
            return response
        out = response_with(
            response, tuple(self._cap_calls(new_parts, seed)), (*response.repairs, *extra_repairs)
        )
        if log.isEnabledFor(logging.DEBUG):
            log_repair(response, out)
        return out

    def _read_text(
        self,
        part: TextPart,
        interp: Interpreter,
        basis: str,
        existing: set[tuple[str, str]],
        prefilled: bool | None,
        ended: str | None,
    ) -> tuple[list[Part], list[RepairRecord]]:
        """The parts a text part becomes (itself when unchanged), and its records;
        ``ended``: the natural finish reason when this text ends the output."""
        parts, recs = self._text.read_text(part, interp, basis, prefilled, ended)
        # A call reported on an earlier pass (same text and error) is not reported twice:
        # repairing a repaired response changes nothing (promise 7).
        if existing:
            parts = [
                p
                for p in parts
                if not (isinstance(p, InvalidToolCallPart) and (p.raw, p.error) in existing)
            ]
        # an equal text part is the same part (the tag first: a model's == on a model of
        # another class is slow)
        if len(parts) == 1 and parts[0] is not part and parts[0].type == "text":
            return ([part] if parts[0] == part else parts), recs
        return parts, recs

    def _all_valid(self, response: Response, registry: ToolRegistry) -> bool:
        """True when the response holds only valid native calls (and reasoning we keep)."""
        lookup = registry.lookup
        keep_reasoning = self._keep_reasoning
        cap = self._cap
        for part in response.parts:
            if part.type == "tool_call":
                if part.provider_executed:
                    continue
                tool = lookup(part.name)
                if tool is None or not admits_as_sent(tool, part, cap):  # the gate's rule
                    return False
            elif not (
                part.type == "invalid_tool_call" or (keep_reasoning and part.type == "reasoning")
            ):
                return False
        return True

    def _interpreter(self, registry: ToolRegistry) -> Interpreter:
        last = self._last
        if last is not None and last[0] is registry:
            return last[1]  # (an agent loop repairs with the same tools every step)
        key = id(registry)
        cached = self._interpreters.get(key)
        if cached is None or cached[0] is not registry:
            cached = (registry, Interpreter(registry, self.config))
            self._interpreters.put(key, cached, registry.weight)
        self._last = cached  # one reference assignment: safe across threads
        return cached[1]

    def _promote_from_reasoning(
        self,
        parts: Iterable[ReasoningPart],
        interp: Interpreter,
        seed: str,
        existing: list[ToolCallPart],
    ) -> list[CallPart]:
        seen = {(c.name, c.arguments_raw) for c in existing}
        out: list[CallPart] = []
        for i, rp in enumerate(parts):
            calls, _ = self._text.scan(rp.text, interp, f"{seed}:reasoning:{i}", last_only=True)
            for c in calls:
                if not isinstance(c, ToolCallPart):
                    continue
                if (c.name, c.arguments_raw) in seen:
                    continue  # the same call also appears outside reasoning: run it once
                seen.add((c.name, c.arguments_raw))
                out.append(
                    c.model_copy(
                        update={
                            "repairs": (
                                RepairRecord(
                                    kind=K.IN_REASONING,
                                    detail="promoted a call found only in the reasoning",
                                ),
                                *c.repairs,
                            )
                        }
                    )
                )
        return out

    def _cap_calls(self, parts: list[Part], seed: str) -> list[Part]:
        """Keep at most ``Limits.max_calls`` calls; the rest become one invalid record."""
        limit = self.config.limits.max_calls
        if len(parts) <= limit:
            return parts  # no more calls than parts
        n = 0
        out: list[Part] = []
        dropped: list[str] = []
        for p in parts:
            if isinstance(p, CallPart):
                n += 1
                if n > limit:
                    dropped.append(p.name or "?")
                    continue
            out.append(p)
        if dropped:
            out.append(
                InvalidToolCallPart(
                    id=derive_id(seed, "too-many", str(len(dropped))),
                    raw=", ".join(dropped)[:2000],
                    error=f"{len(dropped)} calls over max_calls={limit} were not taken",
                    kind=K.LIMIT_EXCEEDED,
                )
            )
        return out


def _call_key(part: ToolCallPart) -> tuple[str, str]:
    return part.name, json.dumps(part.arguments, sort_keys=True, default=str)


def _without_echoes(
    parts: list[Part], given: Sequence[Part], records: list[RepairRecord]
) -> list[Part]:
    """``parts`` (read from a text part) less the calls that repeat a native call of the
    same response, name and arguments alike: the model made the call and the server left
    its markup in the content too (SGLang, mistral.rs), so the call runs once, as the
    native one; a record says so. A call in the text that differs is kept."""
    native = {_call_key(p) for p in given if isinstance(p, ToolCallPart)}
    if not native:
        return parts
    out: list[Part] = []
    for p in parts:
        if isinstance(p, ToolCallPart) and _call_key(p) in native:
            records.append(
                RepairRecord(
                    kind=K.CALL_IN_CONTENT,
                    detail=f"the text repeats the native call {p.name}: it runs once",
                )
            )
            continue
        out.append(p)
    return out


def _no_answer(parts: list[Part]) -> bool:
    """No call and no visible text: the model's only output was its reasoning."""
    for p in parts:
        if p.type == "tool_call" or p.type == "invalid_tool_call":
            return False
        if p.type == "text" and p.text.strip():
            return False
    return True


def _last_call(parts: tuple[Part, ...]) -> int:
    """The index of the last native call among ``parts`` (-1: none)."""
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].type == "tool_call":
            return i
    return -1


def _last_text(parts: tuple[Part, ...]) -> int:
    """The index of the text part that ends the output: the last text part, when no
    native call follows it (-1: none does)."""
    for i in range(len(parts) - 1, -1, -1):
        kind = parts[i].type
        if kind == "text":
            return i
        if kind == "tool_call":
            return -1
    return -1


def _split_out(parts: Sequence[Part]) -> bool:
    """Does the response carry reasoning of its own (the server split it out) beside
    text that no reasoning closer ends? ``reasoning_prefilled=True`` would make all of
    such a text reasoning; a server that split reasoning out sent it as the answer, so
    it is read as with ``None``."""
    if not any(p.type == "reasoning" for p in parts):
        return False
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    return bool(texts) and not any(c in t for t in texts for _, c in THINK_TOKENS)
