"""Tag attributes written between typographic quotes (issue 28, ``quotes.py``).

The class: a tagged family's call whose attribute values are quoted ``“…”`` or ``‘…’``
instead of ASCII quotes, as a chat client or the model writes them:

- ``<｜｜DSML｜｜invoke name=“get_pages”>`` with ``<｜｜DSML｜｜parameter name=“pages”
  string=“true”>`` (syt2/paper-chat-for-zotero issue 28, in verbatim_anchored);
- MiniMax's ``<parameter name=“file_glob”>`` (EKKOLearnAI/hermes-studio issue 942, in
  verbatim_threads).

A value opened by a typographic quote ends at its own closer; the call is read exactly
as the same call with ASCII quotes, and a tag that only mentions the syntax is no more a
call than it is with ASCII quotes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tooldefs import openai_tool

from toolfix import repair

_TOOL = openai_tool("get_pages", {"pages": {"type": "string"}, "n": {"type": "integer"}}, ["pages"])

#: Values with no markup and no quote of any kind in them, not blank.
_VALUES = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc"),
        blacklist_characters="<>&\"'\u201c\u201d\u2018\u2019｜|",
    ),
    min_size=1,
    max_size=30,
).filter(lambda v: v.strip() == v and "..." not in v and "…" not in v)

_PAIRS = [("\u201c", "\u201d"), ("\u2018", "\u2019"), ('"', '"')]


def _parts(text: str) -> list[tuple[str, str | None, dict[str, Any] | None]]:
    out = repair({"role": "assistant", "content": text}, [_TOOL])
    return [(p.type, getattr(p, "name", None), getattr(p, "arguments", None)) for p in out.parts]


def _dsml(bars: str, q: tuple[str, str], r: tuple[str, str], value: str, n: int) -> str:
    p = f"{bars}DSML{bars}"
    return (
        f"<{p}tool_calls>\n<{p}invoke name={q[0]}get_pages{q[1]}>\n"
        f"<{p}parameter name={r[0]}pages{r[1]} string={r[0]}true{r[1]}>{value}</{p}parameter>\n"
        f"<{p}parameter name={q[0]}n{q[1]} string={q[0]}false{q[1]}>{n}</{p}parameter>\n"
        f"</{p}invoke>\n</{p}tool_calls>"
    )


def _minimax(q: tuple[str, str], r: tuple[str, str], value: str, n: int) -> str:
    return (
        f"<minimax:tool_call>\n<invoke name={q[0]}get_pages{q[1]}>\n"
        f"<parameter name={r[0]}pages{r[1]}>{value}</parameter>\n"
        f"<parameter name={q[0]}n{q[1]}>{n}</parameter>\n</invoke>\n</minimax:tool_call>"
    )


def test_the_zotero_call_is_read() -> None:
    text = (
        "<｜｜DSML｜｜tool_calls>\n<｜｜DSML｜｜invoke name=“get_pages”>\n"
        "<｜｜DSML｜｜parameter name=“pages” string=“true”>3-5</｜｜DSML｜｜parameter>\n"
        "</｜｜DSML｜｜invoke>\n</｜｜DSML｜｜tool_calls>"
    )
    assert _parts(text) == [("tool_call", "get_pages", {"pages": "3-5"})]


@settings(max_examples=60, deadline=None)
@given(
    value=_VALUES,
    n=st.integers(0, 10**6),
    q=st.sampled_from(_PAIRS),
    r=st.sampled_from(_PAIRS),
    bars=st.sampled_from(["｜", "｜｜"]),
    family=st.sampled_from(["dsml", "minimax"]),
)
def test_a_call_quoted_typographically_is_read_back_exactly(
    value: str, n: int, q: tuple[str, str], r: tuple[str, str], bars: str, family: str
) -> None:
    text = _dsml(bars, q, r, value, n) if family == "dsml" else _minimax(q, r, value, n)
    assert _parts(text) == [("tool_call", "get_pages", {"pages": value, "n": n})]


@settings(max_examples=40, deadline=None)
@given(q=st.sampled_from(_PAIRS), lead=st.sampled_from(["Use ", "The tag ", "Write "]))
def test_a_mentioned_tag_is_no_more_a_call_than_with_ascii_quotes(
    q: tuple[str, str], lead: str
) -> None:
    """Prose that mentions the tag: the same parts whichever quotes it is written with,
    and never a valid call."""
    mention = f"{lead}`<invoke name={q[0]}get_pages{q[1]}>` to read pages."
    ascii_mention = f'{lead}`<invoke name="get_pages">` to read pages.'
    got = _parts(mention)
    assert got == _parts(ascii_mention)
    assert all(kind != "tool_call" for kind, _, _ in got)


def test_a_typographic_value_ends_at_its_own_closer() -> None:
    """``‘…’`` inside a ``“…”`` value is data of that value, not its end."""
    text = _minimax(("\u201c", "\u201d"), ("\u201c", "\u201d"), "it’s ‘3’", 2)
    assert _parts(text) == [("tool_call", "get_pages", {"pages": "it’s ‘3’", "n": 2})]
