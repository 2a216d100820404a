"""Secret redaction (spec §7), applied before every insert and to every answer.

Each match is replaced in place by ``[REDACTED:<tag>]``. Covered: AWS access key ids and secret
keys, GitHub tokens, JWTs (bare or after ``Bearer``), ``OPENAI_API_KEY=`` and
``ANTHROPIC_API_KEY=`` assignments, provider keys with a known prefix (``sk-``, ``sk-ant-``), and
generic 32+ character hex/base64 values that follow a secret-like name (``secret``, ``token``,
``password``, ``api_key``, ``private_key``, ``access_key``, ``credential``) and ``=`` or ``:``.
Ordinary hex in code (git SHAs, lockfile hashes) has no secret-like name before it and is kept.
Regex-based, so a novel format may pass (spec §10 risk); fixtures guard the known ones.
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
        "secret",
        re.compile(
            r"(?i)(?:secret|token|passw(?:or)?d|api[_-]?key|private[_-]?key|access[_-]?key|credential)"
            r"[\w.-]*[\"']?\s*[:=]\s*[\"']?"
            r"([A-Fa-f0-9]{32,}|[A-Za-z0-9+/_-]{32,}={0,2})(?![A-Za-z0-9+/=_-])"
        ),
        1,
    ),
)


def redact(text: str) -> tuple[str, dict[str, int]]:
    """Return ``text`` with secrets replaced and ``{tag: count}`` of what was replaced."""
    counts: dict[str, int] = {}
    if not text:
        return text, counts
    for tag, pattern, group in _RULES:

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
