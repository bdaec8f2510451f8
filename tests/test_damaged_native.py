"""Damaged model-native markup read back exactly (issue 28, class "damaged native markup").

Each class names the damage, the family and its public sources (in the reader's module):

* Cline/Roo XML values escaped as XML text (``2&gt;/dev/null``): read unescaped
  (``formats/tool_tags.py``); a value that also holds a raw ``<``/``>`` or a bare ``&``
  is kept as written.
* element-per-argument text inside lists (``<mode>null</mode>`` in a ``<suggestion>``)
  typed by the schema like a top-level value (``coerce.py``).
* a harmony recipient without its ``functions.`` namespace (``to=read_file``), only for
  an offered, undotted name followed by the header's ``<|message|>``
  (``formats/harmony.py``).
* a Gemma 4 string whose opening ``<|"|>`` was left out or mistyped
  (``query:Paris, France<|"|>``) (``formats/gemma.py``).

Each comes with "prose that mentions it is not a call" and a hypothesis generator of the
values.
"""

from __future__ import annotations

import html
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import ManualToolCallFixProcessor, ToolRegistry
from toolfix._convert import response_from_openai

FIXER = ManualToolCallFixProcessor()


def _tool(name: str, **props: Any) -> dict[str, Any]:
    return openai_tool(name, props, [next(iter(props))])


TOOLS = ToolRegistry.from_openai(
    [
        _tool("execute_command", command={"type": "string"}),
        _tool("write_to_file", path={"type": "string"}, content={"type": "string"}),
        _tool(
            "ask_followup_question",
            question={"type": "string"},
            follow_up={
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string"},
                        "mode": {"type": ["string", "null"]},
                    },
                },
            },
            note={"type": "string"},
        ),
        _tool("read_file", path={"type": "string"}, limit={"type": "integer"}),
        _tool("search", query={"type": "string"}, limit={"type": "integer"}),
    ]
)


def calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = FIXER.fix(response_from_openai({"role": "assistant", "content": text}), TOOLS)
    return [(c.name, dict(c.arguments or {})) for c in out.tool_calls]


def records(text: str) -> list[str]:
    """The repair records' details of the one call ``text`` gives."""
    out = FIXER.fix(response_from_openai({"role": "assistant", "content": text}), TOOLS)
    (call,) = out.tool_calls
    return [r.detail for r in call.repairs]


#: text a value may hold: printable, with the characters each markup escapes or ends on
_TEXT = (
    st.text(
        alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
        | st.sampled_from("<>&\"' \n"),
        min_size=1,
        max_size=40,
    )
    .map(str.strip)
    .filter(bool)
)


# ---- Cline/Roo XML: values escaped as XML text ------------------------------------------


def test_an_escaped_command_is_read_unescaped() -> None:
    text = (
        "<execute_command>\n  <command>cat ci.yml 2&gt;/dev/null || echo &quot;none&quot; "
        "&amp;&amp; ls</command>\n</execute_command>"
    )
    assert calls(text) == [
        ("execute_command", {"command": 'cat ci.yml 2>/dev/null || echo "none" && ls'})
    ]
    assert any("escaped as XML text" in d for d in records(text))
    plain = "<execute_command><command>ls</command></execute_command>"
    assert not any("escaped as XML text" in d for d in records(plain))


@given(value=_TEXT, quote=st.booleans())
@settings(max_examples=300, deadline=None)
def test_an_xml_escaped_value_is_read_back_exactly(value: str, quote: bool) -> None:
    escaped = html.escape(value, quote=quote)
    text = f"<execute_command>\n<command>{escaped}</command>\n</execute_command>"
    assert calls(text) == [("execute_command", {"command": value})]


def test_a_value_not_escaped_throughout_is_kept_as_written() -> None:
    for content in ("x &lt; y > z", "a & b &lt; c", "AT&amp;T & co", "&lt;b&gt; is &nbsp;"):
        text = f"<write_to_file><path>a.md</path><content>{content}</content></write_to_file>"
        assert calls(text) == [("write_to_file", {"path": "a.md", "content": content})], content


def test_entities_are_decoded_once() -> None:
    text = "<execute_command><command>echo &amp;lt;b&amp;gt;</command></execute_command>"
    assert calls(text) == [("execute_command", {"command": "echo &lt;b&gt;"})]


def test_prose_with_escaped_markup_is_no_call() -> None:
    text = (
        "Roo writes &lt;execute_command&gt;&lt;command&gt;ls&lt;/command&gt;"
        "&lt;/execute_command&gt;."
    )
    assert calls(text) == []


# ---- element text inside lists, typed by the schema -------------------------------------


def test_null_inside_a_list_item_is_null_where_the_schema_allows_it() -> None:
    text = (
        "<ask_followup_question>\n<question>Which?</question>\n<follow_up>\n"
        "<suggestion>\n<text>Linux</text>\n<mode>null</mode>\n</suggestion>\n"
        "<suggestion>\n<text>Both</text>\n<mode>code</mode>\n</suggestion>\n"
        "</follow_up>\n<note>null</note>\n</ask_followup_question>"
    )
    assert calls(text) == [
        (
            "ask_followup_question",
            {
                "question": "Which?",
                "follow_up": [{"text": "Linux", "mode": None}, {"text": "Both", "mode": "code"}],
                "note": "null",  # a string-only parameter keeps the text
            },
        )
    ]


# ---- harmony: a recipient without its functions. namespace ------------------------------


def _harmony(recipient: str, args: dict[str, Any]) -> str:
    return (
        "<|channel|>analysis<|message|>Let's read it.<|end|><|start|>assistant"
        f"<|channel|>commentary to={recipient} <|constrain|>json<|message|>"
        f"{json.dumps(args, ensure_ascii=False)}<|call|>"
    )


@given(path=_TEXT, limit=st.integers(min_value=0, max_value=10**6))
@settings(max_examples=100, deadline=None)
def test_a_bare_recipient_reads_the_call(path: str, limit: int) -> None:
    args = {"path": path, "limit": limit}
    assert calls(_harmony("read_file", args)) == [("read_file", args)]
    assert calls(_harmony("functions.read_file", args)) == [("read_file", args)]
    assert any("without its functions." in d for d in records(_harmony("read_file", args)))
    assert not any("without its" in d for d in records(_harmony("functions.read_file", args)))


def test_a_bare_recipient_is_only_an_offered_undotted_name_before_a_message() -> None:
    args = {"query": "x"}
    assert calls(_harmony("lookup", args)) == []  # not offered
    assert calls(_harmony("browser.search", args)) == []  # a built-in recipient
    # prose: no header token follows the recipient
    assert calls('Send it to=read_file {"path": "a"} and the <|message|> token.') == []
    assert calls("The recipient to=read_file then <|message|>") == []


# ---- Gemma 4: a string whose opening delimiter was left out -------------------------------

_Q = '<|"|>'


@given(value=_TEXT.filter(lambda v: not (set(v) & set(':{}[]<"') or v.startswith("'"))))
@settings(max_examples=300, deadline=None)
def test_a_string_without_its_opener_is_read_up_to_its_closer(value: str) -> None:
    text = f"<|tool_call>call:search{{query:{value}{_Q},limit:5}}<tool_call|>"
    assert calls(text) == [("search", {"query": value, "limit": 5})]


def test_the_sources_shapes() -> None:
    # sglang#39240 (opener left out, a comma inside), ollama#15315 (opened with ')
    assert calls(f"<|tool_call>call:search{{query:Paris, France{_Q},limit:5}}<tool_call|>") == [
        ("search", {"query": "Paris, France", "limit": 5})
    ]
    assert calls(f"call:search{{query:':\\s*\\w+'{_Q}}}") == [("search", {"query": "':\\s*\\w+'"})]
    assert any(
        "opening delimiter was left out" in d for d in records(f"call:search{{query:x{_Q}}}")
    )
    whole = f"call:search{{query:{_Q}x{_Q}}}"
    assert not any("opening delimiter" in d for d in records(whole))


def test_a_lone_closer_never_takes_the_next_key() -> None:
    # the delimiter after b's value opens nothing: a's value stops at its comma
    assert calls(f"call:search{{limit:5,query:x{_Q}}}") == [("search", {"limit": 5, "query": "x"})]
    assert calls(f"call:search{{limit:5,query:{_Q}x, y{_Q}}}") == [
        ("search", {"limit": 5, "query": "x, y"})
    ]
