"""The table of every family in docs/formats.md, made from the declarations.

``python -m toolfix._repair.table`` prints it; a test holds docs/formats.md to it, so a
declared family cannot be missing from the docs.
"""

from __future__ import annotations

from .formats import ALL_FORMATS
from .scanner import SpecScanner
from .spec import FormatSpec, JsonSection, KeyValueCalls, TaggedCalls

__all__ = ["markdown_table", "markup_example"]

#: Families read by a hand-written module: (models, markup). The reason no grammar
#: covers them yet is in the module's docstring.
HAND_WRITTEN: dict[str, tuple[str, str]] = {
    "json": ("any", "bare JSON, JSON in prose, ```` ```json ```` fences, JSON lists of calls"),
    "hermes": (
        "Qwen 2.5/3/3.5, Hermes, Granite 4, ERNIE 4.5, many fine-tunes",
        "`<tool_call>{...}</tool_call>` (close tag optional)",
    ),
    "qwen_xml": (
        "Qwen3-Coder, Qwen3.5/3.6, Step3.5, Seed-OSS, Functionary v3.1",
        "`<function=name><parameter=p>v</parameter></function>` in `<tool_call>` or "
        "`<seed:tool_call>`, `<function=name>{...}</function>`",
    ),
    "mistral": (
        "Mistral, Mixtral, Devstral, Magistral",
        "`[TOOL_CALLS][{...}]`, `[TOOL_CALLS]name[ARGS]{...}`, `name[ARGS]{...}`",
    ),
    "llama": ("Llama 3.1-3.3", '`<\\|python_tag\\|>{"name": ..., "parameters": {...}}`'),
    "pythonic": ("Llama 3.2/4, Gemma, Granite", '`[f(a=1), g(b="x")]`'),
    "deepseek": ("DeepSeek V3, V3.1, R1", "`<｜tool▁calls▁begin｜>...<｜tool▁sep｜>...`"),
    "kimi": (
        "Kimi K2",
        "`<\\|tool_calls_section_begin\\|>...functions.name:0<\\|tool_call_argument_begin\\|>{...}`",
    ),
    "harmony": (
        "gpt-oss",
        "`<\\|channel\\|>commentary to=functions.name ... <\\|message\\|>{...}<\\|call\\|>`",
    ),
    "gemma": ("Gemma 3/4, FunctionGemma", "```` ```tool_code ```` blocks, `call:name{...}`"),
    "granite": ("Granite 3.x", "`<\\|tool_call\\|>[{...}]`"),
    "functionary": ("Functionary v3", "`>>>name\\n{...}`"),
    "xlam": ("xLAM", '`{"tool_calls": [{...}]}`'),
    "react": ("any model prompted with ReAct", "`Action: name` + `Action Input: {...}`"),
    "tool_tags": (
        "any model prompted by Cline or Roo Code",
        "`<tool_name><arg>value</arg></tool_name>` (the element named after an offered tool)",
    ),
}


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


def markdown_table() -> str:
    """Every family toolfix reads, in detection order."""
    rows = [
        "| format | models | markup | read by | source |",
        "|---|---|---|---|---|",
    ]
    for fmt in ALL_FORMATS:
        if isinstance(fmt, SpecScanner):
            for spec in fmt.specs:
                sources = " ".join(
                    f"[{i}]({u.split(' ')[0]})"
                    for i, u in enumerate(spec.source.split("; "), 1)
                    if u.startswith("http")
                )
                rows.append(
                    f"| `{spec.name}` | {spec.models} | {markup_example(spec)} | "
                    f"spec: {_grammar(spec)} | {sources} |"
                )
            continue
        models, markup = HAND_WRITTEN.get(fmt.name, ("", ""))
        src = fmt.source.split(";")[0].split(" ")[0]
        link = f"[1]({src})" if src.startswith("http") else ""
        module = type(fmt).__module__.rsplit(".", 1)[-1]
        rows.append(f"| `{fmt.name}` | {models} | {markup} | module `{module}.py` | {link} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
