"""Every redaction rule takes time linear in the text, on adversarial input too.

A rule that backtracks (a repeated group whose body can match the same letters in several ways)
or rescans (each of many matches walking back to its line's start) turns a file of a few KB into
minutes of CPU. Here each rule, alone, redacts generated texts of ~4 KB and ~16 KB built as
``prefix + pump * k + suffix`` from pieces that rule's patterns are made of (its trigger words,
name and operator characters, letter and digit runs, separators, quotes, line breaks). Linear
work grows ×4 from one to the other; the bound is ×8 (quadratic work grows ×16, backtracking
never ends and is cut at a CPU limit). Times are CPU seconds, best of several runs, measured
again at ×4 the size before a ratio is taken for a failure, so a busy machine does not fail it.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from ctx_tree_mcp.wire import redact
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

#: Pieces of texts: what the rules' patterns are made of.
PIECES = [
    *"aZ9_-./:=@#;,'\"`$%{}[]()<>!?|&*+~\\ \t\n\r",
    "a" * 24,
    "A" * 24,
    "aB" * 12,
    "Ab" * 12,
    "9" * 24,
    "a1" * 12,
    "ab_" * 8,
    "AB_" * 8,
    "ab-" * 8,
    "ab." * 8,
    "ab/" * 8,
    "a=",
    "A=",
    " = ",
    ": ",
    "=>",
    ":=",
    "://",
    "\\n",
    "password",
    "PASSWORD",
    "Password",
    "pass",
    "passwd",
    "pwd",
    "pw",
    "secret",
    "SECRET",
    "token",
    "TOKEN",
    "api_key",
    "KEY",
    "key",
    "private",
    "_AUTH",
    "_PRIVATE",
    "credential",
    "creds",
    " is ",
    "DB_",
    "export ",
    "declare -x ",
    "HOME=",
    "PATH=",
    "SHELL=",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----BEGIN ",
    "-----END RSA PRIVATE KEY-----",
    "PRIVATE KEY-----",
    "Proc-Type: 4,ENCRYPTED",
    "QUJD" * 8,
    "machine ",
    "login ",
    "password ",
    ":5432:",
    ":*:",
    '"auth": "',
    "-data: ",
    "oauth_token: ",
    '"sensitive": true',
    '"value": "',
    '"type": "string"',
    "user:$apr1$",
    "{SHA}",
    "_authToken=",
    "hvs.",
    "Bearer ",
    "Authorization: Basic ",
    "curl -u ",
    "mysql -p",
    "sk-",
    "SG.",
    "hooks.slack.com/services/",
    "https://",
    "postgres://u:",
    "@host",
    "ghp_",
    "github_pat_",
    "eyJ",
    ".eyJ",
    "xoxb-",
    "glpat-",
    "npm_",
    "AIza",
    "AKIA",
    "hf_",
    "sk_live_",
    "OPENAI_API_KEY=",
    "aws_secret_access_key=",
    "[REDACTED:secret]",
]
_PARTS = st.lists(st.sampled_from(PIECES), max_size=6).map("".join)
#: ``prefix + pump * k + suffix``: a unit repeated (a file of many similar lines) or one
#: construct grown long (a name, a value, a run of separators).
SHAPES = st.tuples(_PARTS, st.lists(st.sampled_from(PIECES), min_size=1, max_size=6), _PARTS)

SMALL = 2048
#: Linear work grows ×4 from SMALL to 4 × SMALL; quadratic ×16.
BOUND = 8.0
#: CPU seconds one redaction of SMALL characters may take before it counts as runaway
#: (linear rules take well under 10 ms).
LIMIT = 2.0


class Runaway(Exception):
    pass


@contextmanager
def cpu_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Runaway` in this thread after ``seconds`` of the process's CPU time
    (``re`` checks for signals as it matches, so a backtracking pattern is stopped too)."""

    def stop(_signum: int, _frame: object) -> None:
        raise Runaway

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def text_of(shape: tuple[str, list[str], str], size: int) -> str:
    prefix, pump, suffix = shape
    unit = "".join(pump)
    return prefix + unit * max(1, (size - len(prefix) - len(suffix)) // len(unit)) + suffix


def cpu(run: Callable[[str], object], text: str, repeat: int) -> float:
    """Best of ``repeat`` runs, CPU seconds of this thread."""
    best = float("inf")
    for _ in range(repeat):
        start = time.thread_time()
        run(text)
        best = min(best, time.thread_time() - start)
    return best


def assert_linear(run: Callable[[str], object], shape: tuple[str, list[str], str]) -> None:
    """``run`` costs at most ×BOUND on a text 4 times as long, at two sizes in turn."""
    size, repeat = SMALL, 1
    for attempt in range(3):
        small, large = text_of(shape, size), text_of(shape, 4 * size)
        try:
            with cpu_limit(LIMIT * (size / SMALL) * 4 * BOUND):
                t_small = cpu(run, small, repeat)
                if t_small > LIMIT * size / SMALL:
                    raise Runaway
                t_large = cpu(run, large, repeat)
        except Runaway:
            raise AssertionError(
                f"runaway: no answer within the CPU limit for {len(small):,} / {len(large):,} "
                f"characters of {shape!r}"
            ) from None
        # below a tenth of a millisecond the timer's resolution is the answer
        ratio = t_large / max(t_small, 1e-4)
        if ratio <= BOUND:
            return
        if attempt == 1:  # confirmed once at the small size: try the larger one
            size *= 4
        repeat = 5
    raise AssertionError(
        f"superlinear: {len(large):,} characters cost ×{ratio:.1f} the CPU of {len(small):,} "
        f"({t_large * 1e3:.1f} vs {t_small * 1e3:.1f} ms) for {shape!r}"
    )


def one_rule(rule: redact._Rule) -> Callable[[str], object]:
    """``redact`` with ``rule`` as its only rule."""

    def run(text: str) -> object:
        saved = redact._RULES
        redact._RULES = (rule,)
        try:
            return redact.redact(text)
        finally:
            redact._RULES = saved

    return run


RULES = {f"{i:02d}-{rule.tag}": rule for i, rule in enumerate(redact._RULES)}
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("name", sorted(RULES))
@SETTINGS
@given(shape=SHAPES)
# the shapes that were found slow: a quoted word value ending in a character no word holds
# (``_WORDS``, ``_CAMEL``), many secret-like words in one long name, many matches on one
# line, many ``curl`` words on one line, a token's prefix over and over
@example(shape=("", ["password = '", "a" * 24, "!'\n"], ""))
@example(shape=("", ["x_secret = '", "Ab" * 12, "-#'\n"], ""))
@example(shape=("", ["pass_"], "=x"))
@example(shape=("", ["password=ab1x;"], ""))
@example(shape=("", ["PASSWORD: x7", " "], ""))
@example(shape=("", ["curl -u "], ""))
@example(shape=("", ["-eyJ"], ""))
def test_each_rule_is_linear(name: str, shape: tuple[str, list[str], str]) -> None:
    assert_linear(one_rule(RULES[name]), shape)


@pytest.mark.parametrize(
    "run",
    [redact.redact, redact.redact_environment, redact.private_key_lines, redact.redact_key_bodies],
    ids=lambda f: f.__name__,
)
@SETTINGS
@given(shape=SHAPES)
@example(shape=("-----BEGIN RSA PRIVATE KEY-----\n", ["QUJD" * 16 + "\n"], ""))
@example(shape=("", ["-----BEGIN RSA PRIVATE KEY-----\n", "Proc-Type: 4,\n"], ""))
@example(shape=("", ["-----BEGIN RSA PRIVATE KEY-----"], ""))  # BEGIN after BEGIN, one line
@example(shape=("", ["Proc-Type: 4,ENCRYPTED-----BEGIN RSA PRIVATE KEY-----a"], ""))  # headers too
def test_every_entry_point_is_linear(
    run: Callable[[str], object], shape: tuple[str, list[str], str]
) -> None:
    assert_linear(run, shape)


#: The patterns as they would be written with ``(?:_WORD)+`` (backtracking): what they match
#: is what the linear ones must match.
WORD = r"(?:[A-Z]+(?![a-z])|[A-Z]?[a-z]+)"
REWRITTEN = {
    "_WORDS": (
        rf"[-_./:]*(?:[0-9]{{1,3}}[-_./:]+)?(?:{WORD})+[0-9]{{0,3}}"
        rf"(?:[-_./:]+(?:{WORD})+[0-9]{{0,3}})*[-_./:]*"
    ),
    "_CAMEL": r"_*[A-Za-z][a-z]+(?:[-_./:]*[A-Z]?[a-z]+)*_*",
}


@pytest.mark.parametrize("name", sorted(REWRITTEN))
@settings(max_examples=1000, deadline=None)
@given(value=st.text(alphabet="aBz9_-./:!", max_size=14))
def test_linear_patterns_match_what_the_backtracking_ones_did(name: str, value: str) -> None:
    import re

    old = re.compile(REWRITTEN[name])
    assert bool(getattr(redact, name).fullmatch(value)) == bool(old.fullmatch(value))
