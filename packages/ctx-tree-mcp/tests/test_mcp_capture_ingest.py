"""Spool → store: events written in the spool format (docs/capture.md) become nodes under their
session, through the path policy, the command denylist, redaction and the file cache."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App, root_key, spool_dir
from ctx_tree_mcp.capture import spool
from ctx_tree_mcp.capture.ingest import capture_walker, ingest
from ctx_tree_mcp.tools.read import read
from ctx_tree_schema import EdgeKind, Filters, NodeKind

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
OUTPUT = "collected 12 items\n\ntests/test_api.py ....F\nFAILED tests/test_api.py::test_login\n"


def put(app: App, event: dict, *, name: str | None = None) -> Path:
    """Write ``event`` into ``app``'s spool as the hook does (0600 file in new/)."""
    base = spool_dir(app.home, app.root)
    (base / "new").mkdir(parents=True, exist_ok=True)
    full = {"v": spool.SPOOL_VERSION, "session_id": "sess-1", "cwd": str(app.root), **event}
    full.setdefault("at", int(time.time() * 1000))
    path = base / "new" / (name or f"{time.time_ns():020d}-{os.getpid()}.json")
    path.write_text(json.dumps(full))
    path.chmod(0o600)
    return path


def nodes(app: App, kind: str):
    return app.store.recent(limit=100, kind=kind, filters=Filters(status=("live", "pending")))


def test_root_key_is_sha256_of_the_real_path(app: App, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(app.root)
    assert root_key(link) == root_key(app.root)
    assert len(root_key(app.root)) == 16
    assert spool_dir(app.home, app.root).parent == app.home / "spool"


def test_a_spooled_conversation_becomes_prompt_answer_and_session_nodes(app: App) -> None:
    put(app, {"kind": "prompt", "text": "Why does login fail?", "prompt_id": "p1"})
    put(app, {"kind": "bash", "command": "pytest tests/test_api.py", "text": OUTPUT})
    put(app, {"kind": "response", "text": "Because the token expired.", "prompt_id": "p1"})
    put(app, {"kind": "prompt", "text": "Fix it", "prompt_id": "p2"})
    report = ingest(app)
    assert (report.stored, report.dropped) == (4, 0)
    assert spool.waiting(spool_dir(app.home, app.root)) == []
    (session,) = app.store.recent(kind="session", limit=5)
    assert session.source_uri == "session://sess-1"
    prompts = sorted(nodes(app, "prompt"), key=lambda n: n.metadata["turn_index"])
    assert [(p.metadata["turn_index"], p.metadata["title"]) for p in prompts] == [
        (1, "Why does login fail?"),
        (2, "Fix it"),
    ]
    assert all(p.parent_id == session.id and p.status.value == "pending" for p in prompts)
    (answer,) = nodes(app, "response")
    assert answer.metadata["turn_index"] == 1 and answer.parent_id == session.id
    answer_follows = app.store.neighbors(
        answer.id, edge_kinds=[EdgeKind.FOLLOWS], direction="out", spine=False
    )
    assert [n.node.id for n in answer_follows] == [prompts[0].id]
    (output,) = nodes(app, "tool_output")
    used = app.store.neighbors(
        answer.id, edge_kinds=[EdgeKind.DERIVED_FROM], direction="out", spine=False
    )
    assert [n.node.id for n in used] == [output.id]  # the turn's test run
    second_follows = app.store.neighbors(
        prompts[1].id, edge_kinds=[EdgeKind.FOLLOWS], direction="out", spine=False
    )
    assert [n.node.id for n in second_follows] == [answer.id]


def test_a_native_read_is_stored_through_the_file_cache(app: App) -> None:
    put(app, {"kind": "read", "path": str(app.root / "src" / "decoder.py")})
    assert ingest(app).stored == 1
    roots = [n for n in nodes(app, "file_chunk") if n.metadata.get("is_file_root")]
    assert [r.metadata["relpath"] for r in roots] == ["src/decoder.py"]
    before = len(nodes(app, "file_chunk"))
    answer = read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    # the capture's chunks serve it (the reading session gets its node, no chunk is added)
    assert "def decode" in answer and len(nodes(app, "file_chunk")) == before
    put(app, {"kind": "read", "path": "src/decoder.py"})
    report = ingest(app)
    assert (report.stored, report.unchanged) == (0, 1)  # identical content creates nothing
    assert len([n for n in nodes(app, "file_chunk") if n.metadata.get("is_file_root")]) == 1


def test_secret_and_outside_reads_are_skipped_without_reading(app: App, tmp_path: Path) -> None:
    (app.root / ".env").write_text("OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz\n")
    (tmp_path / "outside.py").write_text("x = 1\n")
    put(app, {"kind": "read", "path": str(app.root / ".env")})
    put(app, {"kind": "read", "path": str(tmp_path / "outside.py")})
    put(app, {"kind": "read", "path": str(app.root / "missing.py")})
    report = ingest(app)
    assert (report.stored, report.skipped) == (0, 3)
    assert nodes(app, "file_chunk") == []


def test_bash_output_is_stored_redacted_with_monitor_metadata(app: App) -> None:
    put(
        app,
        {
            "kind": "bash",
            "command": f"echo {TOKEN}",
            "text": f"{TOKEN}\n{OUTPUT}",
            "exit_code": 1,
            "duration_ms": 42,
            "redacted": False,
        },
    )
    assert ingest(app).stored == 1
    (node,) = nodes(app, "tool_output")
    assert TOKEN not in node.content and "[REDACTED:github_token]" in node.content
    assert TOKEN not in json.dumps(node.metadata)
    assert node.metadata["exit_code"] == 1 and node.metadata["cwd"] == str(app.root)
    assert node.metadata["command"] == "echo [REDACTED:github_token]"
    assert node.metadata["source"] == "hook:Bash" and node.metadata["duration_ms"] == 42
    from ctx_tree_mcp.engines.shell.record import command_uri

    assert node.source_uri == command_uri(f"echo {TOKEN}", str(app.root))


def test_a_routed_command_is_not_captured_again(app: App) -> None:
    """Its whole output was stored by the server that answered it (docs/routing.md); the hook
    saw only the answer, under the rewritten command."""
    routed = (
        "set -o pipefail; pytest -q 2>&1 | /usr/bin/python3 -I -S /x/route_client.py run 1200 /s t1"
    )
    put(app, {"kind": "bash", "command": routed, "text": "3 lines of output\n"})
    put(app, {"kind": "bash", "command": "pytest -q", "text": OUTPUT})
    report = ingest(app)
    assert (report.stored, report.skipped) == (1, 1)
    (node,) = nodes(app, "tool_output")
    assert node.metadata["command"] == "pytest -q"


@pytest.mark.parametrize(
    "command",
    ["env", "printenv", "ls && /usr/bin/env", "aws s3 ls", "cat .env", "sort < config/.env.local"],
)
def test_refused_commands_are_never_stored(app: App, command: str) -> None:
    (app.root / ".ctx-tree").mkdir()
    (app.root / ".ctx-tree" / "config.json").write_text(json.dumps({"bash": {"deny": ["aws"]}}))
    put(app, {"kind": "bash", "command": command, "text": "SECRET_THING=value\n" * 10})
    assert ingest(app).skipped == 1
    assert nodes(app, "tool_output") == []


def test_grep_lines_from_secret_files_are_removed(app: App) -> None:
    text = (
        "src/app.py:3:API_URL = 'https://example.org'\n"
        ".env:1:OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123\n"
        "config/.env.local:2:API_TOKEN=1\n"
        "src/other.py:9:api = API_URL"
    )
    put(
        app,
        {"kind": "grep", "tool": "Grep", "pattern": "API", "output_mode": "content", "text": text},
    )
    put(app, {"kind": "grep", "tool": "Grep", "pattern": "KEY", "path": ".env", "text": "1:KEY=x"})
    report = ingest(app)
    assert (report.stored, report.skipped) == (1, 1)
    (node,) = nodes(app, "tool_output")
    assert ".env" not in node.content and "sk-" not in node.content
    assert node.content.splitlines() == [text.splitlines()[0], text.splitlines()[3]]
    assert node.metadata["pattern"] == "API" and node.source_uri.startswith("grep://")


@pytest.mark.parametrize("numbered", [True, False])
def test_grep_lines_inside_a_private_key_block_are_hidden(app: App, numbered: bool) -> None:
    """A native Grep shows a key's body lines without its BEGIN line, where redaction cannot
    tell them from any base64: they are hidden judged on the whole file, as ctx_tree_grep
    hides them (docs/security.md)."""
    import base64

    body = base64.b64encode(bytes(range(256)) * 3).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = (
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----\n"
    )
    (app.root / "src" / "keys.py").write_text('X = 1\nKEY = """' + pem + '"""\nY = "ok"\n')
    shown = [(3, lines[0]), (4, lines[1]), (len(lines) + 4, 'Y = "ok"')]
    text = "\n".join(f"src/keys.py:{n}:{t}" if numbered else f"src/keys.py:{t}" for n, t in shown)
    put(app, {"kind": "grep", "tool": "Grep", "pattern": "[A-Z]", "output_mode": "content", "text": text})  # fmt: skip
    assert ingest(app).stored == 1
    (node,) = nodes(app, "tool_output")
    assert lines[0] not in node.content and lines[1] not in node.content
    kept = node.content.splitlines()
    assert len(kept) == 3 and kept[2] == text.splitlines()[2]
    assert all("[REDACTED:private_key]" in line for line in kept[:2])


def test_web_and_agent_results(app: App) -> None:
    put(
        app,
        {
            "kind": "web",
            "tool": "WebFetch",
            "url": "https://docs.example.org/spawn",
            "title": "Spawn docs",
            "text": "Spawn starts a child process with the given argv and environment.",
        },
    )
    put(
        app,
        {
            "kind": "agent",
            "title": "Survey the parser",
            "text": "The parser has three entry points: parse, parse_file and parse_stream.",
            "tool_use_id": "toolu_1",
        },
    )
    assert ingest(app).stored == 2
    (web,) = nodes(app, "web_chunk")
    assert web.source_uri == "https://docs.example.org/spawn"
    assert web.metadata["title"] == "Spawn docs" and web.metadata["fetched_at"] > 0
    (summary,) = nodes(app, "summary")
    assert summary.metadata["title"] == "Survey the parser"


def test_a_secret_in_a_fetched_url_is_redacted_in_its_source_too(app: App) -> None:
    """An event the hook could not redact (a marketplace install's first session): the URL
    is the node's source_uri, which was stored as it came."""
    url = f"https://api.example.org/v1/items?access_token={TOKEN}&page=2"
    put(app, {"kind": "web", "tool": "WebFetch", "url": url, "text": "items page two", "redacted": False})  # fmt: skip
    assert ingest(app).stored == 1
    (web,) = nodes(app, "web_chunk")
    assert TOKEN not in web.source_uri and "[REDACTED:" in web.source_uri
    assert TOKEN not in json.dumps(web.metadata)


def test_switched_off_kinds_are_skipped(app: App) -> None:
    (app.root / ".ctx-tree").mkdir()
    (app.root / ".ctx-tree" / "config.json").write_text(json.dumps({"capture": {"bash": False}}))
    put(app, {"kind": "bash", "command": "make", "text": OUTPUT})
    put(app, {"kind": "prompt", "text": "hello there", "prompt_id": "p"})
    report = ingest(app)
    assert (report.stored, report.skipped) == (1, 1)
    assert nodes(app, "tool_output") == []


def test_the_same_output_twice_creates_one_node(app: App) -> None:
    for _ in range(2):
        put(app, {"kind": "bash", "command": "make test", "text": OUTPUT})
    report = ingest(app)
    assert (report.stored, report.unchanged) == (1, 1)
    assert len(nodes(app, "tool_output")) == 1


def test_unreadable_and_foreign_events_are_dropped_and_deleted(app: App) -> None:
    base = spool_dir(app.home, app.root)
    (base / "new").mkdir(parents=True)
    (base / "new" / "001-1.json").write_text("{not json")
    (base / "new" / "002-1.json").write_text(json.dumps({"v": 999, "kind": "prompt"}))
    report = ingest(app)
    assert report.dropped == 2
    assert os.listdir(base / "new") == [] and os.listdir(base / "cur") == []


def test_a_busy_store_gives_the_event_back(app: App, monkeypatch: pytest.MonkeyPatch) -> None:
    import apsw
    from ctx_tree_mcp.capture import ingest as module

    def busy(_app, _event):
        raise apsw.BusyError("database is locked")

    monkeypatch.setattr(module, "ingest_event", busy)
    path = put(app, {"kind": "prompt", "text": "still here", "prompt_id": "p"})
    report = ingest(app)
    assert report.busy and report.dropped == 0
    assert path.exists()  # back in new/, retried next run


def test_a_failing_store_drops_the_event_with_one_log_line(
    app: App, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import apsw
    from ctx_tree_mcp.capture import ingest as module

    def full(_app, _event):
        raise apsw.FullError("database or disk is full")

    monkeypatch.setattr(module, "ingest_event", full)
    path = put(app, {"kind": "prompt", "text": "lost", "prompt_id": "p"})
    with caplog.at_level("WARNING"):
        report = ingest(app)
    assert report.dropped == 1 and not path.exists()
    assert [r.message for r in caplog.records if "dropped" in r.message] == [
        "capture: prompt event dropped: FullError: database or disk is full"
    ]


def test_a_stale_claim_is_requeued(app: App) -> None:
    import subprocess

    base = spool_dir(app.home, app.root)
    path = put(app, {"kind": "prompt", "text": "claimed by a dead ingester", "prompt_id": "p"})
    claimed = spool.claim(base, path.name)
    assert claimed is not None and spool.claim(base, path.name) is None
    assert ingest(app).stored == 0  # this process's own claim is never taken from it
    dead = subprocess.Popen(["true"])
    dead.wait()
    os.rename(claimed, base / "cur" / f"{dead.pid}~{path.name}")  # its ingester is gone
    spool.release_all()
    assert ingest(app).stored == 1  # at once, not after CLAIM_TIMEOUT_S
    legacy = put(app, {"kind": "prompt", "text": "claimed by an older ctx-tree", "prompt_id": "q"})
    os.rename(legacy, base / "cur" / legacy.name)  # no pid in its name: the timeout applies
    assert ingest(app).stored == 0
    old = time.time() - spool.CLAIM_TIMEOUT_S - 5
    os.utime(base / "cur" / legacy.name, (old, old))
    assert ingest(app).stored == 1


def test_state_file_counts_what_is_stored_and_nothing_else(app: App) -> None:
    put(app, {"kind": "prompt", "text": f"my token is {TOKEN}", "prompt_id": "p"})
    put(app, {"kind": "read", "path": "src/decoder.py"})
    ingest(app)
    state_file = spool_dir(app.home, app.root) / "state.json"
    state = json.loads(state_file.read_text())
    assert state["counts"]["prompt"] == 1 and state["counts"]["file"] == 1
    assert state["counts"]["session"] == 1 and isinstance(state["last_capture_at"], int)
    assert TOKEN not in state_file.read_text() and "decoder" not in state_file.read_text()
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(state_file.parent.stat().st_mode) == 0o700


def test_hook_captures_and_tool_calls_share_a_session(app: App) -> None:
    server = app.with_session("sess-1")
    read(server, "src/decoder.py", symbol="JSONDecoder")
    put(app, {"kind": "prompt", "text": "read the decoder", "prompt_id": "p"})
    ingest(app)
    sessions = app.store.recent(kind="session", limit=5)
    assert [s.source_uri for s in sessions] == ["session://sess-1"]
    (prompt,) = nodes(app, "prompt")
    assert prompt.parent_id == sessions[0].id


def test_the_capture_walker_ingests(app: App) -> None:
    put(app, {"kind": "prompt", "text": "through the walker", "prompt_id": "p"})
    run = capture_walker(app.root, app.home)
    report = run(app.store, app.config, now_ms=0, keep_going=lambda: True)
    assert report.stored == 1 and report.summary().startswith("1 stored")


def test_filter_walker_keeps_short_prompts(app: App) -> None:
    from ctx_tree_walkers import run_once

    put(app, {"kind": "prompt", "text": "hi", "prompt_id": "p"})
    ingest(app)
    run_once(app.store, app.config, "filter")
    (prompt,) = app.store.recent(kind="prompt", limit=5)
    assert prompt.kind == NodeKind.PROMPT and prompt.status.value == "live"


def test_redact_trigger_literals_are_exported_for_the_hooks() -> None:
    """The hooks skip loading redact.py for text holding none of these: they must be the
    rules' own triggers (a rename in redact.py would silently turn the shortcut off)."""
    from ctx_tree_mcp.wire import redact
    from ctx_tree_mcp.wire.spool import generated

    triggers = generated()["redact_triggers"]

    assert set(triggers) == {t for rule in redact._RULES for t in rule.triggers}
    assert {"ghp_", "sk-", "-----begin", "bearer", "token"} <= set(triggers)
    sample = "deploy with ghp_" + "a" * 36
    assert redact.redact_text(sample) != sample and any(t in sample.lower() for t in triggers)


def test_key_lines_are_found_with_read_s_line_ends_in_a_file_with_form_feeds(app: App) -> None:
    """Form feeds (old C and Lisp sources) do not end a line for read (docs/tools.md): a
    file's key block lines are found where read numbers them, so its last body lines are
    hidden too."""
    import base64

    body = base64.b64encode(bytes(range(256)) * 3).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = "-----BEGIN EC PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END EC PRIVATE KEY-----\n"
    (app.root / "src" / "paged.c").write_text("/* page */\f\f\f\f\f\f\nint x;\n" + pem)
    text = "\n".join(f"src/paged.c:{line}" for line in lines[-4:])
    put(app, {"kind": "grep", "tool": "Grep", "pattern": "[A-Z]", "output_mode": "content", "text": text})  # fmt: skip
    assert ingest(app).stored == 1
    (node,) = nodes(app, "tool_output")
    assert not any(line in node.content for line in lines), node.content
    assert node.content.count("[REDACTED:private_key]") == 4


def test_key_lines_shown_as_unnumbered_context_are_hidden(app: App) -> None:
    """Grep without line numbers prints context lines as ``path-text``: a key's body lines
    shown as context around a match are hidden too."""
    import base64

    body = base64.b64encode(bytes(range(256)) * 3).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    pem = (
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----\n"
    )
    (app.root / "src" / "my-keys.py").write_text('X = 1\nKEY = """' + pem + '"""\n')
    text = "\n".join(
        ["src/my-keys.py-" + lines[0], "src/my-keys.py:" + lines[1], "src/my-keys.py-" + lines[2]]
    )
    put(app, {"kind": "grep", "tool": "Grep", "pattern": "Q", "output_mode": "content", "-C": 1, "text": text})  # fmt: skip
    assert ingest(app).stored == 1
    (node,) = nodes(app, "tool_output")
    assert not any(line in node.content for line in lines[:3]), node.content
    assert node.content.count("[REDACTED:private_key]") == 3
