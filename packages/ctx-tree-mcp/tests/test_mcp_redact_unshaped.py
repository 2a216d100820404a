"""Secrets with no shape of their own (docs/security.md, "Passwords without a shape"): one rule
decides whether a value given to a password is one, wherever it is written (configuration,
code, prose); documentation text stays as written. Tokens joined to other words by ``_`` in a
file name, and URL passwords holding ``/``, are found too. Each case also goes through the
real ways in: a stored file, a note, a grep pattern, a command and a prompt."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App, spool_dir
from ctx_tree_mcp.capture import spool
from ctx_tree_mcp.capture.ingest import ingest
from ctx_tree_mcp.engines.files.indexer import index_project
from ctx_tree_mcp.tools.bash import bash
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.note import note
from ctx_tree_mcp.wire.redact import redact

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

#: (text, the secret in it)
REDACTED = [
    ("DB_PASSWORD=correct-Horse-battery9", "correct-Horse-battery9"),
    ("export DB_PASSWORD=MyPassword123!", "MyPassword123!"),
    ("password = 'correct-Horse-battery9'", "correct-Horse-battery9"),
    ('{"password": "violet-Anchor-7-mosaic"}', "violet-Anchor-7-mosaic"),
    ("the db password is Tr0ub4dor-Horse-Staple77", "Tr0ub4dor-Horse-Staple77"),
    ("The admin passphrase was quartz7orbit, change it", "quartz7orbit"),
    ("my password is hunter2.", "hunter2"),
    ("rg 'password is Tr0ub4dor-Horse-Staple77' logs/", "Tr0ub4dor-Horse-Staple77"),
    ("the new pw is 'Gl4ss-Onion'", "Gl4ss-Onion"),
    ("postgres://app:N0t/So/Simple@db/x", "N0t/So/Simple"),
    ("DATABASE_URL=mysql://root:a/b/c9Z@127.0.0.1:3306/app", "a/b/c9Z"),
    (f"notes/{TOKEN}_old.txt", TOKEN),
    (f"dir_{TOKEN}/b.py", TOKEN),
    (f"backup_AKIA{'Q' * 16}_2024.csv", "AKIA" + "Q" * 16),
]


@pytest.mark.parametrize(("text", "secret"), REDACTED)
def test_unshaped_secrets_are_redacted(text: str, secret: str) -> None:
    out, counts = redact(text)
    assert secret not in out and sum(counts.values()) == 1, out


#: Documentation, code and data that name passwords without holding one.
KEPT = [
    "password=password",
    "PASSWORD_FIELD = 'password_field'",
    "password: str",
    "password: Optional[str] = None",
    "password = getpass.getpass()",
    "password = getpass()",
    'autocomplete="new-password"',
    "password = 'new-password'",
    "if password is None:",
    "if password is not None and pwd is not self.pwd:",
    "the password is required",
    "the password is incorrect.",
    "The password is sha256-hashed before it is stored.",
    "the password was changed by the admin",
    "the password is `password`",
    # PHP and other code around password words
    "'class' => NativePasswordHasher::class,",
    "$message = $pass::class.': '.$message;",
    "self::FORMAT_KEY => \\DateTimeInterface::RFC3339,",
    "Ip::V4_NO_PRIVATE => \\FILTER_FLAG_IPV4 | \\FILTER_FLAG_NO_PRIV_RANGE,",
    "public const INVALID_PASSWORD_ERROR = '2d2a8bb4-ddc8-45e4-9b0f-8670d3a3e290';",
    "'password_parameter' => '_password',",
    '"symfony/password-hasher": "^6.4|^7.0",',
    " *     pass:?string,",
    "\\CURLOPT_KEYPASSWD => 'passphrase',",
    "'setPassword' => 'bool',",
    "$tokenProviderId = 'security.remember_me.doctrine_token_provider.'.$firewallName;",
    "public const V4_NO_PRIVATE = '4_no_priv';",
    "public const TOKEN_REGEX = '(?:[\\x21\\x23-\\x27\\x2A\\x2B]+)';",
    # locales and countries: PW is Palau
    "'PW' => 'Palau',",
    "'en_PW' => 'English (Palau)',",
    '"en_PW": "en_001",',
    # URLs whose path holds an @ after a port
    "https://registry.example.test:8443/@scope/pkg",
    "http://localhost:8000/users/@me",
    f"{TOKEN[:20]}_notes.txt",  # too short for a token
]


@pytest.mark.parametrize("text", KEPT)
def test_documentation_stays_as_written(text: str) -> None:
    assert redact(text) == (text, {})


def _stored(app: App) -> str:
    """Every stored text, title, source and index term."""
    row = app.store.con.execute(
        "SELECT group_concat(ctx_text(content) || ctx_meta(metadata, source_uri) || terms"
        " || coalesce(source_uri, ''), '') FROM nodes"
    ).get
    return row or ""


def _put(app: App, event: dict[str, object]) -> None:
    base = spool_dir(app.home, app.root)
    (base / "new").mkdir(parents=True, exist_ok=True)
    full = {"v": spool.SPOOL_VERSION, "session_id": "s", "cwd": str(app.root), **event}
    full.setdefault("at", int(time.time() * 1000))
    path = base / "new" / f"{time.time_ns():020d}-{os.getpid()}.json"
    path.write_text(json.dumps(full))
    path.chmod(0o600)


def test_no_way_in_stores_an_unshaped_secret(app: App, root: Path) -> None:
    (root / "deploy").mkdir()
    (root / "deploy" / "prod.env").write_text("DB_HOST=db\nDB_PASSWORD=correct-Horse-battery9\n")
    (root / "notes").mkdir()
    (root / "notes" / f"{TOKEN}_old.py").write_text("x = 1\n")
    (root / f"dir_{TOKEN}").mkdir()
    (root / f"dir_{TOKEN}" / "b.py").write_text("y = 2\n")
    index_project(app.store, app.root, app.policy, app.config, workers=1)
    note(app, "the db password is Tr0ub4dor-Horse-Staple77")
    asyncio.run(
        grep(app, "password is Tr0ub4dor-Horse-Staple77|DB_PASSWORD=correct-Horse-battery9")
    )
    bash(app, "echo 'connect with postgres://app:N0t/So/Simple@db/x' > /dev/null")
    _put(app, {"kind": "prompt", "text": "the pw is Gl4ss-Onion, use it", "prompt_id": "p"})
    ingest(app)
    stored = _stored(app)
    assert "deploy/prod.env" in stored  # the file was stored, its password was not
    for secret in (
        "correct-Horse-battery9",
        "Tr0ub4dor-Horse-Staple77",
        "N0t/So/Simple",
        "Gl4ss-Onion",
        TOKEN,
    ):
        assert secret not in stored, secret
