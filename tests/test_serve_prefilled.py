"""``toolfix serve`` and ``reasoning_prefilled`` (issue 29): per request from the model
name and its ``chat_template_kwargs``, unless ``--reasoning-prefilled`` fixes it.

Real HTTP on 127.0.0.1: the stub upstream of ``tests/proxy_stub.py`` answers ``think``
with reasoning closed by a lone ``</think>`` and a call quoted in that reasoning; three
``toolfix serve`` processes (``auto``, ``--reasoning-prefilled no`` and ``--chain
manual+llm``) start once.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from typer.testing import CliRunner

from toolfix._cli import EXIT_OK, app

pytest.importorskip("litellm.proxy.proxy_server", reason="needs the proxy extra (toolfix[proxy])")
openai = pytest.importorskip("openai")

from serving import start_serve, start_stub, stop, wait_ready  # noqa: E402
from test_proxy import TOOLS, proxy_env  # noqa: E402

ASK = [{"role": "user", "content": "think about the weather"}]
REASONING = (
    'Maybe <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    " fits, but the city is unclear."
)
ANSWER = "Which city do you mean?"


@dataclass
class Proxies:
    auto: str
    no: str
    llm: str  # --chain manual+llm, auto


@pytest.fixture(scope="module")
def proxies() -> Iterator[Proxies]:
    stub, stub_url = start_stub()
    procs = [stub]
    urls: list[str] = []
    try:
        for extra in ((), ("--reasoning-prefilled", "no"), ("--chain", "manual+llm")):
            proc, url = start_serve(
                f"{stub_url}/v1", *extra, env=proxy_env(), stderr=subprocess.DEVNULL
            )
            procs.append(proc)
            urls.append(url)
        wait_ready(f"{stub_url}/_stub/requests", stub)
        for proc, url in zip(procs[1:], urls, strict=True):
            wait_ready(f"{url}/health/readiness", proc)
        yield Proxies(*urls)
    finally:
        for p in procs:
            stop(p)


def _client(base: str) -> Any:
    return openai.OpenAI(base_url=f"{base}/v1", api_key="sk-client", max_retries=0, timeout=20)


def _seen(message: Any) -> tuple[list[tuple[str, Any]], str | None, str | None]:
    """(calls, reasoning, content) of one chat message, as the client reads it."""
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    extra = message.model_extra or {}
    return calls, extra.get("reasoning_content"), message.content


def _ask(base: str, model: str, stream: bool, **kw: Any) -> tuple[Any, ...]:
    c = _client(base)
    if not stream:
        done = c.chat.completions.create(model=model, messages=ASK, tools=TOOLS, **kw)
        return _seen(done.choices[0].message)
    calls: dict[int, list[str]] = {}
    reasoning, content = "", ""
    for chunk in c.chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True, **kw
    ):
        for ch in chunk.choices:
            extra = ch.delta.model_extra or {}
            reasoning += extra.get("reasoning_content") or ""
            content += ch.delta.content or ""
            for tc in ch.delta.tool_calls or []:
                slot = calls.setdefault(tc.index, ["", ""])
                slot[0] += tc.function.name or ""
                slot[1] += tc.function.arguments or ""
    found = [(n, json.loads(a)) for _, (n, a) in sorted(calls.items())]
    return found, reasoning or None, content or None


CALL = [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("chain", ["manual", "manual+llm"])
def test_a_prefilled_model_name_reads_the_lone_closer_as_the_end_of_reasoning(
    proxies: Proxies, stream: bool, chain: str
) -> None:
    base = proxies.auto if chain == "manual" else proxies.llm
    calls, reasoning, content = _ask(base, "deepseek-r1-distill-qwen-7b", stream)
    assert calls == []  # the call quoted in the reasoning is not run
    assert reasoning is not None
    assert reasoning.strip() == REASONING
    assert (content or "").strip() == ANSWER


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize(
    "where",
    [
        {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}},
        {"extra_body": {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}},
    ],
    ids=["top-level", "in-extra_body"],
)
@pytest.mark.parametrize("chain", ["manual", "manual+llm"])
def test_chat_template_kwargs_turning_thinking_off_make_it_false(
    proxies: Proxies, stream: bool, where: dict[str, Any], chain: str
) -> None:
    """Under ``--chain manual+llm`` too: the LLM fixer's own manual pass reads the
    request's ``chat_template_kwargs``, not only the model name."""
    base = proxies.auto if chain == "manual" else proxies.llm
    calls, reasoning, content = _ask(base, "deepseek-r1", stream, **where)
    assert calls == CALL
    assert reasoning is None
    assert "</think>" in (content or "")  # the text stays, nothing is dropped


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_the_serve_option_wins_over_the_model_name(proxies: Proxies, stream: bool) -> None:
    calls, reasoning, _ = _ask(proxies.no, "deepseek-r1", stream)
    assert calls == CALL
    assert reasoning is None


@pytest.mark.parametrize("model", ["stub", "deepseek-r1", "deepseek-v3.1"])
def test_stream_and_whole_response_agree(proxies: Proxies, model: str) -> None:
    assert _ask(proxies.auto, model, True) == _ask(proxies.auto, model, False)


def test_an_unknown_model_keeps_the_default() -> None:
    from toolfix.integrations.litellm_proxy import ToolfixProxyHook

    hook = ToolfixProxyHook()
    assert hook.prefilled_for({"model": "stub"}) is None
    assert hook.prefilled_for({"model": "openai/DeepSeek-R1"}) is True
    off = {"model": "qwq-32b", "chat_template_kwargs": {"enable_thinking": False}}
    assert hook.prefilled_for(off) is False
    assert ToolfixProxyHook(reasoning_prefilled=False).prefilled_for({"model": "qwq"}) is False
    assert ToolfixProxyHook(reasoning_prefilled=True).prefilled_for({"model": "x"}) is True


def test_serve_rejects_a_bad_prefilled_value() -> None:
    result = CliRunner().invoke(
        app, ["serve", "--upstream", "http://127.0.0.1:9/v1", "--reasoning-prefilled", "maybe"]
    )
    assert result.exit_code == 2
    assert "--reasoning-prefilled must be one of: auto, yes, no" in result.output


def test_serve_help_reads_well_at_80_columns() -> None:
    import typer.main

    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == EXIT_OK, result.output
    text = result.stdout
    assert not re.search(r"<(bool|str|int|float|path|list\[[^>]*\]|int range)>", text), text
    assert "…" not in text
    assert all(len(line) <= 80 for line in text.splitlines()), text
    cmd: Any = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    for param in cmd.params:
        for name in param.opts:
            assert name in text
        if param.opts[0] != "--help" and not getattr(param, "is_flag", False):
            assert param.metavar, param.opts  # every option names its value
    assert "--reasoning-prefilled auto|yes|no" in text
