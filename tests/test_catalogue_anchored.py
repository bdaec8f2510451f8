"""A catalogue of tools in the schema-anchored reader's shapes is documentation (issue 28,
``toolfix/_repair/catalogue.py``; promise 3, rule G2).

The generator the catalogue tests lacked: hypothesis draws a catalogue that lists offered
tools, each with an argument object, in the shapes the schema-anchored reader reads as a
call (a name then an object: ``send_email {"to": …}``, ``send_email: {…}``, ``send_email``
then the object on the next line, ``send_email({…})``, a name in backticks or bold), as
list items or one tool per line, under an introduction that says these are the tools the
writer has ("Available tools:", "## Tools", "Here are my tools:", "I have 2 tools:"). No
call comes out of it, in ``repair()`` or in a stream. The counter-property: the same lines
under an introduction of the model's own ("Done:", "I'll do both now:") read as they read
with no introduction at all.
"""

from __future__ import annotations

import json

from call_names import names, streamed_names
from hostile import TOOLS
from hypothesis import given, settings
from hypothesis import strategies as st

#: Introductions that say what follows are the tools the writer has.
INTROS = (
    "I have access to the following tools:",
    "My available tools are:",
    "Available tools:",
    "Tools:",
    "## Tools",
    "**Available tools**",
    "Sure! Here are my tools:",
    "These are the tools I was given:",
    "Tools you can call:",
    "I have 2 tools:",
    "The following tools are available:",
    "I can help you with these tools:",
)
#: Introductions of the model's own calls.
OWN = ("Done:", "I'll do both now:", "Sending and noting:", "")
#: How a catalogue writes a tool's name and its argument object.
SHAPES = (
    "{name} {obj}",
    "{name}: {obj}",
    "`{name}` {obj}",
    "**{name}** {obj}",
    "{name}({obj})",
    "{name}\n   {obj}",
    "{name}: {desc}\n   {obj}",
    "`{name}`: {desc} Arguments: {obj}",
)
BULLETS = ("1.", "-", "*", "\u2022", "")
DESCRIPTIONS = {"send_email": "Sends a mail.", "note": "Takes a note."}


@st.composite
def entries(draw: st.DrawFn) -> list[str]:
    """One line (or two) per tool, in drawn order, each with a drawn argument value."""
    shape = draw(st.sampled_from(SHAPES))
    values = st.text(st.sampled_from("abcxyz@. _-"), min_size=1, max_size=12)
    names = draw(st.permutations(["send_email", "note"]))
    out = []
    for name in names:
        key = "to" if name == "send_email" else "text"
        obj = json.dumps({key: draw(values)})
        out.append(shape.format(name=name, obj=obj, desc=DESCRIPTIONS[name]))
    return out


def _listed(lines: list[str], bullet: str) -> str:
    if not bullet:
        return "\n".join(lines)
    marks = [f"{i + 1}." for i in range(len(lines))] if bullet == "1." else [bullet] * len(lines)
    return "\n".join(f"{m} {line}" for m, line in zip(marks, lines, strict=True))


def _text(intro: str, lines: list[str], bullet: str, gap: str) -> str:
    head = f"{intro}{gap}" if intro else ""
    return f"{head}{_listed(lines, bullet)}\n\nAsk me for any of these."


def _streamed(text: str) -> list[str]:
    return streamed_names(text, TOOLS, 9)


def _names(text: str) -> list[str]:
    return names(text, TOOLS)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(INTROS),
    entries(),
    st.sampled_from(BULLETS),
    st.sampled_from(["\n\n", "\n"]),
)
def test_a_catalogue_in_the_anchored_shapes_is_no_call(
    intro: str, lines: list[str], bullet: str, gap: str
) -> None:
    text = _text(intro, lines, bullet, gap)
    assert _names(text) == [], text
    assert _streamed(text) == [], text


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(OWN), entries(), st.sampled_from(BULLETS))
def test_the_same_lines_under_the_models_own_introduction_read_as_bare(
    intro: str, lines: list[str], bullet: str
) -> None:
    text = _text(intro, lines, bullet, "\n\n")
    assert _names(text) == _names(_text("", lines, bullet, "")), text


def test_the_call_shape_is_read_without_a_catalogue() -> None:
    # (so the catalogue property is not passed by a shape nothing reads)
    text = _text("Done:", ['send_email({"to": "x@y"})', 'note({"text": "hi"})'], "-", "\n\n")
    assert _names(text) == ["send_email", "note"]
