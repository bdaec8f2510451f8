"""The app behind ``toolfix serve`` in-process: the closed defaults as properties.

Routes, origins and keys are drawn by hypothesis; the upstream is a port nobody
listens on, so a request that reached it would answer 502/504, never 404/403/401.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("litellm")

from starlette.testclient import TestClient

from toolfix._proxy_app import NO_CLIENT_KEY, ProxySettings, make_app, upstream_key_for
from toolfix._serve import KEY_ENV, _client_key

HERE = Path(__file__).parent
DEAD = "http://127.0.0.1:9/v1"
ROUTES = {
    ("POST", "/v1/chat/completions"),
    ("POST", "/chat/completions"),
    ("POST", "/v1/messages"),
    ("GET", "/v1/models"),
    ("GET", "/models"),
    ("GET", "/health"),
    ("GET", "/health/liveliness"),
    ("GET", "/health/readiness"),
    ("GET", "/toolfix/stats"),
}
ALLOWED = "http://app.example:3000"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = make_app(ProxySettings(upstream=DEAD, timeout=2), None)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def cors_client() -> Iterator[TestClient]:
    app = make_app(ProxySettings(upstream=DEAD, timeout=2, cors_origins=(ALLOWED,)), None)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


segment = st.sampled_from(
    ["openai", "anthropic", "v1", "chat", "completions", "messages", "models", "key",
     "generate", "ui", "gemini", "bedrock", "azure", "vertex_ai", "responses", "health",
     "toolfix", "stats", "..", "%2e%2e", "", "x"]
)  # fmt: skip
paths = st.lists(segment, min_size=1, max_size=5).map(lambda p: "/" + "/".join(p))
methods = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(method=methods, path=paths)
def test_only_toolfixs_routes_answer(client: TestClient, method: str, path: str) -> None:
    r = client.request(method, path, json={"model": "m", "messages": []})
    if (method, path) in ROUTES:
        return
    known = {p for _, p in ROUTES}
    assert r.status_code == (405 if path in known else 404), (method, path, r.text)
    assert r.json()["error"]["type"] in ("not_found", "method_not_allowed")
    assert not [h for h in r.headers if h.startswith(("access-control-", "x-litellm"))]


origins = st.one_of(
    st.sampled_from(["null", "http://localhost:4000", "http://127.0.0.1", ALLOWED + "/"]),
    st.from_regex(r"https?://[a-z0-9.-]{1,20}(:[0-9]{1,5})?", fullmatch=True),
)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(origin=origins, method=st.sampled_from(["GET", "POST", "OPTIONS"]))
def test_an_origin_never_gets_a_grant_unless_configured(
    client: TestClient, cors_client: TestClient, origin: str, method: str
) -> None:
    headers = {"origin": origin, "access-control-request-method": "POST"}
    for c in (client, cors_client):
        if c is cors_client and origin == ALLOWED:
            continue
        r = c.request(method, "/v1/chat/completions", headers=headers)
        assert r.status_code == 403
        assert not [h for h in r.headers if h.startswith("access-control-")]


def test_a_configured_origin_gets_its_grant(cors_client: TestClient) -> None:
    pre = cors_client.options(
        "/v1/chat/completions",
        headers={"origin": ALLOWED, "access-control-request-method": "POST"},
    )
    assert pre.status_code == 200
    assert pre.headers["access-control-allow-origin"] == ALLOWED
    r = cors_client.get("/health", headers={"origin": ALLOWED})
    assert r.headers["access-control-allow-origin"] == ALLOWED


keys = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=12)


@given(
    held=st.one_of(st.none(), keys),
    client_key=st.one_of(st.none(), keys),
    presented=st.one_of(st.none(), keys),
    header=st.sampled_from(["authorization", "x-api-key"]),
)
def test_the_held_key_goes_out_only_for_toolfixs_key(
    held: str | None, client_key: str | None, presented: str | None, header: str
) -> None:
    s = ProxySettings(upstream=DEAD, upstream_key=held, client_key=client_key)
    headers: dict[str, str] = {}
    if presented is not None:
        headers[header] = f"Bearer {presented}" if header == "authorization" else presented
    got = upstream_key_for(s, headers)
    if held is None:  # no secret held: the client's own key, whatever it is
        assert got == (presented or NO_CLIENT_KEY)
    elif client_key is None:  # --no-auth
        assert got == held
    else:
        assert got == (held if presented == client_key else None)


def test_a_generated_key_is_printed_once_and_a_set_one_is_only_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    key, line = _client_key(None, no_auth=False)
    other, _ = _client_key(None, no_auth=False)
    assert key is not None
    assert key.startswith("tfx-")
    assert len(key) > 30
    assert key != other
    assert line.count(key) == 1
    monkeypatch.setenv(KEY_ENV, "chosen-key")
    key, line = _client_key(None, no_auth=False)
    assert key == "chosen-key"
    assert "chosen-key" not in line
    assert _client_key(None, no_auth=True)[0] is None


ROUTES_SCRIPT = """
import json, socket, subprocess, sys, time, urllib.request

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
stub = subprocess.Popen([sys.executable, sys.argv[1], str(port)])
try:
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stub/requests")
            break
        except OSError:
            time.sleep(0.1)
    from starlette.testclient import TestClient
    from toolfix._proxy_app import ProxySettings, configure_litellm, make_app
    from toolfix.integrations.litellm_proxy import ToolfixProxyHook

    configure_litellm()
    settings = ProxySettings(upstream=f"http://127.0.0.1:{port}/v1")
    c = TestClient(make_app(settings, ToolfixProxyHook()))
    tool = {"name": "f", "input_schema": {"type": "object"}}
    chat_tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    msgs = [{"role": "user", "content": "broken"}]
    codes = []
    for stream in (False, True):
        body = {"model": "stub", "messages": msgs, "stream": stream}
        codes.append(c.post("/v1/chat/completions", json={**body, "tools": [chat_tool]}))
        codes.append(c.post("/v1/messages", json={**body, "max_tokens": 9, "tools": [tool]}))
    codes.append(c.get("/v1/models"))
    bad = [m for m in sys.modules if m.startswith(("litellm.proxy.proxy_server", "prisma"))]
    print(json.dumps({"codes": [r.status_code for r in codes], "bad": bad}))
finally:
    stub.terminate()
"""


def test_no_litellm_proxy_server_and_no_prisma_behind_any_route() -> None:
    """litellm's proxy server (its routes, its prisma error handler) is never imported,
    whatever route runs, streaming or not (in a fresh interpreter)."""
    out = subprocess.run(
        [sys.executable, "-c", ROUTES_SCRIPT, str(HERE / "proxy_stub.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"codes": [200, 200, 200, 200, 200], "bad": []}


def test_a_model_not_served_is_404_before_any_upstream_call() -> None:
    app = make_app(ProxySettings(upstream=DEAD, models=("served",), timeout=2), None)
    with TestClient(app, raise_server_exceptions=False) as c:
        body = {"model": "other", "messages": [{"role": "user", "content": "hi"}]}
        r = c.post("/v1/chat/completions", json=body)
        assert r.status_code == 404
        assert "served" in r.json()["error"]["message"]
        r = c.post("/v1/messages", json={**body, "max_tokens": 5})
        assert r.status_code == 404
        assert c.post("/v1/chat/completions", content=b"[1]").status_code == 400
