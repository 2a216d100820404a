"""``ctx-tree install``/``uninstall`` and the user's own files (docs/install.md): a config
linked into a dotfiles repository stays a link and its target gets the change; what ctx-tree
did not change keeps its bytes; the bytes before each change are kept in a backup that is
never overwritten, with the file's own mode."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from ctx_tree_mcp.cli.install import HOSTS, MARKER, Target, apply
from ctx_tree_mcp.cli.jsonedit import edit_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: A user's own content per format, written the user's way (4 spaces, a one-line array).
SEEDS = {
    ".json": '{\n    "mine": [1, 2],\n    "name": "caf\\u00e9"\n}\n',
    ".toml": '# my settings\nmine = [1, 2]  # kept\n\n[profiles.fast]\nmodel = "small"\n',
    ".yaml": "mine:\n- 1\n- 2\n",
}


def user_configs(host: str, home: Path, root: Path) -> list[Path]:
    """The host's config files that hold the user's own settings too (not ctx-tree's own
    files, which carry its marker)."""
    scope = HOSTS[host].scopes[-1] if "user" not in HOSTS[host].scopes else "user"
    edits = HOSTS[host].writer(Target(host, scope, root, home), True)
    return [
        e.path
        for e in edits
        if e.path.suffix in SEEDS and e.new is not None and MARKER not in e.new
    ]


def scope_of(host: str) -> str:
    return "user" if "user" in HOSTS[host].scopes else HOSTS[host].scopes[-1]


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_linked_config_stays_a_link_and_its_target_changes(host, where, tmp_path):
    home, root = where
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    linked = {}
    for i, path in enumerate(user_configs(host, home, root)):
        target = dotfiles / f"{i}{path.suffix}"
        target.write_text(SEEDS[path.suffix])
        target.chmod(0o600)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
        linked[path] = target
    assert linked, host
    apply(host, scope_of(host), root, home=home)
    for path, target in linked.items():
        assert path.is_symlink() and path.resolve() == target, path
        assert "ctx" in target.read_text() and "mine" in target.read_text(), path
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
    apply(host, scope_of(host), root, install=False, home=home)
    for path, target in linked.items():
        assert path.is_symlink() and path.resolve() == target, path
        assert "ctx-tree" not in target.read_text() and "ctx_tree" not in target.read_text()
        if path.suffix != ".yaml":  # YAML is written anew (docs/install.md)
            assert target.read_text() == SEEDS[path.suffix], path
    assert sorted(p.name for p in dotfiles.iterdir()) == sorted(t.name for t in linked.values())


def test_what_ctx_tree_does_not_change_keeps_its_bytes(where):
    home, root = where
    settings_file = home / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    mine = (
        "{\n"
        '    "permissions": {"allow": ["Bash(ls)", "Read"], "deny": []},\n'
        '    "env": {\n'
        '        "GREETING": "gr\\u00fc\\u00df dich"\n'
        "    },\n"
        '    "hooks": {\n'
        '        "PreToolUse": [\n'
        '            {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-hook"}]}\n'
        "        ]\n"
        "    }\n"
        "}\n"
    )
    settings_file.write_text(mine)
    apply("claude", "user", root, home=home)
    after = settings_file.read_text()
    assert '    "permissions": {"allow": ["Bash(ls)", "Read"], "deny": []},\n' in after
    assert '"GREETING": "gr\\u00fc\\u00df dich"' in after
    assert (
        '            {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-hook"}]}'
        in after
    )
    assert "ctx_tree_hook.sh" in after
    apply("claude", "user", root, install=False, home=home)
    assert settings_file.read_text() == mine


def test_backups_keep_every_original_with_its_mode_and_are_never_overwritten(where):
    home, root = where
    settings_file = home / ".gemini" / "settings.json"
    settings_file.parent.mkdir()
    original = '{"apiKey": "mine",   "theme": "dark"}\n'
    settings_file.write_text(original)
    settings_file.chmod(0o600)
    apply("gemini", "user", root, home=home)
    installed = settings_file.read_bytes()
    apply("gemini", "user", root, install=False, home=home)
    apply("gemini", "user", root, home=home)
    backups = sorted(settings_file.parent.glob("settings.json*.ctx-tree.bak"))
    contents = [b.read_bytes() for b in backups]
    assert original.encode() in contents and installed in contents
    assert len(contents) == len(set(contents))  # each state kept once
    first = settings_file.with_name("settings.json.ctx-tree.bak")
    assert first.read_bytes() == original.encode()  # the original, kept whatever came after
    for backup in backups:
        assert stat.S_IMODE(backup.stat().st_mode) == 0o600, backup
    assert stat.S_IMODE(settings_file.stat().st_mode) == 0o600


def test_a_crlf_file_keeps_its_line_ends(where):
    home, root = where
    settings_file = home / ".gemini" / "settings.json"
    settings_file.parent.mkdir()
    original = b'{\r\n  "theme": "dark"\r\n}\r\n'
    settings_file.write_bytes(original)
    apply("gemini", "user", root, home=home)
    assert b'  "theme": "dark"' in settings_file.read_bytes()
    apply("gemini", "user", root, install=False, home=home)
    assert settings_file.read_bytes() == original


# --- edit_json, the rewriter the JSON configs go through -----------------------------------

_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.text('ab\u00e9\\"', max_size=3)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("abc", max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


def _change(value: Any, data: st.DataObject) -> Any:
    """``value`` with one member or item added, removed or changed somewhere inside."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        out = dict(value)
        what = data.draw(st.sampled_from(["drop", "change", "deeper"]))
        if what == "drop":
            del out[key]
        elif what == "change":
            out[key] = data.draw(_VALUES)
        else:
            out[key] = _change(value[key], data)
        return out
    if isinstance(value, list) and value and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(value) - 1))
        out = list(value)
        if data.draw(st.booleans()):
            del out[i]
        else:
            out[i] = _change(value[i], data)
        return out
    if isinstance(value, dict):
        return {**value, data.draw(st.text("xyz", min_size=1, max_size=2)): data.draw(_VALUES)}
    if isinstance(value, list):
        return [*value, data.draw(_VALUES)]
    return data.draw(_VALUES)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.dictionaries(st.text("abc", max_size=2), _VALUES, max_size=4),
    indent=st.sampled_from([None, 2, 4, "\t"]),
    data=st.data(),
)
def test_edit_json_writes_the_new_value_and_keeps_unchanged_text(value, indent, data):
    ascii = data.draw(st.booleans())
    text = json.dumps(value, indent=indent, ensure_ascii=ascii) + "\n"
    assert edit_json(text, value) == text
    new = _change(value, data)
    out = edit_json(text, new)
    assert json.loads(out) == new and type(json.loads(out)) is type(new)
    again = edit_json(out, value)
    assert json.loads(again) == value
    for key in value:  # an unchanged member keeps its text
        if key in new and new[key] == value[key] and type(new[key]) is type(value[key]):
            member = json.dumps({key: value[key]}, indent=indent, ensure_ascii=ascii)[1:-1]
            assert member.strip() in out, (member, out)


def test_edit_json_keeps_a_files_blank_lines_and_tabs():
    text = '{\n\t"a": 1,\n\n\t"b": [1,2]\n}\n'
    out = edit_json(text, {"a": 1, "b": [1, 2], "c": {"d": True}})
    assert out.startswith('{\n\t"a": 1,\n\n\t"b": [1,2]') and '\t"c": {\n\t\t"d": true\n\t}' in out
    assert edit_json(out, {"a": 1, "b": [1, 2]}) == text


def test_every_write_of_a_users_file_goes_through_the_one_writer():
    """install.py writes users' files in one place (``_write``): through links, with backups."""
    import inspect

    from ctx_tree_mcp.cli import install

    source = inspect.getsource(install)
    assert source.count("os.replace(") == 1 and "write_text(" not in source
    assert "write_bytes(" not in source and 'open(path, "w' not in source
