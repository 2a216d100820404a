"""The token rules matched without ``re`` find exactly what their documented regular
expressions find (``_`` beside a token separates it, as in a file name), and redacting a token alone loads no ``re`` (a hook's process saves ~27M
instructions, docs/benchmarks.md#hooks)."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest
from ctx_tree_mcp.wire import redact

#: The regular expression each token rule stands for (the comment beside it in redact.py).
ORACLES = {
    "aws_access_key": r"(?<![^\W_])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![^\W_])",
    "github_token": r"(?<![^\W_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![^\W_])",
    "jwt": r"(?<![^\W_])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    "slack_token": r"(?<![^\W_])xox[abposr]-[A-Za-z0-9-]{10,}",
    "gitlab_token": r"(?<![^\W_])gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}",
    "npm_token": r"(?<![^\W_])npm_[A-Za-z0-9]{36}(?![^\W_])",
    "google_api_key": r"(?<![^\W_])AIza[0-9A-Za-z_-]{35}(?![^\W_])",
    "api_key": r"(?<![^\W_])sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
    "sendgrid_key": r"(?<![^\W_])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
    "stripe_key": r"(?<![^\W_])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}",
}
PIECES = {
    "aws_access_key": ["AKIA", "ASIA", "ACCA", "akia"],
    "github_token": ["ghp_", "gho_", "ghx_", "github_pat_"],
    "jwt": ["eyJ", ".eyJ", "."],
    "slack_token": ["xoxb-", "xoxp-", "xoxz-", "xoxab-"],
    "gitlab_token": ["glpat-", "glptt-", "gldt-", "glx-"],
    "npm_token": ["npm_", "NPM_"],
    "google_api_key": ["AIza", "aiza"],
    "api_key": ["sk-", "sk-ant-", "sk-proj-", "SK-", "xsk-"],
    "sendgrid_key": ["SG.", "sg.", ".", "SG.."],
    "stripe_key": ["sk_live_", "rk_test_", "sk_test", "pk_live_", "_live_"],
}
FILL = ["A", "Z", "q", "7", "_", "-", ".", " ", "\n", "é", "=", "/", "x_", "_x"]


def _run(rng: random.Random, sizes: tuple[int, ...] = ()) -> str:
    size = (
        rng.choice(sizes)
        if sizes
        else rng.choice([0, 1, 7, 8, 9, 10, 15, 16, 17, 20, 21, 22, 34, 35, 36, 37, 40, 255, 256])
    )
    chars = rng.choice(["AB9", "AB9", "AB9", "AB9xy", "AB9xy_-"])
    return "".join(rng.choice(chars) for _ in range(size))


def _text(rng: random.Random, tag: str) -> str:
    parts = [rng.choice(FILL)] if rng.random() < 0.5 else []
    if tag == "jwt" and rng.random() < 0.6:
        parts += ["eyJ", _run(rng), rng.choice([".eyJ", ".eyJ", ".ey", "-eyJ"]), _run(rng)]
        parts += [rng.choice([".", ".", "_"]), _run(rng)]
    elif tag == "sendgrid_key" and rng.random() < 0.6:
        sizes = (8, 15, 16, 17, 31, 32, 33, 63, 64, 65)
        parts += ["SG.", _run(rng, sizes), rng.choice([".", ".", "_"]), _run(rng, sizes)]
    elif rng.random() < 0.5:  # one prefix and one run, the shape's edges most often
        parts += [rng.choice(PIECES[tag]), _run(rng)]
    else:
        for _ in range(rng.randrange(1, 4)):
            parts += [rng.choice(PIECES[tag] + FILL), _run(rng)]
    if rng.random() < 0.5:
        parts.append(rng.choice(FILL))
    return "".join(parts)


@pytest.mark.parametrize("tag", sorted(ORACLES))
def test_token_rule_matches_as_its_regular_expression(tag: str) -> None:
    (rule,) = [r for r in redact._RULES if r.tag == tag and r.token is not None]
    assert rule.token is not None
    oracle = re.compile(ORACLES[tag])
    rng = random.Random(tag)
    mark = lambda m: f"<{m.start()}:{m.end()}>"  # noqa: E731
    matched = 0
    for _ in range(8000):
        text = _text(rng, tag)
        expected = oracle.sub(mark, text)
        assert rule.token.sub(text, mark) == expected, text
        matched += expected != text
    assert matched > 50  # the texts do reach the shapes, not only near misses


@pytest.mark.parametrize(
    "token",
    ["ghp_" + "Bench0Token1Value2Xyz3Abc4Def5Ghi6Jkl7", "ghp_" + "a1B2c3D4e5F6g7H8" * 2 + "i9J0"],
)
def test_a_token_alone_is_redacted_without_loading_re(token: str) -> None:
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import redact; "
        "out = redact.redact_text('line of output\\n' * 3 + sys.argv[2] + ' end'); "
        "print('re' in sys.modules, '[REDACTED:github_token] end' in out, sys.argv[2] in out)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(redact.__file__).rsplit("/", 1)[0], token],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["False", "True", "False"]


#: Secrets of the rules a token's own letters or a redaction's mark can trigger, and words
#: that trigger rules without being secrets.
SECRETS = [
    "ghp_" + "Bench0Token1Value2Xyz3Abc4Def5Ghi6Jkl7",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "AKIA" + "ABCDEFGHIJKLMNOP",
    "xoxb-" + "1234567890-abcdefghij",
    "glpat-" + "abcdefghij0123456789",
    "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "AIza" + "SyA1234567890abcdefghijklmnopqrstuv",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "TOKEN=",
    "GITHUB_TOKEN=",
    "api_key: '",
    'client_secret = "',
    "password=",
    "DB_PASSWORD: ",
    "SECRET_KEY=",
    "https://user:",
    "@host/db",
    "Authorization: Bearer ",
    "token",
    "key",
    "pass",
    "[REDACTED:github_token]",
]
FILLER = ["\n", " ", "=", ": ", "_", "x", "HOME=/root\n", "PATH=/usr/bin\n", "line of output\n"]


def test_redaction_is_the_same_given_the_triggers_the_hook_found() -> None:
    """What the capture hooks hand over (which trigger literals the lower-cased text holds)
    lets redact() skip scanning for the absent ones; it finds the same secrets: also where
    a redaction's own mark holds a trigger the text did not (``[REDACTED:github_token]``)."""
    from ctx_tree_mcp.wire.spool import generated

    triggers = generated()["redact_triggers"]

    rng = random.Random(29)
    changed = 0
    for _ in range(600):
        parts = [rng.choice(SECRETS + FILLER) for _ in range(rng.randrange(1, 7))]
        text = "".join(p + (_run(rng) if rng.random() < 0.4 else "") for p in parts)
        lowered = text.lower()
        present = {t: t in lowered for t in triggers}
        expected = redact.redact(text)
        assert redact.redact(text, present) == expected, text
        changed += expected[0] != text
    assert changed > 200
