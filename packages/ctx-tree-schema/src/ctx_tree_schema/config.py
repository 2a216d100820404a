"""Configuration (docs/configuration.md): built-in defaults < ``$CTX_TREE_HOME/config.json`` < ``<root>/.ctx-tree/config.json``.

Files are shallow-merged by top-level key: a top-level key in a later file replaces the earlier
value wholesale; sub-keys it leaves out fall back to the built-in default (not to the global file).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import SchemaError

#: Built-in defaults, key for key as docs/configuration.md (plus ours: ``grep``, ripgrep
#: limits; ``bash``, the commands ``ctx_tree_bash`` refuses besides the built-in ones; the
#: ``capture`` switches of the plugin's hooks; ``steer``, what the hooks suggest before a
#: costly native call; see docs/capture.md).
DEFAULTS: dict[str, Any] = {
    "embeddingModel": "nomic-embed-text",
    "summarizerModel": "claude-haiku-4-5",
    "retention": {"staleHours": 24, "supersededDays": 7, "prunedAuditDays": 30},
    "walkers": {
        "embeddingIdleMs": 5000,
        "embeddingBatchSize": 32,
        "summarizerSubtreeThreshold": 25,
        "dedupeIntervalMs": 60000,
        "dedupeThreshold": 0.97,
        "summarizerIntervalMs": 300000,
        "stalenessIntervalMs": 30000,
        "prunerIntervalMs": 300000,
        "filterIntervalMs": 1000,
    },
    "capture": {
        "maxBytes": 100000,
        "filterMinSize": 50,
        "prompt": True,
        "response": True,
        "read": True,
        "grep": True,
        "bash": True,
        "web": True,
        "agent": True,
    },
    "steer": {"mode": "hint", "readLines": 400},
    "grep": {"timeoutMs": 20000, "maxMatches": 20000},
    "embedding": {
        "provider": "",
        "baseUrl": "",
        "apiKeyEnv": "OPENAI_API_KEY",
        "dimensions": 0,
        "timeoutMs": 30000,
        "queryTimeoutMs": 3000,
        "queryPrefix": "",
        "documentPrefix": "",
        "queryInputType": "",
        "documentInputType": "",
        "maxChars": 4000,
    },
    "search": {"rrfK": 60, "candidates": 50},
    "summarizer": {
        "baseUrl": "",
        "requestsPerMinute": 5,
        "dailyTokenCap": 200000,
        "timeoutMs": 60000,
        "maxInputChars": 24000,
        "maxTokens": 400,
    },
    "bash": {"deny": []},
}


#: String keys that take one of a fixed set of values.
CHOICES: dict[str, tuple[str, ...]] = {"steer.mode": ("off", "hint", "deny")}


class ConfigError(SchemaError, ValueError):
    """A config file is malformed or holds a wrong type. The message is one line naming file and key."""


class ConfigWarning(UserWarning):
    """An unknown config key (ignored). Kept for callers that filter it; unknown keys are now
    listed in :attr:`Config.unknown` instead of being warned about."""


@dataclass(frozen=True, slots=True)
class Config:
    """The merged configuration. ``data`` has the exact shape of :data:`DEFAULTS`.

    Durations keep the spec's units: ``*Ms`` milliseconds, ``staleHours`` hours,
    ``supersededDays``/``prunedAuditDays`` days, ``maxBytes``/``filterMinSize`` bytes.
    """

    data: dict[str, Any]
    #: ``"<file>: unknown key <dotted.key> (ignored)"`` for each unknown key, in file order.
    unknown: tuple[str, ...] = ()

    def unknown_summary(self) -> str:
        """The unknown keys as one line (``""`` when there are none), e.g.
        ``"/p/.ctx-tree/config.json: unknown keys capture.maxByte, colour (ignored)"``."""
        by_file: dict[str, list[str]] = {}
        for note in self.unknown:
            source, _, rest = note.rpartition(": unknown key ")
            by_file.setdefault(source, []).append(rest.removesuffix(" (ignored)"))
        return "; ".join(
            f"{source}: unknown key{'s' if len(keys) > 1 else ''} {', '.join(keys)} (ignored)"
            for source, keys in by_file.items()
        )

    def get(self, section: str, key: str | None = None) -> Any:
        """``config.get("capture", "maxBytes")`` → 100000. Raises KeyError for an unknown key."""
        value = self.data[section]
        return value if key is None else value[key]


def _type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number >= 0", str: "a string"}.get(
        type(value), type(value).__name__
    )


def _check(value: Any, default: Any, where: str, source: str, unknown: list[str]) -> Any:
    if isinstance(default, dict):
        if not isinstance(value, dict):
            raise ConfigError(
                f"{source}: {where}: expected an object, got {json.dumps(value)[:60]}"
            )
        out = copy.deepcopy(default)
        for key, sub in value.items():
            if key not in default:
                unknown.append(f"{source}: unknown key {where}.{key} (ignored)")
                continue
            out[key] = _check(sub, default[key], f"{where}.{key}", source, unknown)
        return out
    if isinstance(default, list):
        ok = isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
        if not ok:
            raise ConfigError(
                f"{source}: {where}: expected a list of non-empty strings, got {json.dumps(value)[:60]}"
            )
        return list(value)
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    else:
        ok = isinstance(value, type(default))
    if ok and where in CHOICES and value not in CHOICES[where]:
        raise ConfigError(
            f"{source}: {where}: expected one of {', '.join(CHOICES[where])}, got {json.dumps(value)[:60]}"
        )
    if not ok:
        want = _type_name(default) + (
            " >= 0" if isinstance(default, int) and not isinstance(default, bool) else ""
        )
        raise ConfigError(f"{source}: {where}: expected {want}, got {json.dumps(value)[:60]}")
    return value


def merge_config(*layers: tuple[str, dict[str, Any]]) -> Config:
    """Merge ``(source_name, mapping)`` layers over :data:`DEFAULTS`, later wins per top-level key.

    Raises :class:`ConfigError` for a wrong type; unknown keys are ignored and listed in
    :attr:`Config.unknown` (callers report them, e.g. as one line on stderr).
    """
    data = copy.deepcopy(DEFAULTS)
    unknown: list[str] = []
    for source, layer in layers:
        if not isinstance(layer, dict):
            raise ConfigError(f"{source}: expected a JSON object at the top level")
        for key, value in layer.items():
            if key not in DEFAULTS:
                unknown.append(f"{source}: unknown key {key} (ignored)")
                continue
            data[key] = _check(value, DEFAULTS[key], key, source, unknown)
    return Config(data, tuple(unknown))


def read_config_file(path: Path) -> dict[str, Any] | None:
    """Parse one JSON config file; None when it does not exist. Raises :class:`ConfigError` when malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; expected a JSON object") from None
    if not text.strip():
        return {}  # an empty file configures nothing
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None


def load_config(home: Path, project_root: Path | None) -> Config:
    """Load and merge ``home/config.json`` and ``project_root/.ctx-tree/config.json`` (docs/configuration.md)."""
    layers = []
    for path in (
        home / "config.json",
        project_root / ".ctx-tree" / "config.json" if project_root else None,
    ):
        if path is not None and (layer := read_config_file(path)) is not None:
            layers.append((str(path), layer))
    return merge_config(*layers)
