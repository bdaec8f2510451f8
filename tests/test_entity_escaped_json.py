"""JSON written with its quotes as entities inside a string value is read through the
entities once, never by json-repair (coerce.py ``_entity_escaped``).

Seed-OSS 36B in LM Studio sent ``"tags": "[&quot;dark-mode&quot;, &quot;ui&quot;]"`` for an
array parameter (3615-computer/workunit-benchmarks); json-repair read the entities as text
and the call came back with ``['quot;dark-mode&quot;', ...]``: data the model did not
write. The same escaping in XML values is read by ``formats/tool_tags.py``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import repair

_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "create_project",
            "parameters": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["name", "tags"],
            },
        },
    }
]
_WORD = st.text(st.sampled_from("abcdefghij-_ 0123456789"), min_size=1, max_size=12)


def _native(arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"name": "create_project", "arguments": json.dumps(arguments)}
    return {"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": call}]}


@settings(max_examples=150, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=5), st.sampled_from([", ", ",", ",\n"]))
def test_an_entity_escaped_list_is_read_back_exactly(tags: list[str], sep: str) -> None:
    escaped = "[" + sep.join(json.dumps(t).replace('"', "&quot;") for t in tags) + "]"
    out = repair(_native({"name": "p", "tags": escaped}), _TOOLS)
    (call,) = out.tool_calls
    assert call.arguments == {"name": "p", "tags": tags}


@settings(max_examples=100, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=5), st.integers(min_value=1, max_value=40))
def test_no_admitted_value_keeps_a_piece_of_an_entity(tags: list[str], cut: int) -> None:
    escaped = "[" + ", ".join(json.dumps(t).replace('"', "&quot;") for t in tags) + "]"
    out = repair(_native({"name": "p", "tags": escaped[:cut]}), _TOOLS)
    for call in out.tool_calls:
        for tag in call.arguments["tags"]:
            assert tag in tags or tag == escaped[:cut]  # a drawn tag, or the text as written
