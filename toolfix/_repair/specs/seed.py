"""ByteDance Seed / Doubao with attribute tags: function and parameter names written as
``name="..."`` attributes, DSML-style ``string`` flags, inside ``<seed:tool_call>``.

    <seed:tool_call>
      <function name="exec">
        <parameter name="command" string="true">ls -la</parameter>
      </function>
    </seed:tool_call>

The Seed-OSS chat template's own form (``<function=exec><parameter=command>``) is the
Qwen3-Coder markup and is read by that reader; this is the form users paste from
Doubao models behind agent clients (picoclaw #3153). ``string="true"`` marks text,
``string="false"`` a JSON value; an unflagged value is typed by the schema.
"""

from __future__ import annotations

from ..spec import FormatSpec, TaggedCalls

SEED_ATTRS = FormatSpec(
    name="seed_attrs",
    models="Seed-OSS / Doubao (attribute tags)",
    grammar=TaggedCalls(call="function", param="parameter", typing="string_flag"),
    wrappers=(("<seed:tool_call>", "</seed:tool_call>"),),
    priority=14,
    source="https://github.com/sipeed/picoclaw/issues/3153 (model output pasted by a user)",
)
