"""Secret redaction (docs/security.md), applied before every insert and to every answer.

Each match is replaced in place by ``[REDACTED:<tag>]``. Covered: AWS access key ids and secret
keys, GitHub tokens, JWTs (bare or after ``Bearer``), ``OPENAI_API_KEY=`` and
``ANTHROPIC_API_KEY=`` assignments, provider keys with a known prefix (``sk-``, ``sk-ant-``), and
generic 32+ character hex/base64 values that follow a secret-like name (``secret``, ``token``,
``password``, ``api_key``, ``private_key``, ``access_key``, ``credential``) and ``=`` or ``:``.
PEM private key blocks, passwords in URLs (``scheme://user:password@host``), Slack tokens,
Google API keys and Stripe keys are replaced too. Ordinary hex in code (git SHAs, lockfile
hashes) has no secret-like name before it and is kept.
Regex-based, so a novel format may pass (docs/security.md risk); fixtures guard the known ones.
"""

from __future__ import annotations

import re

_RULES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    # (tag, pattern, group to replace: 0 = whole match)
    (
        "openai_api_key",
        re.compile(r"(?i)\bOPENAI_API_KEY\b[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{8,})"),
        1,
    ),
    (
        "anthropic_api_key",
        re.compile(r"(?i)\bANTHROPIC_API_KEY\b[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{8,})"),
        1,
    ),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), 0),
    (
        "aws_secret_key",
        re.compile(
            r"(?i)\baws_?secret_?access_?key\b[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
    ),
    (
        "github_token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
        0,
    ),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    ("bearer_token", re.compile(r"(?i)\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)"), 1),
    ("api_key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"), 0),
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.S,
        ),
        0,
    ),
    ("url_password", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:([^\s@/]{3,})@"), 1),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), 0),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"), 0),
    (
        "secret",
        re.compile(
            r"(?i)(?:secret|token|passw(?:or)?d|api[_-]?key|private[_-]?key|access[_-]?key|credential)"
            r"[\w.-]*[\"']?\s*[:=]\s*[\"']?"
            r"([A-Fa-f0-9]{32,}|[A-Za-z0-9+/_-]{32,}={0,2})(?![A-Za-z0-9+/=_-])"
        ),
        1,
    ),
)


#: Lower-case literals one of which every match of a rule contains: a rule's regex runs only
#: when the text holds one of them (substring tests are ~100x cheaper than the regexes, and
#: most text holds no secret).
_TRIGGERS: dict[str, tuple[str, ...]] = {
    "openai_api_key": ("openai_api_key",),
    "anthropic_api_key": ("anthropic_api_key",),
    "aws_access_key": ("akia", "asia", "abia", "acca"),
    "aws_secret_key": ("secret",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "jwt": ("eyj",),
    "bearer_token": ("bearer",),
    "api_key": ("sk-",),
    "private_key": ("-----begin",),
    "url_password": ("://",),
    "slack_token": ("xox",),
    "google_api_key": ("aiza",),
    "stripe_key": ("_live_", "_test_"),
    "secret": (
        "secret",
        "token",
        "passw",
        "api_key",
        "api-key",
        "apikey",
        "private",
        "access",
        "credential",
    ),
}


def redact(text: str) -> tuple[str, dict[str, int]]:
    """Return ``text`` with secrets replaced and ``{tag: count}`` of what was replaced."""
    counts: dict[str, int] = {}
    if not text:
        return text, counts
    lowered = text.lower()
    for tag, pattern, group in _RULES:
        if not any(t in lowered for t in _TRIGGERS[tag]):
            continue

        def _sub(m: re.Match[str], tag: str = tag, group: int = group) -> str:
            if "[REDACTED:" in m.group(0):
                return m.group(0)
            counts[tag] = counts.get(tag, 0) + 1
            if group == 0:
                return f"[REDACTED:{tag}]"
            start, end = m.span(group)
            base = m.start(0)
            whole = m.group(0)
            return whole[: start - base] + f"[REDACTED:{tag}]" + whole[end - base :]

        text = pattern.sub(_sub, text)
    return text, counts


def redact_text(text: str) -> str:
    """:func:`redact` without the counts."""
    return redact(text)[0]


def redact_value(value: object) -> object:
    """Redact every string inside a JSON-like value (metadata), keys kept."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
