"""Providers that misbehave, over real HTTP to fake servers on 127.0.0.1: one bad text, a
refused batch size, 429/503 with and without Retry-After, a model whose dimensions change
under its name, zero vectors, and a summarizer whose requests fail (docs/search.md#providers,
docs/walkers.md#summarizer)."""

from __future__ import annotations

import json
import time
from email.utils import formatdate
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.doctor import check_embedding, check_summarizer
from ctx_tree_mcp.cli.maintenance import walk
from ctx_tree_mcp.cli.reembed import reembed
from ctx_tree_mcp.providers import embedder_from_config, summarizer_from_config
from ctx_tree_mcp.providers.http import parse_retry_after
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.search import search
from ctx_tree_schema import NodeKind
from ctx_tree_store import InvalidVector, NewNode
from ctx_tree_walkers import embedding_problem, rejected_nodes, run_once, tokens_used
from mcp_fakes import DIMS, closed_port_url, fake_server

MODEL = "nomic-embed-text"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "CTX_TREE_EMBEDDING_PROVIDER",
        "CTX_TREE_EMBEDDING_URL",
        "CTX_TREE_EMBEDDING_MODEL",
        "OLLAMA_HOST",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)


def make_app(tmp_path: Path, config: dict) -> App:
    root = tmp_path / "proj"
    (root / ".ctx-tree").mkdir(parents=True, exist_ok=True)
    (root / ".ctx-tree" / "config.json").write_text(json.dumps(config))
    return App(root, home=tmp_path / "home")


def ollama(fake, **embedding) -> dict:
    return {"embedding": {"provider": "ollama", "baseUrl": fake.url, **embedding}}


def line(report: str, name: str = "embedding") -> str:
    return next(x for x in report.splitlines() if x.startswith(name + ":"))


def add_notes(app: App, count: int) -> None:
    for i in range(count):
        note(app, f"note {i}: the cache layer number {i} evicts entries")


def sent(fake) -> list[str]:
    return [t for b in fake.bodies("/api/embed") for t in b["input"]]


def test_one_text_the_server_errors_on_does_not_block_the_other_forty(tmp_path: Path):
    """Ollama answers HTTP 500 to a batch holding a NaN-producing text: before, none of the
    other 40 notes was ever embedded and every run resent the same batch."""
    with fake_server() as fake:
        fake.behaviour["bad_word"] = "poison"
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 20)
            note(app, "this note holds the poison text")
            add_notes(app, 20)
            out = line(walk(app, "embedding"))
            assert "40 nodes embedded" in out and "1 nodes refused by the provider" in out, out
            assert app.store.vector_backlog(MODEL) == 1
            [(_digest, why)] = rejected_nodes(app.store, MODEL).values()
            assert "HTTP 500" in why and "NaN" in why
            before = len(fake.requests)
            out = line(walk(app, "embedding"))
            assert out.startswith("embedding: 0 nodes embedded"), out
            assert len(fake.requests) == before  # the bad one is not resent
            assert not any("poison" in t for t in sent(fake)[-5:])
            # the server is fixed: reembed retries the refused node
            fake.behaviour.pop("bad_word")
            assert "1 nodes embedded" in reembed(app, progress=False)
            assert app.store.vector_backlog(MODEL) == 0
            assert rejected_nodes(app.store, MODEL) == {}  # the mark went with the fix
        finally:
            app.close()


def test_a_server_failing_every_text_marks_none_of_them(tmp_path: Path):
    """A probe text tells a bad input from a failing server: HTTP 500 for everything is the
    provider failing (retried next tick), not 5 bad notes."""
    with fake_server() as fake:
        fake.behaviour["status"] = 500
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 5)
            out = line(walk(app, "embedding"))
            assert "provider failed" in out and "probe text failed too" in out, out
            assert rejected_nodes(app.store, MODEL) == {}
            assert len(fake.requests) == 2  # the batch and the probe, no splitting
            assert embedding_problem(app.store)["kind"] == "failing"
            check = check_embedding(app.root, app.home)
            assert check is not None and not check.ok and "HTTP 500" in check.detail
        finally:
            app.close()


def test_a_gateway_taking_eight_inputs_gets_batches_of_eight(tmp_path: Path):
    with fake_server() as fake:
        fake.behaviour["max_inputs"] = 8
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 41)
            out = line(walk(app, "embedding"))
            assert "41 nodes embedded" in out, out
            sizes = [len(b["input"]) for b in fake.bodies("/api/embed")]
            assert sizes[:3] == [32, 16, 8]  # refused, refused, taken
            assert max(sizes[3:]) == 8 and sum(s for s in sizes if s <= 8) == 41
            assert rejected_nodes(app.store, MODEL) == {}
        finally:
            app.close()


def test_retry_after_seconds_and_http_date_are_honoured(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 3)
            fake.behaviour["busy"] = [(429, "1")]
            assert "3 nodes embedded" in line(walk(app, "embedding"))
            first, second = (r["at"] for r in fake.requests[:2])
            assert second - first >= 0.95
            note(app, "one more note about eviction")
            fake.behaviour["busy"] = [(503, formatdate(time.time() + 2, usegmt=True))]
            start = len(fake.requests)
            assert "1 nodes embedded" in line(walk(app, "embedding"))
            first, second = (r["at"] for r in fake.requests[start : start + 2])
            assert second - first >= 0.9  # the date has whole seconds
        finally:
            app.close()


def test_backoff_without_retry_after_grows(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 2)
            fake.behaviour["busy"] = [(503, None), (503, None)]
            assert "2 nodes embedded" in line(walk(app, "embedding"))
            at = [r["at"] for r in fake.requests]
            assert len(at) == 3
            assert at[1] - at[0] >= 0.45 and at[2] - at[1] >= 0.95
        finally:
            app.close()


def test_a_long_retry_after_is_not_waited_in_the_request_but_kept(tmp_path: Path):
    with fake_server() as fake:
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 2)
            fake.behaviour["busy"] = [(429, "3600")]
            started = time.monotonic()
            out = line(walk(app, "embedding"))
            assert time.monotonic() - started < 5 and "HTTP 429" in out, out
            problem = embedding_problem(app.store)
            assert problem["kind"] == "rate-limited"
            assert problem["until"] - problem["at"] == 3_600_000
            out = line(walk(app, "embedding"))
            assert "rate-limited by the provider: next request after" in out, out
            assert len(fake.requests) == 1  # nothing sent before the hour is up
            check = check_embedding(app.root, app.home)
            assert check is not None and not check.ok and "rate-limited" in check.detail
        finally:
            app.close()


def test_parse_retry_after():
    now = 1_800_000_000.0
    assert parse_retry_after("120", now) == 120.0
    assert parse_retry_after(formatdate(now + 30, usegmt=True), now) == pytest.approx(30, abs=1)
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now) == 0.0
    assert parse_retry_after("soon", now) is None and parse_retry_after(None, now) is None


def test_a_model_that_changes_dimensions_is_fixed_by_reembed(tmp_path: Path):
    """Before: reembed embedded 0 nodes and exited 0, search said run reembed, doctor passed."""
    with fake_server() as fake:
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 4)
            assert "4 nodes embedded" in reembed(app, progress=False)
            fake.behaviour["dims"] = 32  # same name, another length
            note(app, "a fifth note about eviction")
            out = line(walk(app, "embedding"))
            assert "now answers 32-dimension vectors" in out and "ctx-tree reembed" in out, out
            answer = search(app, "eviction", mode="semantic")
            assert "ctx-tree reembed" in answer
            check = check_embedding(app.root, app.home)
            assert check is not None and not check.ok
            assert f"{DIMS}-dimension" in check.detail and "32" in check.detail
            assert check.fix == "ctx-tree reembed"
            out = reembed(app, progress=False)
            assert "5 nodes embedded" in out and "4 vectors of nomic-embed-text of another" in out
            assert app.store.vector_dimensions(MODEL) == 32
            assert app.store.vector_backlog(MODEL) == 0
            assert "ctx-tree reembed" not in search(app, "eviction", mode="semantic")
            check = check_embedding(app.root, app.home)
            assert check is not None and check.ok, check
        finally:
            app.close()


def test_zero_vectors_are_refused_at_the_door(tmp_path: Path):
    with fake_server() as fake:
        fake.behaviour["zero_word"] = "qqq"
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 3)
            note(app, "qqq")
            out = line(walk(app, "embedding"))
            assert "3 nodes embedded" in out and "1 nodes refused" in out, out
            [(_, why)] = rejected_nodes(app.store, MODEL).values()
            assert "all zeros" in why
            with pytest.raises(InvalidVector, match="all zeros"):
                [(_, node)] = app.store.missing_vectors(MODEL)
                app.store.put_vectors(MODEL, [(node.id, node.content_hash, [0.0] * DIMS)])
            with pytest.raises(InvalidVector, match="not finite"):
                app.store.put_vectors(MODEL, [(node.id, node.content_hash, [float("nan")] * 3)])
            # a query with no known token: keyword results and a note, not an error
            answer = search(app, "qqq", mode="semantic")
            assert "all zeros" in answer and "keyword results" in answer
        finally:
            app.close()


def test_search_survives_zero_vectors_stored_before(tmp_path: Path):
    """One all-zero vector made every semantic and hybrid search an internal error."""
    from ctx_tree_store import _sql
    from ctx_tree_store._vectors import pack

    with fake_server() as fake:
        app = make_app(tmp_path, ollama(fake))
        try:
            add_notes(app, 3)
            walk(app, "embedding")
            [zero_id] = app.store.insert([NewNode(NodeKind.NOTE, "an empty-ish text")])
            rowid, digest = app.store.con.execute(
                "SELECT rowid, content_hash FROM nodes WHERE id = ?", (zero_id,)
            ).fetchone()
            with app.store.transaction() as con:
                con.execute(_sql.VEC_PUT, (rowid, MODEL, digest, pack([0.0] * DIMS), 0))
                con.execute(_sql.VEC_PUT_BITS, (rowid, MODEL, bytes(DIMS // 8)))
            for mode in ("semantic", "hybrid"):
                answer = search(app, "cache layer evicts", mode=mode)
                assert "note 0" in answer or "note 1" in answer, answer
                assert "internal error" not in answer.lower()
        finally:
            app.close()


def subtree(app: App, children: int) -> str:
    [root] = app.store.insert([NewNode(NodeKind.NOTE, "root of a big subtree")])
    app.store.insert(
        [
            NewNode(NodeKind.NOTE, f"child {i}: a finding about module {i} " * 20, parent_id=root)
            for i in range(children)
        ]
    )
    return root


def summarizer_app(tmp_path: Path, fake, monkeypatch, **summarizer) -> App:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    return make_app(
        tmp_path,
        {
            "walkers": {"summarizerSubtreeThreshold": 3},
            "summarizer": {"enabled": True, **summarizer},
        },
    )


def test_timed_out_and_empty_summaries_are_charged_and_the_cap_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Before, 60,000 tokens could be billed against a cap of 10,000 while ctx-tree counted 0:
    timed-out and textless answers were free in its books."""
    with fake_server() as fake:
        fake.behaviour["delay_s"] = 0.6
        app = summarizer_app(
            tmp_path, fake, monkeypatch, timeoutMs=200, dailyTokenCap=3000, maxTokens=500
        )
        try:
            for _ in range(6):
                subtree(app, 3)
            provider = summarizer_from_config(app.config)
            now = 1_800_000_000_000
            for i in range(6):
                run_once(app.store, app.config, "summarizer", now_ms=now + i, summarizer=provider)
            spent = tokens_used(app.store, now)
            assert spent >= 3000  # every timed-out request was charged (input + maxTokens)
            requests = len(fake.requests)
            assert 2 <= requests <= 4, requests  # then the cap stopped the sending
            out = run_once(app.store, app.config, "summarizer", now_ms=now + 9, summarizer=provider)
            assert "daily token cap reached" in out["summarizer"]
            assert len(fake.requests) == requests
            check = check_summarizer(app.root, app.home, now_ms=now)
            assert check is not None and not check.ok and "cap" in check.detail
            provider.close()
        finally:
            app.close()
    with fake_server() as fake:
        fake.summary_text = ""
        app = summarizer_app(tmp_path / "b", fake, monkeypatch)
        try:
            subtree(app, 3)
            provider = summarizer_from_config(app.config)
            now = 1_800_000_000_000
            out = run_once(app.store, app.config, "summarizer", now_ms=now, summarizer=provider)
            assert "anthropic answered no text" in out["summarizer"]
            assert tokens_used(app.store, now) == 150  # the usage it answered with
            fake.summary_text = "A summary."
            fake.behaviour["no_usage"] = True
            subtree(app, 3)
            out = run_once(app.store, app.config, "summarizer", now_ms=now, summarizer=provider)
            assert out["summarizer"].startswith("1 summaries written"), out
            assert tokens_used(app.store, now) > 150 + 100  # estimated from the request's size
            provider.close()
        finally:
            app.close()


def test_a_summarizer_nobody_answers_is_told_in_words_and_costs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Nothing listens at the summarizer's URL: the walker's line and doctor say so in words
    and what to do, without the HTTP client's class name (before: ``unreachable
    (ConnectError: ...)``); a request never sent is charged nothing."""
    from types import SimpleNamespace

    app = summarizer_app(tmp_path, SimpleNamespace(url=closed_port_url()), monkeypatch)
    try:
        subtree(app, 3)
        provider = summarizer_from_config(app.config)
        now = 1_800_000_000_000
        out = run_once(app.store, app.config, "summarizer", now_ms=now, summarizer=provider)
        line = out["summarizer"]
        assert "unreachable (could not connect: " in line, line
        assert "start it or correct the URL" in line and "Error" not in line, line
        assert tokens_used(app.store, now) == 0
        check = check_summarizer(app.root, app.home, now_ms=now)
        assert check is not None and "could not connect" in check.detail
        assert "Error" not in check.detail, check.detail
        provider.close()
    finally:
        app.close()


def test_a_local_model_that_cannot_load_is_told_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A model directory model2vec cannot load: what happened and what to do, without the
    exception's class name (before: ``cannot load DIR: KeyError: 'vocab'``)."""
    import sys
    import types

    from ctx_tree_mcp.providers import embedding_settings
    from ctx_tree_mcp.providers.local import Model2VecEmbedder
    from ctx_tree_walkers import ProviderUnavailable

    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("vocab")

    fake = types.ModuleType("model2vec")
    fake.StaticModel = types.SimpleNamespace(from_pretrained=broken)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "model2vec", fake)
    monkeypatch.delenv("CTX_TREE_EMBEDDING_PROVIDER", raising=False)
    app = make_app(tmp_path, {"embedding": {"provider": "model2vec", "baseUrl": str(tmp_path)}})
    try:
        settings = embedding_settings(app.config)
    finally:
        app.close()
    assert settings is not None
    with pytest.raises(ProviderUnavailable) as failed:
        Model2VecEmbedder(settings)
    message = str(failed.value)
    assert f"cannot load {tmp_path} ('vocab'); put a whole model2vec model there" in message
    assert "KeyError" not in message


def test_a_subtree_that_keeps_failing_is_backed_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with fake_server() as fake:
        fake.behaviour["status"] = 400
        app = summarizer_app(tmp_path, fake, monkeypatch)
        try:
            first = subtree(app, 3)
            provider = summarizer_from_config(app.config)
            now = 1_800_000_000_000
            out = run_once(app.store, app.config, "summarizer", now_ms=now, summarizer=provider)
            assert "HTTP 400" in out["summarizer"] and len(fake.requests) == 1
            out = run_once(app.store, app.config, "summarizer", now_ms=now + 1, summarizer=provider)
            assert "1 subtrees backed off" in out["summarizer"] and len(fake.requests) == 1
            second = subtree(app, 3)  # another subtree is not held up by the failing one
            fake.behaviour.pop("status")
            out = run_once(app.store, app.config, "summarizer", now_ms=now + 2, summarizer=provider)
            assert out["summarizer"].startswith("1 summaries written"), out
            assert app.store.children(second)[-1].kind is NodeKind.SUMMARY
            # 10 minutes later the first one is tried again; a second failure waits 20
            fake.behaviour["status"] = 400
            later = now + 10 * 60_000 + 1
            run_once(app.store, app.config, "summarizer", now_ms=later, summarizer=provider)
            assert len(fake.requests) == 3
            state = json.loads(app.store.walker_state("summarizer:backoff:" + first))
            assert state == [2, later + 20 * 60_000]
            check = check_summarizer(app.root, app.home, now_ms=later)
            assert check is not None and not check.ok and "HTTP 400" in check.detail
            provider.close()
        finally:
            app.close()


def test_a_summarizer_told_to_wait_sends_nothing_until_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with fake_server() as fake:
        app = summarizer_app(tmp_path, fake, monkeypatch)
        try:
            subtree(app, 3)
            subtree(app, 3)
            provider = summarizer_from_config(app.config)
            now = int(time.time() * 1000)
            fake.behaviour["busy"] = [(429, "600")]
            out = run_once(app.store, app.config, "summarizer", now_ms=now, summarizer=provider)
            assert "HTTP 429" in out["summarizer"] and len(fake.requests) == 1
            out = run_once(app.store, app.config, "summarizer", now_ms=now + 1, summarizer=provider)
            assert "rate-limited by the provider: next request after" in out["summarizer"]
            assert len(fake.requests) == 1  # the other subtree waits too
            check = check_summarizer(app.root, app.home, now_ms=now + 1)
            assert check is not None and not check.ok and "rate-limited" in check.detail
            later = now + 601_000
            out = run_once(app.store, app.config, "summarizer", now_ms=later, summarizer=provider)
            assert out["summarizer"].startswith("2 summaries written"), out
            provider.close()
        finally:
            app.close()


def test_embedder_from_config_keeps_the_learned_batch_size(tmp_path: Path):
    with fake_server() as fake:
        fake.behaviour["max_inputs"] = 3
        app = make_app(tmp_path, ollama(fake))
        try:
            embedder = embedder_from_config(app.config)
            assert len(embedder.embed([f"text {i}" for i in range(10)])) == 10
            assert embedder.max_batch == 2  # halved from 10 until taken: 5 refused, 2 taken
            fake.requests.clear()
            embedder.embed([f"text {i}" for i in range(6)])
            assert [len(b["input"]) for b in fake.bodies("/api/embed")] == [2, 2, 2]
            embedder.close()
        finally:
            app.close()


def test_a_hung_embedding_provider_does_not_stall_the_other_walkers(tmp_path: Path):
    """All walkers shared one worker: a tool output waited for the filter (and a capture for
    its ingest) until the embedding request ended, 27 s instead of 0.3 s."""
    import asyncio

    from ctx_tree_mcp.serve.lifecycle import walkers_lifespan
    from ctx_tree_schema import NodeStatus

    with fake_server() as fake:
        fake.behaviour["delay_s"] = 4
        app = make_app(
            tmp_path,
            {
                **ollama(fake),
                "walkers": {"filterIntervalMs": 50, "embeddingIdleMs": 50},
            },
        )
        try:
            note(app, "a note the embedding walker sends to the hung provider")

            async def main() -> tuple[float, float]:
                async with walkers_lifespan(app, first_delay_ms={"embedding": 0})(None):
                    deadline = time.monotonic() + 10
                    while not fake.requests:  # the embedding request is in flight
                        assert time.monotonic() < deadline
                        await asyncio.sleep(0.02)
                    [node_id] = app.store.insert(
                        [
                            NewNode(
                                NodeKind.TOOL_OUTPUT,
                                "a grep answer long enough to be kept by the filter\n" * 3,
                                source_uri="grep://hung",
                                status=NodeStatus.PENDING,
                            )
                        ]
                    )
                    started = time.monotonic()
                    while app.store.get(node_id).status is not NodeStatus.LIVE:
                        assert time.monotonic() - started < 10
                        await asyncio.sleep(0.02)
                    took = time.monotonic() - started
                    stopping = time.monotonic()
                return took, time.monotonic() - stopping

            took, stop_took = asyncio.run(main())
            assert took < 1.0, took  # not behind the 4 s embedding request
            assert stop_took < 6.0, stop_took  # stop leaves a hung provider after its grace
        finally:
            app.close()


def test_an_openai_compatible_gateway_gets_the_same_isolation_and_batch_sizes(tmp_path: Path):
    with fake_server() as fake:
        fake.behaviour.update(max_inputs=8, bad_word="poison")
        app = make_app(tmp_path, {"embedding": {"provider": "openai", "baseUrl": fake.url + "/v1"}})
        try:
            add_notes(app, 12)
            note(app, "the poison text")
            add_notes(app, 12)
            out = line(walk(app, "embedding"))
            assert "24 nodes embedded" in out and "1 nodes refused" in out, out
            assert max(len(b["input"]) for b in fake.bodies("/v1/embeddings")[3:]) <= 8
        finally:
            app.close()
