"""Nox sessions: per-package unit tests in isolated venvs, cross-package e2e, lint.

Run ``uv run nox`` (all default sessions) or ``uv run nox -s e2e``. Each ``tests`` session
syncs a venv holding only that package, its declared dependencies and the dev tools, which
proves every package works on its own.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "tests", "e2e"]
nox.options.error_on_missing_interpreters = True

ROOT = Path(__file__).parent
PACKAGES = [
    "ctx-tree-schema",
    "ctx-tree-store",
    "ctx-tree-chunk",
    "ctx-tree-compose",
    "ctx-tree-walkers",
    "ctx-tree-mcp",
]


def _env(name: str) -> dict[str, str]:
    return {"UV_PROJECT_ENVIRONMENT": str(ROOT / ".nox" / name), "PYTHONDONTWRITEBYTECODE": "1"}


def _sync(session: nox.Session, name: str, *args: str) -> dict[str, str]:
    env = _env(name)
    session.run("uv", "sync", "--frozen", "--exact", "--group", "dev", *args, env=env, external=True)
    return env


@nox.session
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """Unit tests of one package, in a venv with only that package and its dependencies."""
    env = _sync(session, f"tests-{package}", "--package", package)
    session.run(
        str(ROOT / ".nox" / f"tests-{package}" / "bin" / "python"),
        "-m", "pytest", f"packages/{package}/tests", "-n", "auto", "-q", *session.posargs,
        env=env, external=True,
    )


@nox.session
def e2e(session: nox.Session) -> None:
    """End-to-end tests: the real server over stdio with the official MCP client."""
    env = _sync(session, "e2e", "--all-packages")
    session.run(
        str(ROOT / ".nox" / "e2e" / "bin" / "python"),
        "-m", "pytest", "tests-e2e", "-n", "auto", "-q", *session.posargs,
        env=env, external=True,
    )


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    env = _sync(session, "lint", "--all-packages")
    bindir = ROOT / ".nox" / "lint" / "bin"
    session.run(str(bindir / "ruff"), "check", ".", env=env, external=True)
    session.run(str(bindir / "ruff"), "format", "--check", ".", env=env, external=True)


if os.environ.get("CI"):
    nox.options.reuse_existing_virtualenvs = False
