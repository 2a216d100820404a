"""No false positives on real text that holds no secret: lockfiles (npm, yarn, go.sum, this
repository's uv.lock), our own sources, and the sources of installed libraries whose names and
docs are full of secret-like words (tokenizers, auth clients, crypto)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from ctx_tree_mcp.wire.redact import redact

HERE = Path(__file__).parent
REPO = HERE.parents[2]
LOCKFILES = sorted((HERE / "fixtures" / "lockfiles").glob("*[!.md]"))


def changed_lines(text: str) -> list[str]:
    out, _ = redact(text)
    return [a for a, b in zip(text.splitlines(), out.splitlines(), strict=True) if a != b]


@pytest.mark.parametrize("path", [*LOCKFILES, REPO / "uv.lock"], ids=lambda p: p.name)
def test_lockfiles_pass_unchanged(path):
    assert changed_lines(path.read_text(encoding="utf-8")) == []


def test_our_own_sources_pass_unchanged():
    sources = sorted(REPO.glob("packages/*/src/**/*.py"))
    assert len(sources) > 50
    changed = {p.name: lines for p in sources if (lines := changed_lines(p.read_text("utf-8")))}
    assert changed == {}


# Installed libraries; a few lines in them do hold password-shaped literals in examples
# (``password='password1'``, ``https://user:pass@host``): those are redacted, rightly.
LIBRARIES = (
    "mcp",
    "anyio",
    "pathspec",
    "pygments",
    "starlette",
    "jwt",
    "cryptography",
    "pydantic_core",
)


@pytest.mark.parametrize("name", LIBRARIES)
def test_library_sources_pass_unchanged(name):
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{name} is not installed here")
    root = Path(next(iter(spec.submodule_search_locations)))
    changed = {}
    for path in sorted(root.rglob("*.py")):
        if "tests" in path.parts:
            continue
        if lines := changed_lines(path.read_text("utf-8", errors="replace")):
            changed[str(path.relative_to(root))] = lines
    assert changed == {}


#: Lines of the standard library that do hold a password-shaped literal in an example.
STDLIB_EXAMPLES = {"urllib/request.py": ["                      passwd='geheim$parole')"]}


def test_the_standard_library_passes_unchanged():
    """Every module of the running Python's standard library (not its tests): names such as
    ``KEY_``, ``TOKEN``, ``_PRIVATE`` and ``auth`` are everywhere in it, values are code."""
    import sysconfig

    root = Path(sysconfig.get_paths()["stdlib"])
    changed = {}
    files = 0
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in ("test", "site-packages", "idlelib") or "tests" in rel.parts:
            continue
        files += 1
        if lines := changed_lines(path.read_text("utf-8", errors="replace")):
            changed[rel.as_posix()] = lines
    assert files > 500
    assert changed == STDLIB_EXAMPLES


def test_the_hooks_benches_and_noxfile_pass_unchanged():
    """This repository's code beyond the packages' sources (its tests hold sample secrets)."""
    paths = [*REPO.glob("plugin/**/*.py"), *REPO.glob("bench/*.py"), REPO / "noxfile.py"]
    assert len(paths) > 5
    changed = {p.name: lines for p in paths if (lines := changed_lines(p.read_text("utf-8")))}
    assert changed == {}
