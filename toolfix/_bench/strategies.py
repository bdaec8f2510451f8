"""The strategies the benchmark compares on the same cases.

* ``strict``: what a serving stack does without repair. Native ``tool_calls``
  parsed with ``json.loads`` and validated with jsonschema; content that is
  exactly one JSON call object (``{"name", "arguments"}``) parsed likewise.
* ``json-repair``: ``json_repair.loads`` on each native arguments string and on
  the whole content; ``name``/``arguments`` keys read as they are; validated.
* ``toolfix``: :class:`toolfix.ManualToolCallFixProcessor` (no LLM).
* ``toolfix+llm``: toolfix's LLM-based fixer, only with ``--llm MODEL``.

A strategy splits its work in :meth:`Strategy.prepare` (building registries,
converting messages; not timed) and :meth:`Strategy.run` (the repair itself;
timed by the runner).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from .corpus import CorpusCase
from .score import Outcome

__all__ = [
    "JsonRepairStrategy",
    "LLMStrategy",
    "LLMUnavailableError",
    "ManualStrategy",
    "Strategy",
    "StrictStrategy",
    "default_strategies",
]


class Strategy(ABC):
    """One way of turning a model response into tool calls."""

    name: str = "strategy"
    uses_llm: bool = False
    scores_intent_only: bool = True
    """Whether intent-only cases say anything about this strategy. A baseline that
    never looks past JSON cannot express "no call, but one was meant": its intent-only
    results are reported as n/a instead of a score it did nothing to earn."""

    @abstractmethod
    def prepare(self, case: CorpusCase) -> Any:
        """Everything that is not the repair itself (not timed)."""

    @abstractmethod
    def run(self, prepared: Any) -> Outcome:
        """The repair (timed)."""

    async def arun(self, prepared: Any) -> Outcome:
        """Async counterpart of :meth:`run` (LLM strategies override it)."""
        return self.run(prepared)


@dataclass
class _Prepared:
    response: dict[str, Any]
    validators: dict[str, Draft202012Validator]


def _validators(case: CorpusCase) -> dict[str, Draft202012Validator]:
    out: dict[str, Draft202012Validator] = {}
    for tool in case.tools:
        fn = tool.get("function", tool)
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            out[fn["name"]] = Draft202012Validator(fn.get("parameters") or {"type": "object"})
    return out


def _check(
    name: Any, args: Any, validators: Mapping[str, Draft202012Validator], outcome: Outcome
) -> None:
    """Append a valid call to ``outcome.calls`` or count it invalid."""
    if (
        isinstance(name, str)
        and isinstance(args, dict)
        and name in validators
        and validators[name].is_valid(args)
    ):
        outcome.calls.append((name, args))
    else:
        outcome.invalid += 1


class _BaselineStrategy(Strategy):
    scores_intent_only = False

    def prepare(self, case: CorpusCase) -> _Prepared:
        return _Prepared(response=case.response.as_openai(), validators=_validators(case))

    def _native(self, prepared: _Prepared, outcome: Outcome) -> None:
        for tc in prepared.response.get("tool_calls") or []:
            fn = tc.get("function") if isinstance(tc, Mapping) else None
            if not isinstance(fn, Mapping):
                outcome.invalid += 1
                continue
            raw = fn.get("arguments")
            try:
                args = self.loads(raw) if isinstance(raw, str) else raw
            except Exception:
                outcome.invalid += 1
                continue
            _check(fn.get("name"), args, prepared.validators, outcome)

    def loads(self, text: str) -> Any:
        return json.loads(text)


class StrictStrategy(_BaselineStrategy):
    """``json.loads`` + jsonschema, no repair: the serving-stack baseline."""

    name = "strict"

    def run(self, prepared: _Prepared) -> Outcome:
        outcome = Outcome()
        self._native(prepared, outcome)
        content = prepared.response.get("content")
        if isinstance(content, str) and content.strip().startswith("{"):
            try:
                obj = json.loads(content)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and "name" in obj and "arguments" in obj:
                _check(obj["name"], obj["arguments"], prepared.validators, outcome)
        return outcome


class JsonRepairStrategy(_BaselineStrategy):
    """``json_repair.loads`` on arguments and content, keys read as-is."""

    name = "json-repair"

    def __init__(self) -> None:
        import json_repair

        self._loads = json_repair.loads

    def loads(self, text: str) -> Any:
        return self._loads(text)

    def run(self, prepared: _Prepared) -> Outcome:
        outcome = Outcome()
        self._native(prepared, outcome)
        content = prepared.response.get("content")
        if isinstance(content, str) and content.strip():
            try:
                value = self._loads(content)
            except Exception:
                value = None
            items = value if isinstance(value, list) else [value]
            for obj in items:
                if isinstance(obj, dict) and "name" in obj and "arguments" in obj:
                    _check(obj["name"], obj["arguments"], prepared.validators, outcome)
        return outcome


def _outcome_from_response(resp: Any) -> Outcome:
    calls = [(c.name, dict(c.arguments or {})) for c in resp.tool_calls]
    repairs = [r.kind for r in resp.all_repairs]
    llm_calls = 0
    tokens = 0
    for r in resp.all_repairs:
        llm_calls += int(getattr(r, "llm_calls", 0) or 0)
        usage = getattr(r, "usage", None)
        if usage is not None:
            tokens += int(usage.input_tokens) + int(usage.output_tokens)
    return Outcome(
        calls=calls,
        invalid=len(resp.invalid_tool_calls),
        llm_calls=llm_calls,
        tokens=tokens,
        repairs=repairs,
    )


class ManualStrategy(Strategy):
    """toolfix's manual fixer (no LLM)."""

    name = "toolfix"

    def __init__(self) -> None:
        from toolfix import ManualToolCallFixProcessor

        self.fixer = ManualToolCallFixProcessor()

    def prepare(self, case: CorpusCase) -> tuple[Any, Any]:
        from toolfix import ToolRegistry
        from toolfix._convert import response_from_openai

        response = response_from_openai(
            case.response.as_openai(), finish_reason=case.response.finish_reason
        )
        return response, ToolRegistry.from_openai(case.tools)

    def run(self, prepared: tuple[Any, Any]) -> Outcome:
        response, registry = prepared
        return _outcome_from_response(self.fixer.fix(response, registry))


class LLMUnavailableError(RuntimeError):
    """The LLM strategy cannot run: litellm (the ``litellm`` extra) is not installed."""


class LLMStrategy(Strategy):
    """toolfix's LLM-based fixer through LiteLLM (``--llm MODEL [--api-base URL]``)."""

    name = "toolfix+llm"
    uses_llm = True

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        *,
        executor: Any = None,
        processor: Any = None,
    ) -> None:
        """``executor`` defaults to a :class:`toolfix.LiteLLMExecutor` (which needs the
        litellm extra, checked here), ``processor`` to the LLM-based fixer."""
        from toolfix import LiteLLMExecutor, LLMBasedToolCallFixProcessor
        from toolfix.errors import ConfigurationError

        if executor is None:
            from toolfix._pipeline.litellm import import_litellm

            try:
                import_litellm()
            except ConfigurationError as exc:
                raise LLMUnavailableError(
                    f'the LLM strategy needs the litellm extra: pip install "toolfix[litellm]" '
                    f"({exc})"
                ) from exc
            from toolfix._cli_options import key_for_local_server

            key = key_for_local_server(model) if api_base is not None else None
            executor = LiteLLMExecutor(api_base=api_base, api_key=key)
        self.executor = executor
        self.processor = processor if processor is not None else LLMBasedToolCallFixProcessor()
        self.model = model

    def prepare(self, case: CorpusCase) -> tuple[Any, Any]:
        return ManualStrategy.prepare(self, case)  # type: ignore[arg-type]

    def run(self, prepared: tuple[Any, Any]) -> Outcome:
        from toolfix._sync import run_sync

        return run_sync(self.arun(prepared))

    async def arun(self, prepared: tuple[Any, Any]) -> Outcome:
        from toolfix import Prompt

        response, registry = prepared
        out = await self.processor.process(
            self.executor, Prompt(), self.model, registry, [response]
        )
        return _outcome_from_response(out[0])


def default_strategies() -> list[Strategy]:
    """The offline strategies: strict, json-repair, toolfix."""
    return [StrictStrategy(), JsonRepairStrategy(), ManualStrategy()]
