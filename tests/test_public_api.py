"""The curated public surface: sorted, importable, and errors rooted at ToolfixError."""

from __future__ import annotations

import importlib

import pytest

import toolfix


@pytest.mark.parametrize("module", ["toolfix", "toolfix.testing", "toolfix.temporal"])
def test_all_is_sorted_and_importable(module: str) -> None:
    mod = importlib.import_module(module)
    names = list(mod.__all__)
    assert names == sorted(names)
    assert len(set(names)) == len(names)
    for name in names:
        assert getattr(mod, name) is not None


def test_every_public_exception_derives_from_toolfix_error() -> None:
    # StopLoop is a control-flow signal a user's hook raises (like StopIteration),
    # not an error toolfix reports.
    errors = [
        obj
        for name in toolfix.__all__
        if isinstance(obj := getattr(toolfix, name), type)
        and issubclass(obj, Exception)
        and obj is not toolfix.StopLoop
    ]
    assert len(errors) >= 15
    assert all(issubclass(e, toolfix.ToolfixError) for e in errors)


def test_errors_carry_raw_text_and_tool_name() -> None:
    err = toolfix.UnknownToolError("unknown tool 'x'", raw='{"name": "x"}', tool_name="x")
    assert (err.raw, err.tool_name, str(err)) == ('{"name": "x"}', "x", "unknown tool 'x'")
    assert isinstance(err, toolfix.ToolCallError)
