"""Proxy variables and the providers' HTTP client (docs/search.md#proxies): a provider on this
machine is reached directly whatever ``HTTPS_PROXY`` says; a remote one goes through the proxy
the variables name, honouring ``NO_PROXY``, and when it fails the error names the proxy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.reembed import ReembedFailed, reembed
from ctx_tree_mcp.providers.http import route
from ctx_tree_mcp.tools.note import note
from mcp_fakes import closed_port_url, fake_server

PROXY_VARIABLES = (
    "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
    "NO_PROXY", "no_proxy",
)  # fmt: skip


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*PROXY_VARIABLES, "CTX_TREE_EMBEDDING_PROVIDER", "CTX_TREE_EMBEDDING_URL",
                 "CTX_TREE_EMBEDDING_MODEL", "OLLAMA_HOST", "ANTHROPIC_API_KEY",
                 "ANTHROPIC_BASE_URL"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


def make_app(tmp_path: Path, base_url: str) -> App:
    root = tmp_path / "proj"
    (root / ".ctx-tree").mkdir(parents=True, exist_ok=True)
    config = {"embedding": {"provider": "ollama", "baseUrl": base_url, "timeoutMs": 3000}}
    (root / ".ctx-tree" / "config.json").write_text(json.dumps(config))
    app = App(root, home=tmp_path / "home")
    note(app, "the retry budget is three attempts")
    return app


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_provider_on_this_machine_is_reached_directly(tmp_path, monkeypatch, host):
    dead = closed_port_url()  # a proxy that is not there
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "http_proxy"):
        monkeypatch.setenv(name, dead)
    with fake_server() as fake:
        app = make_app(tmp_path, fake.url.replace("127.0.0.1", host))
        try:
            assert "1 nodes" in reembed(app, progress=False) or "embedded" in reembed(
                app, progress=False
            )
            assert fake.bodies("/api/embed"), "the request reached the server itself"
        finally:
            app.close()


def test_a_proxy_that_fails_is_named_not_the_provider(tmp_path, monkeypatch):
    dead = closed_port_url()
    monkeypatch.setenv("HTTP_PROXY", dead)
    app = make_app(tmp_path, "http://embeddings.example.test:11434")
    try:
        with pytest.raises(ReembedFailed) as failed:
            reembed(app, progress=False)
        message = str(failed.value)
        assert f"through the proxy {dead}" in message and "HTTP_PROXY" in message, message
        assert "NO_PROXY" in message  # how to go around it
    finally:
        app.close()


def test_a_proxy_that_answers_an_error_is_named(tmp_path, monkeypatch):
    with fake_server() as proxy:  # answers 404 to the proxied request
        monkeypatch.setenv("http_proxy", proxy.url)
        app = make_app(tmp_path, "http://embeddings.example.test:11434")
        try:
            with pytest.raises(ReembedFailed) as failed:
                reembed(app, progress=False)
            assert f"through the proxy {proxy.url}" in str(failed.value), str(failed.value)
        finally:
            app.close()


def test_no_proxy_sends_a_host_direct(tmp_path, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", closed_port_url())
    monkeypatch.setenv("NO_PROXY", "example.test")
    app = make_app(tmp_path, "http://embeddings.example.test:11434")
    try:
        with pytest.raises(ReembedFailed) as failed:
            reembed(app, progress=False)
        assert "proxy" not in str(failed.value), str(failed.value)
    finally:
        app.close()


@pytest.mark.parametrize(
    ("url", "environ", "expected"),
    [
        ("http://127.0.0.1:11434", {"HTTP_PROXY": "http://p:3128"}, None),
        ("http://127.9.8.7:1", {"ALL_PROXY": "http://p:3128"}, None),
        ("http://[::1]:11434", {"HTTP_PROXY": "http://p:3128"}, None),
        ("http://localhost:1234/v1", {"HTTP_PROXY": "http://p:3128"}, None),
        ("http://embed.localhost", {"HTTP_PROXY": "http://p:3128"}, None),
        ("https://api.example.test", {"HTTPS_PROXY": "http://p:3128"}, ("http://p:3128", "HTTPS_PROXY")),
        ("https://api.example.test", {"https_proxy": "p:3128"}, ("http://p:3128", "https_proxy")),
        ("https://api.example.test", {"HTTP_PROXY": "http://p:3128"}, None),
        ("http://api.example.test", {"ALL_PROXY": "http://p:3128"}, ("http://p:3128", "ALL_PROXY")),
        ("https://api.example.test", {"HTTPS_PROXY": "http://p:3128", "NO_PROXY": ".example.test"}, None),
        ("https://api.example.test", {"HTTPS_PROXY": "http://p:3128", "no_proxy": "*"}, None),
        ("http://10.1.2.3:8080", {"HTTP_PROXY": "http://p:3128", "NO_PROXY": "10.0.0.0/8"}, None),
        ("http://10.1.2.3:8080", {"HTTP_PROXY": "http://p:3128", "NO_PROXY": "192.168.0.0/16"}, ("http://p:3128", "HTTP_PROXY")),
    ],
)  # fmt: skip
def test_route(url, environ, expected):
    assert route(url, environ) == expected
