"""Semantic and hybrid search, providers and fallbacks, over real HTTP to fake servers."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.reembed import ReembedFailed, reembed
from ctx_tree_mcp.engines.search.fusion import convex, rrf
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.providers import embedding_settings
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.search import search
from ctx_tree_schema import merge_config
from ctx_tree_walkers._embedding import PROBE_TEXT
from mcp_fakes import DIMS, closed_port_url, fake_server

NOTES = {
    "parser": "The tokenizer splits source text into tokens before the grammar runs.",
    "cache": "An eviction policy drops the least recently used entries when memory is full.",
    "retry": "Failed network requests are attempted again with exponential backoff delays.",
    "auth": "Login sessions expire after thirty minutes of inactivity for security.",
}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "CTX_TREE_EMBEDDING_PROVIDER",
        "CTX_TREE_EMBEDDING_URL",
        "CTX_TREE_EMBEDDING_MODEL",
        "OLLAMA_HOST",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)


def make_app(tmp_path: Path, embedding: dict | None = None, **top) -> App:
    root = tmp_path / "proj"
    root.mkdir(exist_ok=True)
    (root / ".ctx-tree").mkdir(exist_ok=True)
    config = dict(top)
    if embedding is not None:
        config["embedding"] = embedding
    (root / ".ctx-tree" / "config.json").write_text(json.dumps(config))
    return App(root, home=tmp_path / "home")


def add_notes(app: App) -> dict[str, str]:
    ids = {}
    for title, text in NOTES.items():
        out = note(app, text, title=title)
        ids[title] = out.split("node_id=")[1].split()[0] if "node_id=" in out else ""
    return ids


def titles(answer: str) -> list[str]:
    return [line.split("note ")[1].split()[0] for line in answer.splitlines() if ". note " in line]


def test_no_provider_semantic_answers_keyword_hits_with_a_note(tmp_path: Path):
    app = make_app(tmp_path)
    try:
        add_notes(app)
        keyword = search(app, "eviction policy", mode="keyword")
        semantic = search(app, "eviction policy", mode="semantic")
        assert titles(keyword) == titles(semantic) == ["cache"]
        assert "no embedding provider is configured" in semantic
        assert "note" not in keyword.split("search")[1].split("\n")[0]
        with pytest.raises(ToolInputError, match="mode 'fuzzy' is not one of"):
            search(app, "x", mode="fuzzy")
    finally:
        app.close()


def test_ollama_request_shape_and_semantic_search_by_meaning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with fake_server() as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url.removeprefix("http://"))  # bare host:port
        app = make_app(tmp_path, {"provider": "ollama"}, embeddingModel="nomic-embed-text")
        try:
            add_notes(app)
            assert "reembed: 4 nodes embedded with ollama nomic-embed-text" in reembed(
                app, progress=False
            )
            [batch] = fake.bodies("/api/embed")
            assert batch["model"] == "nomic-embed-text"
            assert sorted(batch["input"]) == sorted(NOTES.values())
            # Shares only "exponential" and "backoff" with the retry note: no BM25 hit needed.
            answer = search(app, "backoff exponential", mode="semantic", limit=2)
            assert titles(answer)[0] == "retry"
            assert fake.bodies("/api/embed")[-1]["input"] == ["backoff exponential"]
            assert "score=" in answer and "(semantic)" in answer
        finally:
            app.close()


def test_openai_request_shape_key_prefixes_and_input_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with fake_server() as fake:
        monkeypatch.setenv("MY_EMBED_KEY", "sk-test-123")
        app = make_app(
            tmp_path,
            {
                "provider": "openai",
                "baseUrl": fake.url + "/v1",
                "apiKeyEnv": "MY_EMBED_KEY",
                "queryPrefix": "query: ",
                "documentPrefix": "passage: ",
                "queryInputType": "query",
                "documentInputType": "passage",
            },
            embeddingModel="e5-small",
        )
        try:
            add_notes(app)
            reembed(app, progress=False)
            search(app, "memory eviction", mode="hybrid")
            doc, query = fake.requests[0], fake.requests[-1]
            assert doc["path"] == query["path"] == "/v1/embeddings"
            assert doc["headers"]["authorization"] == "Bearer sk-test-123"
            assert doc["body"]["model"] == "e5-small"
            assert doc["body"]["encoding_format"] == "float"
            assert doc["body"]["input_type"] == "passage"
            assert all(t.startswith("passage: ") for t in doc["body"]["input"])
            assert query["body"]["input"] == ["query: memory eviction"]
            assert query["body"]["input_type"] == "query"
        finally:
            app.close()


def test_environment_wins_over_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    config = merge_config(
        (
            "test",
            {
                "embeddingModel": "from-config",
                "embedding": {"provider": "ollama", "baseUrl": "http://config:1"},
            },
        )
    )
    monkeypatch.setenv("CTX_TREE_EMBEDDING_PROVIDER", "openai")
    monkeypatch.setenv("CTX_TREE_EMBEDDING_URL", "127.0.0.1:9/v1")
    monkeypatch.setenv("CTX_TREE_EMBEDDING_MODEL", "from-env")
    s = embedding_settings(config)
    assert (s.provider, s.base_url, s.model) == ("openai", "http://127.0.0.1:9/v1", "from-env")
    monkeypatch.setenv("CTX_TREE_EMBEDDING_PROVIDER", "bogus")
    with pytest.raises(ValueError, match="CTX_TREE_EMBEDDING_PROVIDER: unknown provider 'bogus'"):
        embedding_settings(config)
    monkeypatch.delenv("CTX_TREE_EMBEDDING_PROVIDER")
    monkeypatch.delenv("CTX_TREE_EMBEDDING_URL")
    assert embedding_settings(config).base_url == "http://config:1"
    assert embedding_settings(merge_config()) is None


@pytest.mark.parametrize(
    ("provider", "behaviour", "mode"),
    [
        # the answer comes after 3 s
        ("ollama", {"delay_s": 3}, "hybrid"),
        # each byte arrives well within the read timeout, the whole answer never does: the
        # timeout bounds the reading of the body, not each read
        ("openai", {"trickle_s": 0.05}, "semantic"),
        # the same with the headers: no read waits long, the headers never end in time
        ("openai", {"trickle_headers_s": 0.05}, "semantic"),
    ],
    ids=["slow", "trickling", "trickling headers"],
)
def test_a_slow_provider_times_out_to_keyword_results(
    tmp_path: Path, provider: str, behaviour: dict[str, float], mode: str
):
    with fake_server() as fake:
        url = fake.url + ("/v1" if provider == "openai" else "")
        app = make_app(tmp_path, {"provider": provider, "baseUrl": url, "queryTimeoutMs": 300})
        try:
            add_notes(app)
            reembed(app, progress=False)
            fake.behaviour.update(behaviour)
            started = time.monotonic()
            answer = search(app, "eviction policy", mode=mode)
            assert time.monotonic() - started < 2.0
            assert titles(answer) == ["cache"]
            assert "timed out after 300 ms" in answer and "keyword results" in answer
        finally:
            fake.behaviour.clear()
            app.close()


def test_unreachable_and_failing_providers_answer_keyword_results(tmp_path: Path):
    app = make_app(tmp_path, {"provider": "openai", "baseUrl": closed_port_url() + "/v1"})
    try:
        add_notes(app)
        answer = search(app, "eviction policy", mode="semantic")
        assert titles(answer) == ["cache"] and "unreachable (could not connect: " in answer
        assert "ConnectError" not in answer  # the class is in the log, not the answer
        with pytest.raises(ReembedFailed, match="run `ctx-tree reembed` again"):
            reembed(app, progress=False)
    finally:
        app.close()
    with fake_server() as fake:
        fake.behaviour["status"] = 500
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url})
        try:
            answer = search(app, "eviction policy", mode="semantic")
            assert "HTTP 500" in answer and "overloaded" in answer and titles(answer) == ["cache"]
        finally:
            app.close()


def test_wrong_dimension_answers_keyword_results(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url})
        try:
            add_notes(app)
            reembed(app, progress=False)
            fake.behaviour["dims"] = 8  # the server now answers another length
            answer = search(app, "eviction policy", mode="semantic")
            assert titles(answer) == ["cache"]  # the store, not the client, compares lengths
            assert f"query vector has 8 dimensions, the store holds {DIMS}" in answer
        finally:
            app.close()
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url})
        try:  # a fresh process learns 8 from its first answer; the store holds 64
            answer = search(app, "eviction policy", mode="semantic")
            assert f"query vector has 8 dimensions, the store holds {DIMS}" in answer
            assert "ctx-tree reembed" in answer and titles(answer) == ["cache"]
        finally:
            app.close()


def test_another_models_vectors_refuse_semantic_until_reembedded(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url}, embeddingModel="a")
        try:
            add_notes(app)
            reembed(app, progress=False)
        finally:
            app.close()
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url}, embeddingModel="b")
        try:
            for mode in ("semantic", "hybrid"):
                with pytest.raises(ToolInputError, match="ctx-tree reembed") as info:
                    search(app, "eviction", mode=mode)
                assert "model 'a'" in str(info.value) and "'b'" in str(info.value)
                assert 'keyword search works meanwhile (ctx_tree_search(query="eviction"))' in (
                    str(info.value)
                )  # a call the reader can make, in its surface's syntax
            from ctx_tree_mcp.answers.surface import cli_surface
            from ctx_tree_mcp.tools.registry import BY_NAME

            with cli_surface(BY_NAME), pytest.raises(ToolInputError) as info:
                search(app, "eviction", mode="hybrid")
            assert "(ctx-tree search eviction)" in str(info.value)
            assert titles(search(app, "eviction", mode="keyword")) == ["cache"]
            out = reembed(app, progress=False)
            assert "4 nodes embedded" in out and "4 vectors of b" in out
            assert app.store.vector_models() == {"b": 4}
            assert titles(search(app, "eviction policy", mode="semantic", limit=1)) == ["cache"]
        finally:
            app.close()


def test_reembed_progress_after_a_model_change_counts_each_node_once(tmp_path: Path, capsys):
    """A node holds one vector: re-embedding it with the new model replaces the old one, so
    the bar's total is the nodes to embed (it ended at 4/8, 50%, as if cut off)."""
    with fake_server() as fake:
        for model in ("a", "b"):
            app = make_app(
                tmp_path, {"provider": "ollama", "baseUrl": fake.url}, embeddingModel=model
            )
            try:
                if model == "a":
                    add_notes(app)
                capsys.readouterr()
                assert "4 nodes embedded" in reembed(app, progress=True)
            finally:
                app.close()
            bar = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
            assert "100%" in bar and "4/4" in bar, bar


def test_reembed_is_resumable_after_a_provider_failure(tmp_path: Path):
    with fake_server() as fake:
        fake.behaviour["fail_after"] = 2
        fake.behaviour["fail_status"] = 502  # not retried (a 503 is, after a backoff)
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url})
        try:
            add_notes(app)
            with pytest.raises(ReembedFailed, match="2 nodes embedded, then the provider failed"):
                reembed(app, batch_size=1, progress=False)
            assert app.store.vector_backlog("nomic-embed-text") == 2
            fake.behaviour.pop("fail_after")
            assert "2 nodes embedded" in reembed(app, batch_size=1, progress=False)
            assert app.store.vector_backlog("nomic-embed-text") == 0
            sent = [t for b in fake.bodies("/api/embed") for t in b["input"] if t != PROBE_TEXT]
            assert len(sent) == 5  # 2 ok, 1 refused, then the 2 left: nothing embedded twice
        finally:
            app.close()


def test_hybrid_fuses_both_rankings_and_applies_filters(tmp_path: Path):
    assert rrf([["a", "b", "c"], ["c", "a"]], 60) == [
        ("a", pytest.approx(1 / 61 + 1 / 62)),
        ("c", pytest.approx(1 / 63 + 1 / 61)),
        ("b", pytest.approx(1 / 62)),
    ]
    with fake_server() as fake:
        app = make_app(
            tmp_path,
            {"provider": "ollama", "baseUrl": fake.url},
            search={"fusion": "rrf", "rrfK": 10},
        )
        try:
            ids = add_notes(app)
            reembed(app, progress=False)
            answer = search(app, "tokenizer grammar", mode="hybrid", limit=4)
            assert titles(answer)[0] == "parser"
            first_score = float(answer.split("score=")[1].split()[0])
            # first in both rankings, k = 10; printed to 3 significant digits
            assert first_score == pytest.approx(2 / 11, abs=5e-4)
            scoped = search(
                app, "tokenizer grammar", mode="hybrid", filters={"kind": ["tool_output"]}
            )
            assert titles(scoped) == [] and "0 hits" in scoped
            assert ids["parser"]
        finally:
            app.close()


def test_hybrid_fuses_a_third_ranking_by_symbol_names_and_titles(tmp_path: Path):
    body = "Registers the handler on the command tree and returns it."
    with fake_server() as fake:
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url})
        try:
            for title in ("adds default help flag", "adds default help command", "runs hooks"):
                note(app, body, title=title)
            reembed(app, progress=False)
            answer = search(app, "default help command", mode="hybrid", limit=3)
            first = next(line for line in answer.splitlines() if line.startswith("1."))
            assert "adds default help command" in first
            # Best by BM25 and by title: 1 + 1 of the convex sum, plus its vector share.
            score = float(first.split("score=")[1].split()[0])
            assert score >= 2.0 - 5e-3  # printed to 3 significant digits
        finally:
            app.close()


def test_hybrid_ranks_notes_with_every_word_first_and_marks_hits_found_by_meaning(
    tmp_path: Path,
):
    with fake_server() as fake:
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url})
        try:
            note(app, "zebra zebra zebra zebra zebra", title="stripes")
            note(app, "A long note: the zebra came to the quagga farm, where the farmer kept "
                 "horses, donkeys, goats, sheep and chickens, and a dog.", title="farm")  # fmt: skip
            for i in range(3):
                note(app, f"unrelated filler {i} horses", title=f"filler {i}")
            reembed(app, progress=False)
            keyword = search(app, "zebra quagga", limit=3)
            assert titles(keyword) == ["farm", "stripes"]  # every word first, then some
            answer = search(app, "zebra quagga", mode="hybrid", limit=3)
            rows = [line for line in answer.splitlines() if line[:2] in ("1.", "2.", "3.")]
            # "stripes" has the higher BM25 but holds half the words (coverage 0.5): the
            # note with every word comes first.
            assert "note farm" in rows[0] and "note stripes" in rows[1]
            assert "(by meaning)" in rows[2] and "filler" in rows[2]
            assert "1 with every word, 1 with only some, 1 by meaning alone (marked)" in answer
        finally:
            app.close()


def test_hybrid_answers_the_same_with_its_parallel_scan_or_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with fake_server() as fake:
        app = make_app(tmp_path, {"provider": "ollama", "baseUrl": fake.url})
        try:
            add_notes(app)
            reembed(app, progress=False)
            parallel = search(app, "memory eviction policy", mode="hybrid", limit=4)
            assert app.store.reader() is not None  # the scan ran on the second connection
            monkeypatch.setattr(type(app.store), "reader", lambda self: None)
            serial = search(app, "memory eviction policy", mode="hybrid", limit=4)
            assert parallel == serial and titles(parallel)[0] == "cache"
            fake.behaviour["status"] = 503  # a failing provider: keyword results either way
            monkeypatch.undo()
            failed = search(app, "memory eviction policy", mode="hybrid", limit=4)
            assert "keyword results" in failed and titles(failed)[0] == "cache"
        finally:
            app.close()


def test_convex_fusion_scores_every_candidate_on_every_signal():
    pool = ["partial", "full", "vector_only", "no_vector"]
    bm25 = {"partial": 10.0, "full": 5.0, "no_vector": 2.5}
    coverage = {"partial": 0.25, "full": 1.0, "no_vector": 1.0}
    similarity = {"partial": 0.80, "full": 0.90, "vector_only": 0.85}
    symbol = {"full": 3.0, "vector_only": 1.5}
    fused = dict(convex(pool, bm25, coverage, similarity, symbol))
    assert fused["full"] == pytest.approx(0.5 + 1.0 + 1.0)  # half the best BM25, all words
    assert fused["partial"] == pytest.approx(1.0 * 0.25 + 0.0)  # best BM25, a quarter of them
    assert fused["vector_only"] == pytest.approx(0.5 + 0.5)  # min-max similarity, half symbol
    assert fused["no_vector"] == pytest.approx(0.25)  # no vector: no vector share
    assert convex(pool, bm25, coverage, similarity, symbol)[0][0] == "full"
    assert convex(["a", "b"], {}, {}, {}, {}) == [("a", 0.0), ("b", 0.0)]  # ties keep order
