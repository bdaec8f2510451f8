"""The names users already know for toolfix's format families: the tool-call parser
names of vLLM (``--tool-call-parser``) and SGLang (``--tool-call-parser``), and names
toolfix itself used before (the bench's ``seed_oss``).

One table, read by ``toolfix formats`` and ``toolfix repair --format``
(:func:`resolve_format`). Sources: vLLM ``vllm/tool_parsers/__init__.py``
(``_TOOL_PARSERS_TO_REGISTER``) and SGLang's tool parser guide
(https://docs.sglang.ai, "Tool Parser": ``--tool-call-parser`` names).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["FORMAT_ALIASES", "aliases_of", "resolve_format"]

#: family name -> the other names it answers to (vLLM and SGLang parser names first).
FORMAT_ALIASES: Mapping[str, tuple[str, ...]] = {
    "deepseek": ("deepseek_v3", "deepseek_v31", "deepseekv3", "deepseekv31"),
    "dsml": ("deepseek_v32", "deepseekv32", "deepseek_v4"),
    "minimax": ("minimax_m2", "minimax-m2"),
    "step3": (),
    "kimi": ("kimi_k2",),
    "hunyuan": ("hy_v3",),
    "hunyuan_v4": ("hy_v4",),
    "glm": ("glm45", "glm47", "glm4_moe"),
    "seed_attrs": ("seed_oss",),
    "minicpm": ("minicpm5",),
    "tool_calls_tag": ("hunyuan_a13b", "jamba", "minimax_m1"),
    "longcat": (),
    "apertus": (),
    "phi4_mini": ("phi4_mini_json",),
    "command_a": ("cohere",),
    "nemotron": ("nemotron_json",),
    "internlm": ("internlm2",),
    "lfm2": (),
    "olmo3": (),
    "harmony": ("openai", "gpt-oss", "gpt_oss"),
    "granite": (),
    "hermes": ("qwen25", "qwen", "qwen2_5"),
    "mistral": (),
    "llama": ("llama3_json", "llama4_json", "llama3", "llama4"),
    "qwen_xml": ("qwen3_coder", "qwen3_xml"),
    "functionary": ("functionary_v3",),
    "gemma": ("functiongemma", "gemma4"),
    "xlam": (),
    "pythonic": ("llama4_pythonic",),
}


def aliases_of(family: str) -> tuple[str, ...]:
    """The other names of ``family`` (none for a family without any)."""
    return FORMAT_ALIASES.get(family, ())


def resolve_format(name: str, known: list[str]) -> str | None:
    """The family ``name`` stands for (itself, or the family it is an alias of), or
    ``None`` when it names none of ``known`` (matched without regard to case, ``-``
    and ``_``)."""
    key = name.strip().lower().replace("-", "_")
    for family in known:
        if key == family.replace("-", "_"):
            return family
    for family, names in FORMAT_ALIASES.items():
        if family in known and any(key == a.replace("-", "_") for a in names):
            return family
    return None
