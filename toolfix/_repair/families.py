"""The family registry: one entry per tool-call family, read by everything that names a
marker outside a reader.

Every family toolfix reads, declared (:mod:`toolfix._repair.specs`) or read by a
hand-written module (:mod:`toolfix._repair.formats`), is one :class:`Family`: its
openers and closers, how its argument values are written, what can overturn a call of
it after its closer has passed, its reasoning delimiters, the parser names engines give
it (vLLM/SGLang ``--tool-call-parser``) and the template or parser that defines it.
The docs' format table (:mod:`toolfix._repair.table`), the stream's release rule and
prose hold-back (:mod:`toolfix._stream.core`) and the CLI's format list
(:func:`families`) read it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Literal

from .formats import ALL_FORMATS
from .reasoning import THINK_TOKENS, first_markup, prompt_block
from .scanner import SpecScanner
from .spec import FormatSpec, JsonSection, KeyValueCalls, TaggedCalls

__all__ = [
    "PREFILLED_MODELS",
    "THINK_HINTS",
    "THINK_TOKEN_MAX",
    "Family",
    "PrefilledModel",
    "bracket_openers",
    "families",
    "family",
    "markup_example",
    "markup_start",
    "noise_markers",
    "reasoning_gate",
    "reasoning_prefilled_for",
    "release_closers",
    "text_value_markers",
]

Values = Literal["json", "text", "text or json", "pythonic", "json or text"]
"""How a family writes argument values: ``"json"`` (a JSON object), ``"text"`` (raw text
between tags, typed by the tool's schema), ``"text or json"`` (raw text, or JSON when a
tag says so), ``"json or text"`` (a JSON object, or raw text between tags),
``"pythonic"`` (Python literals)."""

#: What can overturn any call after its closer: a later lone reasoning closer (unless
#: the reasoning question is settled), markup before it that turns out to enclose it as a
#: value (an open code fence or backtick, an element named after an offered tool, an
#: open JSON string).
COMMON_OVERTURNS = (
    "a later lone reasoning closer (`</think>`...), unless one has passed or "
    "`reasoning_prefilled` says where reasoning ends",
    "an enclosing element that turns out to hold it as a value: a tag named after an "
    "offered tool (Cline/Roo), an open JSON string or bracket, a code fence or backtick",
)
#: And for families whose values are raw text between tags.
TEXT_OVERTURN = "a later orphan closer of a value (`</parameter>`...): the call was quoted in one"
#: And for families with no closer of their own.
OPEN_OVERTURN = "any text that follows (no closer of its own): it leaves at the end"


@dataclass(frozen=True, slots=True)
class Family:
    """One tool-call family, as every reader of the registry sees it."""

    name: str
    """The format name (``FixConfig.formats``, corpus ``format`` field)."""
    aliases: tuple[str, ...]
    """The tool-call parser names engines give it (vLLM/SGLang ``--tool-call-parser``)."""
    source: str
    """The chat template, encoder or engine parser that defines the markup (URLs)."""
    models: str
    markup: str
    """One call, as a Markdown code span (the docs' table)."""
    read_by: str
    """``"spec: <grammar>"`` or ``"module `<file>.py`"``."""
    openers: tuple[str, ...]
    closers: tuple[str, ...]
    """The tokens that close a call (``()``: none of its own; ``"]"``: a JSON list's)."""
    values: Values
    value_markers: tuple[str, ...] = ()
    """What starts a raw-text value (``<parameter=``): a call after one may be its text."""
    overturned_by: tuple[str, ...] = COMMON_OVERTURNS
    reasoning: tuple[tuple[str, str], ...] = ((THINK_TOKENS[0]),)
    """The reasoning delimiters its models write (or their template pre-opens)."""
    prefixes: tuple[str, ...] = ()
    """The namespace prefixes its tags carry (``｜DSML｜``, ``steptml:``)."""


_THINK = (THINK_TOKENS[0],)
_VLLM = "https://github.com/vllm-project/vllm/tree/main/vllm/tool_parsers"

#: Hand-written readers: (aliases, models, markup, closers, values, value markers,
#: reasoning). Openers are the module's markers. The reason no grammar covers a family
#: yet is in its module's docstring.
_HAND_WRITTEN: dict[
    str,
    tuple[
        tuple[str, ...],
        str,
        str,
        tuple[str, ...],
        Values,
        tuple[str, ...],
        tuple[tuple[str, str], ...],
    ],
] = {
    "json": (
        (),
        "any",
        "bare JSON, JSON in prose, ```` ```json ```` fences, JSON lists of calls",
        (),
        "json",
        (),
        _THINK,
    ),
    "hermes": (
        ("hermes", "granite4", "ernie45", "qwen25", "qwen", "qwen2_5"),
        "Qwen 2.5/3/3.5, Hermes, Granite 4, ERNIE 4.5, many fine-tunes",
        "`<tool_call>{...}</tool_call>` (close tag optional)",
        ("</tool_call>",),
        "json",
        (),
        _THINK,
    ),
    "qwen_xml": (
        ("qwen3_coder", "qwen3_xml", "qwen35_coder", "step3p5", "seed_oss"),
        "Qwen3-Coder, Qwen3.5/3.6, Step3.5, Seed-OSS, Functionary v3.1",
        "`<function=name><parameter=p>v</parameter></function>` in `<tool_call>` or "
        "`<seed:tool_call>`, `<function=name>{...}</function>`",
        ("</function>", "</tool_call>", "</seed:tool_call>"),
        "json or text",
        ("<parameter=", "<parameter "),
        (THINK_TOKENS[0], ("<seed:think>", "</seed:think>")),
    ),
    "mistral": (
        ("mistral",),
        "Mistral, Mixtral, Devstral, Magistral",
        "`[TOOL_CALLS][{...}]`, `[TOOL_CALLS]name[ARGS]{...}`, `name[ARGS]{...}`",
        ("]",),
        "json",
        (),
        (("[THINK]", "[/THINK]"),),
    ),
    "llama": (
        ("llama3_json", "llama4_json", "llama3", "llama4"),
        "Llama 3.1-3.3",
        '`<\\|python_tag\\|>{"name": ..., "parameters": {...}}`',
        (),
        "json",
        (),
        (),
    ),
    "pythonic": (
        ("pythonic", "llama4_pythonic", "granite_pythonic"),
        "Llama 3.2/4, Gemma, Granite",
        '`[f(a=1), g(b="x")]`',
        (),
        "pythonic",
        (),
        (),
    ),
    "deepseek": (
        ("deepseek_v3", "deepseek_v31", "deepseekv3", "deepseekv31"),
        "DeepSeek V3, V3.1, R1",
        "`<｜tool▁calls▁begin｜>...<｜tool▁sep｜>...`",
        ("<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"),
        "json",
        (),
        _THINK,
    ),
    "kimi": (
        ("kimi_k2",),
        "Kimi K2",
        "`<\\|tool_calls_section_begin\\|>...functions.name:0<\\|tool_call_argument_begin\\|>{...}`",
        ("<|tool_call_end|>", "<|tool_calls_section_end|>"),
        "json",
        (),
        _THINK,
    ),
    "harmony": (
        ("openai", "gpt-oss", "gpt_oss"),
        "gpt-oss",
        "`<\\|channel\\|>commentary to=functions.name ... <\\|message\\|>{...}<\\|call\\|>`",
        ("<|call|>",),
        "json",
        (),
        (("<|channel|>analysis<|message|>", "<|end|>"),),
    ),
    "gemma": (
        ("functiongemma", "gemma4"),
        "Gemma 3/4, FunctionGemma",
        "```` ```tool_code ```` blocks, `call:name{...}`",
        (),
        "pythonic",
        (),
        (),
    ),
    "granite": (
        ("granite",),
        "Granite 3.x",
        "`<\\|tool_call\\|>[{...}]`",
        ("]",),
        "json",
        (),
        (),
    ),
    "functionary": (
        ("functionary_v3",),
        "Functionary v3",
        "`>>>name\\n{...}`",
        (),
        "json",
        (),
        (),
    ),
    "xlam": (("xlam",), "xLAM", '`{"tool_calls": [{...}]}`', (), "json", (), ()),
    "react": (
        (),
        "any model prompted with ReAct or by Qwen-Agent",
        "`Action: name` + `Action Input: {...}`; `✿FUNCTION✿: name` + `✿ARGS✿: {...}`",
        (),
        "json",
        (),
        (),
    ),
    "tool_tags": (
        (),
        "any model prompted by Cline or Roo Code",
        "`<tool_name><arg>value</arg></tool_name>` (the element named after an offered tool)",
        (),
        "text",
        (),
        (),
    ),
}

#: Declared families' engine parser names.
_SPEC_ALIASES: dict[str, tuple[str, ...]] = {
    "dsml": ("deepseek_v32", "deepseek_v4", "deepseekv32"),
    "minimax": ("minimax_m2",),
    "minimax_m3": ("minimax_m3",),
    "step3": ("step3",),
    "kimi_k3": ("kimi_k3",),
    "hunyuan": ("hy_v3",),
    "hunyuan_v4": ("hy_v4",),
    "glm": ("glm45", "glm47", "glm4_moe"),
    "minicpm": ("minicpm5xml", "minicpm5"),
    "longcat": ("longcat",),
    "apertus": ("apertus",),
    "phi4_mini": ("phi4_mini_json",),
    "command_a": ("cohere_command", "cohere"),
    "nemotron": ("nemotron_json",),
    "internlm": ("internlm", "internlm2"),
    "tool_calls_tag": ("hunyuan_a13b", "jamba", "minimax_m1"),
    "lfm2": ("lfm2",),
    "olmo3": ("olmo3",),
}
#: Declared families' reasoning delimiters, when not ``<think>``.
_SPEC_REASONING: dict[str, tuple[tuple[str, str], ...]] = {
    "seed_attrs": (("<seed:think>", "</seed:think>"),),
    "command_a": (("<|START_THINKING|>", "<|END_THINKING|>"),),
}


def _tag(open_: str, prefix: str, word: str, end: str) -> str:
    return f"{open_}{prefix}{word}{end}"


def _spec_prefixes(spec: FormatSpec) -> tuple[str, ...]:
    """The namespace prefixes a declared family's tags carry, white space trimmed, and
    the token it writes before each tag's ``<`` (MiniMax M3's ``]<]minimax[>[``)."""
    found = (
        p.strip()
        for g in (spec.grammar, *spec.alternatives)
        if isinstance(g, TaggedCalls)
        for p in (*g.syntax.prefixes, g.syntax.open[:-1] if g.syntax.open.endswith("<") else "")
    )
    return tuple(dict.fromkeys(p for p in found if p))


def _spec_shape(
    spec: FormatSpec,
) -> tuple[tuple[str, ...], tuple[str, ...], Values, tuple[str, ...]]:
    """A declared family's openers, closers, values and value markers, from its grammar."""
    openers = [o for o, _ in spec.wrappers]
    closers = [c for _, c in spec.wrappers]
    markers: list[str] = []
    values: Values = "json"
    for g in (spec.grammar, *spec.alternatives):
        if isinstance(g, TaggedCalls):
            s = g.syntax
            for p in s.prefixes:
                openers.append(f"{s.open}{p}{g.call}")
                closers.append(_tag(s.close, p, g.call, s.end))
                # no argument tag: every element is one (values start at any tag)
                markers.append(f"{s.open}{p}{g.param or g.call}")
            values = "text" if g.typing == "none" else "text or json"
        elif isinstance(g, KeyValueCalls):
            openers.append(g.call[0])
            closers.append(g.call[1])
            markers.append(g.value[0])
            values = "text"
        else:
            openers.extend(g.open)
            closers.extend(g.close)
            values = "pythonic" if g.body == "pythonic" else values
    return tuple(dict.fromkeys(openers)), tuple(dict.fromkeys(closers)), values, tuple(markers)


def markup_example(spec: FormatSpec) -> str:
    """One call in ``spec``'s markup, as a Markdown code span."""
    g = spec.grammar
    if isinstance(g, TaggedCalls):
        s = g.syntax
        p = s.prefixes[0]
        if g.param is None:
            arg = f"{s.open}{p}k{s.end}v{s.close}{p}k{s.end}"
        else:
            arg = f'{s.open}{p}{g.param} {g.key_attr}="k"{s.end}v{s.close}{p}{g.param}{s.end}'
        call = f'{s.open}{p}{g.call} {g.name_attr}="f"{s.end}{arg}{s.close}{p}{g.call}{s.end}'
        if spec.wrappers:
            opener, closer = spec.wrappers[0]
            call = f"{opener}{call}{closer}"
    elif isinstance(g, KeyValueCalls):
        sep = g.name_end[0] if g.name_end else ""
        call = f"{g.call[0]}f{sep}{g.key[0]}k{g.key[1]}{g.value[0]}v{g.value[1]}{g.call[1]}"
        if spec.wrappers:
            opener, closer = spec.wrappers[0]
            call = f"{opener}{call}{closer}"
    else:
        body = (
            "[f(k=v)]"
            if g.body == "pythonic"
            else ('[{"f": {...}}]' if g.name_map else '[{"name": "f", "arguments": {...}}]')
        )
        call = f"{g.open[0]}{body}{g.close[0] if g.close else ''}"
    return "`" + call.replace("|", "\\|") + "`"


def _grammar(spec: FormatSpec) -> str:
    g = spec.grammar
    if isinstance(g, JsonSection):
        return "pythonic section" if g.body == "pythonic" else "JSON section"
    if isinstance(g, KeyValueCalls):
        return "key/value tags"
    return "tagged calls"


def _overturns(closers: tuple[str, ...], values: Values) -> tuple[str, ...]:
    extra = (TEXT_OVERTURN,) if values.startswith("text") or values == "json or text" else ()
    return (*COMMON_OVERTURNS, *extra, *(() if closers else (OPEN_OVERTURN,)))


@cache
def families() -> tuple[Family, ...]:
    """Every family toolfix reads, in detection order: name, engine aliases, source,
    openers, closers, how values are written, what can overturn a call, reasoning."""
    out: list[Family] = []
    for fmt in ALL_FORMATS:
        if isinstance(fmt, SpecScanner):
            for spec in fmt.specs:
                openers, closers, values, markers = _spec_shape(spec)
                out.append(
                    Family(
                        name=spec.name,
                        aliases=_SPEC_ALIASES.get(spec.name, ()),
                        source=spec.source,
                        models=spec.models,
                        markup=markup_example(spec),
                        read_by=f"spec: {_grammar(spec)}",
                        openers=openers,
                        closers=closers,
                        values=values,
                        value_markers=markers if values != "json" else (),
                        overturned_by=_overturns(closers, values),
                        reasoning=_SPEC_REASONING.get(spec.name, _THINK),
                        prefixes=_spec_prefixes(spec),
                    )
                )
            continue
        aliases, models, markup, closers, values, markers, reasoning = _HAND_WRITTEN[fmt.name]
        module = type(fmt).__module__.rsplit(".", 1)[-1]
        out.append(
            Family(
                name=fmt.name,
                aliases=aliases,
                source=fmt.source,
                models=models,
                markup=markup,
                read_by=f"module `{module}.py`",
                openers=tuple(fmt.markers),
                closers=closers,
                values=values,
                value_markers=markers,
                overturned_by=_overturns(closers, values),
                reasoning=reasoning,
            )
        )
    return tuple(out)


def family(name: str) -> Family | None:
    """The family called ``name``, or known to an engine as ``name`` (an alias)."""
    for f in families():
        if f.name == name:
            return f
    return next((f for f in families() if name in f.aliases), None)


@cache
def noise_markers() -> tuple[str, ...]:
    """What the registry declares that the schema-anchored reader skips as noise beyond
    the markup groups it skips anyway (``<...>``, ``[...]``): each family's tag prefixes
    (``｜DSML｜``, ``steptml:``), so a damaged family's call, or a family's prefix on
    another family's elements, is read by its tool's and parameters' names
    (docs/finding-calls.md)."""
    return tuple(sorted({p for f in families() for p in f.prefixes}))


# ---- what the stream reads --------------------------------------------------------------


@cache
def release_closers() -> re.Pattern[str]:
    """Every family's call closers: where the stream tries to release calls."""
    closers = {c for f in families() for c in f.closers}
    return re.compile("|".join(map(re.escape, sorted(closers, key=len, reverse=True))))


@cache
def bracket_openers() -> tuple[str, ...]:
    """Openers of the families whose calls close with a JSON list's ``]``."""
    return tuple(o for f in families() if "]" in f.closers for o in f.openers)


@cache
def text_value_markers() -> re.Pattern[str]:
    """What starts a value written as raw text between tags, in any family (a call after
    one may turn out to be that value's text)."""
    markers = {m for f in families() for m in f.value_markers}
    return re.compile("|".join(map(re.escape, sorted(markers, key=len, reverse=True))))


#: Where JSON, pythonic calls, fences and special tokens can begin, whatever the family.
_GENERIC_STARTS = "{[(`|｜"
#: Words ReAct writes before a call, besides its registry opener.
_REACT_WORDS = ("Action", "Thought", "Observation")


@cache
def markup_start() -> re.Pattern[str]:
    """Where markup of any family could begin: the prose hold-back stops there. A token's
    first character; a word opener (``functools``, ``Action:``, ``to=``) at a word start.
    (Hand-written readers' word markers, ``tool_calls`` or ``tool_code``, are found
    inside markup that starts with one of the characters.)"""
    chars = set(_GENERIC_STARTS)
    words = {rf"\b{w}\s*:" for w in _REACT_WORDS}
    firsts = {w[0] for w in _REACT_WORDS}  # each word's first letter
    for fmt in ALL_FORMATS:  # (tags whose brackets were stripped: stripped.py)
        if isinstance(fmt, SpecScanner):
            words.update(fmt.restorer.heads)
            firsts.update(fmt.restorer.head_letters)
    for f in families():
        for o in f.openers:
            if not o[0].isalnum():
                if not o.startswith("</"):
                    chars.add(o[0])
            elif o.endswith(":"):
                words.add(r"\b" + r"\s+".join(map(re.escape, o[:-1].split())) + r"\s*:")
                firsts.add(o[0])
            elif "=" in o:
                words.add(r"\b" + re.escape(o.split("=", 1)[0]) + "=")
                firsts.add(o[0])
            elif f.read_by.startswith("spec"):
                words.add(rf"\b{re.escape(o)}")
                firsts.add(o[0])
    parts = ["[" + "".join(sorted(map(re.escape, chars))) + "]", *sorted(words)]
    # (a lookahead for the characters a match starts with first: the regex engine then
    # skips ahead to them, instead of trying each alternative at every position)
    ahead = "".join(sorted(map(re.escape, chars | firsts)))
    return re.compile(f"(?=[{ahead}])(?:{'|'.join(parts)})")


# ---- reasoning --------------------------------------------------------------------------

#: Every reasoning token holds one of these: the stream looks again only when one arrives.
THINK_HINTS = ("think>", "THINK]", "THINKING|>")
#: The longest reasoning token (a token may straddle two chunks).
THINK_TOKEN_MAX = max(len(t) for pair in THINK_TOKENS for t in pair) + 1


def reasoning_gate(text: str, prefilled: bool | None) -> tuple[int, int, int] | None:
    """Whether ``text`` settles what of it is reasoning, for every continuation.

    ``None`` while a later token could still turn text already seen into reasoning (no
    reasoning markup yet, or a closer whose next character is unknown). Otherwise
    ``(start, end, content)``: the token that settled it, and where content begins that
    no continuation can move into the prompt's reasoning block (after that block's
    closer; ``0`` when the text's first reasoning token is an opener, or
    ``prefilled=False``: the prompt opened none)."""
    if prefilled is False:
        return 0, 0, 0
    if prefilled:
        block = prompt_block(text, True)  # (never None when prefilled)
        if block is None or block[0] == len(text):
            return None
        return block[0], block[1], block[1]
    first = first_markup(text)
    if first is None:
        return None
    start, end, closer = first
    if not closer:
        return start, start, 0
    if end >= len(text):
        return None  # a lone closer only when white space follows: not known yet
    return start, end, end


# ---- templates that open the reasoning block in the prompt ------------------------------


@dataclass(frozen=True, slots=True)
class PrefilledModel:
    """Models whose official chat template writes the reasoning opener (``<think>``) into
    the prompt, so their output starts inside reasoning (``FixConfig.reasoning_prefilled``).

    ``pattern`` is searched in the lower-cased model name (litellm's ``provider/name``
    or the engine's served name). ``switch``: the ``chat_template_kwargs`` key that turns
    the prefill on (its default ``switch_default``); ``None``: always on."""

    pattern: str
    source: str
    switch: str | None = None
    switch_default: bool = False


#: The table :func:`reasoning_prefilled_for` reads; extend it with your own models
#: (``PREFILLED_MODELS.append(PrefilledModel(...))``). Each entry cites its template.
PREFILLED_MODELS: list[PrefilledModel] = [
    PrefilledModel(
        r"deepseek-r1|deepseek-reasoner|r1-distill",
        "https://huggingface.co/deepseek-ai/DeepSeek-R1/blob/main/tokenizer_config.json "
        "(the generation prompt ends `<｜Assistant｜><think>\\n`, the model card asks for it); "
        "https://huggingface.co/deepseek-ai/DeepSeek-R1-0528/discussions/69",
    ),
    PrefilledModel(
        r"qwq",
        "https://huggingface.co/Qwen/QwQ-32B/discussions/80 (the template's generation "
        "prompt is `<|im_start|>assistant\\n<think>\\n`)",
    ),
    PrefilledModel(
        r"qwen3[^/]*thinking",
        "https://huggingface.co/Qwen/Qwen3-235B-A22B-Thinking-2507 (the default chat template "
        "includes `<think>`: the output holds only `</think>`)",
    ),
    PrefilledModel(
        r"deepseek-v3\.[12]|deepseek-v4|deepseek-chat-v3\.1",
        "https://huggingface.co/deepseek-ai/DeepSeek-V3.1 (thinking mode: the prompt ends "
        "`<｜Assistant｜><think>`, chat_template_kwargs `thinking=True`); "
        "https://huggingface.co/inferencerlabs/DeepSeek-V3.2-MLX-4.8bit/commit/"
        "ade0ce90e48b399445b6fa074b5a42bdbd720ce0 (`thinking` defaults to false)",
        switch="thinking",
    ),
]


def reasoning_prefilled_for(
    model: str | None, chat_template_kwargs: Mapping[str, object] | None = None
) -> bool | None:
    """Whether ``model``'s chat template opens the reasoning block in the prompt, given
    the request's ``chat_template_kwargs`` (vLLM/SGLang: ``enable_thinking``,
    ``thinking``), as ``FixConfig.reasoning_prefilled`` takes it: ``True`` (a table
    entry whose switch is on), ``False`` when the request turns thinking off
    (``enable_thinking=False`` or ``thinking=False``: the template closes or omits the
    block in the prompt), ``None`` when not known (no table entry, or its switch left at
    a default that is off)."""
    kwargs = chat_template_kwargs or {}
    if kwargs.get("enable_thinking") is False or kwargs.get("thinking") is False:
        return False
    name = (model or "").lower()
    for entry in PREFILLED_MODELS:
        if re.search(entry.pattern, name):
            if entry.switch is None or kwargs.get(entry.switch, entry.switch_default):
                return True
            return None
    return None
