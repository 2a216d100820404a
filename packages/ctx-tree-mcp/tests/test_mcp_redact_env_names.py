"""Environment-like dumps: a variable whose upper-case name holds a secret-like part (key,
secret, token, password, credential, private, signing, auth, …) with any prefix or suffix has
its value redacted in every shape dumps take; constants in ordinary code stay as written."""

from __future__ import annotations

import pytest
from ctx_tree_mcp.wire.redact import redact

DOCKER_INSPECT = """[
    {
        "Config": {
            "Env": [
                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",
                "JWT_PRIVATE=MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
                "SESSION_SECRET_BASE=9c1f0e7a3b5d42c8",
                "MASTER_KEY=Wq7xPz4mKd2R",
                "LANG=C.UTF-8"
            ],
"""
KUBECTL_SECRET = """apiVersion: v1
data:
  SIGNING_KEY: c2lnbmluZy1rZXktOTk4Nw==
  STRIPE_WEBHOOK_SECRET: d2hzZWNfZmFrZQ==
  APP_AUTH: YXV0aC12YWx1ZS0xMjM=
kind: Secret
"""
PY_ENVIRON = (
    "environ({'HOME': '/root', 'JWT_PRIVATE': 'Tq9vLm3Xa8Zr', 'DJANGO_SECRET_KEY': "
    "'dj-insecure-7h2k9q', 'SHELL': '/bin/bash'})"
)
JSON_ENV = '{"PATH": "/usr/bin", "BROKER_CREDENTIALS": "amqp-user-4471", "USER": "app"}'
LISTING = "APP_NAME=web-1\nREDIS_AUTH=r3d1sAuthV4l\nCI_JOB_TOKEN=tarragon\nLOG_LEVEL=debug\n"


@pytest.mark.parametrize(
    ("text", "secrets", "kept"),
    [
        (
            DOCKER_INSPECT,
            ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "9c1f0e7a3b5d42c8", "Wq7xPz4mKd2R"],
            ['"JWT_PRIVATE=[REDACTED:', '"MASTER_KEY=[REDACTED:', '"LANG=C.UTF-8"'],
        ),
        (
            KUBECTL_SECRET,
            ["c2lnbmluZy1rZXktOTk4Nw==", "d2hzZWNfZmFrZQ==", "YXV0aC12YWx1ZS0xMjM="],
            ["  SIGNING_KEY: [REDACTED:", "kind: Secret"],
        ),
        (PY_ENVIRON, ["Tq9vLm3Xa8Zr", "dj-insecure-7h2k9q"], ["'HOME': '/root'"]),
        (JSON_ENV, ["amqp-user-4471"], ['"USER": "app"']),
        (LISTING, ["r3d1sAuthV4l", "tarragon"], ["APP_NAME=web-1", "LOG_LEVEL=debug"]),
        ("export SIGNING_KEY_V2=Zk3qPw8nLx5t", ["Zk3qPw8nLx5t"], ["export SIGNING_KEY_V2="]),
        ("GH_PAT_TOKEN: octo-cat-99", ["octo-cat-99"], ["GH_PAT_TOKEN: "]),
        ("DEPLOY_PASSWD='marmalade'", ["marmalade"], ["DEPLOY_PASSWD='"]),
    ],
)
def test_dumped_secret_names_are_redacted_in_every_shape(
    text: str, secrets: list[str], kept: list[str]
) -> None:
    out, counts = redact(text)
    for secret in secrets:
        assert secret not in out
    for part in kept:
        assert part in out
    assert sum(counts.values()) >= len(secrets)
    assert out.count("\n") == text.count("\n")


CODE = [
    'KEY_COLUMN = "name"',
    "token = tokenize(x)",
    "password_field = form.password",
    'AUTH_TYPE = "basic"',
    "AUTH_TYPE=basic",
    'TOKEN_TYPE: "Bearer"',
    'KEY_FORMAT = "%Y-%m-%d"',
    'PRIVATE_KEY_PATH = "keys/deploy_id"',
    'SIGNING_ALGORITHM = "RS256"',
    'RESET_TOKEN = "reset"',
    'API_KEY = "API_KEY"',
    'TOKEN_HEADER = "X-Auth-Token"',
    'AUTH_BACKEND = "DjangoModelPermissionsOrAnonReadOnly"',
    'CACHE_KEY_PREFIX = "users:profile:"',
    '_SCOPE_KEY = "starlette._body_limit_responder"',
    "KEY_SIZE = 2048",
    "AUTH_ENABLED: true",
    "MONKEY=abc123def456",
    "KEYBOARD_LAYOUT=us-intl",
    "TOKENIZER_PATH=/opt/models/tok",
    "PRIVATE_NETWORK=10.0.0.0/8",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "DB_PASSWORD: ${DB_PASSWORD}",
    'os.environ["SECRET_KEY"]',
    "if KEY == other:",
    "my_KEY=value",
]


@pytest.mark.parametrize("text", CODE)
def test_constants_and_code_stay_byte_identical(text: str) -> None:
    assert redact(text) == (text, {})
