"""The embedding, dedupe and summarizer walkers with the real HTTP providers and fake servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.maintenance import walk
from ctx_tree_mcp.providers import summarizer_from_config
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.search import search
from ctx_tree_schema import EdgeKind, NodeKind, NodeStatus
from ctx_tree_store import NewNode
from ctx_tree_walkers import run_once, tokens_used
from mcp_fakes import Fake, fake_server


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CTX_TREE_EMBEDDING_PROVIDER", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@contextmanager
def anthropic_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Fake]:
    """A fake server the summarizer's Anthropic client talks to (key and base URL set)."""
    with fake_server() as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        yield fake


def make_app(tmp_path: Path, config: dict) -> App:
    root = tmp_path / "proj"
    (root / ".ctx-tree").mkdir(parents=True, exist_ok=True)
    (root / ".ctx-tree" / "config.json").write_text(json.dumps(config))
    return App(root, home=tmp_path / "home")


def walker_line(report: str, name: str) -> str:
    return next(line for line in report.splitlines() if line.startswith(name + ":"))


def test_embedding_walker_embeds_new_nodes_and_reports_it(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(tmp_path, {"embedding": {"provider": "ollama", "baseUrl": fake.url}})
        try:
            for i in range(5):
                note(app, f"note number {i} about caching layers")
            line = walker_line(walk(app, "embedding"), "embedding")
            assert "5 nodes embedded with nomic-embed-text in 1 batches" in line
            assert walker_line(walk(app, "embedding"), "embedding").startswith(
                "embedding: 0 nodes embedded"
            )
            fake.behaviour["status"] = 503
            note(app, "one more note")
            line = walker_line(walk(app, "embedding"), "embedding")
            assert "provider failed" in line and "HTTP 503" in line and "retried next tick" in line
        finally:
            app.close()


def test_dedupe_supersedes_near_duplicates_and_search_shows_one(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(
            tmp_path,
            {
                "embedding": {"provider": "ollama", "baseUrl": fake.url},
                "walkers": {"dedupeThreshold": 0.97},
            },
        )
        try:
            note(app, "The deploy failed because the disk was full on the build host.")
            note(app, "The deploy failed because the disk was full on the build host!")
            note(app, "Unrelated: the linter wants trailing commas.")
            walk(app, "embedding")
            line = walker_line(walk(app, "dedupe"), "dedupe")
            assert line == "dedupe: checked 3 nodes: 1 near-duplicates superseded in 1 groups"
            notes = [n for n in app.store.recent(10) if n.kind is NodeKind.NOTE]
            assert len(notes) == 2  # live ones only
            everything = app.store.recent(10, filters=None, kind=NodeKind.NOTE)
            assert len(everything) == 2
            hits = search(app, "deploy disk full", mode="keyword")
            assert "1 hit," in hits and hits.count("node_id=") == 1
            superseded = [
                n
                for n in app.store.get_many(
                    [r[0] for r in app.store.con.execute("SELECT id FROM nodes")]
                ).values()
                if n.status is NodeStatus.SUPERSEDED
            ]
            assert len(superseded) == 1
            kept = app.store.adjacent(superseded[0].id, [EdgeKind.SUPERSEDES], "in", spine=False)
            assert kept and kept[0][0] > superseded[0].id  # the newer one stays live
            assert walker_line(walk(app, "dedupe"), "dedupe").startswith("dedupe: checked 0 nodes")
        finally:
            app.close()


def subtree(app: App, children: int) -> str:
    [root] = app.store.insert([NewNode(NodeKind.NOTE, "root of a big subtree")])
    app.store.insert(
        [
            NewNode(NodeKind.NOTE, f"child {i}: a finding about module {i}", parent_id=root)
            for i in range(children)
        ]
    )
    return root


def test_summarizer_request_shape_summary_node_and_edges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with anthropic_server(monkeypatch) as fake:
        app = make_app(
            tmp_path,
            {
                "walkers": {"summarizerSubtreeThreshold": 3},
                "summarizerModel": "claude-haiku-4-5",
                "summarizer": {"enabled": True},
            },
        )
        try:
            root = subtree(app, 4)
            line = walker_line(walk(app, "summarizer"), "summarizer")
            assert line.startswith(
                "summarizer: 1 summaries written (0 replacing older ones) of 1 subtrees"
            )
            assert "150 tokens" in line
            [req] = fake.requests
            assert req["path"] == "/v1/messages"
            assert req["headers"]["x-api-key"] == "sk-ant-test"
            assert req["headers"]["anthropic-version"] == "2023-06-01"
            body = req["body"]
            assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == 400
            assert body["messages"][0]["role"] == "user"
            assert "child 3: a finding about module 3" in body["messages"][0]["content"]
            [summary] = [c for c in app.store.children(root) if c.kind is NodeKind.SUMMARY]
            assert summary.content == "A summary of the material."
            assert summary.metadata["model"] == "claude-haiku-4-5"
            assert summary.metadata["covers"] == 4
            edges = app.store.adjacent(summary.id, [EdgeKind.SUMMARIZES], "out", spine=False)
            assert len(edges) == 4
            # Nothing new: no second call.
            walk(app, "summarizer")
            assert len(fake.requests) == 1
        finally:
            app.close()


def test_walker_providers_are_built_once_and_closed_with_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """``ctx-tree walk`` and the server take their providers from ``App.walker_providers``:
    one summarizer per App across walks, its connection pool closed by ``App.close``."""
    with anthropic_server(monkeypatch) as fake:
        app = make_app(
            tmp_path,
            {
                "walkers": {"summarizerSubtreeThreshold": 3},
                "summarizer": {"enabled": True},
                "embedding": {"provider": "ollama", "baseUrl": fake.url},
            },
        )
        providers = app.walker_providers()
        try:
            summarizer, embedder = providers["summarizer"], providers["embedder"]
            assert summarizer is not None and embedder is not None
            subtree(app, 4)
            walk(app, "summarizer")
            walk(app, "summarizer")
            assert app.walker_providers() == {"embedder": embedder, "summarizer": summarizer}
            assert [r["path"] for r in fake.requests] == ["/v1/messages"]
            assert not summarizer._http.is_closed
        finally:
            app.close()
        assert summarizer._http.is_closed


def test_summarizer_daily_cap_and_rate_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with anthropic_server(monkeypatch) as fake:
        app = make_app(
            tmp_path,
            {
                "walkers": {"summarizerSubtreeThreshold": 2},
                "summarizer": {"enabled": True, "dailyTokenCap": 100, "requestsPerMinute": 5},
            },
        )
        try:
            for _ in range(3):
                subtree(app, 2)
            provider = summarizer_from_config(app.config)
            now = 1_800_000_000_000
            out = run_once(app.store, app.config, "summarizer", now_ms=now, summarizer=provider)
            # The first call spends 150 tokens (> cap 100): the next one is refused.
            assert out["summarizer"].startswith("1 summaries written")
            assert "daily token cap reached (100 tokens on 2027-01-15)" in out["summarizer"]
            assert tokens_used(app.store, now) == 150 and len(fake.requests) == 1
            next_day = now + 86_400_000
            app2 = make_app(
                tmp_path,
                {
                    "walkers": {"summarizerSubtreeThreshold": 2},
                    "summarizer": {
                        "enabled": True,
                        "dailyTokenCap": 10_000,
                        "requestsPerMinute": 1,
                    },
                },
            )
            try:
                out = run_once(
                    app2.store, app2.config, "summarizer", now_ms=next_day, summarizer=provider
                )
                assert out["summarizer"].startswith("1 summaries written")
                assert "rate limit reached (1 requests a minute)" in out["summarizer"]
                out = run_once(
                    app2.store,
                    app2.config,
                    "summarizer",
                    now_ms=next_day + 61_000,
                    summarizer=provider,
                )
                assert out["summarizer"].startswith("1 summaries written")
                assert len(fake.requests) == 3
            finally:
                app2.close()
            provider.close()
        finally:
            app.close()


def test_summarizer_is_off_without_a_key(tmp_path: Path):
    app = make_app(tmp_path, {"walkers": {"summarizerSubtreeThreshold": 2}})
    try:
        subtree(app, 3)
        assert summarizer_from_config(app.config) is None
        assert (
            walker_line(walk(app, "summarizer"), "summarizer")
            == "summarizer: off (needs summarizer.enabled and ANTHROPIC_API_KEY)"
        )
    finally:
        app.close()


def test_a_key_in_the_environment_alone_sends_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Claude Code users often have ANTHROPIC_API_KEY set; without summarizer.enabled no
    stored text goes to the API (the fake server sees no request)."""
    with anthropic_server(monkeypatch) as fake:
        app = make_app(tmp_path, {"walkers": {"summarizerSubtreeThreshold": 2}})
        try:
            subtree(app, 3)
            assert summarizer_from_config(app.config) is None
            line = walker_line(walk(app, "summarizer"), "summarizer")
            assert line == "summarizer: off (needs summarizer.enabled and ANTHROPIC_API_KEY)"
            assert fake.requests == []
        finally:
            app.close()


def test_provider_walker_runs_are_recorded_like_the_others(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(tmp_path, {"embedding": {"provider": "ollama", "baseUrl": fake.url}})
        try:
            note(app, "a note about caching layers and their eviction")
            walk(app, "embedding")
            walk(app, "embedding")  # nothing to do: not recorded
            rows = app.store.con.execute(
                "SELECT walker, summary, changes FROM walker_runs WHERE walker = 'embedding'"
            ).fetchall()
            assert len(rows) == 1
            assert json.loads(rows[0][2]) == {"embedded": 1}
            assert rows[0][1].startswith("1 nodes embedded with nomic-embed-text")
        finally:
            app.close()
