"""The inspector's JSON API over a store built by real tool calls: token, no CORS, read-only,
pages, node detail, search, walkers, savings and the compose preview."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli.maintenance import walk
from ctx_tree_mcp.inspector import create_app
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.tools.read import read
from starlette.testclient import TestClient

TOKEN = "t0ken-for-tests"
CLI = [sys.executable, "-c", "from ctx_tree_mcp.cli.main import main; main()"]


@pytest.fixture
def built(root: Path, tmp_path: Path) -> dict:
    """A store filled through the tool handlers, then closed (counters flushed)."""
    home = tmp_path / "home"
    app = App(root, home=home)
    read(app, "src/decoder.py", symbol="JSONDecoder.decode")
    asyncio.run(grep(app, "def ", "src", budget_tokens=300))
    ids = {}
    for i in range(5):
        text = note(app, f"inspector note {i} about scanners", title=f"n{i}")
        ids[f"note{i}"] = text.split("node_id=")[1].split()[0]
    (root / "src" / "decoder.py").write_text(
        (root / "src" / "decoder.py").read_text() + "\n# changed\n"
    )
    read(app, "src/decoder.py", symbol="JSONDecoder.decode")  # supersedes the first read
    walk(app)
    ids["session"] = app.recorder.session_node_id()
    app.close()
    return {"root": root, "home": home, **ids}


@pytest.fixture
def client(built: dict):
    app = App(built["root"], home=built["home"], readonly=True)
    with TestClient(create_app(app, TOKEN), base_url="http://127.0.0.1") as c:
        c.headers["X-Ctx-Tree-Token"] = TOKEN
        c.app_state = app  # type: ignore[attr-defined]
        yield c
    app.close()


def _db_file(app: App) -> tuple[int, int, bytes]:
    p = Path(app.store_file)
    return p.stat().st_size, p.stat().st_mtime_ns, p.read_bytes()


def test_every_path_needs_the_token_and_no_cors_header_is_sent(client: TestClient):
    bare = TestClient(client.app, base_url="http://127.0.0.1")
    for path in ["/", "/api/summary", "/api/node/x", "/static/app.js", "/nowhere"]:
        assert bare.get(path).status_code == 403, path
        assert bare.get(path, params={"token": "wrong"}).status_code == 403, path
    assert bare.get("/", params={"token": TOKEN}).status_code == 200
    page = bare.get("/", params={"token": TOKEN}).text
    assert f"static/app.js?token={TOKEN}" in page and "__TOKEN__" not in page
    assert bare.get("/static/app.js", params={"token": TOKEN}).status_code == 200
    res = client.get("/api/summary", headers={"Origin": "http://evil.example"})
    assert res.status_code == 200
    assert not [h for h in res.headers if h.lower().startswith("access-control-")]
    assert "default-src 'none'" in res.headers["content-security-policy"]
    pre = client.options("/api/summary", headers={"Origin": "http://evil.example"})
    assert pre.status_code == 405 and "access-control-allow-origin" not in pre.headers
    assert client.post("/api/summary").status_code == 405
    other_host = TestClient(client.app, base_url="http://attacker.example")
    assert other_host.get("/api/summary", params={"token": TOKEN}).status_code == 400


def test_the_api_writes_nothing(client: TestClient, built: dict):
    app = client.app_state  # type: ignore[attr-defined]
    before = _db_file(app)
    client.get("/api/summary")
    client.get("/api/children")
    client.get("/api/children", params={"parent": built["session"]})
    client.get(f"/api/node/{built['note0']}")
    client.get("/api/search", params={"q": "scanners"})
    client.get("/api/recent", params={"hours": 24})
    client.get("/api/walkers")
    client.get("/api/savings")
    assert client.get("/api/compose", params={"seed": built["note0"]}).status_code == 200
    assert _db_file(app) == before
    # SQLite's WAL readers need the -wal and -shm files (the shared WAL index): it creates
    # them empty when the last writer removed them; no page is ever written to the WAL.
    assert Path(f"{app.store_file}-wal").stat().st_size == 0


def test_summary_counts_match_the_store(client: TestClient, built: dict):
    body = client.get("/api/summary").json()
    app = client.app_state  # type: ignore[attr-defined]
    counts = app.store.counts()
    assert body["nodes"] == sum(c for c, _ in counts.values())
    assert {(c["kind"], c["status"]): c["count"] for c in body["counts"]} == {
        k: c for k, (c, _) in counts.items()
    }
    assert body["counters"]["reads"] == 2 and body["counters"]["greps"] == 1
    assert body["root"] == str(built["root"]) and body["schema_version"] >= 3


def test_spine_pages_roots_and_session_children(client: TestClient, built: dict):
    roots = client.get("/api/children").json()["rows"]
    kinds = {r["kind"] for r in roots}
    assert kinds == {"session", "file_chunk"}
    session = next(r for r in roots if r["kind"] == "session")
    assert session["id"] == built["session"] and session["has_children"]
    first = client.get(
        "/api/children", params={"parent": built["session"], "kind": "note", "limit": 3}
    ).json()
    assert [r["id"] for r in first["rows"]] == [built[f"note{i}"] for i in (4, 3, 2)]
    second = client.get(
        "/api/children",
        params={"parent": built["session"], "kind": "note", "limit": 3, "after": first["next"]},
    ).json()
    assert [r["id"] for r in second["rows"]] == [built["note1"], built["note0"]]
    assert second["next"] is None
    greps = client.get(
        "/api/children", params={"parent": built["session"], "kind": "tool_output"}
    ).json()["rows"]
    assert len(greps) == 1 and greps[0]["label"].startswith("grep 'def '")
    bad = client.get("/api/children", params={"kind": "nonsense"})
    assert bad.status_code == 400 and bad.json()["error"].startswith("kind: unknown kind")
    assert client.get("/api/children", params={"limit": "x"}).status_code == 400


def test_node_detail_matches_the_store(client: TestClient, built: dict):
    app = client.app_state  # type: ignore[attr-defined]
    old_root = next(
        n
        for n in app.store.recent(50, filters=None, kind="file_chunk")
        if n.metadata.get("is_file_root")
    )
    # the newest file root superseded the first one: an edge out of it, into the old one
    body = client.get(f"/api/node/{old_root.id}").json()
    assert body["content"] == old_root.content
    outs = [(e["kind"], e["other_id"]) for e in body["edges"] if e["direction"] == "out"]
    ins = [(e["kind"], e["other_id"]) for e in body["edges"] if e["direction"] == "in"]
    stored_out = app.store.con.execute(
        "SELECT kind, dst_id FROM edges WHERE src_id = ?", (old_root.id,)
    ).fetchall()
    stored_in = app.store.con.execute(
        "SELECT kind, src_id FROM edges WHERE dst_id = ?", (old_root.id,)
    ).fetchall()
    assert sorted(outs) == sorted(map(tuple, stored_out))
    assert sorted(ins) == sorted(map(tuple, stored_in))
    assert outs or ins
    n0 = client.get(f"/api/node/{built['note0']}").json()
    assert n0["content"] == "inspector note 0 about scanners"
    assert n0["metadata"]["title"] == "n0"
    assert [p["id"] for p in n0["path"]] == [built["note0"], built["session"]]
    assert {(x["id"], x["via"]) for x in n0["neighbors"]} == {(built["session"], "parent")}
    assert client.get("/api/node/NOPE").status_code == 404


def test_search_and_recent(client: TestClient, built: dict):
    hits = client.get("/api/search", params={"q": "scanners", "kind": "note"}).json()
    assert hits["mode"] == "keyword"
    assert {h["id"] for h in hits["hits"]} == {built[f"note{i}"] for i in range(5)}
    assert all("scanners" in h["snippet"] for h in hits["hits"])
    assert client.get("/api/search", params={"q": " "}).json()["error"].startswith("q:")
    # hybrid without an embedding provider: keyword hits and a note saying so
    hybrid = client.get("/api/search", params={"q": "scanners", "mode": "hybrid"}).json()
    assert hybrid["mode"] == "hybrid" and "no embedding provider" in hybrid["notes"][0]
    assert {h["id"] for h in hybrid["hits"]} >= {built[f"note{i}"] for i in range(5)}
    bad = client.get("/api/search", params={"q": "x", "mode": "fuzzy"})
    assert bad.status_code == 400 and bad.json()["error"].startswith("mode:")
    recent = client.get("/api/recent", params={"limit": 2, "hours": 2}).json()
    assert len(recent["rows"]) == 2 and recent["next"]
    assert sum(c for _t, c in recent["activity"]) >= 8
    older = client.get("/api/recent", params={"limit": 2, "after": recent["next"]}).json()
    assert not {r["id"] for r in older["rows"]} & {r["id"] for r in recent["rows"]}


def test_walkers_and_savings(client: TestClient):
    walkers = client.get("/api/walkers").json()
    runs = {r["walker"]: r for r in walkers["runs"]}
    assert runs["filter"]["changes"]["promoted"] >= 1
    assert runs["filter"]["summary"].startswith(f"{runs['filter']['changes']['promoted']} promoted")
    assert sum(walkers["now"].values()) == client.get("/api/summary").json()["nodes"]
    savings = client.get("/api/savings").json()
    tools = {t["tool"]: t for t in savings["tools"]}
    assert set(tools) == {"read", "grep"}
    assert tools["read"]["reads"] == 2 and tools["grep"]["greps"] == 1
    served = sum(t["tokens_served"] for t in tools.values())
    assert served == savings["totals"]["tokens_served"] == savings["days"][0]["tokens_served"]
    assert 0 < tools["read"]["tokens_served"] < tools["read"]["tokens_source"]


def test_compose_preview_is_the_tool_plan(client: TestClient, built: dict):
    res = client.get(
        "/api/compose", params={"seed": built["note0"], "budget": 1000, "depth": 1}
    ).json()
    assert res["budget"] == 1000 and 0 < res["used"] <= 1000
    ids = [r["id"] for r in res["included"]]
    assert ids[0] == built["note0"]
    everything = ids + [r["id"] for r in res["dropped"]]
    assert built["session"] in everything
    assert all(r["reason"] in ("budget", "status", "depth") for r in res["dropped"])
    bad = client.get("/api/compose", params={"seed": built["note0"], "budget": 5})
    assert bad.status_code == 400 and bad.json()["error"].startswith("budget:")
    unknown = client.get("/api/compose", params={"seed": "NOPE"})
    assert unknown.status_code == 400 and "seed_ids" in unknown.json()["error"]


def test_version_changes_when_the_store_is_written(client: TestClient, built: dict):
    v1 = client.get("/api/version").json()["version"]
    assert client.get("/api/version").json()["version"] == v1
    writer = App(built["root"], home=built["home"], session_key="cli")
    note(writer, "a late note", title="late")
    writer.close()
    assert client.get("/api/version").json()["version"] != v1
    roots = client.get("/api/children", params={"parent": ""}).json()["rows"]
    cli = next(r for r in roots if r["label"] == f"session cli ({built['root'].name})")
    rows = client.get("/api/children", params={"parent": cli["id"]}).json()["rows"]
    assert rows[0]["label"] == "note late"


def _start(args: list[str], env: dict) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [*CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    proc.stdout.readline()  # "ctx-tree inspect: <store> (read-only)"
    return proc, proc.stdout.readline().strip()


def test_cli_inspect_serves_on_loopback_and_stops_cleanly_on_ctrl_c(built: dict):
    env = {**os.environ, "CTX_TREE_HOME": str(built["home"])}
    proc, url = _start(["inspect", str(built["root"]), "--no-browser"], env)
    try:
        assert url.startswith("http://127.0.0.1:") and "?token=" in url
        base, token = url.split("/?token=")
        deadline = time.monotonic() + 10
        while True:
            try:
                res = httpx.get(f"{base}/api/summary", params={"token": token})
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert res.status_code == 200 and res.json()["nodes"] > 0
        assert httpx.get(f"{base}/api/summary").status_code == 403
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in out


def test_cli_inspect_without_a_store_says_so(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    env = {**os.environ, "CTX_TREE_HOME": str(tmp_path / "nohome")}
    out = subprocess.run(
        [*CLI, "inspect", str(tmp_path / "empty")],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert out.returncode == 1 and "no store" in out.stderr
    assert not (tmp_path / "nohome").exists()


def test_cli_inspect_without_a_display_opens_no_text_browser(built: dict):
    env = {**os.environ, "CTX_TREE_HOME": str(built["home"])}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    proc, url = _start(["inspect", str(built["root"])], env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("Ctrl-C")
        assert proc.stdout.readline().startswith("(no display here")
        # Ctrl-C once it serves: a SIGINT while uvicorn starts is taken by asyncio's runner
        # (it cancels the start-up) and uvicorn then serves on, waiting for a second one.
        base, token = url.split("/?token=")
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/api/summary", params={"token": token})
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)  # a loaded machine; the exit is asserted, not its speed
    assert proc.returncode == 0


def test_the_browser_is_opened_on_a_private_one_time_file_never_on_the_token(
    built: dict, tmp_path: Path
):
    """A command line is readable by every local user (``ps``): the browser gets the path of
    a 0600 redirect file, whose one-time code is spent by the first request."""
    import html
    import re
    import stat
    from urllib.parse import unquote, urlparse

    record = tmp_path / "browser-argv.txt"
    browser = tmp_path / "fake-browser"
    browser.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$0" "$@" > "{record}.tmp"\nmv "{record}.tmp" "{record}"\n'
    )
    browser.chmod(0o755)
    env = {**os.environ, "CTX_TREE_HOME": str(built["home"]), "DISPLAY": ":99",
           "BROWSER": str(browser)}  # fmt: skip
    proc, url = _start(["inspect", str(built["root"])], env)
    try:
        base, token = url.split("/?token=")
        deadline = time.monotonic() + 15
        while not record.exists():
            assert time.monotonic() < deadline, "the browser was never started"
            time.sleep(0.05)
        argv = record.read_text().splitlines()
        assert argv[0] == str(browser) and len(argv) == 2
        assert token not in "".join(argv)
        opener = Path(unquote(urlparse(argv[1]).path))
        assert argv[1].startswith("file://") and opener.name == "open.html"
        assert stat.S_IMODE(opener.stat().st_mode) == 0o600
        assert stat.S_IMODE(opener.parent.stat().st_mode) == 0o700
        page = opener.read_text()
        assert token not in page
        target = html.unescape(re.search(r'url=([^"]+)"', page).group(1))
        assert target.startswith(base + "/?once=")
        while True:
            try:
                first = httpx.get(target, follow_redirects=False)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert first.status_code == 303 and first.headers["location"] == f"/?token={token}"
        assert not opener.exists() and not opener.parent.exists()  # spent: the file is gone
        assert httpx.get(target, follow_redirects=False).status_code == 403  # works once
        assert httpx.get(base + first.headers["location"]).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err


#: Runs ``ctx-tree inspect`` with a Ctrl-C sent the moment the Nth SIGINT handler is set once
#: the inspector starts: the first was asyncio's runner's (inside uvicorn's ``server.run``),
#: which took the Ctrl-C and ended in a CancelledError traceback, or served on.
CTRL_C_AT = """
import os, signal, sys
from ctx_tree_mcp.cli.main import main
real, seen = signal.signal, []
def set_handler(sig, handler):
    old = real(sig, handler)
    if sig == signal.SIGINT and handler is not signal.default_int_handler:
        seen.append(handler)
        if len(seen) == int(sys.argv[1]):
            os.kill(os.getpid(), signal.SIGINT)
    return old
signal.signal = set_handler
main(["inspect", sys.argv[2], "--no-browser"])
"""


@pytest.mark.parametrize("nth", [1, 2])
def test_one_ctrl_c_in_the_first_milliseconds_of_inspect_stops_it(built: dict, nth: int):
    env = {**os.environ, "CTX_TREE_HOME": str(built["home"])}
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_AT, str(nth), str(built["root"])],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,  # a second Ctrl-C never comes: a server left serving fails here
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0 and done.stdout.endswith("ctx-tree inspect: stopped\n"), done
