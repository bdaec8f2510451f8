"""Promise 9 for a call whose wrapper names it in an attribute and whose arguments are
elements named by the parameters (``<invoke name="bash"><command>ls</command></invoke>``,
GLM and MiniMax spellings the schema-anchored reader takes): every cut before the
wrapper's end tag is no valid call, and the whole call is read back exactly.

Before this test, the anchored reader took such a call as closed at every cut after its
first argument's value (``…<command>ls -la<``), since nothing stood right before the name
that said a wrapper had opened (found by fix8c's reasoning tests, stop 32).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
                "required": ["command"],
            },
        },
    }
]

_values = st.text(
    st.characters(codec="utf-8", exclude_characters="<>&\r", exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=24,
).filter(lambda v: v.strip() == v)


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    wrapper = draw(st.sampled_from(["invoke", "function", "tool_call", "minimax:invoke"]))
    quote = draw(st.sampled_from(['"', "'"]))
    args = {"command": draw(_values)}
    if draw(st.booleans()):
        args["description"] = draw(_values)
    gap = draw(st.sampled_from(["", "\n"]))
    body = gap.join(f"<{k}>{v}</{k}>" for k, v in args.items())
    end = wrapper
    return f"<{wrapper} name={quote}bash{quote}>{gap}{body}{gap}</{end}>", args


@settings(max_examples=200, deadline=None)
@given(calls())
def test_the_whole_call_is_read_back_exactly(drawn: tuple[str, dict[str, str]]) -> None:
    text, args = drawn
    calls_ = repair(text, TOOLS).tool_calls
    assert [(c.name, c.arguments) for c in calls_] == [("bash", args)], text


@settings(max_examples=200, deadline=None)
@given(calls(), st.data())
def test_no_cut_before_the_end_tag_is_a_valid_call(
    drawn: tuple[str, dict[str, str]], data: st.DataObject
) -> None:
    text, _ = drawn
    cut = data.draw(st.integers(1, text.rindex("</") + 1))
    assert repair(text[:cut], TOOLS).tool_calls == [], text[:cut]
