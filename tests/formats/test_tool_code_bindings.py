"""A ```tool_code``` fence that binds an offered tool's call to a name and prints the name.

Gemma's fence is Python, and a model may write the call as a statement that keeps its
result: ``summary = read_file(filename='notes.txt')`` then ``print(summary)`` (Gemma 3 4B in
the gemma-cookbook's document summarizer; Gemma 4 e2b writes ``tool_code = get_weather(...)``
then ``print(tool_code)``, waybarrios/vllm-mlx pull request 623). The binding is read
through only when the callee is an offered tool, and ``print(name)`` is skipped only for a
name bound so; anything else in the fence is code, and the fence yields no call.
"""

from __future__ import annotations

import keyword

from format_checks import FormatRunner
from hypothesis import given
from hypothesis import strategies as st

from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.gemma import GemmaFormat

FMT = GemmaFormat()
TOOLS = frozenset({"read_file", "get_weather", "web_search"})
CTX = ScanContext(tool_names=TOOLS)
FENCE = ("call_in_content", "code_fence", "pythonic")

run = FormatRunner(FMT, CTX, "gemma", ("name", "arguments", "payload", "kinds", "truncated"))

IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s) and s not in {"print", *TOOLS}
)
KEY = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s)
)
VALUE = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=20).filter(
        lambda s: "'" not in s and "\\" not in s
    ),
    st.integers(-(10**6), 10**6),
    st.booleans(),
)
ARGS = st.dictionaries(KEY, VALUE, max_size=3)


def _src(name: str, args: dict[str, object]) -> str:
    return name + "(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


def test_cookbook_shape_bound_then_printed() -> None:
    text = (
        "\nOkay, I will read the file.\n\n```tool_code\n"
        "summary = read_file(filename='notes.txt')\nprint(summary)\n```"
    )
    calls, rest = run(text)
    assert calls == [("read_file", {"filename": "notes.txt"}, None, FENCE, False)]
    assert "tool_code" not in rest


@given(var=IDENT, tool=st.sampled_from(sorted(TOOLS)), args=ARGS, show=st.booleans())
def test_binding_of_an_offered_tool_is_its_call(
    var: str, tool: str, args: dict[str, object], show: bool
) -> None:
    body = f"{var} = {_src(tool, args)}" + (f"\nprint({var})" if show else "")
    calls, rest = run(f"```tool_code\n{body}\n```")
    assert calls == [(tool, args, None, FENCE, False)]
    assert rest == ""


@given(
    var=IDENT,
    tool=st.sampled_from(sorted(TOOLS)),
    args=ARGS,
    other=st.sampled_from(sorted(TOOLS)),
    other_args=ARGS,
)
def test_binding_beside_a_plain_call(
    var: str, tool: str, args: dict[str, object], other: str, other_args: dict[str, object]
) -> None:
    body = f"{var} = {_src(tool, args)}\nprint({var})\n{_src(other, other_args)}"
    calls, _ = run(f"```tool_code\n{body}\n```")
    assert calls == [
        (tool, args, None, FENCE, False),
        (other, other_args, None, FENCE, False),
    ]


@given(var=IDENT, callee=IDENT, args=ARGS)
def test_binding_of_anything_else_is_code(var: str, callee: str, args: dict[str, object]) -> None:
    # the callee is no offered tool (a helper, a builtin): the fence is code, not calls
    body = f"{var} = {_src(callee, args)}\nprint({var})"
    assert run(f"```tool_code\n{body}\n```")[0] == []


@given(var=IDENT, tool=st.sampled_from(sorted(TOOLS)), args=ARGS)
def test_result_used_in_code_keeps_the_fence_out(
    var: str, tool: str, args: dict[str, object]
) -> None:
    # the bound result is computed with, not just shown: a program, never read as calls
    for tail in (f"print({var}['snippets'][0])", f"total = len({var})", f"print({var}, 2)"):
        body = f"{var} = {_src(tool, args)}\n{tail}"
        assert run(f"```tool_code\n{body}\n```")[0] == []


@given(var=IDENT, tool=st.sampled_from(sorted(TOOLS)), args=ARGS)
def test_printing_an_unbound_name_is_code(var: str, tool: str, args: dict[str, object]) -> None:
    body = f"{_src(tool, args)}\nprint({var})"
    assert run(f"```tool_code\n{body}\n```")[0] == []


def test_comparison_is_no_binding() -> None:
    assert run("```tool_code\nok == get_weather(city='Paris')\n```")[0] == []
    assert run("```tool_code\nx = 2 + 3\nprint(x)\n```")[0] == []
