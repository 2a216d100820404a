"""The in-process model2vec provider (extra ``local``), on a tiny model this test builds and
saves with model2vec itself, then loads through the provider's real loading code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

model2vec = pytest.importorskip("model2vec", reason="needs the 'local' extra (nox installs it)")
np = pytest.importorskip("numpy")
tokenizers = pytest.importorskip("tokenizers")

from ctx_tree_mcp.app import App  # noqa: E402
from ctx_tree_mcp.cli.reembed import reembed  # noqa: E402
from ctx_tree_mcp.tools.note import note  # noqa: E402
from ctx_tree_mcp.tools.search import search  # noqa: E402

TOPICS = {
    "network": ["retry", "backoff", "timeout", "request", "network"],
    "cache": ["cache", "eviction", "memory", "entries", "full"],
    "parse": ["token", "parser", "grammar", "syntax", "source"],
}


def build_model(where: Path) -> Path:
    """A word-level tokenizer and one 16-d vector per word, near its topic's direction."""
    words = ["[UNK]", *[w for ws in TOPICS.values() for w in ws]]
    tok = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]")
    )
    tok.normalizer = tokenizers.normalizers.Lowercase()
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    rng = np.random.default_rng(0)
    axes = {topic: rng.normal(size=16) for topic in TOPICS}
    rows = [rng.normal(size=16) * 0.01]
    for topic, ws in TOPICS.items():
        rows += [axes[topic] + rng.normal(size=16) * 0.1 for _ in ws]
    model2vec.StaticModel(np.array(rows, dtype=np.float32), tok, normalize=True).save_pretrained(
        where
    )
    return where


def make_app(tmp_path: Path, model_dir: str) -> App:
    root = tmp_path / "proj"
    (root / ".ctx-tree").mkdir(parents=True, exist_ok=True)
    cfg = {
        "embeddingModel": "tiny-m2v",
        "embedding": {"provider": "model2vec", "baseUrl": model_dir},
    }
    (root / ".ctx-tree" / "config.json").write_text(json.dumps(cfg))
    return App(root, home=tmp_path / "home")


def test_model2vec_provider_embeds_in_process_and_searches_by_meaning(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("CTX_TREE_EMBEDDING_PROVIDER", raising=False)
    model_dir = build_model(tmp_path / "tiny-m2v")
    app = make_app(tmp_path, str(model_dir))
    try:
        note(app, "Requests that fail are sent again after a timeout with backoff.", title="net")
        note(app, "When memory is full the oldest entries leave the cache.", title="mem")
        note(app, "The parser turns source text into a syntax tree.", title="syn")
        assert "3 nodes embedded with model2vec tiny-m2v" in reembed(app, progress=False)
        assert app.store.vector_models() == {"tiny-m2v": 3}
        answer = search(app, "eviction", mode="semantic", limit=1)  # in no note's text
        assert "note mem" in answer and "note net" not in answer
    finally:
        app.close()


def test_a_missing_model_directory_is_a_note_not_a_download(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("CTX_TREE_EMBEDDING_PROVIDER", raising=False)
    app = make_app(tmp_path, str(tmp_path / "no-such-model"))
    try:
        note(app, "When memory is full the oldest entries leave the cache.", title="mem")
        answer = search(app, "cache", mode="hybrid")
        assert "model2vec: no model directory" in answer and "note mem" in answer
    finally:
        app.close()


def test_a_text_the_static_model_gives_an_all_zero_vector_is_refused_not_stored(
    tmp_path: Path, monkeypatch
):
    """A static model's vector of a text whose every token has a zero row is all zeros:
    stored, it made every semantic and hybrid search an internal error."""
    from ctx_tree_mcp.cli.maintenance import walk
    from ctx_tree_walkers import rejected_nodes

    monkeypatch.delenv("CTX_TREE_EMBEDDING_PROVIDER", raising=False)
    words = ["[UNK]", "cache", "eviction", "void"]
    tok = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]")
    )
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    rng = np.random.default_rng(1)
    rows = np.array([np.zeros(8), rng.normal(size=8), rng.normal(size=8), np.zeros(8)])
    where = tmp_path / "zero-m2v"
    model2vec.StaticModel(rows.astype(np.float32), tok, normalize=False).save_pretrained(where)
    app = make_app(tmp_path, str(where))
    try:
        note(app, "cache eviction", title="mem")
        note(app, "void void", title="nothing")
        out = walk(app, "embedding")
        assert "1 nodes embedded" in out and "1 nodes refused by the provider" in out, out
        [(_, why)] = rejected_nodes(app.store, "tiny-m2v").values()
        assert "all zeros" in why
        for mode in ("semantic", "hybrid"):
            assert "note mem" in search(app, "cache", mode=mode)
        assert "all zeros" in search(app, "void", mode="semantic")
    finally:
        app.close()
