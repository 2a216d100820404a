"""Commands that print a secret file are refused before they run; commands that only use one,
or read ordinary files, run."""

from __future__ import annotations

from pathlib import Path

import pytest
from ctx_tree_mcp.app import App
from ctx_tree_mcp.errors import ToolInputError
from ctx_tree_mcp.policy.secretfiles import secret_file_read
from ctx_tree_mcp.tools.bash import bash


@pytest.fixture
def secrets(app: App) -> Path:
    root = app.root
    (root / ".env").write_text("DB_PASSWORD=correcthorsebatterystaple\n")
    (root / "notes.txt").symlink_to(".env")
    (root / "sub").mkdir()
    (root / "sub" / "server.KEY").write_text("not really a key\n")
    return root


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("cat .env", ".env"),
        ("cat notes.txt", "notes.txt"),  # a symlink to .env
        ("head -n 3 sub/server.KEY", "sub/server.KEY"),  # the denylist ignores case
        ("FOO=1 sudo tail -- .env", ".env"),
        ("ls; grep -r PASSWORD .env", ".env"),
        ("wc -l < .env", ".env"),
        ("cat sub/*.KEY", "sub/server.KEY"),
        ("cat ~/.aws/credentials", str(Path("~/.aws/credentials").expanduser())),
        ("jq . /srv/app/credentials.json", "/srv/app/credentials.json"),
        # git prints a file's versions and changes
        ("git diff .env", ".env"),
        ("git -C . --no-pager show HEAD~1:.env", ".env"),
        ("git log -p -- .env", ".env"),
        ("git cat-file -p main:sub/server.KEY", "sub/server.KEY"),
        ("git blame notes.txt", "notes.txt"),
        # seen through as the environment check sees through them
        ("sh -c 'cat .env'", ".env"),
        ("bash -lc \"eval 'head .env'\"", ".env"),
        ("echo `cat .env`", ".env"),
        ("if true; then tail .env; fi", ".env"),
        ("timeout 5 cat .env", ".env"),
        ("env X=1 nice -n 5 sort .env", ".env"),
        ("sudo -u root git show HEAD:.env", ".env"),
        # an interpreter's inline script that opens one
        ("""python3 -c "print(open('.env').read())" """, ".env"),
        (
            """node -e "console.log(require('fs').readFileSync('notes.txt', 'utf8'))" """,
            "notes.txt",
        ),
        ("""ruby -e 'puts File.read("sub/server.KEY")'""", "sub/server.KEY"),
    ],
)
def test_readers_of_secret_files_are_named(app: App, secrets: Path, command: str, path: str):
    assert secret_file_read(command, app.policy, app.root) == path


@pytest.mark.parametrize(
    "command",
    [
        "source .env && echo ok",
        "docker run --env-file .env image",
        "cat src/decoder.py | head -1",
        "grep x src/decoder.py > .env.out",
        "ls -la .env",
        "echo *.pem",
        "git log --oneline -- .env",
        "git add .env && git commit -m 'ignore .env'",
        "git checkout -- .env",
        "git status",
        "cat <<EOF > .env\nX=1\nEOF",
        "command -v cat .env",
        "make 2> .env",
        """python -c "from dotenv import load_dotenv; load_dotenv('.env')" """,
        """python -c "import os; print(os.path.exists('.env'))" """,
        """python -c "print(open('src/decoder.py').read()[:10])" """,
    ],
)
def test_commands_that_only_use_or_name_them_are_left_alone(app: App, secrets: Path, command):
    assert secret_file_read(command, app.policy, app.root) is None


def test_ctx_tree_bash_refuses_and_stores_nothing(app: App, secrets: Path) -> None:
    with pytest.raises(ToolInputError) as err:
        bash(app, "cat notes.txt")
    assert err.value.argument == "command" and "secret-file denylist" in str(err.value)
    assert not app.stores.opened  # refused before the store was opened
    assert bash(app, "echo fine") == "fine\n"
