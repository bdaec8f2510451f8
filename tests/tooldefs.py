"""The tool definitions the tests share (import them rather than copying the dicts).

``openai_tool`` builds an OpenAI-style definition; ``WEATHER`` and ``SEARCH`` are the
two tools most tests repair against (``BASIC_TOOLS``; the ``tools`` fixture in
conftest.py gives the same list); ``WEATHER_CITY`` (``city`` only) and
``WEATHER_CITY_DAYS`` (``city``, ``days``) are the smaller ``get_weather`` of the CLI,
proxy, stream and loop tests; ``WRITE_FILE`` takes a path and a long content.
"""

from __future__ import annotations

from typing import Any


def openai_tool(
    name: str, properties: dict[str, Any], required: list[str], **extra: Any
) -> dict[str, Any]:
    """An OpenAI-style tool definition."""
    params: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    params.update(extra)
    return {"type": "function", "function": {"name": name, "description": "", "parameters": params}}


WEATHER = openai_tool(
    "get_weather",
    {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer"},
    },
    ["city"],
)
SEARCH = openai_tool(
    "search_web",
    {"query": {"type": "string"}, "strict": {"type": "boolean"}},
    ["query"],
    additionalProperties=False,
)
BASIC_TOOLS: list[dict[str, Any]] = [WEATHER, SEARCH]

WEATHER_CITY = openai_tool("get_weather", {"city": {"type": "string"}}, ["city"])
WEATHER_CITY_DAYS = openai_tool(
    "get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"]
)

WRITE_FILE = openai_tool(
    "write_file",
    {"path": {"type": "string"}, "content": {"type": "string"}},
    ["path"],
)
