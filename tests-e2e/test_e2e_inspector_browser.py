"""The inspector in a real browser: Debian's chromium driven by Playwright (``nox -s inspector``).

A store is built by real ``ctx-tree`` CLI calls (read, grep, note, a re-read of an edited file
that supersedes the first); ``ctx-tree inspect`` serves it; the page is opened, a session
expanded, a node opened and its content and edges checked against the store, a search run, a
note written through the CLI seen appearing without a reload, and a request without the token
refused. Screenshots go to ``$CTX_TREE_SCREENSHOTS`` (default: the test's temporary directory).

Turned off unless ``CTX_TREE_CHROMIUM`` names the chromium binary (the nox session sets it).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_support import CHROMIUM_ARGS

CHROMIUM = os.environ.get("CTX_TREE_CHROMIUM", "")
pytestmark = pytest.mark.skipif(
    not CHROMIUM,
    reason="CTX_TREE_CHROMIUM is not set: browser tests off (nox -s inspector runs them)",
)
CLI = [sys.executable, "-c", "from ctx_tree_mcp.cli.main import main; main()"]
STDLIB = Path(os.__file__).parent


def _cli(root: Path, env: dict, *args: str) -> str:
    out = subprocess.run(
        [*CLI, "--root", str(root), *args], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture
def project(tmp_path: Path) -> dict:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    shutil.copy(STDLIB / "json" / "decoder.py", root / "src" / "decoder.py")
    shutil.copy(STDLIB / "textwrap.py", root / "src" / "textwrap.py")
    env = {**os.environ, "CTX_TREE_HOME": str(tmp_path / "home")}
    _cli(root, env, "read", "src/decoder.py", "--symbol", "JSONDecoder.raw_decode")
    _cli(root, env, "read", "src/textwrap.py", "--symbol", "TextWrapper")
    _cli(root, env, "grep", "def ", "src", "--budget", "400")
    _cli(root, env, "note", "raw_decode returns (obj, end)", "--title", "decoder finding")
    with (root / "src" / "decoder.py").open("a") as f:
        f.write("\n# edited after the first read\n")
    _cli(root, env, "read", "src/decoder.py", "--symbol", "JSONDecoder.decode")
    _cli(root, env, "walk")
    return {"root": root, "env": env}


@pytest.fixture
def served(project: dict):
    proc = subprocess.Popen(
        [*CLI, "inspect", str(project["root"]), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=project["env"],
    )
    assert proc.stdout is not None
    store = proc.stdout.readline().split("ctx-tree inspect: ")[1].split(" (read-only)")[0]
    url = proc.stdout.readline().strip()
    yield {**project, "url": url, "store": store}
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0 and "Traceback" not in err, err


def _store_rows(store: str, sql: str, args: tuple = ()) -> list[tuple]:
    import zlib

    import apsw

    con = apsw.Connection(store, flags=apsw.SQLITE_OPEN_READONLY)
    try:  # a file chunk's content may be packed (zlib, docs/data-model.md)
        return [
            tuple(zlib.decompress(v).decode() if isinstance(v, bytes) else v for v in r)
            for r in con.execute(sql, args)
        ]
    finally:
        con.close()


def test_inspector_in_chromium(served: dict, tmp_path: Path):
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("CTX_TREE_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    store = served["store"]
    base = served["url"].split("/?token=")[0]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 860})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        started = time.perf_counter()
        page.goto(served["url"])
        page.wait_for_selector("body[data-ready='1']")
        print(f"page ready in {(time.perf_counter() - started) * 1000:.0f} ms")

        # the spine: expand the CLI's session, find the note, open it
        session = page.locator("#spine > .node[data-kind=session]").first
        session.locator(":scope > .row .twisty").click()
        note_row = session.locator(".children .node[data-kind=note] > .row").first
        expect(note_row).to_contain_text("decoder finding")
        note_row.click()
        expect(page.locator("#content")).to_have_text("raw_decode returns (obj, end)")

        # a file root with edges: the first read of decoder.py, superseded by the second
        (old_root, old_content) = _store_rows(
            store,
            "SELECT id, content FROM nodes WHERE source_uri LIKE '%decoder.py' "
            "AND json_extract(CASE typeof(metadata) WHEN 'text' THEN metadata END, "
            "'$.is_file_root') AND status = 'superseded'",
        )[0]
        files = page.locator("#spine > .node[data-kind=file_chunk]")
        expect(files).to_have_count(3)
        page.locator(f"#spine > .node[data-id='{old_root}'] > .row").click()
        expect(page.locator("#content")).to_have_text(old_content)
        shown = {
            (
                r.get_attribute("data-direction"),
                r.get_attribute("data-kind"),
                r.get_attribute("data-other"),
            )
            for r in page.locator("#edges tbody tr").all()
        }
        stored = {
            ("out", k, d)
            for k, d in _store_rows(
                store, "SELECT kind, dst_id FROM edges WHERE src_id = ?", (old_root,)
            )
        }
        stored |= {
            ("in", k, s)
            for k, s in _store_rows(
                store, "SELECT kind, src_id FROM edges WHERE dst_id = ?", (old_root,)
            )
        }
        assert shown == stored and ("in", "supersedes") in {(w, k) for w, k, _ in shown}
        expect(page.locator("svg.graph g.nb")).not_to_have_count(0)
        page.screenshot(path=str(shots / "inspector-node.png"))

        # search
        page.click("#tabs button[data-tab=search]")
        page.fill("#q", "raw_decode")
        page.press("#q", "Enter")
        expect(page.locator("#search-results .row").first).to_be_visible()
        hit_ids = {r.get_attribute("data-id") for r in page.locator("#search-results .row").all()}
        (note_id,) = _store_rows(store, "SELECT id FROM nodes WHERE kind = 'note'")[0]
        assert note_id in hit_ids
        page.screenshot(path=str(shots / "inspector-search.png"))

        # a note written by the CLI while the page is open appears without a reload
        page.click("#tabs button[data-tab=spine]")
        page.evaluate("window.__noReload = 42")
        _cli(
            served["root"],
            served["env"],
            "note",
            "written while the page was open",
            "--title",
            "late note",
        )
        late = session.locator(".children .node[data-kind=note] > .row", has_text="late note")
        expect(late).to_be_visible(timeout=10_000)
        assert page.evaluate("window.__noReload") == 42
        page.screenshot(path=str(shots / "inspector-spine.png"))

        # the other views render from the store
        for tab in ("recent", "walkers", "savings"):
            page.click(f"#tabs button[data-tab={tab}]")
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(shots / f"inspector-{tab}.png"))
        expect(page.locator("#walker-runs tbody tr").first).to_contain_text("promoted")

        # the compose preview, from the note
        page.click("#tabs button[data-tab=spine]")
        late.click()
        page.click("#node button:has-text('compose from here')")
        expect(page.locator("#manifest tbody tr").first).to_contain_text("included")
        page.screenshot(path=str(shots / "inspector-compose.png"))

        # no token, no answer; nothing failed in the page
        assert page.request.get(f"{base}/api/summary").status == 403
        assert page.request.get(f"{base}/").status == 403
        assert errors == []
        browser.close()
