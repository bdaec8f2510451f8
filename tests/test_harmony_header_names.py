"""A harmony header token glued to a tool name takes its header word with it.

Harmony writes the recipient before the channel (``to=functions.f<|channel|>commentary
<|constrain|>json<|message|>``); an engine that splits the header in the wrong place hands
the name over as ``f<|channel|>commentary`` (llama-stack's recordings of gpt-oss-20b on
Bedrock; ``assistant<|channel|>analysis`` in ollama#11704). The token and its word are
markup (rule G4: glued markup is removed); the letters of the name itself never change
(promise 4): ``web_searchjson``, the word without its token, stays an unknown name.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolfix import InvalidToolCallPart, ToolCallPart, repair
from toolfix._repair.names import resolve_name

_NAME = st.from_regex(r"[a-z]{2,10}(_[a-z]{2,10}){0,2}", fullmatch=True)
_WORD = st.sampled_from(["commentary", "analysis", "final", "json", "Commentary", ""])
_TOKEN = st.sampled_from(["<|channel|>", "<|constrain|>"])


def _tool(name: str) -> dict[str, object]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    }


@given(_NAME, st.lists(_NAME, max_size=4), _TOKEN, _WORD, _TOKEN, _WORD)
def test_header_tokens_and_their_words_come_off_the_name(
    name: str, others: list[str], token: str, word: str, token2: str, word2: str
) -> None:
    tools = [name, *(o for o in others if o != name)]
    for written in (name + token + word, name + token + word + token2 + word2):
        m = resolve_name(written, tools)
        assert m.name == name
        assert m.repair is not None
        assert "markup tags" in m.repair.detail


@given(_NAME, _WORD.filter(bool))
def test_the_word_without_its_token_is_no_rename(name: str, word: str) -> None:
    written = name + word
    assert resolve_name(written, [name]).name is None


def test_a_role_glued_to_its_channel_is_no_tool() -> None:
    assert resolve_name("assistant<|channel|>analysis", ["get_weather"]).name is None


@given(_NAME, _WORD, st.text(alphabet="abcdefghij ", max_size=20))
def test_a_native_call_with_the_header_glued_is_the_call(name: str, word: str, q: str) -> None:
    native = {
        "id": "c1",
        "type": "function",
        "function": {"name": f"{name}<|channel|>{word}", "arguments": f'{{"q": "{q}"}}'},
    }
    fixed = repair({"content": None, "tool_calls": [native]}, [_tool(name)])
    assert [(c.name, c.arguments) for c in fixed.tool_calls] == [(name, {"q": q})]
    assert not [p for p in fixed.parts if isinstance(p, InvalidToolCallPart)]
    assert all(isinstance(p, ToolCallPart) for p in fixed.parts)
