"""Promise 9 for a call whose wrapper names it in an attribute and whose arguments are
elements named by the parameters (``<invoke name="bash"><command>ls</command></invoke>``,
GLM and MiniMax spellings the schema-anchored reader takes): every cut before the
wrapper's end tag is no valid call, and the whole call is read back exactly.

Before this test, the anchored reader took such a call as closed at every cut after its
first argument's value (``…<command>ls -la<``), since nothing stood right before the name
that said a wrapper had opened (found by fix8c's reasoning tests, stop 32).

Any element word holds the name, and the arguments may be the element's own attributes,
closed by ``/>`` or by the end tag (``<tool name="bash" command="ls" cwd="/" />``: MiniMax
through oh-my-pi, issue 8837). Before the ninth round only the words ``invoke``,
``function`` and ``tool_call`` made the call wait for its closer: a self-closing
``<tool …`` cut before its ``/>`` was a valid call (found by branch h9cli).
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


#: Element words the reader takes a call in (call words), and words it does not read
#: (``use_tool``, ``function_call``): a cut of either is never a valid call.
_READ = ["invoke", "function", "tool_call", "minimax:invoke", "tool", "call", "action"]
_WRAPPERS = [*_READ, "use_tool", "function_call"]


@st.composite
def calls(draw: st.DrawFn, words: list[str] = _READ) -> tuple[str, dict[str, str]]:
    wrapper = draw(st.sampled_from(words))
    quote = draw(st.sampled_from(['"', "'"]))
    args = {"command": draw(_values)}
    if draw(st.booleans()):
        args["description"] = draw(_values)
    gap = draw(st.sampled_from(["", "\n"]))
    body = gap.join(f"<{k}>{v}</{k}>" for k, v in args.items())
    end = wrapper
    return f"<{wrapper} name={quote}bash{quote}>{gap}{body}{gap}</{end}>", args


@st.composite
def attribute_calls(draw: st.DrawFn, words: list[str] = _READ) -> tuple[str, dict[str, str]]:
    """The arguments as the element's own attributes, then ``/>`` or ``></word>``."""
    wrapper = draw(st.sampled_from(words))
    value = _values.filter(lambda v: '"' not in v)
    args = {"command": draw(value)}
    if draw(st.booleans()):
        args["description"] = draw(value)
    pairs = " ".join(f'{k}="{v}"' for k, v in args.items())
    end = draw(st.sampled_from([" />", "/>", f"></{wrapper}>"]))
    return f'<{wrapper} name="bash" {pairs}{end}', args


@settings(max_examples=200, deadline=None)
@given(calls())
def test_the_whole_call_is_read_back_exactly(drawn: tuple[str, dict[str, str]]) -> None:
    text, args = drawn
    calls_ = repair(text, TOOLS).tool_calls
    assert [(c.name, c.arguments) for c in calls_] == [("bash", args)], text


@settings(max_examples=200, deadline=None)
@given(calls(_WRAPPERS), st.data())
def test_no_cut_before_the_end_tag_is_a_valid_call(
    drawn: tuple[str, dict[str, str]], data: st.DataObject
) -> None:
    text, _ = drawn
    cut = data.draw(st.integers(1, text.rindex("</") + 1))
    assert repair(text[:cut], TOOLS).tool_calls == [], text[:cut]


@settings(max_examples=200, deadline=None)
@given(attribute_calls())
def test_a_call_in_attributes_is_read_back_exactly(drawn: tuple[str, dict[str, str]]) -> None:
    text, args = drawn
    calls_ = repair(text, TOOLS).tool_calls
    assert [(c.name, c.arguments) for c in calls_] == [("bash", args)], text


@settings(max_examples=200, deadline=None)
@given(attribute_calls(_WRAPPERS), st.data())
def test_no_cut_of_a_call_in_attributes_is_a_valid_call(
    drawn: tuple[str, dict[str, str]], data: st.DataObject
) -> None:
    text, _ = drawn
    cut = data.draw(st.integers(1, len(text) - 1))
    assert repair(text[:cut], TOOLS).tool_calls == [], text[:cut]
