"""An assistant message record in a code fence is a record shown, as it is unfenced.

Documentation quotes an API's parsed response, ``{"role": "assistant", "tool_calls":
[...]}``, to show what a parser returns (the "recorded" class of
``toolfix/_repair/narration.py``; the Athena proxy's provider-formats spec writes it
under "**Parsed:**" in a ```` ```json ```` fence, h9cn's
``fresh9cn-athena-provider-formats-kimi-example-heading-raw-response-parsed``). A call
read from a fenced block starts at the fence's opener; the record's span is read from
the first character of the block's body (``textscan._Quotes.holds``), so the fenced
record is text like the bare one (rule G2, promise 3). A fenced call that is no
record is still a call.
"""

from __future__ import annotations

import json

from call_names import names, streamed_names
from hostile import TOOLS
from hypothesis import given, settings
from hypothesis import strategies as st

#: Values drawn for the call's one argument (printable, JSON-escaped when written).
VALUES = st.text(
    st.characters(min_codepoint=32, max_codepoint=0x2FFF, exclude_characters="`"),
    min_size=1,
    max_size=24,
)
FENCES = ("```json\n", "```\n", "~~~json\n")
AROUND = (("", ""), ("**Parsed:**\n", "\n\nThe parser returns this."), ("Done.\n\n", ""))


def _record(value: str) -> str:
    arguments = json.dumps({"to": value})
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "send_email", "arguments": arguments},
    }
    return json.dumps({"role": "assistant", "tool_calls": [call]}, ensure_ascii=False, indent=2)


def _fenced(body: str, fence: str, around: tuple[str, str]) -> str:
    return f"{around[0]}{fence}{body}\n{fence[:3]}{around[1]}"


@settings(max_examples=150, deadline=None)
@given(VALUES, st.sampled_from(FENCES), st.sampled_from(AROUND))
def test_a_fenced_assistant_record_is_no_call(
    value: str, fence: str, around: tuple[str, str]
) -> None:
    text = _fenced(_record(value), fence, around)
    assert names(text, TOOLS) == [], text
    assert streamed_names(text, TOOLS, 9) == [], text


@settings(max_examples=150, deadline=None)
@given(VALUES, st.sampled_from(FENCES))
def test_a_fenced_call_that_is_no_record_is_a_call(value: str, fence: str) -> None:
    body = json.dumps({"name": "send_email", "arguments": {"to": value}}, ensure_ascii=False)
    text = _fenced(body, fence, ("", ""))
    assert names(text, TOOLS) == ["send_email"], text
