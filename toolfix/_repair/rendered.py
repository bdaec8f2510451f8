"""Calls in a rendered conversation, not made (issue 28's negative corpus).

A model's message is the assistant's turn: it never holds a user's turn. A text that
does, written in a chat template's role markup (``[INST]``, ``<|USER_TOKEN|>``,
``<|im_start|>user``...), is a conversation rendered through that template: a prompt
pasted, echoed or shown in a page, and every call after its first user turn is one of
that conversation's past turns, answered by the tool result or the final answer that the
rendering goes on with. Sources (each independent): a blog post on Devstral's chat
template (a ``[INST]…[/INST]`` exchange quoting ``[TOOL_CALLS][…]`` then the answer:
``fresh8hf-devstral-blog-rendered-transcript-call-then-answer``), Cohere's melody
renderer's Command A test (``<|USER_TOKEN|>`` … ``<|START_ACTION|>`` … then
``<|START_TOOL_RESULT|>``: ``ev8hf-cohere-melody-cmd3-rendered-transcript-action-then-
result``), SKaiNET's Llama 3 tutorial (``<|start_header_id|>user<|end_header_id|>`` in the
printed prompt, then the raw call: ``prec5-skainet-llama3-demo-expected-output``).

The user-turn markers are those of the chat templates of the families the registry reads
(:data:`USER_TURNS`); a turn marker written after the call (a model running on into a
user's turn it invented, ``<|observation|>`` then ``<|user|>``: the spent
``fresh6cn-iflow-250-glm46-zero-arg-tool-call-observation-leak``) leaves the call made.
The span runs from the first user-turn marker to the end of the text: decided by what
precedes the call, so a stream and a whole text agree.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["USER_TURNS", "rendered_spans"]

Span = tuple[int, int]

#: The user-turn markers of the chat templates of the registry's families, as each
#: template renders them (its source).
USER_TURNS: tuple[tuple[str, str], ...] = (
    ("[INST]", "Mistral (mistral-common's tokenizer v3+: [INST] … [/INST])"),
    ("<|USER_TOKEN|>", "Cohere Command R / A (<|START_OF_TURN_TOKEN|><|USER_TOKEN|>)"),
    ("<|im_start|>user", "ChatML: Hermes, Qwen 2.5 / 3 (<|im_start|>user)"),
    ("<|start_header_id|>user<|end_header_id|>", "Llama 3.x (header of a user turn)"),
    ("<start_of_turn>user", "Gemma 2 / 3 (<start_of_turn>user)"),
    ("<\uff5cUser\uff5c>", "DeepSeek V3 / R1 (<｜User｜>)"),
    ("<|start_of_role|>user<|end_of_role|>", "Granite 3.x (role header)"),
)


def rendered_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """The span of a rendered conversation in ``text``: from its first user-turn marker
    (:data:`USER_TURNS`) to the end; empty when it holds none. ``has`` answers ``marker
    in text`` (the scanner's indexed test for a long text): most texts hold none."""
    test = text.__contains__ if has is None else has
    starts = [text.find(marker) for marker, _ in USER_TURNS if test(marker)]
    starts = [k for k in starts if k != -1]
    return [(min(starts), len(text))] if starts else []
