"""The README's second command (``uv run --frozen nox``) on a machine as the README describes it:
the sessions it lists are the ones that run, and ``hooks-oldest`` gets its old Python from uv
where it can, else skips with the reason outside CI and fails inside it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _noxfile() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ctx_tree_noxfile", ROOT / "noxfile.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NOXFILE = _noxfile()


def _names(text: str) -> list[str]:
    return re.findall(r"`([a-z][a-z0-9-]*)`", text)


def test_the_readme_lists_exactly_the_default_sessions() -> None:
    """Each default session named once, in the order it runs; the release steps after them."""
    import nox

    sessions = set(nox.registry.get())
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    said = readme.split("`uv run --frozen nox` runs the default sessions", 1)[1]
    default, release = said.split("Release steps, not in the default:", 1)
    assert [n for n in _names(default) if n in sessions] == NOXFILE.nox.options.sessions
    release = release.split("; see ", 1)[0]
    named = [n for n in re.findall(r"-s ([a-z-]+)", release) if n in sessions]
    assert sorted(named + NOXFILE.nox.options.sessions) == sorted(sessions)


def test_the_noxfile_docstring_lists_every_session_as_default_or_release_step() -> None:
    import nox

    doc = NOXFILE.__doc__
    head = doc.split("\n\n", 1)[0]
    m = re.fullmatch(
        r"Nox sessions\. Default \(what CI runs\): (.*)\. Release steps: (.*)\.",
        " ".join(head.split()),
    )
    assert m, head
    default = [s.strip() for s in m.group(1).split(",")]
    release = [s.strip() for s in m.group(2).split(",")]
    assert default == NOXFILE.nox.options.sessions
    assert sorted(default + release) == sorted(nox.registry.get())
    bullets = re.findall(r"^- ``([a-z0-9<>-]+)``( \(not default| \(release step)?", doc, re.M)
    for name, note in bullets:
        if name.startswith("tests"):
            name = "tests"
        assert (name in default) == (note == ""), f"{name}: default is {name in default}"
    assert {name if not name.startswith("tests") else "tests" for name, _ in bullets} == set(
        default + release
    )


class Skipped(Exception):
    pass


class Failed(Exception):
    pass


class FakeSession:
    def __init__(self) -> None:
        self.logged: list[str] = []

    def skip(self, message: str) -> None:
        raise Skipped(message)

    def error(self, message: str) -> None:
        raise Failed(message)

    def log(self, message: str) -> None:
        self.logged.append(message)

    warn = log


def _machine(installable: bool):
    """A ``subprocess.run`` for a machine with Python 3.11+ only: ``uv python find`` finds no
    3.8-3.10; ``uv python install`` fails as with no network, or installs 3.8."""
    installed: list[str] = []

    def run(cmd, **kwargs):
        if cmd[:3] == ["uv", "python", "find"]:
            version = cmd[-1]
            if version in installed:
                return subprocess.CompletedProcess(
                    cmd, 0, f"/uv/cpython-{version}/bin/python\n", ""
                )
            return subprocess.CompletedProcess(
                cmd, 2, "", f"error: No interpreter found for Python {version}"
            )
        if cmd[:3] == ["uv", "python", "install"]:
            if installable:
                installed.append(cmd[-1])
                return subprocess.CompletedProcess(cmd, 0, "", "Installed Python 3.8.20")
            return subprocess.CompletedProcess(
                cmd,
                1,
                "",
                "error: Failed to install cpython-3.8.20\n  Caused by: failed to lookup address "
                "information: Name or service not known\n",
            )
        raise AssertionError(f"unexpected command {cmd}")

    return run


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No pyenv, no $CTX_TREE_OLDEST_PYTHON."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CTX_TREE_OLDEST_PYTHON", raising=False)


def test_uv_provides_the_oldest_python_where_it_can(bare, monkeypatch) -> None:
    monkeypatch.setattr(NOXFILE.subprocess, "run", _machine(installable=True))
    monkeypatch.delenv("CI", raising=False)
    assert NOXFILE._oldest_python(FakeSession()) == "/uv/cpython-3.8/bin/python"


def test_without_one_it_skips_with_the_reason_outside_ci(bare, monkeypatch) -> None:
    monkeypatch.setattr(NOXFILE.subprocess, "run", _machine(installable=False))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(Skipped) as skipped:
        NOXFILE._oldest_python(FakeSession())
    said = str(skipped.value)
    assert "no Python 3.8-3.10" in said and "uv python install 3.8" in said
    assert "Name or service not known" in said and "CTX_TREE_OLDEST_PYTHON" in said


def test_without_one_it_fails_inside_ci(bare, monkeypatch) -> None:
    monkeypatch.setattr(NOXFILE.subprocess, "run", _machine(installable=False))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(Failed) as failed:
        NOXFILE._oldest_python(FakeSession())
    assert "no Python 3.8-3.10" in str(failed.value)


def test_a_pyenv_build_is_used_before_any_download(bare, monkeypatch, tmp_path) -> None:
    python = tmp_path / ".pyenv" / "versions" / "3.9.18" / "bin" / "python3.9"
    python.parent.mkdir(parents=True)
    python.touch()
    monkeypatch.setattr(NOXFILE.subprocess, "run", _machine(installable=False))
    assert NOXFILE._oldest_python(FakeSession()) == str(python)
