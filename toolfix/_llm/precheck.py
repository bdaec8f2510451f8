"""The cheap intent pre-check of the LLM-based fixer.

Before the fixer spends an LLM call asking "did you mean to call a tool?" about a
message that carries no call, :class:`IntentPrecheck` looks at the text. The
question is only asked when the text shows at least one sign of an intended call:

* a tool name, or a near-miss of one (``getWeather``, ``get weather``);
* call-like structure: native markup markers (``<tool_call>``, ``[TOOL_CALLS]``,
  ``<|python_tag|>``...), braces together with a ``"name"``/``"arguments"`` key,
  or ``name(`` where ``name`` is (close to) a registry tool;
* an announced action: "let me", "I'll", "I'm going to", "searching",
  "use the ... tool", ... (with "let me know" and similar set phrases ignored).

A plain answer ("It is 18°C in Paris.") shows none of them and is left alone at
no cost. The check is linear in the text: substring searches for a fixed list of
phrases and one pass over identifier-like tokens. Every list is configurable.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from .._repair.names import MAX_NAME_CHARS, looks_like_a_tool, normalise_name

__all__ = ["IntentPrecheck", "PrecheckResult"]

DEFAULT_ACTION_PHRASES: tuple[str, ...] = (
    "let me",
    "let's",
    "let us",
    "i'll",
    "i will",
    "i'm going to",
    "i am going to",
    "i'm gonna",
    "i need to",
    "i have to",
    "i must",
    "i'm about to",
    "i am about to",
    "i should",
    "i can use",
    "i'm calling",
    "calling",
    "searching",
    "looking up",
    "look up",
    "checking",
    "fetching",
    "querying",
    "retrieving",
    "computing",
    "calculating",
    "use the",
    "using the",
    "one moment",
    "one second",
    "a moment",
    "just a sec",
    "hold on",
    "bear with me",
    "go ahead and",
)
"""Phrases that announce an action (matched lower-case, at a word start)."""

DEFAULT_IGNORED_PHRASES: tuple[str, ...] = (
    "let me know",
    "let me be clear",
    "let me explain",
    "i'll be happy",
    "i will be happy",
    "i'll be glad",
    "i will be glad",
)
"""Set phrases removed before the action phrases are searched."""

DEFAULT_CALL_MARKERS: tuple[str, ...] = (
    "<tool_call",
    "</tool_call",
    "<function",
    "<invoke",
    "<tool_use",
    "[tool_calls]",
    "<|python_tag|>",
    "<|tool",
    "<｜tool",
    "tool_call_begin",
    "tool_calls_begin",
    "<|channel|>",
    "<|start|>",
    "<start_function_call>",
    "functools[",
    "<|action_start|>",
)
"""Native tool-call markup markers (matched lower-case)."""

DEFAULT_JSON_KEYS: tuple[str, ...] = (
    "name",
    "function",
    "tool",
    "tool_name",
    "arguments",
    "parameters",
    "args",
)
"""Keys that make a brace block look like a call (quoted with ``"`` or ``'``)."""

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})
_MAX_TOKENS = 500


@dataclass(frozen=True, slots=True)
class PrecheckResult:
    """Whether the text may announce a call, and the first sign found."""

    may_intend_call: bool
    reason: str

    def __bool__(self) -> bool:
        return self.may_intend_call


@dataclass(frozen=True)
class IntentPrecheck:
    """Decides, without an LLM, whether a message without a call might intend one.

    Attributes:
        action_phrases: Phrases announcing an action.
        ignored_phrases: Set phrases removed first ("let me know").
        call_markers: Native markup markers.
        json_keys: Keys that make braces look like a call.
        check_tool_names: Look for tool names and near-miss names.
        enabled: ``False`` lets every message through (always ask the LLM).
    """

    action_phrases: tuple[str, ...] = DEFAULT_ACTION_PHRASES
    ignored_phrases: tuple[str, ...] = DEFAULT_IGNORED_PHRASES
    call_markers: tuple[str, ...] = DEFAULT_CALL_MARKERS
    json_keys: tuple[str, ...] = DEFAULT_JSON_KEYS
    check_tool_names: bool = True
    enabled: bool = True
    _lowered: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lowered = tuple(
            tuple(p.lower().translate(_APOSTROPHES) for p in group if p)
            for group in (self.action_phrases, self.ignored_phrases, self.call_markers)
        )
        object.__setattr__(self, "_lowered", lowered)

    def extend(
        self,
        *,
        action_phrases: Iterable[str] = (),
        ignored_phrases: Iterable[str] = (),
        call_markers: Iterable[str] = (),
    ) -> IntentPrecheck:
        """A copy with more phrases or markers."""
        return replace(
            self,
            action_phrases=(*self.action_phrases, *action_phrases),
            ignored_phrases=(*self.ignored_phrases, *ignored_phrases),
            call_markers=(*self.call_markers, *call_markers),
        )

    def check(self, text: str, tool_names: Sequence[str]) -> PrecheckResult:
        """Look for signs of an intended call in ``text`` (see the module docs)."""
        if not self.enabled:
            return PrecheckResult(True, "pre-check disabled")
        if not text.strip() or not tool_names:
            return PrecheckResult(False, "no text" if tool_names else "no tools")
        actions, ignored, markers = self._lowered
        low = text.lower().translate(_APOSTROPHES)
        for m in markers:
            if m in low:
                return PrecheckResult(True, f"call markup {m!r}")
        if "{" in low:
            for key in self.json_keys:
                k = key.lower()
                if f'"{k}"' in low or f"'{k}'" in low:
                    return PrecheckResult(True, f"braces with a {key!r} key")
        if self.check_tool_names:
            found = _tool_name_in(text, low, tool_names)
            if found:
                return PrecheckResult(True, found)
        for phrase in ignored:
            low = low.replace(phrase, " ")
        for phrase in actions:
            if _has_word_start(low, phrase):
                return PrecheckResult(True, f"announced action {phrase!r}")
        return PrecheckResult(False, "no tool name, call structure or announced action")

    def __call__(self, text: str, tool_names: Sequence[str]) -> bool:
        return self.check(text, tool_names).may_intend_call


def _has_word_start(low: str, phrase: str) -> bool:
    """``phrase`` occurs in ``low`` not preceded by a letter or digit (linear)."""
    start = low.find(phrase)
    while start != -1:
        if start == 0 or not low[start - 1].isalnum():
            return True
        start = low.find(phrase, start + 1)
    return False


def _name_forms(name: str) -> set[str]:
    """Lower-case spellings of a tool name as it may appear in prose."""
    spaced: list[str] = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and name[i - 1].islower():
            spaced.append(" ")
        spaced.append(" " if ch in "_-." else ch)
    words = "".join(spaced).lower().split()
    forms = {name.lower()}
    if len(words) > 1:
        forms.add(" ".join(words))
    return forms


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    """Identifier-like tokens (letters, digits, ``_``, ``.``, ``-``) and their end index."""
    start = -1
    for i, ch in enumerate(text):
        if ch.isalnum() or ch in "_.-":
            if start < 0:
                start = i
        elif start >= 0:
            yield text[start:i].strip(".-"), i
            start = -1
    if start >= 0:
        yield text[start:].strip(".-"), len(text)


def _looks_like_identifier(tok: str) -> bool:
    has_sep = "_" in tok or "." in tok
    camel = any(c.isupper() for c in tok[1:]) and any(c.islower() for c in tok)
    return (has_sep or camel) and len(tok) >= 3


def _tool_name_in(text: str, low: str, tool_names: Sequence[str]) -> str:
    """The reason when a tool name, a near name, or ``name(`` occurs; else ``""``."""
    for name in tool_names:
        for form in _name_forms(name):
            if _has_word_start(low, form):
                return f"tool name {name!r}"
    norms = {normalise_name(n) for n in tool_names}
    checked = 0
    for tok, end in _tokens(text):
        if not tok or len(tok) > MAX_NAME_CHARS:
            continue
        followed_by_paren = end < len(text) and text[end] == "("
        if not (followed_by_paren or _looks_like_identifier(tok)):
            continue
        checked += 1
        if checked > _MAX_TOKENS:
            break
        if normalise_name(tok) in norms or looks_like_a_tool(tok, tool_names):
            what = "call syntax" if followed_by_paren else "near tool name"
            return f"{what} {tok!r}"
    return ""
