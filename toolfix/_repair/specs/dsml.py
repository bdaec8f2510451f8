"""DeepSeek V3.2 / V4 / V4.1 DSML: invoke and parameter tags behind a ``｜DSML｜`` prefix.

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

V4 names the section ``tool_calls``; V4.1 writes a space after the prefix
(``<｜DSML｜ invoke name="f">``) and a zero-argument invoke self-closing. Engines and
web bridges print the prefix damaged in many ways (``｜｜DSML｜｜``, ASCII ``|DSML|``,
``DSML｜``, ``DSML``, `` | DSML | ``, ``｜｜``: see :func:`_markers`) or drop it
(Claude-style ``<function_calls><invoke name="f">``), and mix them in one call. A web
bridge may prompt the model for the same markup under a marker word of its own, and the
model then mixes the bridge's word with its trained one (:data:`BRIDGE_WORDS`).
``string="true"`` marks text, kept as written (white space included, as the engines
keep it); ``string="false"`` a JSON value. The body of an invoke may also be a JSON
object.
"""

from __future__ import annotations

from ..spec import FormatSpec, TaggedCalls, TagSyntax

#: The bar runs written around the word DSML: the tokenizer's full-width bar and the
#: ASCII one, single or doubled (engines and web bridges print the special token both
#: ways).
_BARS = ("｜", "｜｜", "|", "||")

#: Marker words web bridges prompt DeepSeek for in place of ``DSML``, written between
#: single bars of either width: ds2api's ``<|EPSE|tool_calls>`` (its prompt's format
#: spec, ``FormatToolCallsForPrompt``; its leak samples open with the trained
#: ``<｜｜DSML｜｜`` and go on in ``|EPSE|``).
BRIDGE_WORDS = ("EPSE",)


def _markers() -> tuple[str, ...]:
    """The damaged spellings of the ``｜DSML｜`` marker, from a few rules over the bar
    runs (each the corpora show): the bars on both sides (``｜DSML｜``); the opening bar
    dropped (``<DSML｜invoke``); no bar at all (``<DSMLinvoke``); blanks around the word
    and the bars (``< | DSML | invoke``); the word dropped between doubled full-width
    bars (``<｜｜invoke``, DeepSeek V4.1 Flash). Each may be followed by a space
    (V4.1's ``<｜DSML｜ invoke``). A bar run is one of :data:`_BARS` on both sides: the
    corpora show no mixed pair. A bridge's word (:data:`BRIDGE_WORDS`) is read between
    single bars only, the spelling its prompt asks for."""
    marks = [
        *(f"{b}DSML{b}" for b in _BARS),
        *(f"DSML{b}" for b in _BARS),
        "DSML",
        *(f" {b} DSML {b}" for b in _BARS),
        "｜｜",
        *(f"{b}{w}{b}" for w in BRIDGE_WORDS for b in ("｜", "|")),
    ]
    return (*marks, *(m + " " for m in marks if not m.endswith(" ")))


PREFIXES = (*_markers(), "")
_SECTIONS = ("function_calls", "tool_calls", "calls")

DSML = FormatSpec(
    name="dsml",
    models="DeepSeek V3.2, V4, V4.1",
    grammar=TaggedCalls(
        syntax=TagSyntax(prefixes=PREFIXES),
        call="invoke",
        param="parameter",
        typing="string_flag",
        strip_values=False,
    ),
    wrappers=tuple((f"<{p}{w}>", f"</{p}{w}>") for w in _SECTIONS for p in PREFIXES),
    priority=5,
    source=(
        "https://huggingface.co/deepseek-ai/DeepSeek-V3.2 (encoding/encoding_dsv32.py); "
        "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/function_call/"
        "deepseekv32_detector.py; https://github.com/vllm-project/vllm/blob/main/tests/"
        "tool_parsers/test_deepseekv4_tool_parser.py"
    ),
)
