"""The public surface: a small front door, documented public submodules, every name
importable and defined where the docs say, errors rooted at ToolfixError, one naming
rule for sync and async twins."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import toolfix
import toolfix.errors
import toolfix.loop

ROOT = Path(__file__).resolve().parent.parent
PUBLIC_MODULES = [
    "toolfix",
    "toolfix.config",
    "toolfix.convert",
    "toolfix.errors",
    "toolfix.formats",
    "toolfix.loop",
    "toolfix.messages",
    "toolfix.processors",
    "toolfix.streams",
    "toolfix.temporal",
    "toolfix.testing",
    "toolfix.tools",
]
INTEGRATIONS = [
    "toolfix.integrations.langchain",
    "toolfix.integrations.litellm_proxy",
    "toolfix.integrations.openai_agents",
    "toolfix.integrations.pydantic_ai",
]


def test_the_front_door_is_small() -> None:
    assert len(toolfix.__all__) <= 30
    for name in ("repair", "repair_async", "repair_stream", "repair_stream_async", "Response"):
        assert name in toolfix.__all__


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_all_is_sorted_and_importable(module: str) -> None:
    mod = importlib.import_module(module)
    names = list(mod.__all__)
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions, each sorted
    assert names == sorted(names, key=lambda n: (not n.isupper(), not n[:1].isupper(), n))
    assert len(set(names)) == len(names)
    assert mod.__doc__
    for name in names:
        assert hasattr(mod, name), name


@pytest.mark.parametrize("module", PUBLIC_MODULES + INTEGRATIONS)
def test_every_public_module_is_in_the_api_reference(module: str) -> None:
    assert f"`{module}`" in (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def test_each_name_has_one_public_home_besides_the_front_door() -> None:
    homes: dict[str, list[str]] = {}
    for module in PUBLIC_MODULES[1:]:
        for name in importlib.import_module(module).__all__:
            homes.setdefault(name, []).append(module)
    shared = {n: m for n, m in homes.items() if len(m) > 1}
    assert shared == {}


def test_no_a_prefixed_async_twin_in_the_core_surface() -> None:
    """Twins are named by a suffix: ``x`` / ``x_async``, ``x`` / ``x_sync``."""
    for module in PUBLIC_MODULES:
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.iscoroutinefunction(obj) or inspect.isasyncgenfunction(obj):
                assert not re.match(r"a[a-z]", name) or name.endswith("_async"), name
            if name.endswith("_async"):
                assert name.removesuffix("_async") in mod.__all__, name
            if name.endswith("_sync"):
                assert name.removesuffix("_sync") in mod.__all__, name


def test_deprecated_aliases_are_gone() -> None:
    from toolfix.processors import ResponseProcessor

    for name in ("arepair", "arepair_stream"):
        assert not hasattr(toolfix, name)
    assert not hasattr(ResponseProcessor, "wrap")
    with pytest.raises(ImportError):
        importlib.import_module("toolfix._llm.compat")


def test_every_public_exception_derives_from_toolfix_error() -> None:
    # StopLoop is a control-flow signal a user's hook raises (like StopIteration),
    # not an error toolfix reports.
    errors = [
        obj
        for name in toolfix.errors.__all__
        if isinstance(obj := getattr(toolfix.errors, name), type)
        and issubclass(obj, Exception)
        and obj is not toolfix.loop.StopLoop
    ]
    assert len(errors) >= 15
    assert all(issubclass(e, toolfix.ToolfixError) for e in errors)


def test_errors_carry_raw_text_and_tool_name() -> None:
    err = toolfix.errors.UnknownToolError("unknown tool 'x'", raw='{"name": "x"}', tool_name="x")
    assert (err.raw, err.tool_name, str(err)) == ('{"name": "x"}', "x", "unknown tool 'x'")
    assert isinstance(err, toolfix.errors.ToolCallError)
