"""The resume digest (docs/capture.md, "Resume after compaction") says what was asked and what
was answered, each with its id, within its budget; every section keeps a share of it."""

from __future__ import annotations

import re
from pathlib import Path

from ctx_tree_mcp.answers.budget import estimate_tokens
from ctx_tree_mcp.app import App
from ctx_tree_mcp.capture.ingest import ingest
from ctx_tree_mcp.capture.resume import BUDGET, MAX_CHARS, digest
from ctx_tree_mcp.tools.note import note
from test_mcp_capture_ingest import put

HOOKS = Path(__file__).resolve().parents[3] / "plugin" / "hooks"


def _digest(app: App, budget: int = BUDGET) -> str:
    ingest(app)
    return digest(app.store, "sess-1", budget)


def test_each_question_comes_with_the_start_of_its_answer(app: App) -> None:
    put(
        app,
        {"kind": "prompt", "text": "What is the retry budget of the uploader?", "prompt_id": "p1"},
    )
    put(app, {"kind": "response", "prompt_id": "p1",
              "text": "The uploader retries 4 times with a 250 ms backoff (uploader.py:88)."})  # fmt: skip
    put(app, {"kind": "prompt", "text": "And who calls it?", "prompt_id": "p2"})
    put(app, {"kind": "response", "prompt_id": "p2",
              "text": "Only sync.push_all calls it,\n\nonce per batch."})  # fmt: skip
    put(app, {"kind": "prompt", "text": "Make it 6", "prompt_id": "p3"})  # not answered yet
    text = _digest(app)
    lines = text.splitlines()
    first = lines.index(next(x for x in lines if "What is the retry budget" in x))
    assert re.fullmatch(
        r"  answered: The uploader retries 4 times with a 250 ms backoff \(uploader\.py:88\)\. "
        r"\(id \w{26}\)",
        lines[first + 1],
    ), text
    second = lines.index(next(x for x in lines if "And who calls it?" in x))
    assert lines[second + 1].startswith("  answered: Only sync.push_all calls it, once per batch.")
    third = lines.index(next(x for x in lines if "Make it 6" in x))
    assert not lines[third + 1].startswith("  answered:"), text
    assert third < second < first  # newest first


def test_an_answer_without_a_prompt_id_is_paired_by_its_turn(app: App) -> None:
    put(app, {"kind": "prompt", "text": "Where is the config read?"})
    put(app, {"kind": "response", "text": "In settings.load, from ~/.tool.toml."})
    text = _digest(app)
    assert "- Where is the config read? (id " in text
    assert "  answered: In settings.load, from ~/.tool.toml. (id " in text, text


def test_long_answers_are_cut_and_every_section_keeps_room(root: Path, tmp_path: Path) -> None:
    app = App(root, home=tmp_path / "h", session_key="sess-1")  # its notes join the session
    words = "the quick brown fox jumps over the lazy dog near the riverbank again "
    for i in range(8):
        put(app, {"kind": "prompt", "text": f"question {i}: " + words * 8, "prompt_id": f"p{i}"})
        put(app, {"kind": "response", "prompt_id": f"p{i}", "text": f"ANSWER{i} " + words * 80})
    for i in range(20):
        (root / f"mod{i}.py").write_text(f"def f{i}():\n    return {i}\n")
        put(app, {"kind": "read", "path": str(root / f"mod{i}.py")})
    for i in range(6):
        put(app, {"kind": "bash", "command": f"make check{i}", "text": "boom\n", "exit_code": 2})
    note(app, "the lock must be taken before the flush")
    try:
        text = _digest(app)
    finally:
        app.close()
    assert estimate_tokens(text) <= BUDGET and len(text) <= MAX_CHARS, (estimate_tokens(text), text)
    assert "ANSWER7 the quick brown fox" in text  # the newest answer, begun
    newest = next(x for x in text.splitlines() if "ANSWER7" in x)
    older = next(x for x in text.splitlines() if "ANSWER6" in x)
    assert len(newest) > len(older), text
    assert "files read:" in text and "commands that failed:" in text and "notes:" in text, text
    assert "- mod19.py (id " in text and "`make check5` exit 2: boom" in text  # newest first
    assert "the lock must be taken before the flush" in text


def test_the_digest_fits_what_the_hook_injects(tmp_path: Path) -> None:
    """The SessionStart hook reads at most DIGEST_MAX_CHARS characters of the file: the digest
    never holds more, so no line is cut."""
    import sys

    from ctx_tree_mcp.wire.spool import DIGEST_MAX_CHARS, digest_file

    sys.path.insert(0, str(HOOKS))
    from session import resume_digest

    base = tmp_path / "spool"
    Path(digest_file(base, "s1")).parent.mkdir(parents=True)
    Path(digest_file(base, "s1")).write_text("x" * 99 + "\n" + "y" * 9000)
    assert resume_digest(str(base), "s1") == ("x" * 99 + "\n" + "y" * 9000)[:MAX_CHARS]
    assert len(resume_digest(str(base), "s1")) == MAX_CHARS == DIGEST_MAX_CHARS
