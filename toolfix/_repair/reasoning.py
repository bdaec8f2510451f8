"""Separate ``<think>`` reasoning from the content of a message.

Handles what reasoning models (Qwen3, QwQ, DeepSeek-R1 and its distills, GLM,
MiniMax...) leave in the text when the server does not split it out:

- ``<think>…</think>`` blocks, one or several;
- an unclosed ``<think>`` (output cut short, or still thinking): everything after
  it is reasoning;
- a lone ``</think>`` with no opener: templates such as Qwen3's and
  DeepSeek-R1's put ``<think>`` in the prompt, so everything before the closer is
  reasoning. Only the first reasoning markup of the text can be such a closer (the
  prompt opens one block, at the start); with ``prefilled=True`` (the caller knows the
  prompt opened it, ``FixConfig.reasoning_prefilled``) the text up to the first
  closer, or all of it when none comes, is reasoning; with ``prefilled=False`` (known
  that it opened none) a lone closer is content, kept as written;
- Magistral's ``[THINK]…[/THINK]`` the same way (a ``[TOOL_CALLS]`` the model wrote
  while thinking is reasoning, never a call).

Content outside the markup is kept byte for byte, with one documented
exception: whitespace directly after a ``</think>`` is dropped when the content
collected so far is empty or already ends in whitespace (so ``"<think>x</think>\\n\\nAnswer"``
gives ``"Answer"``, and ``"a <think>x</think> b"`` gives ``"a b"``). Each reasoning
block is stripped of surrounding whitespace; several blocks are joined with a
blank line. Empty reasoning (``<think>\\n\\n</think>``, Qwen3's non-thinking mode)
gives ``None``. One pass with ``str.find``: linear time.
"""

from __future__ import annotations

import re

__all__ = [
    "THINK_CLOSE",
    "THINK_OPEN",
    "THINK_TOKENS",
    "closes_its_wrapper",
    "first_markup",
    "prompt_block",
    "split_reasoning",
]

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
#: Magistral (Mistral's reasoning models) writes its reasoning between these tokens.
MISTRAL_THINK_OPEN = "[THINK]"
MISTRAL_THINK_CLOSE = "[/THINK]"
#: Other families' reasoning tokens, read the same way: Magistral, ByteDance Seed-OSS
#: (https://huggingface.co/ByteDance-Seed/Seed-OSS-36B-Instruct, chat_template.jinja),
#: Cohere Command A Reasoning (its chat template's ``<|START_THINKING|>``).
OTHER_THINK_TOKENS = (
    (MISTRAL_THINK_OPEN, MISTRAL_THINK_CLOSE),
    ("<seed:think>", "</seed:think>"),
    ("<|START_THINKING|>", "<|END_THINKING|>"),
)
#: Every pair of reasoning tokens, ``<think>`` first.
THINK_TOKENS = ((THINK_OPEN, THINK_CLOSE), *OTHER_THINK_TOKENS)


_QUOTES = "\"'`"


def _find_open(text: str, pos: int, opener: str = THINK_OPEN) -> int:
    """Next ``<think>`` not quoted (``"<think>"`` in a JSON string or code is content)."""
    while True:
        i = text.find(opener, pos)
        if i == -1 or i == 0 or text[i - 1] not in _QUOTES:
            return i
        pos = i + 1


def _find_lone_close(text: str, closer: str = THINK_CLOSE) -> int:
    """First ``</think>`` followed by whitespace or the end of the text."""
    pos = 0
    n = len(text)
    while True:
        i = text.find(closer, pos)
        end = i + len(closer)
        if i == -1 or end >= n or text[end].isspace():
            return i
        pos = i + 1


def prompt_block(text: str, prefilled: bool | None = None) -> tuple[int, int] | None:
    """Where the reasoning block the prompt opened ends in ``text``: the closer's
    ``(start, end)``, or ``None`` when the prompt opened none.

    ``prefilled=True``: the first closer of any pair, ``(len(text), len(text))`` when
    none comes. ``False``: ``None``. ``None`` (not known): the first reasoning markup of
    the text when it is a lone closer."""
    if prefilled is False:
        return None
    if prefilled:
        hits = [(i, i + len(c)) for _, c in THINK_TOKENS if (i := text.find(c)) != -1]
        return min(hits) if hits else (len(text), len(text))
    first = first_markup(text)
    return first[:2] if first is not None and first[2] else None


def first_markup(text: str) -> tuple[int, int, bool] | None:
    """The first reasoning token of ``text`` as :func:`split_reasoning` reads it (an
    opener not directly after a quote, a closer followed by white space or the end):
    ``(start, end, is_closer)``, or ``None``."""
    first: tuple[int, int, bool] | None = None
    for opener, closer in THINK_TOKENS:
        if opener not in text and closer not in text:
            continue
        o = _find_open(text, 0, opener)
        c = _find_lone_close(text, closer)
        if o != -1 and (first is None or o < first[0]):
            first = (o, o + len(opener), False)
        if c != -1 and (first is None or c < first[0]):
            first = (c, c + len(closer), True)
    return first


def split_reasoning(text: str, prefilled: bool | None = None) -> tuple[str | None, str]:
    """Split ``text`` into ``(reasoning, content)``.

    Returns ``(None, text)`` (the same object) when there is no think markup.
    """
    block = prompt_block(text, prefilled)
    lead: str | None = None
    if block is not None:
        # the opener was in the prompt: whitespace after the closer is dropped
        lead, at = text[: block[0]].strip(), block[1]
        while at < len(text) and text[at].isspace():
            at += 1
        text = text[at:]
    reasoning, content = _split(text, THINK_OPEN, THINK_CLOSE)
    if lead:
        reasoning = lead if reasoning is None else f"{lead}\n\n{reasoning}"
    for opener, closer in OTHER_THINK_TOKENS:
        if opener not in content:
            continue
        more, content = _split(content, opener, closer)
        if more is not None:
            reasoning = more if reasoning is None else f"{reasoning}\n\n{more}"
    return reasoning, content


def _split(text: str, opener: str, closer: str) -> tuple[str | None, str]:
    """:func:`split_reasoning` for one pair of reasoning tokens."""
    if opener not in text:
        return None, text
    # Markup counts only where models put it: an opener not directly after a quote.
    # ``{"a": "<think>"}`` is content. (A lone closer: :func:`prompt_block`.)
    if _find_open(text, 0, opener) == -1:
        return None, text

    reasoning: list[str] = []
    content: list[str] = []
    tail = ""  # last character of the content so far

    def keep(part: str) -> None:
        nonlocal tail
        if part:
            content.append(part)
            tail = part[-1]

    def after_close(at: int) -> int:
        # drop whitespace right after </think> when the content so far is empty or
        # already ends in whitespace
        if not tail or tail.isspace():
            n = len(text)
            while at < n and text[at].isspace():
                at += 1
        return at

    pos = 0
    while True:
        start = _find_open(text, pos, opener)
        if start == -1:
            keep(text[pos:])
            break
        keep(text[pos:start])
        body = start + len(opener)
        close = text.find(closer, body)
        if close == -1:
            reasoning.append(text[body:])
            break
        reasoning.append(text[body:close])
        pos = after_close(close + len(closer))

    blocks = [r.strip() for r in reasoning]
    joined = "\n\n".join(b for b in blocks if b)
    return (joined or None), "".join(content)


#: A call wrapper's opening tag at the head of a call (maybe behind a family's prefix,
#: ``<｜DSML｜invoke``), its word in group 1.
_WRAPPER_HEAD = re.compile(r"<[^\s<>=/]{0,12}?(invoke|function|tool_call)[\s=>]")
_HEAD_SPAN = 32  # how far into a call its wrapper's opener is looked for
_TAIL_SPAN = 48  # how far from a call's end its wrapper's end tag is looked for


def closes_its_wrapper(raw: str) -> bool:
    """A call read from reasoning (``raw``: its text) that opens with a call wrapper's
    tag (``<invoke name="bash">``) ends with that wrapper's end tag (``</invoke>``,
    maybe prefixed): reasoning that stops before it was cut off, and a call taken from
    reasoning is a finished one (promise 9). A call opened otherwise: ``True``."""
    head = _WRAPPER_HEAD.search(raw, 0, _HEAD_SPAN)
    if head is None:
        return True
    tail = raw[max(head.end(), len(raw) - _TAIL_SPAN) :]
    return re.search(rf"</[^\s<>=/]{{0,12}}?{head.group(1)}>", tail) is not None
