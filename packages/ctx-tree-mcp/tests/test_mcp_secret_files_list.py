"""Credential files of common tools are on the secret-file denylist (docs/security.md): never
read, grepped, printed by ctx_tree_bash or stored; and their formats are redacted wherever a
program prints them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.policy.paths import DENYLIST, PathPolicy
from ctx_tree_mcp.tools.bash import bash
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.read import read
from ctx_tree_mcp.wire.redact import redact

MARK = "zqx-credential-marker-41"
FILES = [
    ".pgpass",
    ".docker/config.json",
    ".kube/config",
    "deploy/staging.kubeconfig",
    ".git-credentials",
    ".config/gh/hosts.yml",
    ".vault-token",
    "public/.htpasswd",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
    ".bash_history",
    ".zsh_history",
    ".local/share/fish/fish_history",
    ".psql_history",
    ".python_history",
    "android/release.keystore",
    "certs/server.jks",
    ".netrc",
    "sub/.npmrc",
    ".pypirc",
    "AuthKey_4Q8ZT2.p8",
    ".my.cnf",
    ".cargo/credentials.toml",
    "config/master.key",
    ".config/gcloud/application_default_credentials.json",
]


@pytest.fixture
def secrets(app: App) -> Path:
    for rel in FILES:
        path = app.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"user {MARK} pa55word\n")
    return app.root


@pytest.mark.parametrize("rel", FILES)
def test_credential_files_are_refused_before_any_read(app: App, secrets: Path, rel: str) -> None:
    with pytest.raises(ToolInputError, match="denylist") as err:
        read(app, rel)
    assert err.value.argument == "path"
    with pytest.raises(ToolInputError, match="denylist"):
        PathPolicy(secrets).resolve(rel.upper() if "/" not in rel else rel)
    assert not app.stores.opened or MARK not in (
        app.store.con.execute("SELECT group_concat(ctx_text(content), '') FROM nodes").get or ""
    )


def test_grep_never_shows_their_lines(app: App, secrets: Path) -> None:
    answer = asyncio.run(grep(app, MARK, fixed_strings=True))
    assert MARK not in answer and "matches" in answer
    stored = (
        app.store.con.execute("SELECT group_concat(ctx_text(content), '') FROM nodes").get or ""
    )
    assert MARK not in stored


@pytest.mark.parametrize(
    "command",
    [
        "cat .pgpass",
        "head -5 .docker/config.json",
        "tail ~/.kube/config",
        "grep token .config/gh/hosts.yml",
        "jq .outputs infra/terraform.tfstate",
        "cat .bash_history",
        "less .git-credentials",
        """python3 -c "print(open('.vault-token').read())" """,
    ],
)
def test_ctx_tree_bash_refuses_to_print_them(app: App, secrets: Path, command: str) -> None:
    with pytest.raises(ToolInputError, match="secret-file denylist"):
        bash(app, command)


@pytest.mark.parametrize(
    "path", ["src/history.py", "docs/kubernetes-config.md", "hosts.yml", "docker/config.json"]
)
def test_ordinary_files_with_like_names_are_read(app: App, path: str) -> None:
    (app.root / path).parent.mkdir(parents=True, exist_ok=True)
    (app.root / path).write_text("ordinary = 1\n")
    assert "ordinary = 1" in read(app, path)


def test_the_docs_list_every_pattern() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "security.md").read_text("utf-8")
    assert [p for p in DENYLIST if f"`{p}`" not in doc] == []


# their formats, printed by a program the command check does not know (``python show.py``)
FORMATS = [
    (
        "db.internal:5432:appdb:app:Xy7-pg-pass\n*:*:*:postgres:p0stgr3s\n",
        ["Xy7-pg-pass", "p0stgr3s"],
        ["db.internal:5432:appdb:app:", "*:*:*:postgres:"],
    ),
    (
        '{"auths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpodW50ZXIyaHVudGVy"},\n'
        '  "ghcr.io": {"auth": "Z2g6dG9rZW4xMjM0NQ=="}}}',
        ["dXNlcjpodW50ZXIyaHVudGVy", "Z2g6dG9rZW4xMjM0NQ=="],
        ['"auths"', '"ghcr.io"'],
    ),
    (
        "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJU\n"
        "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVk=\n",
        ["LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVk=", "LS0tLS1CRUdJTiBDRVJU"],
        ["    client-key-data: [REDACTED:", "- name: admin"],
    ),
    (
        "ghe.corp.example:\n    user: octo\n    oauth_token: 1a2b3c4d5e6f\n    git_protocol: ssh\n",
        ["1a2b3c4d5e6f"],
        ["    oauth_token: [REDACTED:", "git_protocol: ssh"],
    ),
    (
        '{"outputs": {"db_password": {"value": "Sup3r-s3cret", "type": "string", '
        '"sensitive": true}, "url": {"value": "https://x.example", "type": "string"}}}',
        ["Sup3r-s3cret"],
        ['"value": "https://x.example"'],
    ),
    (
        '{"api_key": {"sensitive": true, "type": "string", "value": "tfk-99881"}}',
        ["tfk-99881"],
        ['"sensitive": true'],
    ),
    (
        "machine api.heroku.com\n  login me@example.com\n  password 01234abcd-heroku\n",
        ["01234abcd-heroku"],
        ["  login me@example.com"],
    ),
    (
        "admin:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/\nbob:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n",
        ["HqJZimcKQFAMYayBlzkrA", "W6ph5Mm5Pz8GgiULbPgzG37mj9g="],
        ["admin:[REDACTED:", "bob:[REDACTED:"],
    ),
    (
        "//npm.corp.example/:_authToken=abc123def456\n//npm.corp.example/:_auth=dXNlcjpwYXNz\n",
        ["abc123def456", "dXNlcjpwYXNz"],
        ["//npm.corp.example/:_authToken="],
    ),
    ("hvs.CAESIJ8aVxkF3cXa1fGq2bR9sT0uVwXyZ01234\n", ["CAESIJ8aVxkF3cXa1fGq2bR9sT0u"], []),
]


@pytest.mark.parametrize(("text", "secrets_", "kept"), FORMATS)
def test_credential_formats_are_redacted_where_they_appear(
    text: str, secrets_: list[str], kept: list[str]
) -> None:
    out, counts = redact(text)
    assert [s for s in secrets_ if s in out] == []
    assert [k for k in kept if k not in out] == []
    assert out.count("\n") == text.count("\n") and counts


NOT_CREDENTIALS = [
    "12:30:45:100:ok",  # a time, not a host
    "2024-01-01 12:30:45:debug:start",
    '{"auth": true}',
    '"value": "x", "type": "string", "sensitive": false',
    "the machine learning password policy",
    "a:b:c:d:e",
    "kind: Deployment\ndata-dir: /var/lib/x\n",
]


@pytest.mark.parametrize("text", NOT_CREDENTIALS)
def test_look_alikes_stay_as_written(text: str) -> None:
    assert redact(text) == (text, {})
