"""Configuration (docs/configuration.md): built-in defaults < ``$CTX_TREE_HOME/config.json`` < ``<root>/.ctx-tree/config.json``.

Files are shallow-merged by top-level key: a top-level key in a later file replaces the earlier
value wholesale; sub-keys it leaves out fall back to the built-in default (not to the global file).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from ._errors import SchemaError


class RetentionConfig(TypedDict):
    """``retention``: how long stale nodes (hours), superseded nodes and the pruned audit
    trail (days) are kept."""

    staleHours: int
    supersededDays: int
    prunedAuditDays: int


class WalkersConfig(TypedDict):
    """``walkers``: intervals (milliseconds), batch sizes and thresholds of the walkers."""

    embeddingIdleMs: int
    embeddingBatchSize: int
    summarizerSubtreeThreshold: int
    dedupeIntervalMs: int
    dedupeThreshold: float
    summarizerIntervalMs: int
    stalenessIntervalMs: int
    prunerIntervalMs: int
    filterIntervalMs: int


class CaptureConfig(TypedDict):
    """``capture``: the largest output stored (bytes), the largest part of a file on disk
    that a read stores (bytes), the filter walker's smallest node (bytes), and one switch per
    kind of event the plugin's hooks capture."""

    maxBytes: int
    maxFileBytes: int
    filterMinSize: int
    rawTerminal: bool
    prompt: bool
    response: bool
    read: bool
    grep: bool
    bash: bool
    web: bool
    agent: bool


class SteerConfig(TypedDict):
    """``steer``: ``off``, ``hint`` or ``deny`` before a costly native call; the line count
    above which a native read is steered."""

    mode: str
    readLines: int


class RouteConfig(TypedDict):
    """``route``: the host's own shell commands answered by ctx-tree (docs/routing.md).
    ``enabled``: routing on; ``budget``: tokens a read's or a grep's answer takes at most;
    ``runBudget``: the same for a run (tests, builds, scripts, logs); ``exclude``: commands
    (their first words, e.g. ``"pytest"`` or ``"git log"``) never routed."""

    enabled: bool
    budget: int
    runBudget: int
    exclude: list[str]


class GrepConfig(TypedDict):
    """``grep``: ripgrep's timeout (milliseconds) and match cap."""

    timeoutMs: int
    maxMatches: int


class EmbeddingConfig(TypedDict):
    """``embedding``: the embedding provider and how it is called (docs/search.md)."""

    provider: str
    baseUrl: str
    apiKeyEnv: str
    dimensions: int
    timeoutMs: int
    queryTimeoutMs: int
    queryPrefix: str
    documentPrefix: str
    queryInputType: str
    documentInputType: str
    maxChars: int


class SearchConfig(TypedDict):
    """``search``: how hybrid search fuses its rankings (``fusion``: ``"convex"``, the sum of
    normalized scores, or ``"rrf"``, Reciprocal Rank Fusion with the constant ``rrfK``) and
    the candidates BM25 and the vectors each give it (docs/search.md#hybrid)."""

    fusion: str
    rrfK: int
    candidates: int


class SummarizerConfig(TypedDict):
    """``summarizer``: endpoint, rate and daily token limits, timeout (milliseconds) and
    input/output sizes of the summarizer walker. ``enabled``: the walker sends stored text to
    the API only when this is true (an ``ANTHROPIC_API_KEY`` in the environment is not consent)."""

    enabled: bool
    baseUrl: str
    requestsPerMinute: int
    dailyTokenCap: int
    timeoutMs: int
    maxInputChars: int
    maxTokens: int


class BashConfig(TypedDict):
    """``bash``: commands ``ctx_tree_bash`` refuses besides the built-in denylist."""

    deny: list[str]


class IndexConfig(TypedDict):
    """``index``: the project index (docs/index.md). ``enabled``: the server indexes the
    project in the background from its start; ``maxFiles``: files taken at most (a tree past
    it keeps the most useful files, and says so; the rest is read on demand); ``maxFileBytes``: larger files are left
    out; ``workers``: chunking processes (0: as many as cores, at most 4); ``pollMs``: how often
    the tree is checked again for changes (0: never; a file watcher is used when available);
    ``fileTimeoutMs``: a file that takes a worker longer is skipped, named in the run."""

    enabled: bool
    maxFiles: int
    maxFileBytes: int
    workers: int
    pollMs: int
    fileTimeoutMs: int


class ConfigData(TypedDict):
    """The whole configuration, key for key as docs/configuration.md."""

    embeddingModel: str
    summarizerModel: str
    retention: RetentionConfig
    walkers: WalkersConfig
    capture: CaptureConfig
    steer: SteerConfig
    route: RouteConfig
    grep: GrepConfig
    embedding: EmbeddingConfig
    search: SearchConfig
    summarizer: SummarizerConfig
    bash: BashConfig
    index: IndexConfig


#: One configuration value: what a leaf of :class:`ConfigData` holds.
ConfigValue = str | int | float | bool | list[str]

#: Built-in defaults, key for key as docs/configuration.md (plus ours: ``grep``, ripgrep
#: limits; ``bash``, the commands ``ctx_tree_bash`` refuses besides the built-in ones; the
#: ``capture`` switches of the plugin's hooks; ``steer``, what the hooks suggest before a
#: costly native call; see docs/capture.md).
DEFAULTS: ConfigData = {
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
        "maxFileBytes": 16000000,
        "filterMinSize": 50,
        "rawTerminal": False,
        "prompt": True,
        "response": True,
        "read": True,
        "grep": True,
        "bash": True,
        "web": True,
        "agent": True,
    },
    "steer": {"mode": "hint", "readLines": 400},
    "route": {"enabled": True, "budget": 2000, "runBudget": 1200, "exclude": []},
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
    "search": {"fusion": "convex", "rrfK": 10, "candidates": 50},
    "summarizer": {
        "enabled": False,
        "baseUrl": "",
        "requestsPerMinute": 5,
        "dailyTokenCap": 200000,
        "timeoutMs": 60000,
        "maxInputChars": 24000,
        "maxTokens": 400,
    },
    "bash": {"deny": []},
    "index": {
        "enabled": True,
        "maxFiles": 250000,
        "maxFileBytes": 1048576,
        "workers": 0,
        "pollMs": 10000,
        "fileTimeoutMs": 10000,
    },
}


#: String keys that take one of a fixed set of values.
CHOICES: dict[str, tuple[str, ...]] = {
    "steer.mode": ("off", "hint", "deny"),
    "search.fusion": ("convex", "rrf"),
}
#: Smallest values allowed where 0 or a few units make no sense: below 1,024 bytes the
#: marker that says where stored output was cut would not fit (docs/configuration.md).
MINIMUMS: dict[str, int] = {"capture.maxBytes": 1024, "capture.maxFileBytes": 1024}


class ConfigError(SchemaError, ValueError):
    """A config file is malformed or holds a wrong type. The message is one line naming the
    file and, for a wrong value, its key. ``whole_file``: the file itself is at fault (it
    cannot be read, is not UTF-8, not JSON or not a JSON object), not one key's value."""

    def __init__(self, message: str, *, whole_file: bool = False) -> None:
        super().__init__(message)
        self.whole_file = whole_file


class ConfigWarning(UserWarning):
    """An unknown config key (ignored). Kept for callers that filter it; unknown keys are now
    listed in :attr:`Config.unknown` instead of being warned about."""


@dataclass(frozen=True, slots=True)
class Config:
    """The merged configuration. ``data`` has the exact shape of :data:`DEFAULTS`
    (:class:`ConfigData`, checked when loaded): read it typed, ``config.data["grep"]["timeoutMs"]``.

    Durations keep the spec's units: ``*Ms`` milliseconds, ``staleHours`` hours,
    ``supersededDays``/``prunedAuditDays`` days, ``maxBytes``/``filterMinSize`` bytes.
    """

    data: ConfigData
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

    def get(self, section: str, key: str | None = None) -> ConfigValue | Mapping[str, ConfigValue]:
        """A value by names known only at run time: ``config.data["capture"]["maxBytes"]`` →
        100000; a section without ``key``. Prefer the typed ``config.data[...]`` when the
        names are literal. Raises KeyError for an unknown key."""
        data: Mapping[str, Any] = self.data
        values: Mapping[str, ConfigValue] = data[section]
        return values if key is None else values[key]


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
    least = MINIMUMS.get(where, 0)
    if ok and where in MINIMUMS and value < least:
        ok = False
    if not ok:
        want = _type_name(default) + (
            f" >= {least:,}" if isinstance(default, int) and not isinstance(default, bool) else ""
        )
        raise ConfigError(f"{source}: {where}: expected {want}, got {json.dumps(value)[:60]}")
    return value


def merge_config(*layers: tuple[str, dict[str, Any]]) -> Config:
    """Merge ``(source_name, mapping)`` layers over :data:`DEFAULTS`, later wins per top-level key.

    Raises :class:`ConfigError` for a wrong type; unknown keys are ignored and listed in
    :attr:`Config.unknown` (callers report them, e.g. as one line on stderr).
    """
    defaults: Mapping[str, Any] = DEFAULTS
    data = copy.deepcopy(dict(defaults))
    unknown: list[str] = []
    for source, layer in layers:
        if not isinstance(layer, dict):
            raise ConfigError(f"{source}: expected a JSON object at the top level", whole_file=True)
        for key, value in layer.items():
            if key not in defaults:
                unknown.append(f"{source}: unknown key {key} (ignored)")
                continue
            data[key] = _check(value, defaults[key], key, source, unknown)
    return Config(_as_config_data(data), tuple(unknown))


def _as_config_data(data: dict[str, Any]) -> ConfigData:
    """The merged layers (each value checked against its default by ``_check``) as the typed
    :class:`ConfigData`."""
    return ConfigData(
        embeddingModel=data["embeddingModel"],
        summarizerModel=data["summarizerModel"],
        retention=data["retention"],
        walkers=data["walkers"],
        capture=data["capture"],
        steer=data["steer"],
        route=data["route"],
        grep=data["grep"],
        embedding=data["embedding"],
        search=data["search"],
        summarizer=data["summarizer"],
        bash=data["bash"],
        index=data["index"],
    )


def read_config_file(path: Path) -> dict[str, Any] | None:
    """Parse one JSON config file; None when it does not exist (also when a part of ``path``
    is a file). Raises :class:`ConfigError` when malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):  # under a file: it cannot exist either
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}", whole_file=True) from None
    except UnicodeDecodeError:
        raise ConfigError(
            f"{path}: not UTF-8 text; expected a JSON object", whole_file=True
        ) from None
    if not text.strip():
        return {}  # an empty file configures nothing
    try:
        loaded: dict[str, Any] | None = json.loads(text)  # its shape is checked by the caller
        return loaded
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}",
            whole_file=True,
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
