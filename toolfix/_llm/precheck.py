"""The cheap intent pre-check of the LLM-based fixer.

Before the fixer spends an LLM call asking "did you mean to call a tool?" about a
message that carries no call, :class:`IntentPrecheck` looks at the text. The
question is only asked when the text shows at least one sign of an intended call,
and the message does not hand the turn to the user. The rules, in order, each for
one class of phrasing (measured on 204 public assistant messages, see
``benchmarks/intent/SOURCES.md`` and ``python benchmarks/intent_precheck.py``):

1. **Call structure** (asks): native markup markers (``<tool_call>``,
   ``[TOOL_CALLS]``, ``<|python_tag|>``...), or braces together with a
   ``"name"``/``"arguments"`` key.
2. **Hand-off to the user** (skips): a question to the user ("Could you please
   provide your user ID?", tau-bench; "Where will you be flying from?") or a request
   to confirm or tell ("Please confirm if you would like to proceed", "Let me know
   once you have the reservation ID, and I'll assist you further", tau-bench and
   LangChain Academy). The turn goes to the user, whatever the message promises.
3. **Tool names** (asks): a tool name as a whole word, written as in the registry or
   spaced (``get weather``), a near-miss of one (``getWeather``), or ``name(``.
   "multiplying" is not the tool ``multiply`` (LangChain Academy), nor "submitted"
   ``submit`` (SWE-agent).
4. **First-person announcements** (asks), anywhere: "let me", "I'll", "I will",
   "we will", "we'll", "I'm going to", "I need to", "now I have to" (Koog), "use the
   ... tool" ... ("I will execute npm run build ...", gemini-cli; "We will run the
   file again ...", SWE-agent; "I'll retrieve your reservation details.", tau-bench).
   Set phrases ("let me explain", "I'll be happy to") are removed first.
5. **Clause-opening announcements** (asks): a gerund or a Chinese announcement at the
   start of a clause, or after "I'm"/"now": "Computing the sum now." (Koog),
   "Checking the forecast for Chicago.", "接下来读取文件：" (hermes-agent),
   "稍等，我正在搜索..." (utopia). Mid-sentence ("Solutions include checking local
   swim schools") they describe, not announce.
6. **Colon preamble** (asks): the message ends with a colon, its content missing
   ("Here is the sentiment analysis for the given text:", Anthropic courses; "I can
   use the calculator tool:", Anthropic cookbook; "接下来读取文件：", hermes-agent).

A plain answer ("It is 18°C in Paris.") shows none of them and is left alone at
no cost. The check is linear in the text: substring searches for fixed lists of
phrases, one regular-expression pass, and one pass over identifier-like tokens.
Every list is configurable.
"""

from __future__ import annotations

import re
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
    "we'll",
    "we will",
    "i'm going to",
    "i am going to",
    "we're going to",
    "we are going to",
    "i'm gonna",
    "i need to",
    "i have to",
    "i must",
    "i'm about to",
    "i am about to",
    "i should",
    "i can use",
    "i'm calling",
    "look up",
    "use the",
    "one moment",
    "one second",
    "a moment",
    "just a sec",
    "hold on",
    "bear with me",
    "go ahead and",
)
"""First-person announcements (rule 4): matched lower-case, at a word start, anywhere."""

DEFAULT_CLAUSE_PHRASES: tuple[str, ...] = (
    "calling",
    "searching",
    "looking up",
    "checking",
    "fetching",
    "querying",
    "retrieving",
    "computing",
    "calculating",
    "using the",
    "让我",
    "我来",
    "我将",
    "接下来",
    "稍等",
    "继续",
    "正在",
)
"""Clause-opening announcements (rule 5): a gerund or a Chinese announcement, counted
at the start of a clause (after ``.``, ``,``, ``:``, a line break, their CJK forms, or
the text start) or after "I'm", "I am", "we're", "we are", "now"."""

DEFAULT_IGNORED_PHRASES: tuple[str, ...] = (
    "let me be clear",
    "let me explain",
    "i'll be happy",
    "i will be happy",
    "i'll be glad",
    "i will be glad",
)
"""Set phrases removed before the announcements are searched."""

DEFAULT_HANDOFF_PHRASES: tuple[str, ...] = (
    "let me know",
    "please confirm",
    "please provide",
    "feel free to",
)
"""Phrases that hand the turn to the user (rule 2), besides a question mark."""

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
        action_phrases: First-person announcements, matched anywhere (rule 4).
        clause_phrases: Announcements that count at the start of a clause (rule 5).
        ignored_phrases: Set phrases removed first ("let me explain").
        handoff_phrases: Phrases that hand the turn to the user (rule 2).
        call_markers: Native markup markers.
        json_keys: Keys that make braces look like a call.
        check_tool_names: Look for tool names and near-miss names.
        check_handoff: Leave a message alone when it asks the user something.
        check_colon: Ask about a message that ends with a colon (rule 6).
        enabled: ``False`` lets every message through (always ask the LLM).
    """

    action_phrases: tuple[str, ...] = DEFAULT_ACTION_PHRASES
    clause_phrases: tuple[str, ...] = DEFAULT_CLAUSE_PHRASES
    ignored_phrases: tuple[str, ...] = DEFAULT_IGNORED_PHRASES
    handoff_phrases: tuple[str, ...] = DEFAULT_HANDOFF_PHRASES
    call_markers: tuple[str, ...] = DEFAULT_CALL_MARKERS
    json_keys: tuple[str, ...] = DEFAULT_JSON_KEYS
    check_tool_names: bool = True
    check_handoff: bool = True
    check_colon: bool = True
    enabled: bool = True
    _lowered: _Phrases = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        def low(group: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(p.lower().translate(_APOSTROPHES) for p in group if p)

        phrases = _Phrases(
            low(self.action_phrases),
            low(self.clause_phrases),
            low(self.ignored_phrases),
            low(self.handoff_phrases),
            low(self.call_markers),
        )
        object.__setattr__(self, "_lowered", phrases)

    def extend(
        self,
        *,
        action_phrases: Iterable[str] = (),
        clause_phrases: Iterable[str] = (),
        ignored_phrases: Iterable[str] = (),
        handoff_phrases: Iterable[str] = (),
        call_markers: Iterable[str] = (),
    ) -> IntentPrecheck:
        """A copy with more phrases or markers."""
        return replace(
            self,
            action_phrases=(*self.action_phrases, *action_phrases),
            clause_phrases=(*self.clause_phrases, *clause_phrases),
            ignored_phrases=(*self.ignored_phrases, *ignored_phrases),
            handoff_phrases=(*self.handoff_phrases, *handoff_phrases),
            call_markers=(*self.call_markers, *call_markers),
        )

    def check(self, text: str, tool_names: Sequence[str]) -> PrecheckResult:
        """Look for signs of an intended call in ``text`` (see the module docs)."""
        if not self.enabled:
            return PrecheckResult(True, "pre-check disabled")
        if not text.strip() or not tool_names:
            return PrecheckResult(False, "no text" if tool_names else "no tools")
        ph = self._lowered
        low = text.lower().translate(_APOSTROPHES)
        structure = self._call_structure(low, ph.markers)
        if structure:
            return PrecheckResult(True, structure)
        if self.check_handoff:
            handoff = _hands_off(low, ph.handoff)
            if handoff:
                return PrecheckResult(False, handoff)
        if self.check_tool_names:
            found = _tool_name_in(text, low, tool_names)
            if found:
                return PrecheckResult(True, found)
        for phrase in ph.ignored:
            low = low.replace(phrase, " ")
        for phrase in ph.actions:
            if _has_word_start(low, phrase):
                return PrecheckResult(True, f"announced action {phrase!r}")
        for phrase in ph.clause:
            if _opens_a_clause(low, phrase):
                return PrecheckResult(True, f"announced action {phrase!r}")
        if self.check_colon and low.rstrip(_TRAILING_MARKUP).endswith((":", "：")):
            return PrecheckResult(True, "ends with a colon, its content missing")
        return PrecheckResult(False, "no tool name, call structure or announced action")

    def _call_structure(self, low: str, markers: tuple[str, ...]) -> str:
        for m in markers:
            if m in low:
                return f"call markup {m!r}"
        if "{" in low:
            for key in self.json_keys:
                k = key.lower()
                if f'"{k}"' in low or f"'{k}'" in low:
                    return f"braces with a {key!r} key"
        return ""

    def __call__(self, text: str, tool_names: Sequence[str]) -> bool:
        return self.check(text, tool_names).may_intend_call


_TRAILING_MARKUP = " \t\r\n*_`"
_CLAUSE_ENDS = frozenset(".!?:;\n。！？：；，、…")
_CLAUSE_OPENERS = ("i'm", "i am", "we're", "we are", "now")
_MARKUP = "*_`#>-\"' \t"
_QUESTION = re.compile(r"[?？](?=[\s\"'”’*_)\]]|$)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")


@dataclass(frozen=True, slots=True)
class _Phrases:
    actions: tuple[str, ...]
    clause: tuple[str, ...]
    ignored: tuple[str, ...]
    handoff: tuple[str, ...]
    markers: tuple[str, ...]


def _hands_off(low: str, phrases: tuple[str, ...]) -> str:
    """The reason when the message asks the user a question or to act; else ``""``."""
    if _QUESTION.search(_INLINE_CODE.sub(" ", low)):
        return "asks the user a question"
    for phrase in phrases:
        if _has_word_start(low, phrase):
            return f"hands the turn to the user ({phrase!r})"
    return ""


def _has_word_start(low: str, phrase: str) -> bool:
    """``phrase`` occurs in ``low`` not preceded by a letter or digit (linear)."""
    return _has_word(low, phrase, whole=False)


def _has_word(low: str, phrase: str, *, whole: bool = True) -> bool:
    """``phrase`` occurs in ``low`` as whole words: no letter or digit before it, nor
    after it unless ``whole`` is false (linear)."""
    start = low.find(phrase)
    while start != -1:
        end = start + len(phrase)
        if (start == 0 or not low[start - 1].isalnum()) and (
            not whole or end == len(low) or not low[end].isalnum()
        ):
            return True
        start = low.find(phrase, start + 1)
    return False


def _opens_a_clause(low: str, phrase: str) -> bool:
    """``phrase`` occurs at the start of a clause, or after "I'm"/"now" (rule 5)."""
    start = low.find(phrase)
    while start != -1:
        before = low[max(0, start - 12) : start].rstrip(_MARKUP)
        if (
            start == 0
            or not before
            or before[-1] in _CLAUSE_ENDS
            or any(_ends_with_word(before, w) for w in _CLAUSE_OPENERS)
        ):
            return True
        start = low.find(phrase, start + 1)
    return False


def _ends_with_word(text: str, word: str) -> bool:
    return text.endswith(word) and (len(text) == len(word) or not text[-len(word) - 1].isalnum())


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
            if _has_word(low, form):
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
