"""Redaction (docs/security.md): one fixture per kind; ordinary hex is kept."""

from __future__ import annotations

import pytest
from ctx_tree_mcp.wire.redact import redact

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.mark.parametrize(
    ("text", "tag", "secret"),
    [
        (f"aws_access_key_id = {AWS}", "aws_access_key", AWS),
        (
            "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_key",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        (f"git remote set-url origin https://{GH}@github.com/x/y", "github_token", GH),
        (
            "pat: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "github_token",
            "github_pat_11ABCDEFG0123456789_abc",
        ),
        (f"Authorization: Bearer {JWT}", "jwt", JWT),
        (
            "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789'",
            "bearer_token",
            "abcdefghijklmnopqrstuvwxyz0123456789",
        ),
        (
            "OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234",
            "openai_api_key",
            "sk-proj-abcdefghijklmnop1234",
        ),
        (
            'export ANTHROPIC_API_KEY="sk-ant-api03-abcdefghijklmnopqrstu"',
            "anthropic_api_key",
            "sk-ant-api03-abcdefghijklmnopqrstu",
        ),
        (
            'client_secret = "0123456789abcdef0123456789abcdef"',
            "secret",
            "0123456789abcdef0123456789abcdef",
        ),
        (
            "DB_PASSWORD: c3VwZXJzZWNyZXRwYXNzd29yZGZvcnByb2R1Y3Rpb24=",
            "secret",
            "c3VwZXJzZWNyZXRwYXNzd29yZGZvcnByb2R1Y3Rpb24=",
        ),
        (
            "api_key: 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5'",
            "secret",
            "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5",
        ),
    ],
)
def test_each_secret_kind_is_redacted(text, tag, secret):
    out, counts = redact(text)
    assert f"[REDACTED:{tag}]" in out
    assert secret not in out
    assert counts.get(tag, 0) >= 1


@pytest.mark.parametrize(
    "text",
    [
        "commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
        'sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
        "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
        'checksum = "5f4dcc3b5aa765d61d8327deb882cf99"',
        "password: hunter",  # a word of letters alone: a label (password: Passwort)
        "token_count = 12345",
    ],
)
def test_ordinary_values_are_kept(text):
    out, counts = redact(text)
    assert out == text and counts == {}


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "private_key",
        ),
        ("DATABASE_URL=postgres://admin:hunter2hunter2@db.example.com/app", "url_password"),
        ("slack: xoxb-1234567890-abcdefghijkl", "slack_token"),
        ("maps key AIzaSyA1234567890abcdefghijklmnopqrstuv", "google_api_key"),
        ("stripe sk_live_abcdefghijklmnop1234", "stripe_key"),
    ],
)
def test_more_standard_formats_are_redacted(text, tag):
    out, counts = redact(text)
    assert counts.get(tag) == 1 and f"[REDACTED:{tag}]" in out


@pytest.mark.parametrize(
    "text",
    [
        "password = 'hunter2hunter2'",
        "x = 1; api_key: 'Q9xLm2vR7pK4sT8w'",
        'cfg["token"] = "8f14e45fceea167a5a36dedd4bea2543"',
        "DB_PASSWORD=correcthorsebatterystaple",
        "Server=db;Password=abc123xyz;Database=app",
        "secret := 's3cr3t-Pa55-w0rd!'",
        "a=ghp_Bench0Token1Value2Xyz3Abc4Def5Ghi6Jkl7 token",
        "ghp_Bench0Token1Value2Xyz3Abc4Def5Ghi6Jkl7",
        "5 passed, token refreshed, keys rotated",
        "my_token_value    :  'Zx8Qw7Er6Ty5Ui4Op3'",
        "pw=hunter2hunter2 ok",
        "tokenx  \t= 'Zx8Qw7Er6Ty5Ui4Op3'",
        "pw: tokenZx8Qw7Er6Ty5Ui4Op3Lk2",
        "[REDACTED:github_token]='Zx8Qw7Er6Ty5Ui4Op3'",
        "ſecret=pass1234abcdEFGH5678",
        "API_TOKEN=Zx8Qw7Er6Ty5Ui4Op3",
        "Bench0TOKEN1=Zx8Qw7Er6Ty5Ui4Op3 and X_TOKEN: 'Zx8Qw7Er6Ty5Ui4Op3'",
        "[REDACTED:aws_access_key] SECRET_KEY=Zx8Qw7Er6Ty5Ui4Op3",
        "_TOKEN=Zx8Qw7Er6Ty5Ui4Op3",
        "see git+https://bob:Zx8Qw7Er6Ty5Ui4Op3@example.test/x and ://u:Zx8Qw7Er6@h",
        "a.b-c+d://u:Zx8Qw7Er6Ty5Ui4Op3@h (x)://y:Zx8Qw7Er6Ty5Ui4Op3@h",
    ],
)
def test_the_assignment_rule_skips_only_words_no_match_can_use(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules with a plain-Python pre-check (the secret assignment: only around name words
    that a ``:``/``=`` follows or precedes within 8 characters; the environment secret: not
    after an ASCII letter or digit, not inside a redaction mark; the URL password: only
    where a scheme's letter ends before ``://``) give the result of trying their regex at
    every trigger."""
    from ctx_tree_mcp.wire import redact as module

    quick = module.redact(text)
    checked = [r for r in module._RULES if r.near is not None]
    assert len(checked) == 3  # the assignment, environment-name and URL rules
    for rule in checked:
        monkeypatch.setattr(rule, "near", None)
    assert module.redact(text) == quick
