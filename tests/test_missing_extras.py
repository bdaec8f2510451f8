"""Every optional part names the extra to install when its package is missing.

Each check runs in a fresh interpreter where the package is made unimportable
(``sys.modules[name] = None`` makes ``import name`` raise ImportError), so the
modules under test are imported for the first time with the package absent.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def _run(missing: str, code: str) -> subprocess.CompletedProcess[str]:
    script = f"import sys\nsys.modules[{missing!r}] = None\n" + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )


def test_temporal_without_temporalio() -> None:
    out = _run(
        "temporalio",
        """
        try:
            import toolfix.temporal
        except ImportError as exc:
            print(type(exc).__name__, exc)
        else:
            print("imported")
        """,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        'ImportError toolfix.temporal needs temporalio: pip install "toolfix[temporal]"'
    )


def test_the_core_imports_without_any_extra() -> None:
    out = _run(
        "temporalio",
        """
        for name in ("typer", "rich", "matplotlib", "litellm"):
            sys.modules[name] = None
        import toolfix
        print(toolfix.repair('{"name": "f", "arguments": {}}', [{"name": "f"}]).tool_calls[0].name)
        """,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "f"


def test_litellm_executor_without_litellm() -> None:
    out = _run(
        "litellm",
        """
        import asyncio
        from toolfix.errors import ConfigurationError
        from toolfix import LiteLLMExecutor, Prompt
        try:
            asyncio.run(LiteLLMExecutor().execute(Prompt.of("hi"), "openai/x"))
        except ConfigurationError as exc:
            print(exc)
        """,
    )
    assert out.returncode == 0, out.stderr
    assert 'pip install "toolfix[litellm]"' in out.stdout


@pytest.mark.parametrize(("missing", "extra"), [("typer", "cli"), ("rich", "bench")])
def test_command_line_without_its_extra(missing: str, extra: str) -> None:
    out = _run(
        missing,
        """
        sys.argv = ["toolfix", "bench", "--no-png"]
        from toolfix._cli import main
        main()
        """,
    )
    assert out.returncode != 0
    assert f'pip install "toolfix[{extra}]"' in out.stderr


@pytest.mark.parametrize(
    ("missing", "module", "extra"),
    [
        ("pydantic_ai", "toolfix.integrations.pydantic_ai", "pydantic-ai"),
        ("langchain", "toolfix.integrations.langchain", "langchain"),
        ("langchain_core", "toolfix.integrations.langchain", "langchain"),
        ("agents", "toolfix.integrations.openai_agents", "openai-agents"),
    ],
)
def test_integration_without_its_framework(missing: str, module: str, extra: str) -> None:
    out = _run(
        missing,
        f"""
        import toolfix.integrations
        try:
            import {module}
        except ImportError as exc:
            print(type(exc).__name__, exc)
        else:
            print("imported")
        """,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("ImportError ")
    assert f'pip install "toolfix[{extra}]"' in out.stdout


@pytest.mark.parametrize("missing", ["uvicorn", "starlette", "litellm"])
def test_serve_without_the_proxy_extra(missing: str) -> None:
    """One line naming the extra, exit code 2, no traceback."""
    out = _run(
        missing,
        """
        sys.argv = ["toolfix", "serve", "--upstream", "http://127.0.0.1:9/v1"]
        from toolfix._cli import main
        main()
        """,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == (
        'toolfix serve: needs the proxy extra: pip install "toolfix[proxy]"'
    )
    assert out.stdout == ""
