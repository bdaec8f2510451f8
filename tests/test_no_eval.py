"""Promise 1: model text is never executed.

Injection payloads go through every entry format with ``eval``, ``exec`` and
``compile`` wrapped: any call whose source holds the payload fails the test,
except ``compile(..., flags=ast.PyCF_ONLY_AST)`` (what ``ast.parse`` does). A
marker file the payloads would create must not exist afterwards, and the
result must hold no valid call built from the payload.
"""

from __future__ import annotations

import ast
import builtins
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import BASIC_TOOLS

from toolfix import Response, repair

Payload = Callable[[Path], str]

PAYLOADS: dict[str, str] = {
    "import-system": "__import__('os').system('touch {marker}')",
    "open-write": "open('{marker}', 'w').write('x')",
    "open-read": "open('/etc/passwd').read()",
    "exec-call": "exec(\"open('{marker}', 'w')\")",
    "lambda": "(lambda: open('{marker}', 'w'))()",
    "fstring": "f\"{{open('{marker}', 'w')}}\"",
    "attribute": "os.system('touch {marker}')",
    "dunder": "().__class__.__bases__[0].__subclasses__()",
    "walrus": "(x := open('{marker}', 'w'))",
}


def _forms(payload: str) -> dict[str, str]:
    """The payload in every format toolfix reads (pythonic ones: the dangerous ones)."""
    return {
        "pythonic-list-bare": f"[{payload}]",
        "pythonic-arg": f"[get_weather(city={payload})]",
        "pythonic-kwargs-splat": f"[get_weather(**{{'city': {payload}}})]",
        "pythonic-positional": f"[get_weather({payload})]",
        "pythonic-two-calls": f'[search_web(query="x"), get_weather(city={payload})]',
        "hermes-pythonic": f"<tool_call>get_weather(city={payload})</tool_call>",
        "llama-python-tag": f"<|python_tag|>get_weather(city={payload})",
        "python-fence": f"```python\nget_weather(city={payload})\n```",
        "mistral": f'[TOOL_CALLS][{{"name": "get_weather", "arguments": {{"city": {payload}}}}}]',
        "qwen-xml": (
            f"<function=get_weather>\n<parameter=days>\n{payload}\n</parameter>\n</function>"
        ),
    }


@pytest.fixture
def guard(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Wrap eval/exec/compile; record (and fail on) any use on a payload."""
    seen: list[str] = []
    real_eval, real_exec, real_compile = builtins.eval, builtins.exec, builtins.compile
    markers = ("__import__", "open(", "system(", "lambda", "__subclasses__", ":=")

    def _source_text(source: Any) -> str:
        if isinstance(source, bytes):
            return source.decode("utf-8", "replace")
        return source if isinstance(source, str) else ""

    def _check(what: str, source: Any) -> None:
        text = _source_text(source)
        if any(m in text for m in markers):
            seen.append(f"{what}: {text[:200]}")
            pytest.fail(f"{what} called on model text: {text[:200]!r}")

    def fake_eval(source: Any, *args: Any, **kwargs: Any) -> Any:
        _check("eval", source)
        return real_eval(source, *args, **kwargs)

    def fake_exec(source: Any, *args: Any, **kwargs: Any) -> Any:
        _check("exec", source)
        return real_exec(source, *args, **kwargs)

    def fake_compile(
        source: Any, filename: Any, mode: str, flags: int = 0, *args: Any, **kwargs: Any
    ) -> Any:
        if not (flags & ast.PyCF_ONLY_AST):
            _check("compile", source)
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "eval", fake_eval)
    monkeypatch.setattr(builtins, "exec", fake_exec)
    monkeypatch.setattr(builtins, "compile", fake_compile)
    return seen


CASES = [
    pytest.param(pname, fname, id=f"{pname}-{fname}") for pname in PAYLOADS for fname in _forms("X")
]


def _assert_not_executed(out: Response, marker: Path, payload_text: str) -> None:
    assert not marker.exists(), "payload was executed"
    for c in out.tool_calls:
        # A valid call may only carry the payload as inert text, never a computed value.
        assert all(isinstance(v, str) for v in c.arguments.values()), c  # type: ignore[union-attr]


@pytest.mark.parametrize(("pname", "fname"), CASES)
def test_payload_never_executed(pname: str, fname: str, guard: list[str], tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = PAYLOADS[pname].format(marker=marker)
    text = _forms(payload)[fname]
    out = repair(text, BASIC_TOOLS)
    _assert_not_executed(out, marker, payload)
    assert guard == []
    if fname.startswith(("pythonic", "hermes-pythonic", "llama", "python-fence")):
        if fname == "pythonic-two-calls":
            # The literal sibling survives; the call that carries code is invalid, raw kept.
            assert [(c.name, c.arguments) for c in out.tool_calls] == [
                ("search_web", {"query": "x"})
            ]
            assert [(b.name, b.kind) for b in out.invalid_tool_calls] == [
                ("get_weather", "pythonic")
            ]
        else:
            assert out.tool_calls == [], (text, out.tool_calls)


@pytest.mark.parametrize("pname", list(PAYLOADS))
def test_payload_in_native_arguments(pname: str, guard: list[str], tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = PAYLOADS[pname].format(marker=marker)
    for raw in (payload, f'{{"city": {payload}}}', json.dumps({"city": payload})):
        msg = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": raw},
                }
            ],
        }
        out = repair(msg, BASIC_TOOLS)
        _assert_not_executed(out, marker, payload)
    assert guard == []


def test_payload_as_json_string_is_kept_verbatim(guard: list[str], tmp_path: Path) -> None:
    payload = PAYLOADS["import-system"].format(marker=tmp_path / "pwned")
    out = repair(json.dumps({"name": "get_weather", "arguments": {"city": payload}}), BASIC_TOOLS)
    assert [(c.name, c.arguments) for c in out.tool_calls] == [("get_weather", {"city": payload})]
    assert not (tmp_path / "pwned").exists()


def test_kwargs_splat_is_not_a_call(guard: list[str]) -> None:
    text = "[get_weather(**{'city': 'x'})]"
    out = repair(text, BASIC_TOOLS)
    assert out.tool_calls == []
    [bad] = out.invalid_tool_calls
    assert (bad.name, bad.raw) == ("get_weather", text)
    assert "**kwargs is not supported" in bad.error


def test_guard_catches_a_real_eval(guard: list[str]) -> None:
    """The guard itself works: an eval on payload text fails the test."""
    with pytest.raises(pytest.fail.Exception):
        builtins.eval("__import__('os').getcwd()")  # noqa: S307  (the guard must refuse it)
    guard.clear()
    tree = ast.parse("f(a=1)", mode="eval")  # AST-only compile is allowed
    assert isinstance(tree.body, ast.Call)
    assert guard == []
