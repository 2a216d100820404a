"""Configuration (docs/configuration.md): defaults < $CTX_TREE_HOME/config.json < <root>/.ctx-tree/config.json."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from ctx_tree_schema import DEFAULTS, ConfigError, load_config, merge_config


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home, root = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    root.mkdir()
    return home, root


def test_defaults_when_no_file(dirs):
    home, root = dirs
    config = load_config(home, root)
    assert config.data == DEFAULTS
    assert config.get("capture", "maxBytes") == 100000
    assert config.get("retention") == {"staleHours": 24, "supersededDays": 7, "prunedAuditDays": 30}
    assert load_config(home, None).data == DEFAULTS


def test_spec_defaults_match_spec_section_2():
    assert DEFAULTS["embeddingModel"] == "nomic-embed-text"
    assert DEFAULTS["summarizerModel"] == "claude-haiku-4-5"
    assert DEFAULTS["walkers"]["prunerIntervalMs"] == 300000
    assert DEFAULTS["walkers"]["stalenessIntervalMs"] == 30000
    assert DEFAULTS["capture"]["filterMinSize"] == 50


def test_project_beats_global_beats_defaults_shallow_by_top_level_key(dirs):
    home, root = dirs
    write(
        home / "config.json",
        {"retention": {"staleHours": 5, "supersededDays": 3}, "summarizerModel": "global-model"},
    )
    write(root / ".ctx-tree" / "config.json", {"retention": {"staleHours": 1}})
    config = load_config(home, root)
    # The project's "retention" replaces the global one wholesale: supersededDays falls back to
    # the built-in default, not to the global file's 3.
    assert config.get("retention") == {"staleHours": 1, "supersededDays": 7, "prunedAuditDays": 30}
    # Keys the project leaves out come from the global file.
    assert config.get("summarizerModel") == "global-model"
    assert config.get("walkers") == DEFAULTS["walkers"]


def test_global_only(dirs):
    home, root = dirs
    write(home / "config.json", {"capture": {"maxBytes": 4096}})
    assert load_config(home, root).get("capture", "maxBytes") == 4096
    assert load_config(home, root).get("capture", "filterMinSize") == 50


def test_empty_file_configures_nothing(dirs):
    home, root = dirs
    write(root / ".ctx-tree" / "config.json", "  \n")
    assert load_config(home, root).get("capture", "maxBytes") == 100000


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("{", "invalid JSON at line 1"),
        ('{"capture": {"maxBytes": 1,}}', "invalid JSON at line 1"),
        ("[1, 2]", "expected a JSON object at the top level"),
    ],
)
def test_malformed_file_is_one_line_naming_the_file(dirs, text, expect):
    home, root = dirs
    path = write(root / ".ctx-tree" / "config.json", text)
    with pytest.raises(ConfigError) as info:
        load_config(home, root)
    message = str(info.value)
    assert str(path) in message
    assert expect in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("data", "key", "expected"),
    [
        ({"capture": {"maxBytes": "big"}}, "capture.maxBytes", "expected an integer >= 1,024"),
        ({"capture": {"maxBytes": -1}}, "capture.maxBytes", "expected an integer >= 1,024"),
        ({"capture": {"maxBytes": True}}, "capture.maxBytes", "expected an integer >= 1,024"),
        ({"capture": {"maxBytes": 1.5}}, "capture.maxBytes", "expected an integer >= 1,024"),
        # below it the marker that says where stored output was cut would not fit
        ({"capture": {"maxBytes": 10}}, "capture.maxBytes", "expected an integer >= 1,024, got 10"),
        ({"walkers": {"prunerIntervalMs": -1}}, "walkers.prunerIntervalMs", "integer >= 0, got"),
        ({"capture": {"bash": "yes"}}, "capture.bash", "expected a boolean"),
        ({"capture": 5}, "capture", "expected an object"),
        ({"retention": None}, "retention", "expected an object"),
        ({"embeddingModel": 3}, "embeddingModel", "expected a string"),
        ({"walkers": {"prunerIntervalMs": [1]}}, "walkers.prunerIntervalMs", "expected an integer"),
    ],
)
def test_wrong_type_names_file_key_and_expectation(dirs, data, key, expected):
    home, root = dirs
    path = write(home / "config.json", data)
    with pytest.raises(ConfigError) as info:
        load_config(home, root)
    message = str(info.value)
    assert message.startswith(f"{path}: {key}: ")
    assert expected in message
    assert "\n" not in message


def test_unknown_keys_are_listed_not_warned_and_are_ignored(dirs):
    home, root = dirs
    path = write(home / "config.json", {"bogus": 1, "capture": {"maxBytes": 7000, "nope": True}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Python warning (it would print a source line)
        config = load_config(home, root)
    messages = config.unknown
    assert any("unknown key bogus" in m and str(path) in m for m in messages)
    assert any("unknown key capture.nope" in m for m in messages)
    assert config.unknown_summary() == f"{path}: unknown keys bogus, capture.nope (ignored)"
    assert config.get("capture", "maxBytes") == 7000
    assert "bogus" not in config.data
    assert "nope" not in config.data["capture"]


def test_not_utf8_and_unreadable_files_are_config_errors(dirs):
    home, root = dirs
    (home / "config.json").write_bytes(b'{"embeddingModel": "\xff\xfe"}')
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(home, root)
    (home / "config.json").unlink()
    (home / "config.json").mkdir()  # a directory where the file should be
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(home, root)


def test_merge_config_layers_later_wins():
    config = merge_config(("a", {"grep": {"timeoutMs": 1}}), ("b", {"grep": {"maxMatches": 2}}))
    assert config.get("grep") == {"timeoutMs": 20000, "maxMatches": 2}
    with pytest.raises(ConfigError, match=r"^b: expected a JSON object"):
        merge_config(("b", [1]))  # type: ignore[arg-type]


def test_defaults_are_not_mutated_by_a_merge(dirs):
    home, root = dirs
    config = load_config(home, root)
    config.data["capture"]["maxBytes"] = 1
    assert DEFAULTS["capture"]["maxBytes"] == 100000


def test_bash_deny_is_a_list_of_command_strings():
    assert DEFAULTS["bash"]["deny"] == []
    config = merge_config(("p", {"bash": {"deny": ["git push", "aws"]}}))
    assert config.get("bash", "deny") == ["git push", "aws"]
    for bad in ("git push", ["ok", 3], [""], [["nested"]]):
        with pytest.raises(
            ConfigError, match=r"^p: bash\.deny: expected a list of non-empty strings"
        ):
            merge_config(("p", {"bash": {"deny": bad}}))


def test_list_defaults_are_copied_not_shared():
    config = merge_config(("p", {"bash": {"deny": ["aws"]}}))
    config.data["bash"]["deny"].append("gcloud")
    assert DEFAULTS["bash"]["deny"] == [] and merge_config().get("bash", "deny") == []
