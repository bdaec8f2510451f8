"""The damaged-tag readings (tests/test_damaged_tags.py) take linear work: counted
operations over ``n`` and ``4n`` repetitions, never timing (op_count.py)."""

from __future__ import annotations

from op_count import assert_linear

from toolfix._config import Limits
from toolfix._repair.formats._base import ScanContext
from toolfix._repair.formats.qwen_xml import QwenXmlFormat
from toolfix._repair.scanner import SpecScanner
from toolfix._repair.specs.glm import GLM
from toolfix._repair.specs.minimax import MINIMAX, MINIMAX_M3

CTX = ScanContext(
    tool_names=frozenset({"f"}), limits=Limits(max_calls=10**6), sole_strings={"f": "a"}
)
M3 = "]<]minimax[>["


def test_misspelt_elements_take_linear_work() -> None:
    fmt = SpecScanner([MINIMAX])
    assert_linear(lambda n: fmt.extract('<invoke name="f"><paramete name="a">x' * n, CTX))
    one = '<invoke name="f"><paramete name="a">x</paramete></invoke>'
    assert_linear(lambda n: fmt.extract(one * n, CTX))


def test_glm_values_without_openers_take_linear_work() -> None:
    fmt = SpecScanner([GLM])
    one = "<tool_call>f<arg_key>a</arg_key>x</arg_value></tool_call>"
    assert_linear(lambda n: fmt.extract(one * n, CTX))
    assert_linear(
        lambda n: fmt.extract("<tool_call>f" + "<arg_key>a</arg_key>x</arg_value>" * n, CTX)
    )


def test_m3_elements_without_openers_take_linear_work() -> None:
    fmt = SpecScanner([MINIMAX_M3])
    one = f'{M3}<invoke name="f">{M3}x{M3}</a>{M3}</invoke>'
    assert_linear(lambda n: fmt.extract(one * n, CTX))
    no_key = f'{M3}<invoke name="f">{M3}x{M3}</invoke>'
    assert_linear(lambda n: fmt.extract(no_key * n, CTX))
    assert_linear(lambda n: fmt.extract(f'{M3}<invoke name="f">' + f"{M3}x{M3}</a>" * n, CTX))


def test_one_string_values_without_openers_take_linear_work() -> None:
    fmt = QwenXmlFormat()
    assert_linear(lambda n: fmt.extract("<function=f>x" * n, CTX))
    assert_linear(lambda n: fmt.extract("<function=f>x</parameter></function>" * n, CTX))


def test_closers_left_out_take_linear_work() -> None:
    fmt = SpecScanner([MINIMAX])
    for one in (
        '<invoke name="f"><parameter name="a">x</parameter>\n',  # closed by the next invoke
        '<invoke name="f"><parameter name="a">x</invoke>',  # the value closed by </invoke>
        '<invoke name="f"><parameter name="a">x</paramter></invoke>',  # a misspelt closer
        '<invoke name="f"><parameter name="a">x</b></invoke>',  # other end tags: text
    ):
        assert_linear(lambda n, one=one: fmt.extract(one * n, CTX))
    glm = SpecScanner([GLM])
    one = "<tool_call>f<arg_key>a</arg_key><arg_value>x</arg_value>\n"
    assert_linear(lambda n: glm.extract(one * n, CTX))
