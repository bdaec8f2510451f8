"""Atheris fuzz harness for the manual fixer (not run in CI).

Two targets share one entry point, chosen by the first input byte:

* text: ``repair(text, TOOLS)`` on arbitrary text, often wrapped in one of the
  native markups so the fuzzer reaches the format parsers;
* native: a native tool call whose ``function.arguments`` string is the input.

The only exception allowed to escape is :class:`toolfix.ToolfixError`. Every
result is also checked against the promises: calls name registry tools and
validate; invalid calls carry raw text and a reason.

Run (atheris needs ``pip install atheris``; the corpus directory must exist)::

    mkdir -p /tmp/toolfix-fuzz
    python benchmarks/fuzz/fuzz_manual.py -max_total_time=300 -max_len=4096 \
        -len_control=0 -timeout=10 -artifact_prefix=/tmp/toolfix-fuzz/ /tmp/toolfix-fuzz

Results so far (atheris 3.0, Python 3.11): ~271k inputs in 11 minutes; one finding, a
harness false positive (a native call with empty name *and* empty arguments is
reported invalid with ``raw=""``: there was no text to keep), now allowed here and
pinned by ``tests/test_manual_fixer.py::test_native_call_without_name_or_arguments_is_invalid``.
"""

from __future__ import annotations

import sys

import atheris  # type: ignore[import-untyped]

with atheris.instrument_imports():
    from toolfix import ToolfixError, ToolRegistry, repair

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer"},
                    "loc": {"$ref": "#/$defs/Loc"},
                    "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                },
                "required": ["city"],
                "$defs": {
                    "Loc": {
                        "type": "object",
                        "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                    }
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_web",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "pattern": "^[a-z ]*$"},
                    "strict": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    },
]
REGISTRY = ToolRegistry.of(TOOLS)
WRAPPERS = (
    "{}",
    "<tool_call>{}</tool_call>",
    "<tool_call>\n{}",
    "[TOOL_CALLS]{}",
    "<|python_tag|>{}",
    "```json\n{}\n```",
    "<think>{}</think>{}",
    "<function=get_weather>\n<parameter=city>\n{}\n</parameter>\n</function>",
    "[get_weather({})]",
    "<|tool_calls_section_begin|>{}",
    "<|channel|>commentary to=functions.get_weather <|message|>{}<|call|>",
)


def _check(value: object, *, empty_raw_ok: bool = False) -> None:
    try:
        out = repair(value, REGISTRY)  # type: ignore[arg-type]
    except ToolfixError:
        return
    for c in out.tool_calls:
        if c.provider_executed:
            continue
        if c.name not in REGISTRY:
            raise AssertionError(f"call to a tool outside the registry: {c.name!r}")
        if c.arguments is None or not REGISTRY[c.name].is_valid(c.arguments):
            raise AssertionError(f"invalid arguments passed as a valid call: {c!r}")
    for bad in out.invalid_tool_calls:
        if not bad.error or (not bad.raw and not empty_raw_ok):
            raise AssertionError(f"invalid call without raw text or reason: {bad!r}")


def test_one_input(data: bytes) -> None:
    """One fuzz iteration."""
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, 2)
    if mode == 0:
        _check(fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes()))
    elif mode == 1:
        wrapper = WRAPPERS[fdp.ConsumeIntInRange(0, len(WRAPPERS) - 1)]
        body = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
        _check(wrapper.replace("{}", body))
    else:
        name = ("get_weather", "search_web", "getWeather", "", "nope")[fdp.ConsumeIntInRange(0, 4)]
        raw = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
        _check(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "f1", "type": "function", "function": {"name": name, "arguments": raw}}
                ],
            },
            empty_raw_ok=not raw,  # the model sent no arguments at all: nothing to keep
        )


def main() -> None:
    """Start atheris with the command-line arguments (libFuzzer flags)."""
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
