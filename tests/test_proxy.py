# ruff: noqa: S310 - urlopen on http://127.0.0.1 URLs built here
"""End-to-end: a local upstream stub, ``toolfix serve`` as subprocesses, SDK clients.

Everything runs over real HTTP on 127.0.0.1; the stub and the proxies start once per
module (:func:`stack`).
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from serving import free_port, serve_cmd, serve_env, start_serve, start_stub, stop, wait_ready
from tooldefs import WEATHER_CITY_DAYS

pytest.importorskip("litellm.proxy.proxy_server", reason="needs the proxy extra (toolfix[proxy])")
anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")

HERE = Path(__file__).parent
TOOLS = [WEATHER_CITY_DAYS]
ANTHROPIC_TOOLS = [
    {
        "name": "get_weather",
        "input_schema": TOOLS[0]["function"]["parameters"],  # type: ignore[index]
    }
]


UPSTREAM_SECRET = "sk-upstream-held-by-the-proxy"
TOOLFIX_KEY = "tfx-test-key-for-clients"
ENV_SECRET = "sk-from-the-environment-must-not-leave"
TOOLFIX_AUTH = {"authorization": f"Bearer {TOOLFIX_KEY}"}


@dataclass
class Proxy:
    """One ``toolfix serve`` process: its base URL and the file its stderr goes to."""

    url: str
    log: Path

    def log_lines(self) -> list[str]:
        return self.log.read_text(encoding="utf-8").splitlines()


@dataclass
class Stack:
    """The stub upstream and three proxies started once for the module: ``open`` holds
    no upstream key (each client's key goes upstream), ``keyed`` holds one (clients need
    toolfix's key), ``dead`` points at a port nobody listens on (and holds a key too)."""

    stub: str
    open: Proxy
    keyed: Proxy
    dead: Proxy
    dead_upstream: str

    def seen(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{self.stub}/_stub/requests", timeout=5) as r:
            return list(json.load(r))


def proxy_env() -> dict[str, str]:
    return serve_env(
        # provider keys in the proxy's environment must never reach any upstream
        OPENAI_API_KEY=ENV_SECRET,
        ANTHROPIC_API_KEY=ENV_SECRET,
        STUB_KEY=UPSTREAM_SECRET,
        CLIENT_KEY=TOOLFIX_KEY,
        DEAD_KEY="sk-dead",
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("proxy-logs")
    stub, stub_url = start_stub()
    dead_upstream = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    specs = {
        "open": (f"{stub_url}/v1", ()),
        "keyed": (f"{stub_url}/v1", ("--api-key-env", "STUB_KEY", "--key-env", "CLIENT_KEY")),
        "dead": (dead_upstream, ("--api-key-env", "DEAD_KEY", "--key-env", "CLIENT_KEY")),
    }
    procs: list[subprocess.Popen[bytes]] = [stub]
    proxies: dict[str, Proxy] = {}
    try:
        for name, (upstream, extra) in specs.items():
            log = logs / f"{name}.log"
            with log.open("wb") as fh:
                proc, url = start_serve(upstream, *extra, env=proxy_env(), stderr=fh)
            procs.append(proc)
            proxies[name] = Proxy(url, log)
        wait_ready(f"{stub_url}/_stub/requests", stub)
        for proc, proxy in zip(procs[1:], proxies.values(), strict=True):
            wait_ready(f"{proxy.url}/health/readiness", proc)
        yield Stack(stub_url, dead_upstream=dead_upstream, **proxies)
    finally:
        for p in procs:
            stop(p)


@pytest.fixture(scope="module")
def proxy(stack: Stack) -> str:
    """The proxy that forwards each client's key (most tests)."""
    return stack.open.url


def _client(base: str, key: str = "sk-client") -> Any:
    return openai.OpenAI(base_url=f"{base}/v1", api_key=key, max_retries=0, timeout=20)


def _error(exc: Any) -> dict[str, Any]:
    """The ``error`` object of an SDK's status error (the openai SDK unwraps it)."""
    body = exc.body
    assert isinstance(body, dict)
    inner = body.get("error", body)
    assert isinstance(inner, dict)
    return inner


def _anthropic(base: str, key: str = "sk-client") -> Any:
    return anthropic.Anthropic(base_url=base, api_key=key, max_retries=0, timeout=20)


def test_openai_sdk_gets_the_repaired_call(proxy: str) -> None:
    raw = _client(proxy).chat.completions.with_raw_response.create(
        model="stub", messages=[{"role": "user", "content": "broken"}], tools=TOOLS
    )
    assert raw.headers["x-toolfix-repairs"].startswith("repairs=4; invalid=0")
    done = raw.parse()
    choice = done.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris", "days": 3}
    ext = done.model_extra["toolfix"]
    assert ext["repaired"] is True
    assert {r["kind"] for r in ext["choices"][0]["repairs"]} >= {"invalid_json", "type_mismatch"}


def test_openai_sdk_stream_gets_the_repaired_call(proxy: str) -> None:
    stream = _client(proxy).chat.completions.create(
        model="stub", messages=[{"role": "user", "content": "broken"}], tools=TOOLS, stream=True
    )
    name, args, finish = "", "", None
    for chunk in stream:
        for ch in chunk.choices:
            for tc in ch.delta.tool_calls or []:
                name += tc.function.name or ""
                args += tc.function.arguments or ""
            finish = ch.finish_reason or finish
    assert name == "get_weather"
    assert json.loads(args) == {"city": "Paris", "days": 3}
    assert finish == "tool_calls"


def test_valid_and_toolless_responses_pass_through(proxy: str) -> None:
    c = _client(proxy)
    valid = c.chat.completions.create(
        model="stub", messages=[{"role": "user", "content": "valid"}], tools=TOOLS
    )
    assert valid.choices[0].message.tool_calls[0].function.arguments == '{"city": "Rome"}'
    assert valid.model_extra["toolfix"]["repaired"] is False
    plain = c.chat.completions.create(
        model="stub", messages=[{"role": "user", "content": "broken"}]
    )
    assert plain.choices[0].message.tool_calls is None
    assert "<tool_call>" in (plain.choices[0].message.content or "")
    assert "toolfix" not in (plain.model_extra or {})


def test_anthropic_sdk_gets_the_repaired_tool_use(proxy: str) -> None:
    client = _anthropic(proxy)
    msg = client.messages.create(
        model="stub",
        max_tokens=100,
        messages=[{"role": "user", "content": "broken"}],
        tools=ANTHROPIC_TOOLS,  # type: ignore[arg-type]
    )
    uses = [b for b in msg.content if b.type == "tool_use"]
    assert [(u.name, u.input) for u in uses] == [("get_weather", {"city": "Paris", "days": 3})]
    assert msg.stop_reason == "tool_use"


def test_stats_count_repairs_per_model_and_kind(proxy: str) -> None:
    _client(proxy).chat.completions.create(
        model="stub", messages=[{"role": "user", "content": "broken"}], tools=TOOLS
    )
    with urllib.request.urlopen(f"{proxy}/toolfix/stats", timeout=5) as r:
        stats = json.load(r)
    assert stats["repaired"] >= 1
    assert stats["repairs"]["stub"]["type_mismatch"] >= 1


def test_models_lists_the_upstreams_models(proxy: str) -> None:
    ids = [m.id for m in _client(proxy).models.list()]
    assert ids == ["stub", "stub-coder-7b"]  # the stub's own list, not a catalogue


def test_models_are_reused_briefly_per_key(stack: Stack) -> None:
    before = len(stack.seen())
    for _ in range(3):
        _client(stack.open.url, "sk-cache-test").models.list()
    seen = stack.seen()[before:]
    assert [r["path"] for r in seen] == ["/v1/models"]  # one upstream call for three


def test_malformed_request_is_400(proxy: str) -> None:
    req = urllib.request.Request(
        f"{proxy}/v1/chat/completions",
        data=b"{not json",
        headers={"content-type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=10)
    assert info.value.code == 400


def test_slow_upstream_gives_504_json_within_the_timeout(stack: Stack) -> None:
    started = time.monotonic()
    with pytest.raises(openai.APIStatusError) as info:
        _client(stack.open.url).chat.completions.create(
            model="stub", messages=[{"role": "user", "content": "slow"}], tools=TOOLS
        )
    assert time.monotonic() - started < 15
    assert info.value.status_code == 504
    error = _error(info.value)
    assert error["type"] == "upstream_timeout"
    assert error["upstream"] == f"{stack.stub}/v1"
    assert f"{stack.stub}/v1" in error["message"]


def test_anthropic_conversation_with_tool_results_is_repaired(proxy: str) -> None:
    client = _anthropic(proxy)
    msg = client.messages.create(
        model="stub",
        max_tokens=100,
        messages=[
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "X"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "sunny"},
                    {"type": "text", "text": "broken"},
                ],
            },
        ],
        tools=ANTHROPIC_TOOLS,  # type: ignore[arg-type]
    )
    uses = [b for b in msg.content if b.type == "tool_use"]
    assert [(u.name, u.input) for u in uses] == [("get_weather", {"city": "Paris", "days": 3})]


def test_upstream_closing_the_connection_gives_502_json(stack: Stack) -> None:
    with pytest.raises(openai.APIStatusError) as info:
        _client(stack.open.url).chat.completions.create(
            model="stub", messages=[{"role": "user", "content": "drop"}], tools=TOOLS
        )
    assert info.value.status_code == 502
    assert _error(info.value)["upstream"] == f"{stack.stub}/v1"


def test_anthropic_sdk_stream_gets_the_repaired_tool_use(proxy: str) -> None:
    """Streaming ``/v1/messages``: the broken call in the upstream's text arrives as a
    ``tool_use`` block, the markup never reaches the client, the SDK accumulates it."""
    client = _anthropic(proxy)
    with client.messages.stream(
        model="stub",
        max_tokens=100,
        messages=[{"role": "user", "content": "broken"}],
        tools=ANTHROPIC_TOOLS,  # type: ignore[arg-type]
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    text = "".join(
        e.delta.text
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    )
    assert text == "Sure!"
    assert "tool_call" not in text
    uses = [b for b in final.content if b.type == "tool_use"]
    assert [(u.name, u.input) for u in uses] == [("get_weather", {"city": "Paris", "days": 3})]
    assert final.stop_reason == "tool_use"
    [delta] = [e for e in events if e.type == "message_delta"]
    assert delta.model_extra is not None
    ext = delta.model_extra["toolfix"]
    assert {"native_markup", "invalid_json"} <= {
        r["kind"] for c in ext["calls"] for r in c["repairs"]
    }


def test_anthropic_raw_stream_without_tools_passes_through(proxy: str) -> None:
    client = _anthropic(proxy)
    events = list(
        client.messages.create(
            model="stub",
            max_tokens=100,
            messages=[{"role": "user", "content": "broken"}],
            stream=True,
        )
    )
    text = "".join(
        e.delta.text
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    )
    assert "<tool_call>" in text  # no tools in the request: nothing to repair against


# -- closed by default ----------------------------------------------------------------

PASS_THROUGH = [
    ("POST", "/openai/v1/chat/completions"),
    ("POST", "/openai/chat/completions"),
    ("POST", "/anthropic/v1/messages"),
    ("POST", "/gemini/v1beta/models/m:generateContent"),
    ("POST", "/vertex_ai/v1/projects/p/locations/l/publishers/google/models/m:generateContent"),
    ("POST", "/bedrock/model/m/converse"),
    ("POST", "/azure/openai/deployments/m/chat/completions"),
    ("POST", "/cohere/v1/chat"),
    ("POST", "/mistral/v1/chat/completions"),
    ("POST", "/v1/responses"),
    ("POST", "/v1/embeddings"),
    ("POST", "/key/generate"),
    ("GET", "/ui"),
    ("GET", "/model/info"),
    ("GET", "/routes"),
]


def _raw(method: str, url: str, headers: dict[str, str] | None = None) -> tuple[int, Any, Any]:
    """Status, headers and JSON body of one request (any status)."""
    body = b'{"model": "stub", "messages": [{"role": "user", "content": "hi"}]}'
    req = urllib.request.Request(
        url,
        data=body if method == "POST" else None,
        method=method,
        headers={"content-type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers, json.load(r)
    except urllib.error.HTTPError as err:
        return err.code, err.headers, json.loads(err.read() or b"null")


@pytest.mark.parametrize(("method", "path"), PASS_THROUGH)
def test_pass_through_routes_are_404_and_reach_no_upstream(
    stack: Stack, method: str, path: str
) -> None:
    before = len(stack.seen())
    for proxy in (stack.open, stack.keyed):
        status, _, body = _raw(method, proxy.url + path, {"authorization": f"Bearer {TOOLFIX_KEY}"})
        assert status == 404
        assert body["error"]["type"] == "not_found"
    assert len(stack.seen()) == before  # the stub upstream received nothing


@pytest.mark.parametrize("method", ["POST", "OPTIONS", "GET"])
def test_a_request_with_an_origin_gets_no_cors_grant(stack: Stack, method: str) -> None:
    before = len(stack.seen())
    path = "/v1/models" if method == "GET" else "/v1/chat/completions"
    headers = {
        "origin": "https://evil.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
    }
    status, got, body = _raw(method, stack.open.url + path, headers)
    assert status == 403
    assert body["error"]["type"] == "forbidden_origin"
    assert not [h for h in got if h.lower().startswith("access-control-")]
    assert len(stack.seen()) == before


def test_with_an_upstream_key_clients_need_toolfixs_key(stack: Stack) -> None:
    for key in ("sk-client", UPSTREAM_SECRET):
        with pytest.raises(openai.AuthenticationError) as info:
            _client(stack.keyed.url, key).chat.completions.create(
                model="stub", messages=[{"role": "user", "content": "hi"}]
            )
        assert info.value.status_code == 401
        assert _error(info.value)["type"] == "authentication_error"
    with pytest.raises(anthropic.AuthenticationError):
        _anthropic(stack.keyed.url).messages.create(
            model="stub", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
    status, _, body = _raw("POST", f"{stack.keyed.url}/v1/chat/completions")  # no key at all
    assert (status, body["error"]["type"]) == (401, "authentication_error")
    for path in ("/v1/models", "/toolfix/stats"):
        assert _raw("GET", stack.keyed.url + path)[0] == 401


def test_with_toolfixs_key_the_upstream_gets_the_held_key(stack: Stack) -> None:
    before = len(stack.seen())
    done = _client(stack.keyed.url, TOOLFIX_KEY).chat.completions.create(
        model="stub", messages=[{"role": "user", "content": "hi"}]
    )
    assert done.choices[0].message.content == "Hello there."
    msg = _anthropic(stack.keyed.url, TOOLFIX_KEY).messages.create(
        model="stub", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    )
    assert msg.content[0].text == "Hello there."  # type: ignore[union-attr]
    assert next(iter(_client(stack.keyed.url, TOOLFIX_KEY).models.list())).id == "stub"
    seen = stack.seen()[before:]
    assert len(seen) == 3
    assert {r["authorization"] for r in seen} == {f"Bearer {UPSTREAM_SECRET}"}


def test_without_an_upstream_key_the_upstream_gets_the_clients_key(stack: Stack) -> None:
    before = len(stack.seen())
    _client(stack.open.url, "sk-openai-client").chat.completions.create(
        model="stub", messages=[{"role": "user", "content": "hi"}], tools=TOOLS
    )
    _anthropic(stack.open.url, "sk-ant-client").messages.create(
        model="stub", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    )
    _client(stack.open.url, "sk-models-client").models.list()
    seen = stack.seen()[before:]
    assert [r["authorization"] for r in seen] == [
        "Bearer sk-openai-client",
        "Bearer sk-ant-client",  # the Anthropic SDK's x-api-key, forwarded
        "Bearer sk-models-client",
    ]


def test_no_provider_key_from_the_environment_reaches_any_upstream(stack: Stack) -> None:
    for record in stack.seen():
        assert ENV_SECRET not in json.dumps(record)
        assert TOOLFIX_KEY not in json.dumps(record)


def test_a_dead_upstream_gives_502_json_naming_it(stack: Stack) -> None:
    with pytest.raises(openai.APIStatusError) as info:
        _client(stack.dead.url, TOOLFIX_KEY).chat.completions.create(
            model="stub", messages=[{"role": "user", "content": "hi"}], tools=TOOLS
        )
    assert info.value.status_code == 502
    error = _error(info.value)
    assert error["upstream"] == stack.dead_upstream
    assert stack.dead_upstream in error["message"]
    with pytest.raises(anthropic.APIStatusError) as ainfo:
        _anthropic(stack.dead.url, TOOLFIX_KEY).messages.create(
            model="stub", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
    assert ainfo.value.status_code == 502
    with pytest.raises(openai.APIStatusError) as sinfo:  # streaming: before the headers
        _client(stack.dead.url, TOOLFIX_KEY).chat.completions.create(
            model="stub", messages=[{"role": "user", "content": "hi"}], stream=True
        )
    assert sinfo.value.status_code == 502
    status, _, body = _raw("GET", f"{stack.dead.url}/v1/models", TOOLFIX_AUTH)
    assert status == 502
    assert stack.dead_upstream in body["error"]["message"]


def test_three_failed_requests_write_three_log_lines(stack: Stack) -> None:
    before = stack.dead.log_lines()
    for _ in range(3):
        with pytest.raises(openai.APIStatusError):
            _client(stack.dead.url, TOOLFIX_KEY).chat.completions.create(
                model="stub", messages=[{"role": "user", "content": "hi"}]
            )
    time.sleep(0.2)
    new = stack.dead.log_lines()[len(before) :]
    assert len(new) == 3, new
    assert all(stack.dead_upstream in line and "-> 502" in line for line in new)


def test_an_upstream_message_null_is_a_502_without_a_traceback(stack: Stack) -> None:
    before = stack.open.log_lines()
    status, _, _ = _raw(
        "POST",
        f"{stack.open.url}/v1/chat/completions",
        {"authorization": "Bearer sk-client"},
    )
    assert status == 200  # "hi": the control
    req = urllib.request.Request(
        f"{stack.open.url}/v1/chat/completions",
        data=json.dumps(
            {"model": "stub", "messages": [{"role": "user", "content": "null"}], "tools": TOOLS}
        ).encode(),
        headers={"content-type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=10)
    text = info.value.read().decode()
    assert info.value.code == 502
    assert json.loads(text)["error"]["upstream"] == f"{stack.stub}/v1"
    assert "Traceback" not in text
    assert str(HERE.parent) not in text
    assert ".py" not in text
    new = stack.open.log_lines()[len(before) :]
    assert len(new) == 1
    assert "Traceback" not in new[0]


def test_no_litellm_headers_reach_clients(stack: Stack) -> None:
    c = _client(stack.open.url)
    responses = [
        c.chat.completions.with_raw_response.create(
            model="stub", messages=[{"role": "user", "content": "broken"}], tools=TOOLS
        ),
        c.chat.completions.with_raw_response.create(
            model="stub", messages=[{"role": "user", "content": "hi"}], stream=True
        ),
        c.models.with_raw_response.list(),
        _anthropic(stack.open.url).messages.with_raw_response.create(
            model="stub", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ),
    ]
    headers = [dict(r.headers) for r in responses]
    headers.append(dict(_raw("POST", f"{stack.dead.url}/v1/chat/completions", TOOLFIX_AUTH)[1]))
    assert not [h for hs in headers for h in hs if h.lower().startswith("x-litellm")]
    assert headers[0]["x-toolfix-repairs"].startswith("repairs=")  # toolfix's own stays


def test_start_up_messages_once_without_colour(stack: Stack) -> None:
    for proxy in (stack.open, stack.keyed, stack.dead):
        text = proxy.log.read_text(encoding="utf-8")
        assert "\x1b[" not in text
        start = [line for line in text.splitlines() if line.startswith("toolfix serve:")]
        assert len(start) == len(set(start)) == 2, start
    assert TOOLFIX_KEY not in stack.keyed.log.read_text(encoding="utf-8")  # named, not shown


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        (
            ["--api-key-env", "UNSET_TOOLFIX_VAR"],
            "--api-key-env UNSET_TOOLFIX_VAR: the variable is not set (or empty)",
        ),
        (
            ["--api-key-env", "STUB_KEY", "--key-env", "UNSET_TOOLFIX_VAR"],
            "--key-env UNSET_TOOLFIX_VAR: the variable is not set (or empty)",
        ),
        (["--chain", "llm"], "--chain must be 'manual' or 'manual+llm'"),
        (
            ["--log-level", "loud"],
            "--log-level must be one of: critical, error, warning, info, debug, trace",
        ),
    ],
)
def test_a_bad_start_is_one_line_and_exit_2(extra: list[str], line: str) -> None:
    env = proxy_env()
    env.pop("UNSET_TOOLFIX_VAR", None)
    out = subprocess.run(
        serve_cmd("http://127.0.0.1:9/v1", 9, *extra),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == f"toolfix serve: {line}"


def test_no_auth_and_sigterm_sigint(tmp_path: Path) -> None:
    """Two real processes started side by side, each with its own TMPDIR. The second
    holds a key with ``--no-auth``: one warning at start, and a request without any key
    goes past the check (to its dead upstream: 502). Then SIGTERM to the first and
    SIGINT to the second: a clean exit, no traceback, nothing left in TMPDIR."""
    runs = []
    for sig, extra in (
        (signal.SIGTERM, ()),
        (signal.SIGINT, ("--api-key-env", "STUB_KEY", "--no-auth")),
    ):
        tmp = tmp_path / sig.name
        tmp.mkdir()
        port = free_port()
        env = {**proxy_env(), "TMPDIR": str(tmp)}
        cmd = serve_cmd("http://127.0.0.1:9/v1", port, *extra)
        runs.append((sig, tmp, port, subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE)))
    try:
        for _, _, port, proc in runs:
            wait_ready(f"http://127.0.0.1:{port}/health/readiness", proc)
        no_auth_url = f"http://127.0.0.1:{runs[1][2]}/v1/chat/completions"
        assert _raw("POST", no_auth_url)[0] == 502
        errs = []
        for sig, _, _, proc in runs:
            proc.send_signal(sig)
        for sig, tmp, _, proc in runs:
            _, err = proc.communicate(timeout=20)
            errs.append(err.decode())
            assert proc.returncode in (0, -sig, 128 + sig), (sig, proc.returncode)
            assert list(tmp.iterdir()) == []
            assert "Traceback" not in errs[-1]
    finally:
        for *_, proc in runs:
            if proc.poll() is None:
                stop(proc)
    assert not [line for line in errs[0].splitlines() if "--no-auth" in line]
    [warning] = [line for line in errs[1].splitlines() if "--no-auth" in line]
    assert "WARNING" in warning


def test_a_request_body_cannot_redirect_the_proxy(stack: Stack) -> None:
    """``api_base``, ``base_url``, ``api_key`` and other litellm settings in a body are
    plain body fields for the upstream, never where or how the proxy connects."""
    before = len(stack.seen())
    done = _client(stack.open.url, "sk-mine").chat.completions.create(
        model="stub",
        messages=[{"role": "user", "content": "hi"}],
        extra_body={
            "api_base": stack.dead_upstream,
            "base_url": stack.dead_upstream,
            "api_key": ENV_SECRET,
            "custom_llm_provider": "anthropic",
            "mock_response": "mocked",
        },
    )
    assert done.choices[0].message.content == "Hello there."
    assert [r["authorization"] for r in stack.seen()[before:]] == ["Bearer sk-mine"]
