"""What ``doctor``, ``stats`` and ``stores`` print is words and true sizes: no exception class
names (``CantOpenError``, ``NotADBError``, ``FileNotFoundError``) for a store they cannot open,
and the bytes the store takes on disk (its WAL included) whatever state the process is in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.cli import doctor as doctor_module
from ctx_tree_mcp.cli.doctor import doctor
from ctx_tree_mcp.cli.maintenance import stats, stores
from ctx_tree_mcp.tools.note import note
from test_mcp_cli import run

#: A Python or apsw exception class name, as a user would read it.
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b")


def _store(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    home = tmp_path / "home"
    app = App(root, home=home)
    note(app, "a first finding")
    path = app.store_file
    app.close()
    return root, home, path


def test_doctor_names_a_damaged_store_once_in_words(tmp_path: Path) -> None:
    root, home, path = _store(tmp_path)
    path.write_bytes(b"\x8f not a database " * 160_000)  # 2.7 MB of garbage
    report, status = doctor(root, home, startup=False)
    failed = [line for line in report.splitlines() if line.startswith("FAIL")]
    assert status == 1 and len(failed) == 1 and "FAIL  store" in failed[0], report
    assert "not a database" in failed[0] and f"ctx-tree forget {root}" in report, report
    assert not EXCEPTION_NAME.search(report), report


def test_doctor_on_a_directory_in_place_of_the_store(tmp_path: Path) -> None:
    root, home, path = _store(tmp_path)
    path.unlink()
    path.mkdir(mode=0o700)
    report, status = doctor(root, home, startup=False)
    failed = [line for line in report.splitlines() if line.startswith("FAIL")]
    assert status == 1 and len(failed) == 1, report
    assert f"{path} is a directory, not a store file" in failed[0], report
    assert "chmod" not in report and not EXCEPTION_NAME.search(report), report


def test_a_check_that_cannot_open_the_store_says_why_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import apsw

    root, home, _ = _store(tmp_path)

    def cannot_open(root: Path, home: Path) -> None:
        raise apsw.CantOpenError("unable to open database file")

    monkeypatch.setattr(doctor_module, "check_index", cannot_open)
    report, status = doctor(root, home, startup=False)
    line = next(x for x in report.splitlines() if x.startswith("FAIL  index"))
    assert status == 1 and "unable to open database file" in line, report
    assert not EXCEPTION_NAME.search(report), report


def test_stats_counts_the_file_on_disk_even_when_it_answers_from_memory(
    tmp_path: Path, capsys
) -> None:
    root, home, path = _store(tmp_path)
    path.write_bytes(b"\x8f not a database " * 160_000)
    app = App(root, home=home)
    try:
        text = stats(app)
    finally:
        app.close()
    assert f"store: {path} (2.7 MB on disk)" in text, text


def test_stats_counts_the_wal_of_a_store_in_use(tmp_path: Path) -> None:
    root, home, path = _store(tmp_path)
    writer = App(root, home=home)
    for i in range(300):
        note(writer, f"finding {i}: " + "x" * 2000)
    wal = Path(str(path) + "-wal")
    on_disk = path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    reader = App(root, home=home)
    try:
        text = stats(reader)
    finally:
        reader.close()
        writer.close()
    shown = re.search(r"\(([\d.]+) (KB|MB) on disk\)", text)
    assert shown, text
    scale = {"KB": 1e3, "MB": 1e6}[shown.group(2)]
    assert abs(float(shown.group(1)) * scale - on_disk) <= 0.05 * scale + 1, (text, on_disk)


def test_a_small_store_is_not_0_0_mb(tmp_path: Path) -> None:
    root, home, path = _store(tmp_path)
    app = App(root, home=home)
    try:
        text = stats(app)
    finally:
        app.close()
    assert "0.0 MB" not in text and re.search(r"\(\d+ KB on disk\)", text), text
    listing = stores(home, current=path)
    assert "0.0 MB" not in listing and re.search(r"\b\d+ KB\b", listing), listing


def test_the_cli_on_a_directory_in_place_of_the_store_answers_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    root, home, path = _store(tmp_path)
    (root / "a.py").write_text("def a():\n    return 1\n")
    path.unlink()
    path.mkdir(mode=0o700)
    monkeypatch.setenv("CTX_TREE_HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    code, out, err = run(capsys, "--root", str(root), "read", "a.py")
    assert code == 0 and "def a():" in out, err
    assert "nothing is being stored" in out and "Is a directory" in out, out
    code, out, err = run(capsys, "--root", str(root), "stats")
    assert code == 0 and not EXCEPTION_NAME.search(out + err), out + err
