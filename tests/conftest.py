"""Shared test fixtures: a small tool set, and a session-wide network guard.

The guard refuses every socket connection that does not go to the loopback
interface (or a Unix socket), so no test can reach the network by accident.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from tooldefs import BASIC_TOOLS, SEARCH, WEATHER, openai_tool

__all__ = ["BASIC_TOOLS", "SEARCH", "WEATHER", "openai_tool"]  # (older tests import them from here)


def pytest_configure(config: pytest.Config) -> None:
    """The pydantic-ai extra (``pydantic-ai-slim`` 2.68+, whose capabilities the adapter
    uses) needs Python 3.11: on 3.10 it cannot be installed, so neither the adapter's
    module (collected for its docstring examples) nor its tests are collected there. Not
    a skip (CI turns every skip into a failure): there is nothing to run."""
    if sys.version_info < (3, 11):
        root = Path(__file__).resolve().parent.parent
        config.option.ignore = [
            *(config.option.ignore or []),
            str(root / "toolfix" / "integrations" / "pydantic_ai.py"),
            str(root / "tests" / "test_integration_pydantic_ai.py"),
        ]


_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def _is_loopback(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and other non-IP families
    host = address[0]
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class NetworkBlockedError(RuntimeError):
    """A test tried to open a non-loopback connection."""


@pytest.fixture(autouse=True)
def _pinned_ids() -> Iterator[None]:
    """Ids as a function of the input in every test (tests compare two repairs);
    tests/test_call_ids.py unpins them to test fresh ids."""
    from toolfix.testing import pinned_ids

    with pinned_ids(0):
        yield


@pytest.fixture(autouse=True, scope="session")
def _block_network() -> Iterator[None]:
    """Refuse non-loopback connections for the whole session."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: Any) -> None:
        if not _is_loopback(address):
            raise NetworkBlockedError(f"network access blocked in tests: {address!r}")
        original_connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        if not _is_loopback(address):
            raise NetworkBlockedError(f"network access blocked in tests: {address!r}")
        return original_connect_ex(self, address)

    socket.socket.connect = guarded_connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]


@pytest.fixture
def tools() -> list[dict[str, Any]]:
    """``get_weather(city, unit?, days?)`` and ``search_web(query, strict?)`` (closed schema)."""
    return [WEATHER, SEARCH]


# ---- no silent skips in CI -------------------------------------------------------------
# An integration test may skip locally with a stated reason (a missing optional binary
# or extra), never when CI=true: there every skip is turned into a failure.

_IN_CI = __import__("os").environ.get("CI", "").lower() == "true"

# In CI, property tests draw the same examples every run (derandomize): a landing never
# fails on a newly drawn example; local runs keep exploring with fresh random examples.
settings.register_profile("ci", derandomize=True, print_blob=True)
if _IN_CI:
    settings.load_profile("ci")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if _IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true (not allowed): {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if _IN_CI and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"module skipped under CI=true (not allowed): {report.longrepr}"
