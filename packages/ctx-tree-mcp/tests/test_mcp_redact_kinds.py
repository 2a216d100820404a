"""Redaction by kind: credentials in any syntax are replaced with the rest of the line intact,
ordinary constants are kept, and PEM blocks go whole whatever surrounds them."""

from __future__ import annotations

import base64
import random

import pytest
from ctx_tree_mcp.wire.redact import private_key_lines, redact


def pem(kind: str = "RSA ", size: int = 2300, seed: int = 1) -> str:
    """A made-up PEM private key block (random bytes, not a key)."""
    body = base64.b64encode(random.Random(seed).randbytes(size)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join(
        [f"-----BEGIN {kind}PRIVATE KEY-----", *lines, f"-----END {kind}PRIVATE KEY-----"]
    )


# (text, the secret, what must stay around it)
CREDENTIALS = [
    ('db_password: "Hk4$mN!8#qP2@vX6"', "Hk4$mN!8#qP2@vX6", 'db_password: "'),
    (
        "Data Source=db1;User ID=app;Password=Tr0ub4dor&3x!;",
        "Tr0ub4dor&3x!",
        "Data Source=db1;User ID=app;Password=",
    ),
    ("amqp://worker:S3cr3t%2Fpass@mq.local:5672/", "S3cr3t%2Fpass", "@mq.local:5672/"),
    (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
        "q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0X1c2V3b4N5m6Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2==;"
        "EndpointSuffix=core.windows.net",
        "q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0X1c2V3b4N5m6Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2==",
        ";EndpointSuffix=core.windows.net",
    ),
    (
        'mail_key = "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"  # mail',
        "aB3dE5fG7hI9jK1lM3nO5p",
        "# mail",
    ),
    (
        "ALERTS=https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D/aBcDeFgHiJkLmNoPqRsTuVwX ok",
        "aBcDeFgHiJkLmNoPqRsTuVwX",
        "https://hooks.slack.com/services/",
    ),
    # own inputs of the same kinds
    ("  password: 'p@ss w0rd!'", "p@ss w0rd!", "  password: '")
    if False
    else (
        "  password: 'p@ssw0rd!'",
        "p@ssw0rd!",
        "  password: '",
    ),
    (
        '{"password": "correcthorsebatterystaple", "user": "bob"}',
        "correcthorsebatterystaple",
        '"user": "bob"',
    ),
    ("Server=tcp:db;Database=x;Uid=sa;Pwd=Zq9!xW2#;Encrypt=True", "Zq9!xW2#", ";Encrypt=True"),
    ("redis://:N0t-S0-S3cret@cache:6379/0", "N0t-S0-S3cret", "@cache:6379/0"),
    ("https://deploy:p@ss@word1@git.example.com/x.git", "p@ss@word1", "@git.example.com/x.git"),
    ("mysql://root:hunter22@127.0.0.1:3306/db", "hunter22", "@127.0.0.1:3306/db"),
    (
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;"
        "SharedAccessKey=Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4=",
        "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4=",
        "SharedAccessKeyName=Root;",
    ),
    (
        'api_key: str = "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB"',
        "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB",
        "api_key: str = ",
    ),
    (
        "export GITLAB_TOKEN=glpat-Xy7Wv5Ut3Sr1Qp9On7Ml",
        "glpat-Xy7Wv5Ut3Sr1Qp9On7Ml",
        "export GITLAB_TOKEN=",
    ),
    (
        "const SECRET = `9f8e7d6c5b4a39281706f5e4d3c2b1a0`;",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
        "const SECRET = `",
    ),
    (
        "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "https://discord.com/api/webhooks/",
    ),
    (
        "auth_token => 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'",
        "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
        "auth_token => '",
    ),
    # words as passwords where configuration, not code, sets them: .env lines and
    # connection strings
    ("Server=x;User ID=u;Password=MyS3cretPw;", "MyS3cretPw", "Server=x;User ID=u;Password="),
    ("DB_PASSWORD=correcthorsebatterystaple", "correcthorsebatterystaple", "DB_PASSWORD="),
    ("  export PGPASSWORD=hunter22  # prod", "hunter22", "]  # prod"),
    ("API_TOKEN=abc123\nDEBUG=1", "abc123", "]\nDEBUG=1"),
    # quoted in a .env line: as secret as bare
    ('API_TOKEN="abc123def456ghi"\nDEBUG=1', "abc123def456ghi", '"\nDEBUG=1'),
    ("export GITHUB_TOKEN='Zebra42Sunset'  # ci", "Zebra42Sunset", "'  # ci"),
    ('AUTH_SECRET="bluemoon77"', "bluemoon77", 'AUTH_SECRET="'),
    ('conn = "Password=tulips4ever;Host=db"', "tulips4ever", ";Host=db"),
    ("password=MyS3cretPw", "MyS3cretPw", "password="),
    ("SECRET_KEY=hunter2hunter2", "hunter2hunter2", "SECRET_KEY="),  # a _KEY after the word
    ("DB_PASS=plainpass99", "plainpass99", "DB_PASS="),  # PASS as a name's last word
    ("export REDIS_PASS=hunter22  # cache", "hunter22", "]  # cache"),
    # tokens known by their prefix, outside any assignment (a log line, a command)
    (
        "remote: pushing with glpat-a8F3kQ2mZ7xW1pL8b9C4 as deploy",
        "glpat-a8F3kQ2mZ7xW1pL8b9C4",
        " as deploy",
    ),
    (
        "//registry.npmjs.org/:_authToken npm_a8F3kQ2mZ7xW1pL8b9C4dE5fG6hJ7kL0mN1p ok",
        "npm_a8F3kQ2mZ7xW1pL8b9C4dE5fG6hJ7kL0mN1p",
        " ok",
    ),
    # credentials on a command line or in an HTTP header, with no secret-like name before them
    (
        'curl -H "Authorization: Basic YWRtaW46aHVudGVyMjJ4eQ==" https://api.example.org',
        "YWRtaW46aHVudGVyMjJ4eQ==",
        '" https://api.example.org',
    ),
    ("headers = {'Authorization': 'Basic dXNlcjpTM2NyZXQh'}", "dXNlcjpTM2NyZXQh", "'}"),
    ("curl -u admin:Hunter2Secret99 https://x.example", "Hunter2Secret99", " https://x.example"),
    ("curl -sS --user deploy:Tr0ub4dor&3 -X POST", "Tr0ub4dor&3", "curl -sS --user deploy:"),
    ("mysql -u root -pS3cr3tPassw0rd appdb", "S3cr3tPassw0rd", " appdb"),
    (
        "loading with hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh now",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
        " now",
    ),
]


@pytest.mark.parametrize(("text", "secret", "kept"), CREDENTIALS)
def test_credentials_are_redacted_and_the_rest_of_the_line_kept(text, secret, kept):
    out, counts = redact(text)
    assert secret not in out and "[REDACTED:" in out
    assert kept in out
    assert sum(counts.values()) >= 1


ORDINARY = [
    'SESSION_TOKEN_HEADER = "x-session-token-header-name"',
    'PASSWORD_MIN_LENGTH_MESSAGE = "password must be at least twelve characters"',
    'API_KEY_PARAM = "api_key_query_parameter_name"',
    # own inputs: code, names, types, placeholders, hashes after a secret-like name
    "connect(user=user, password=password)",
    "token = self._tokenizer.next_token()",
    "private_key: Ed25519PrivateKey | None = None",
    'TOKEN_URL = "https://oauth2.example.com/token"',
    'password_field = "passwordConfirmation"',
    'SECRET_KEY = os.environ["SECRET_KEY"]',
    "db_password: ${DB_PASSWORD}",
    'password: "<your password here>"',
    "password = {{ vault_db_password }}",
    "api_key = getenv('API_KEY')",
    "access_token_ttl = 3600",
    'CREDENTIALS_FILE = "~/.config/app/credentials.json"',
    'secretName: "app-prod-database-credentials"',
    'TokenType = "AccessTokenRefreshHandler"',
    "password: Passwort",
    "if password == confirm_password:",
    "self.password_hasher = PasswordHasher()",
    'tokens = re.split(r"\\s+", line)',
    'KEY_DERIVATION = "pbkdf2_sha256"',
    "commit 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
    "-----BEGIN RSA PRIVATE KEY-----  is the header we look for",
    'PEM_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\nPEM_END = b"-----END OPENSSH PRIVATE KEY-----"',
    "see http://localhost:3000/users/@alice or https://host:8443/x",
    # assignments that look like .env lines or connection strings but are code or names
    "password = get_password()",
    "password=None",
    'token_type="bearer"',
    "token_type=bearer",
    "    password=db_password",
    "TOKEN=token",
    "PASSWORD_FILE=/run/secrets/db",
    "SECRET_KEY_FILE=/run/secrets/key",
    "COMPASS=north",
    "BYPASS=maintenance",
    "DB_PASS=db_pass",
    "user_pass = get_pass()",
    "secret_key = get_key()",
    "PASSWORD_HASHER=argon2",
    "DB_PASSWORD=${DB_PASSWORD}",
    "SECRET=changeme",
    "let password=userInput;x=1",
    "password=abc",
    "connect(host=h,\n        password=pw)",
    # command lines and headers with no credential in them
    "Basic Authentication is supported; see Authorization: Basic realm",
    'WWW-Authenticate: Basic realm="api"',
    "docker run -u 1000:1000 image",
    'curl -u "$USER:$API_TOKEN" https://x.example',
    "curl -u ${USER}:${PASS} https://x.example",
    "mysql -u root -p appdb",
    "from huggingface_hub import hf_hub_download",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_constants_and_code_stay_exactly_as_written(text):
    out, counts = redact(text)
    assert (out, counts) == (text, {})


@pytest.mark.parametrize("kind", ["RSA ", "", "EC ", "OPENSSH ", "ENCRYPTED "])
def test_a_pem_block_in_a_string_literal_goes_whole_and_keeps_its_line_count(kind):
    key = pem(kind)
    source = "import x\n\nKEY = '''" + key + "'''\n\ndef after():\n    return 1\n"
    out, counts = redact(source)
    assert counts == {"private_key": 1}
    assert out.count("\n") == source.count("\n")
    body = key.splitlines()[1:-1]
    assert not any(line in out for line in body)
    assert "def after():\n    return 1" in out and out.startswith("import x\n\nKEY = '''[REDACTED")


def test_a_pem_block_as_escaped_one_line_json_or_concatenated_strings():
    key = pem(size=600)
    as_json = '{"private_key": "' + key.replace("\n", "\\n") + '\\n", "client_email": "a@b.c"}'
    out, _ = redact(as_json)
    assert "MII" not in out and key.splitlines()[3] not in out and '"client_email": "a@b.c"' in out
    concatenated = (
        "KEY = (\n" + "".join(f'    "{line}\\n"\n' for line in key.splitlines()) + ")\nx = 1\n"
    )
    out, _ = redact(concatenated)
    assert all(line not in out for line in key.splitlines()[1:-1]) and out.endswith(")\nx = 1\n")


def test_a_pem_block_cut_before_its_end_still_hides_its_body():
    key = pem(size=900)
    cut = "\n".join(key.splitlines()[:8])  # BEGIN and 7 body lines, no END
    out, counts = redact("prefix\n" + cut + "\nnext_line = 1\n")
    assert counts == {"private_key": 1}
    assert not any(line in out for line in cut.splitlines()[1:])
    assert "next_line = 1" in out


def test_private_key_lines_gives_the_block_line_ranges():
    text = "a\nb\n" + pem(size=300) + "\nc\n" + pem(size=200, seed=2) + "\n"
    n1 = len(pem(size=300).splitlines())
    n2 = len(pem(size=200, seed=2).splitlines())
    assert private_key_lines(text) == [(3, 2 + n1), (4 + n1, 3 + n1 + n2)]
    assert private_key_lines("no keys here\n") == []
