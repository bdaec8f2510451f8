"""A message that is a tool's name on a line of its own, then one line: its argument.

qwen3.6 through vmlx answered a bash tool with ``bash\\necho "Tool test successful!"``
(jjang-ai/vmlx issue 192), and qwen3.5 in hermes-agent with ``bash\\necho X``
(NousResearch/hermes-agent issue 66452, where the offered tool was ``terminal``: a
name with other letters, so no call, promise 4). The name is a label, the line after it
the value of the tool's one required parameter.

Read only when nothing else can be meant:

* the message is exactly two lines: the name, written as the tool declares it (no
  other case, no punctuation), and a value line;
* the tool requires exactly one parameter and its schema type is ``string``; the value
  is that line as written (blanks around it set aside), never empty, and not the start
  of another construct (``{``, ``[``, ``<``, a fence, a parameter's ``key:`` or
  ``key=``) that other readers judge.

Prose that starts with a word equal to a tool's name has more after the word on its
first line, or more lines, and stays text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._tools import ToolRegistry

__all__ = ["name_line_value"]

_OTHER_CONSTRUCTS = ("{", "[", "<", "`", "~~~")


def name_line_value(
    text: str, start: int, end: int, name: str, registry: ToolRegistry
) -> dict[str, Any] | None:
    """The arguments of the call ``text`` is, when it is the tool ``name`` written at
    ``text[start:end]`` on its own first line and then one line holding its one
    required string parameter (see the module); ``None`` otherwise."""
    if text[:start].strip() or text[start:end] != name or not text.startswith("\n", end):
        return None
    value = text[end + 1 :].strip()
    if not value or "\n" in value or value.startswith(_OTHER_CONSTRUCTS):
        return None
    tool = registry.lookup(name)
    if tool is None or len(tool.required) != 1:
        return None
    (param,) = tool.required
    schema = tool.properties.get(param)
    if not isinstance(schema, Mapping) or schema.get("type") != "string":
        return None
    head = value.split(None, 1)[0] if value else ""
    if any(head.startswith(p) and head[len(p) : len(p) + 1] in (":", "=") for p in tool.properties):
        return None  # (``command: ...``: a key and its value, not a bare value)
    return {param: value}
