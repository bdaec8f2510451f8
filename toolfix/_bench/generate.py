"""Generate the broken-tool-call corpus from BFCL ground truth.

Every BFCL positive entry gives :data:`VARIANTS_PER_CASE` cases: its
ground-truth calls rendered in a source format (OpenAI ``tool_calls``, bare /
fenced / prose JSON, hermes, mistral, llama, pythonic, Qwen3-Coder XML,
DeepSeek, Kimi, GLM, harmony) and corrupted by one or two mutations from
:data:`~toolfix._bench.mutate.CATALOGUE`, the least used applicable ones
first so the tags stay balanced. Every irrelevance entry gives negatives:
templated plain answers (some with braces and JSON-like text that is not a
call), calls to hallucinated tools (``expected_error``), and plain answers
after a ``<think>`` block. A few positives also give intent-only cases and
"the call only appears in the reasoning" negatives.

Calls in reasoning: toolfix's default policy ignores a call that appears only
in the reasoning. ``in_reasoning`` positives therefore carry the call in the
content too, with a draft of it in a ``<think>`` block or in
``reasoning_content`` (the fixer must return it once, not twice);
``in_reasoning`` + ``no_call`` negatives carry the call only in the reasoning.

A fixed seed gives byte-identical output.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bfcl import BFCL_SETS, BfclCase, LoadReport, load_bfcl
from .corpus import dump_line
from .mutate import CATALOGUE, Draft, Mutation, compatible, edit_distance, norm_name
from .render import FORMATS, EmitCall, ends_unclosed, render

__all__ = ["GenerateResult", "generate", "write_corpus"]

VARIANTS_PER_CASE = 2
_GROUP_ORDER = ("value", "name", "shape", "text", "placement")
_NATIVE = ("openai",)

_PLAIN_ANSWERS: tuple[str, ...] = (
    "I'm sorry, but none of the tools I have can help with that. {tool} is for something else.",
    "I can't answer that with the available functions. You could work it out by hand, though.",
    "That question is outside what my tools cover. Here is an example of the data format I "
    'usually return:\n```json\n{{"status": "ok", "items": []}}\n```\nbut it does not apply here.',
    "I could call {tool}, but it needs {param}, which has nothing to do with your question.",
    "No tool call is needed. In a template you would write {{name}} and {{date}} as placeholders.",
    "Good question! The answer depends on details I don't have. A typical result looks like "
    '{{"value": 42, "unit": "cm"}}.',
    "None of the functions fit. In Python you might write `result = compute(x=1)` yourself.",
    "I don't have a suitable tool. A YAML flow mapping looks like {{key: value}}.",
    "Unfortunately {tool} cannot do that; it only handles a different task.",
    "Let me explain instead: the numbers are [1, 2, 3] and their sum is 6.",
    "I'm not able to look that up. If you can share more details, I'll try again.",
    "This is not something I can compute with {tool}. The general rule is f(x) = 2 * x + 1.",
)
_THOUGHTS: tuple[str, ...] = (
    "The user asks something my tools do not cover. I should answer directly.",
    "Let me check the tools: {tool} does not match the request. I'll reply in text.",
)


@dataclass
class GenerateResult:
    """The generated lines plus counts for the report."""

    lines: list[dict[str, Any]]
    load_report: LoadReport
    stats: Counter[str] = field(default_factory=Counter)


def _source(base: BfclCase) -> str:
    prefix = base.set_name + "_"
    index = base.id[len(prefix) :] if base.id.startswith(prefix) else base.id
    return f"generated from BFCL v4 {base.set_name} #{index}"


def _expected(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {
        "tool_calls": [{"name": n, "arguments": a} for n, a in calls],
        "content": None,
    }


def _call_json(name: str, args: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


class _Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)  # noqa: S311 - reproducible test data, not crypto
        self.format_use: Counter[str] = Counter()
        self.mutation_use: Counter[str] = Counter()
        self.stats: Counter[str] = Counter()

    # ---- choices ----------------------------------------------------------------

    def _least_used(self, options: list[str], use: Counter[str]) -> str:
        low = min(use[o] for o in options)
        pick = self.rng.choice([o for o in options if use[o] == low])
        use[pick] += 1
        return pick

    def _formats_for(self, base: BfclCase) -> list[str]:
        out = list(FORMATS)
        identifiers = all(
            n.isidentifier() and all(k.isidentifier() for k in a) for n, a in base.calls
        )
        if not identifiers:
            out.remove("pythonic")
        return out

    def _pick_mutations(self, draft: Draft) -> list[Mutation]:
        applicable = [m for m in CATALOGUE if m.can_apply(draft)]
        minimum = 1 if draft.fmt in _NATIVE else 0
        count = 1 if self.rng.random() < 0.8 else 0
        count = max(count, minimum)
        if count and self.rng.random() < 0.3:
            count = 2
        chosen: list[Mutation] = []
        for _ in range(count):
            options = [m for m in applicable if m not in chosen and compatible(chosen, m)]
            if not options:
                break
            name = self._least_used([m.name for m in options], self.mutation_use)
            chosen.append(next(m for m in options if m.name == name))
        return sorted(chosen, key=lambda m: _GROUP_ORDER.index(m.group))

    # ---- positives --------------------------------------------------------------

    def positive(self, base: BfclCase, variant: int) -> dict[str, Any]:
        fmt = self._least_used(self._formats_for(base), self.format_use)
        args_key = "parameters" if fmt == "llama" else "arguments"
        draft = Draft(
            fmt=fmt,
            calls=[EmitCall(n, copy.deepcopy(a), args_key=args_key) for n, a in base.calls],
            expected=[(n, copy.deepcopy(a)) for n, a in base.calls],
            schemas=base.schemas,
        )
        source_format, placement = FORMATS[fmt]
        for tag in placement:
            draft.add_tag(tag)
        for m in self._pick_mutations(draft):
            m.apply(draft, self.rng)
            draft.mutations.append(m.name)
            draft.add_tag(m.tag)
        if len(base.calls) > 1:
            draft.add_tag("parallel")
        response = render(
            fmt,
            draft.calls,
            draft.style,
            variant=self.rng.randrange(60),
            concatenated=draft.concatenated,
        )
        if ends_unclosed(fmt, draft.calls, draft.style, response) and draft.expected:
            # the missing brace is the output's last character: the call never closed,
            # so it reads as cut off and is reported invalid, never run (issue 11)
            name, _ = draft.expected.pop()
            if not draft.expected:
                draft.expected_error = (
                    f"the output ends inside the call to {name} (its closing brace was never "
                    "written): a call cut off before its closer is reported invalid"
                )
        draft.settle_misnamed()
        if draft.reasoning_mode is not None:
            name, args = base.calls[0]
            thought = (
                f"The user wants: {base.question[:160]}\n"
                f"I should call {name}. Draft: {_call_json(name, args)}"
            )
            if draft.reasoning_mode == 0:
                response["content"] = f"<think>\n{thought}\n</think>\n\n{response['content']}"
            else:
                response["reasoning_content"] = thought
        mut = "+".join(draft.mutations) or "clean"
        line: dict[str, Any] = {
            "id": f"bfcl-{base.id}-{variant}-{fmt}-{mut}",
            "tools": base.tools,
            "response": response,
        }
        if draft.expected_error is not None:
            line["expected_error"] = {"reason": draft.expected_error}
        else:
            line["expected"] = _expected(draft.expected)
        line["tags"] = draft.tags
        line["format"] = source_format
        line["source"] = _source(base)
        self.stats["positive" if draft.expected_error is None else "expected_error"] += 1
        return line

    def intent_only(self, base: BfclCase) -> dict[str, Any]:
        name, args = base.calls[0]
        described = ", ".join(
            f"{k} set to {json.dumps(v, ensure_ascii=False)}" for k, v in args.items()
        )
        text = f"Let me use {name} for this" + (f", with {described}." if described else ".")
        self.stats["intent_only"] += 1
        return {
            "id": f"bfcl-{base.id}-intent",
            "tools": base.tools,
            "response": {"content": text, "tool_calls": [], "reasoning_content": None},
            "expected": _expected([base.calls[0]]),
            "tags": ["intent_only"],
            "format": "text",
            "source": _source(base),
        }

    def reasoning_only(self, base: BfclCase) -> dict[str, Any]:
        name, args = base.calls[0]
        thought = (
            f"Maybe I should call {name}: {_call_json(name, args)}. But the request is ambiguous."
        )
        answer = "Before I run anything, could you confirm the details of your request?"
        response: dict[str, Any]
        if self.rng.random() < 0.5:
            response = {
                "content": f"<think>\n{thought}\n</think>\n\n{answer}",
                "tool_calls": [],
                "reasoning_content": None,
            }
        else:
            response = {"content": answer, "tool_calls": [], "reasoning_content": thought}
        self.stats["negative"] += 1
        return {
            "id": f"bfcl-{base.id}-reasoning-only",
            "tools": base.tools,
            "response": response,
            "expected": _expected([]),
            "tags": ["in_reasoning", "no_call"],
            "format": "text",
            "source": _source(base),
            "notes": "the call appears only in the reasoning: the default policy ignores it",
        }

    # ---- negatives --------------------------------------------------------------

    def plain(self, base: BfclCase, variant: int, *, think: bool) -> dict[str, Any]:
        tool = base.tools[0]["function"]
        params = list(tool["parameters"].get("properties", {})) or ["inputs"]
        template = _PLAIN_ANSWERS[self.rng.randrange(len(_PLAIN_ANSWERS))]
        text = template.format(tool=tool["name"], param=params[0])
        tags = ["no_call"]
        if think:
            thought = _THOUGHTS[self.rng.randrange(len(_THOUGHTS))].format(tool=tool["name"])
            text = f"<think>\n{thought}\n</think>\n\n{text}"
        self.stats["negative"] += 1
        return {
            "id": f"bfcl-{base.id}-{variant}-plain",
            "tools": base.tools,
            "response": {"content": text, "tool_calls": [], "reasoning_content": None},
            "expected": _expected([]),
            "tags": tags,
            "format": "text",
            "source": _source(base),
        }

    def hallucinated(
        self, base: BfclCase, variant: int, pool: list[tuple[str, dict[str, Any]]]
    ) -> dict[str, Any] | None:
        local = [norm_name(n) for n in base.schemas]
        for _ in range(20):
            name, args = pool[self.rng.randrange(len(pool))]
            norm = norm_name(name)
            if all(edit_distance(norm, o) > max(3, len(o) // 2) for o in local):
                break
        else:
            return None
        fmts = ["openai", "json_bare", "json_fence", "hermes", "qwen_xml", "mistral", "kimi"]
        if name.isidentifier() and all(k.isidentifier() for k in args):
            fmts.append("pythonic")
        fmt = self._least_used(fmts, self.format_use)
        args_key = "parameters" if fmt == "llama" else "arguments"
        response = render(
            fmt,
            [EmitCall(name, copy.deepcopy(args), args_key=args_key)],
            variant=self.rng.randrange(60),
        )
        source_format, placement = FORMATS[fmt]
        self.stats["expected_error"] += 1
        return {
            "id": f"bfcl-{base.id}-{variant}-hallucinated-{fmt}",
            "tools": base.tools,
            "response": response,
            "expected_error": {
                "reason": f"{name} is not one of the available tools "
                f"({', '.join(base.schemas)}) and is not close to any of them"
            },
            "tags": [*placement, "unknown_name"],
            "format": source_format,
            "source": _source(base),
        }


def generate(
    seed: int = 0,
    max_cases: int | None = None,
    data_dir: Path | None = None,
    sets: tuple[str, ...] = BFCL_SETS,
) -> GenerateResult:
    """Generate the corpus lines (dicts in the corpus line format), reproducibly."""
    bases, report = load_bfcl(sets, data_dir=data_dir)
    gen = _Generator(seed)
    pool = [c for b in bases for c in b.calls]
    lines: list[dict[str, Any]] = []
    positives = [b for b in bases if b.calls]
    for i, base in enumerate(bases):
        if base.calls:
            for v in range(VARIANTS_PER_CASE):
                lines.append(gen.positive(base, v))
            if i % 20 == 7 and len(base.calls) == 1:
                lines.append(gen.intent_only(base))
            if i % 20 == 13:
                lines.append(gen.reasoning_only(base))
        else:
            lines.append(gen.plain(base, 0, think=False))
            second = gen.hallucinated(base, 1, pool) if i % 2 == 0 else None
            lines.append(second or gen.plain(base, 1, think=True))
    gen.stats["bases"] = len(bases)
    gen.stats["positive_bases"] = len(positives)
    if max_cases is not None and max_cases < len(lines):
        sampler = random.Random(seed + 1)  # noqa: S311 - reproducible sample, not crypto
        keep = sorted(sampler.sample(range(len(lines)), max_cases))
        lines = [lines[k] for k in keep]
    return GenerateResult(lines=lines, load_report=report, stats=gen.stats)


def write_corpus(result: GenerateResult, out: Path) -> None:
    """Write the lines as JSON Lines (UTF-8, ``\\n`` line ends)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as fh:
        for line in result.lines:
            fh.write(dump_line(line) + "\n")
