"""Passwords that read as words: a passphrase with spaces, a short ``pw`` name, and a bare
word with a digit on a YAML line of its own are redacted; prose, labels and code are kept."""

from __future__ import annotations

import pytest
from ctx_tree_mcp.wire.redact import redact

REDACTED = [
    ('password = "correct horse battery staple"', "correct horse battery staple"),
    ("DB_PASSWORD='violet anchor mosaic tundra'", "violet anchor mosaic tundra"),
    ('{"passphrase": "purple monkey dishwasher"}', "purple monkey dishwasher"),
    ('  admin_pass: "Rusty Lantern Seven"', "Rusty Lantern Seven"),
    ("pw=Gl4ssOnion", "Gl4ssOnion"),
    ("db_pw = 'quartz7orbit'", "quartz7orbit"),
    ('mysql_pw: "k3ttle-drum"', "k3ttle-drum"),
    ("PW=Tr0ub4dor", "Tr0ub4dor"),
    ("password: hunter22", "hunter22"),
    ("  - password: walrus-42  # staging", "walrus-42"),
    ("db:\n  user: app\n  password: oyster_9\n", "oyster_9"),
    ("smtp.password: marble#7", "marble#7"),
    ("password: sw0rd/fish.jar9", "sw0rd/fish.jar9"),
]


@pytest.mark.parametrize(("text", "secret"), REDACTED)
def test_passwords_that_read_as_words_are_redacted(text: str, secret: str) -> None:
    out, counts = redact(text)
    assert secret not in out and counts == {"secret": 1}, out
    assert out.replace("[REDACTED:secret]", secret) == text


KEPT = [
    'password_hint = "correct horse battery staple"',  # the name goes on after the word
    'password: "Enter your password"',
    'password = "must be at least twelve characters"',
    'password: "is too short"',
    'password: "Mot de passe"',
    'password: "Forgot your password?"',
    'password_label: "Correct Horse"',
    'password = "{user} {host}"',
    "password: Passwort",  # a word of letters alone: a label
    "password: str",
    "password: Optional[str] = None",
    "pw = pwd.getpwnam(user)",
    "check(pw=pw)",
    "pw: int = 0",
    "x = pw + 1",
    "password: hunter22, user: bob",  # not a line of its own: an object literal in code
    "password: ${DB_PASSWORD}",
    "pwd: /home/user/project",
    # a test runner's status line names a file, not a password
    "PASS: .a/foo.py",
    "PASS: tests/test_io.py::test_read",
    "FAIL: src/app.test.ts:12",
    "pass: src/ctx_tree/cli.py",
]


@pytest.mark.parametrize("text", KEPT)
def test_prose_labels_and_code_stay_as_written(text: str) -> None:
    assert redact(text) == (text, {})
