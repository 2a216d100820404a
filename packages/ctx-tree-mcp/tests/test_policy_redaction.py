"""The server's redaction entry (policy/redaction.py) finds the rules' triggers in one pass and
redacts exactly as the rules do (wire/redact.py): every text of the redaction tests, texts
built of triggers that overlap, and triggers across the automaton's windows."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from ctx_tree_mcp.policy import redaction
from ctx_tree_mcp.policy.paths import holds_secret
from ctx_tree_mcp.wire import redact as rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).parent
TRIGGERS = redaction.redact_triggers()


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _strings(item)
    elif hasattr(value, "values") and not isinstance(value, type):  # pytest.param
        yield from _strings(getattr(value, "values", ()))


def _test_texts() -> list[str]:
    """Every string of the parametrized cases and module constants of the redaction tests."""
    out: dict[str, None] = {}
    for path in sorted(HERE.glob("test_mcp_redact*.py")):
        module = importlib.import_module(path.stem)
        for name, value in vars(module).items():
            if name.isupper():
                out.update(dict.fromkeys(_strings(value)))
            for mark in getattr(value, "pytestmark", ()):
                if mark.name == "parametrize" and len(mark.args) > 1:
                    out.update(dict.fromkeys(_strings(mark.args[1])))
    return [t for t in out if t]


TEXTS = _test_texts()


def test_the_redaction_tests_give_many_texts_and_secrets() -> None:
    assert len(TEXTS) > 200
    assert sum(rules.redact_text(t) != t for t in TEXTS) > 100
    assert len(TRIGGERS) > 50 and all(t == t.lower() for t in TRIGGERS)


@pytest.mark.parametrize("case", ["as is", "upper", "in prose", "padded past a window"])
def test_every_text_of_the_redaction_tests_comes_out_as_the_rules_give_it(case: str) -> None:
    pad = "x" * (redaction.WINDOW_CHARS - 7) + "\n"
    for text in TEXTS:
        if case == "upper":
            text = text.upper()
        elif case == "in prose":
            text = f"Some notes first.\n{text}\nand after it, more notes.\n"
        elif case == "padded past a window":
            text = pad + text + "\n" + pad + text
        assert redaction.redact_text(text) == rules.redact_text(text), text[:200]


def test_the_triggers_a_text_holds_are_exactly_those_in_it() -> None:
    pad = "y" * (redaction.WINDOW_CHARS - 3)
    for trigger in TRIGGERS:
        # across the first window's end, and overlapping the triggers that share its letters
        text = pad + trigger.upper() + " " + trigger[1:] + trigger
        present = redaction.triggers_present(text)
        assert present == {t: t in text.lower() for t in TRIGGERS}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.sampled_from(TRIGGERS),
            st.sampled_from([" ", "=", ":", "\n", '"', "'", "@", "/", "_", "-", "."]),
            st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFXYZ0123456789éß", max_size=12),
        ),
        max_size=40,
    )
)
def test_texts_of_triggers_come_out_as_the_rules_give_them(parts: list[str]) -> None:
    text = "".join(parts)
    assert redaction.triggers_present(text) == {t: t in text.lower() for t in TRIGGERS}
    assert redaction.redact_text(text) == rules.redact_text(text)


def test_a_path_named_after_a_token_holds_a_secret_and_others_do_not() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert holds_secret(f"notes/{token}.txt")
    assert not holds_secret("src/keyboard/password_reset.py")
    assert not holds_secret("docs/tokens.md")
