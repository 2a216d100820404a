"""Search and the map rank source before translations, lockfiles, generated, vendored and
fixture files (unless the query asks for them), and a config key is no definition."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.engines.files.roles import asked, factor, role_of
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.tools.search import search


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("pkg/env.py", "source"),
        ("pkg/locale/fr/LC_MESSAGES/pkg.po", "translation"),
        ("package-lock.json", "lockfile"),
        ("uv.lock", "lockfile"),
        ("static/jquery.min.js", "generated"),
        ("api/service_pb2.py", "generated"),
        ("vendor/github.com/x/y.go", "vendored"),
        ("tests/roots/test-root/conf.py", "fixture"),
        ("testdata/input.go", "fixture"),
        ("tests/test_env.py", "test"),
        ("pkg/env_test.go", "test"),
        ("src/a.spec.ts", "test"),
        ("docs/usage.rst", "docs"),
        ("README.md", "docs"),
        (".readthedocs.yml", "config"),
        ("pyproject.toml", "config"),
    ],
)
def test_roles_by_path(path: str, role: str) -> None:
    assert role_of(path).name == role


def test_a_query_asking_for_a_role_lifts_its_factor() -> None:
    assert factor("pkg/locale/fr/LC_MESSAGES/pkg.po") == 0.1
    assert asked("the French translation of the build message") == {"translation"}
    assert factor("pkg/locale/fr/LC_MESSAGES/pkg.po", asked("French translation")) == 1.0
    assert factor("pkg/env.py", asked("anything")) == 1.0


@pytest.fixture
def project(tmp_path: Path) -> App:
    root = tmp_path / "proj"
    files = {
        "pkg/build.py": (
            "def rebuild_outdated(env):\n"
            '    """Rebuild the outdated documents."""\n'
            "    return [d for d in env if d]\n"
        ),
        "pkg/notes.py": "def other(x):\n    return 'rebuild outdated documents' + x\n",
        # a translation catalogue repeating the words many times
        "pkg/locale/fr/LC_MESSAGES/pkg.po": "".join(
            f'msgid "rebuild outdated documents {i}"\nmsgstr "reconstruire {i}"\n\n'
            for i in range(40)
        ),
        ".readthedocs.yml": "version: 2\nrebuild_outdated: true\nbuild:\n  os: linux\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    app = App(root, home=tmp_path / "home")
    for rel in files:
        read(app, rel, budget_tokens=100)
    yield app
    app.close()


def paths(answer: str) -> list[str]:
    return [
        line.split(". ", 1)[1].split(":", 1)[0] for line in answer.splitlines() if ". " in line[:4]
    ]


def test_source_first_unless_the_query_asks(project: App) -> None:
    found = paths(search(project, "rebuild outdated documents"))
    assert found[0].startswith("pkg/") and not found[0].endswith(".po")
    assert found.index("pkg/locale/fr/LC_MESSAGES/pkg.po") > found.index("pkg/notes.py")
    asked_for = paths(search(project, "rebuild outdated documents translation msgid"))
    assert asked_for[0] == "pkg/locale/fr/LC_MESSAGES/pkg.po"


def test_the_named_symbol_comes_first(project: App) -> None:
    found = search(project, "rebuild_outdated")
    first = found.splitlines()[0]
    assert "pkg/build.py" in first and "rebuild_outdated" in first


def test_a_config_key_is_no_definition_on_the_map(project: App) -> None:
    answer = read(project, ".", budget_tokens=2000)
    files = [line.split(" (", 1)[0] for line in answer.splitlines() if line and line[0] != " "]
    assert files.index("pkg/build.py") < files.index(".readthedocs.yml")
    assert "rebuild_outdated: true  [" not in answer
