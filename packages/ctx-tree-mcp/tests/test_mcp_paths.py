"""Path policy (docs/security.md): denylist, root escapes, symlinks and special files are refused."""

from __future__ import annotations

import os

import pytest
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.policy.paths import PathPolicy


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.local",
        "sub/.env.prod",
        ".envrc",
        ".ssh/id_rsa",
        "home/.ssh/config",
        ".aws/credentials",
        "x/.aws/config",
        ".gnupg/pubring.kbx",
        ".npmrc",
        "a/.pypirc",
        ".netrc",
        "keys/id_rsa.pub",
        "id_ed25519",
        "certs/server.pem",
        "tls.key",
        "a.pfx",
        "b.p12",
        "gcp/service-account-prod.json",
        "conf/credentials.json",
    ],
)
def test_spec_denylist_is_refused(tmp_path, path):
    policy = PathPolicy(tmp_path)
    with pytest.raises(ToolInputError) as err:
        policy.resolve(path)
    assert err.value.argument == "path"
    assert "denylist" in str(err.value)


@pytest.mark.parametrize(
    "path", ["src/app.py", "README.md", "environment.py", "docs/keys.md", "pem.txt"]
)
def test_ordinary_paths_pass(tmp_path, path):
    assert PathPolicy(tmp_path).resolve(path).relative == path


def test_project_path_deny_extends_the_list_and_cannot_unlist(tmp_path):
    (tmp_path / ".ctx-tree").mkdir()
    (tmp_path / ".ctx-tree" / "path.deny").write_text("# ours\nsecrets/\n*.sqlite\n!.env\n")
    policy = PathPolicy(tmp_path)
    for path in ("secrets/a.txt", "db/x.sqlite", ".env"):
        with pytest.raises(ToolInputError):
            policy.resolve(path)


@pytest.mark.parametrize("path", ["../x.py", "a/../../x.py", "/etc/passwd", "/proc/self/environ"])
def test_outside_root_is_refused(tmp_path, path):
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(ToolInputError, match="outside the project root"):
        PathPolicy(root).resolve(path)


def test_absolute_path_inside_root_is_accepted(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    assert PathPolicy(tmp_path).resolve(str(tmp_path / "a.py")).relative == "a.py"


def test_symlink_out_of_root_and_to_secret_are_refused(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("out\n")
    (root / ".env").write_text("TOKEN=1\n")
    os.symlink(tmp_path / "outside.txt", root / "innocent.txt")
    os.symlink(root / ".env", root / "config.txt")
    policy = PathPolicy(root)
    with pytest.raises(ToolInputError, match="resolves outside"):
        policy.resolve("innocent.txt")
    with pytest.raises(ToolInputError, match="denylisted"):
        policy.resolve("config.txt")


def test_special_files_and_directories_are_refused(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    policy = PathPolicy(tmp_path)
    with pytest.raises(ToolInputError, match="not a regular file"):
        policy.resolve_file("fifo")
    with pytest.raises(ToolInputError, match="directory"):
        policy.resolve_file("dir")
    with pytest.raises(ToolInputError, match="does not exist"):
        policy.resolve_file("missing.py")
    with pytest.raises(ToolInputError, match="NUL"):
        policy.resolve("a\x00b")


@pytest.mark.parametrize("path", ["a/" * 2100 + "x.py", "a" * 5000, "b" * 300 + "/x.py"])
def test_very_deep_or_long_paths_are_argument_errors_not_internal_ones(app, path):
    """A path 2,100 directories deep overflowed the recursive denylist check (RecursionError),
    and a name longer than the file system allows reached grep as an OSError."""
    import asyncio

    from ctx_tree_mcp.tools.grep import grep
    from ctx_tree_mcp.tools.read import read

    with pytest.raises(ToolInputError):
        read(app, path)
    with pytest.raises(ToolInputError):
        asyncio.run(grep(app, "x", path))
