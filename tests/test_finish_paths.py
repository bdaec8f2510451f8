"""The finisher's plain path (``CallFinisher.finish`` for a call found in text with an
exact name, not cut off) gives the very part its general path (``_finish``) gives; the
interpreter's plain payloads (well-formed call objects, read without their shapes) give
what its general path gives."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from toolfix._config import FixConfig
from toolfix._repair.finish import CallFinisher, CallShape, CallSite
from toolfix._repair.formats._base import make_candidate
from toolfix._tools import ToolDescriptor, ToolRegistry

_TOOLS = ToolRegistry(
    [
        ToolDescriptor(
            "get_weather",
            parameters={
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "unit": {"enum": ["Celsius", "Fahrenheit"]},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        ),
        ToolDescriptor("ping"),
    ]
)

_TEXT = "before <call> after"


def _state(part: Any) -> tuple[Any, ...]:
    return (type(part), part.model_dump(), part.model_fields_set, repr(part))


_ARGUMENTS: list[Any] = [
    {"city": "Paris"},
    {"city": "Paris", "days": "3", "unit": "celsius"},
    {"city": "Paris", "extra": 1},
    {"days": 2},
    {},
    '{"city": "Paris", "days": 2}',
    "{'city': 'Paris', days: 2,}",
    '{"city": "Paris", "days": "2"}',
    '{"city": "Par',
    '"{\\"city\\": \\"Paris\\"}"',
    "[1, 2]",
    "not json at all",
    "  ",
    None,
    42,
    {"city": "P" * 70_000},  # a part longer than an id hashes whole (derive_id's ends)
    '{"city": "' + "é" * 40_000 + '"}',
]


@pytest.mark.parametrize("arguments", _ARGUMENTS)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"payload": "{}"},
        {"string_values": True},
        {"call_id": "call_given"},
        {"where": ("call_in_content", "code_fence")},
    ],
)
@pytest.mark.parametrize("open_ended", [False, True])
@pytest.mark.parametrize("name", ["get_weather", "ping", "getWeather", "get_wether", "", None])
@pytest.mark.parametrize("coerce", [True, False])
def test_plain_path_gives_what_the_general_path_gives(
    arguments: Any, options: dict[str, Any], open_ended: bool, name: str | None, coerce: bool
) -> None:
    finisher = CallFinisher(_TOOLS, FixConfig(coerce_arguments=coerce))
    cand = make_candidate(_TEXT, 7, 13, "test", name=name, arguments=None, **options)
    if open_ended:
        cand = dataclasses.replace(cand, open_ended=True)
    site = CallSite("seed", 1, cand.kinds, True, False)

    def shape() -> CallShape:
        return CallShape(name, arguments, cand.id, [], True)

    plain = finisher.finish(shape(), cand, site)
    general = finisher._finish(shape(), cand, site, finisher.resolve(name or ""), None)
    assert _state(plain) == _state(general)
