"""``ctx-tree doctor``: check what ctx-tree needs, one pass/fail line each, with the fix.

Checks: Python, uv, rg, the tree-sitter grammars, the store's directory and permissions,
the configuration, the embedding provider (when one is configured: it answers, its vectors
length matches the store's, the embedding walker is not failing or rate-limited), the
summarizer (when on: today's tokens against its cap, its last failure), the Claude Code
plugin's hooks (when a plugin with ``hooks/hooks.json`` is found), routing (on or off, its
socket's directory, its client's start-up, whether a hook asks ctx-tree), the host's Bash rules and
sandbox that ``ctx_tree_bash`` applies, and the MCP server's measured start-up time (spawn →
``initialize`` answered).
Nothing is written: the store is opened read-only, writability is probed with a temporary
file. Exit status 1 when any check fails.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: The server's start-up (spawn → ``initialize`` answered) above this fails the check.
STARTUP_LIMIT_S = 5.0


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report: ``ok``, what was found, and the fix when it failed."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        """The check as shown: a mark, its name and detail, and the fix when it failed."""
        mark = "ok  " if self.ok else "FAIL"
        text = f"{mark}  {self.name:<10} {self.detail}"
        return text + (f"\n      {'':<10} fix: {self.fix}" if not self.ok and self.fix else "")


def check_python() -> Check:
    """This Python against the package's ``Requires-Python``."""
    import re
    from importlib.metadata import metadata

    need = metadata("ctx-tree-mcp")["Requires-Python"] or ""
    have = ".".join(map(str, sys.version_info[:3]))
    floor = re.search(r">=\s*(\d+)\.(\d+)", need)
    ok = floor is None or sys.version_info[:2] >= (int(floor[1]), int(floor[2]))
    return Check(
        "python",
        ok,
        f"{have} at {sys.executable} (needs {need or 'any'})",
        f"install a Python {need} (uv python install 3.12) and reinstall ctx-tree with it",
    )


def check_uv() -> Check:
    """``uv`` on ``PATH`` (the plugin starts the server with it)."""
    found = shutil.which("uv")
    if found is None:
        return Check(
            "uv",
            False,
            "not found on PATH (the plugin starts the server with uv)",
            "install uv: `curl -LsSf https://astral.sh/uv/install.sh | sh` or `pipx install uv` "
            "(docs/install.md)",
        )
    version = _run([found, "--version"])
    return Check(
        "uv", version is not None, f"{version or 'does not run'} at {found}", "reinstall uv"
    )


def check_rg() -> Check:
    """The ripgrep binary ``ctx_tree_grep`` runs is there and runs."""
    from ctx_tree_mcp.engines.grep.ripgrep import RipgrepMissing, find_rg

    try:
        rg = find_rg()
    except RipgrepMissing as exc:
        return Check("rg", False, str(exc), "pip install 'ripgrep<15' into ctx-tree's environment")
    version = _run([rg, "--version"])
    first = version.splitlines()[0] if version else None
    return Check("rg", first is not None, f"{first or 'does not run'} at {rg}", "reinstall ripgrep")


def check_grammars() -> Check:
    """Every bundled tree-sitter grammar loads."""
    from ctx_tree_chunk import grammar_problems, supported_languages

    problems = grammar_problems()
    if problems:
        detail = "; ".join(f"{lang}: {err}" for lang, err in problems.items())
        return Check(
            "grammars",
            False,
            detail,
            "reinstall tree-sitter and tree-sitter-language-pack (uv sync --reinstall)",
        )
    return Check("grammars", True, f"{len(supported_languages())} languages load")


def check_store(root: Path, home: Path) -> Check:
    """The project's store can be opened (or created) and written."""
    from ctx_tree_store import describe, store_path

    from ctx_tree_mcp.answers.render import size_text

    path = store_path(root, home)
    where = next((p for p in (path.parent, *path.parents) if p.exists()), None)
    if where is None or not where.is_dir():
        return Check("store", False, f"no directory to create {path.parent} in", "")
    try:
        fd, probe = tempfile.mkstemp(dir=where, prefix=".ctx-tree-doctor-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return Check(
            "store",
            False,
            f"{where} is not writable ({exc.strerror}): reads and greps answer, nothing is stored",
            "make it writable, or set CTX_TREE_HOME to a writable directory",
        )
    from ctx_tree_mcp.store_handle import FREED_BYTES, free_bytes

    free = free_bytes(where)
    if free is not None and free < FREED_BYTES:
        return Check(
            "store",
            False,
            f"the disk of {where} is full ({free:,} bytes free): reads, greps and commands "
            "answer from memory, nothing is stored",
            "free space on that disk, or set CTX_TREE_HOME to a directory on another one",
        )
    if path.is_dir():
        return Check(
            "store",
            False,
            f"{path} is a directory, not a store file: nothing is stored, reads and greps answer",
            f"move that directory away (mv {shlex.quote(str(path))} "
            f"{shlex.quote(str(path) + '.moved')}); the next call starts a new store",
        )
    problems = []
    for target, want in ((path.parent, 0o700), (path, 0o600)):
        if target.exists():
            mode = stat.S_IMODE(target.stat().st_mode)
            if mode & ~want:
                problems.append(f"{target} is {mode:o}, not {want:o}")
    if problems:
        return Check(
            "store",
            False,
            "; ".join(problems),
            f"chmod 700 {path.parent} && chmod 600 {path.parent}/store.db*",
        )
    if not path.exists():
        return Check(
            "store",
            True,
            "nothing stored yet for this project: `ctx-tree index` stores its files now (the "
            f"MCP server does when it starts); {where} is writable",
        )
    info = describe(path)
    if info.error:
        return Check("store", False, f"{path}: {info.error}", f"ctx-tree forget {root}")
    return Check("store", True, f"{path} ({info.nodes:,} nodes, {size_text(info.size_bytes)})")


def check_index(root: Path, home: Path) -> Check | None:
    """The project index's switch, files live and last run (docs/index.md); None before the
    project has a store, when the store cannot be opened (the store check names it) or when
    the config cannot be loaded (the config check does). Informational: it passes."""
    import apsw
    from ctx_tree_schema import ConfigError, load_config
    from ctx_tree_store import Store, StoreError, store_path

    from ctx_tree_mcp.engines.files.indexer import status_lines

    path = store_path(root, home)
    if not path.is_file():
        return None
    try:
        config = load_config(home, root)
    except ConfigError:
        return None
    try:
        store = Store.open_readonly(path)
    except (OSError, apsw.Error, StoreError):
        return None
    try:
        lines = status_lines(store, root, config)
    finally:
        store.close()
    return Check("index", True, "; ".join(line.removeprefix("index: ") for line in lines))


def check_config(root: Path, home: Path) -> Check:
    """The global and project config files parse, with no unknown keys."""
    from ctx_tree_schema import ConfigError, load_config

    try:
        config = load_config(home, root)
    except ConfigError as exc:
        from ctx_tree_mcp.errors import config_fix

        return Check("config", False, str(exc), config_fix(exc))
    if config.unknown:  # a misspelt key is a setting silently not applied
        return Check(
            "config",
            False,
            config.unknown_summary(),
            "fix or remove those keys (docs/configuration.md)",
        )
    return Check("config", True, "valid")


def check_embedding(root: Path, home: Path) -> Check | None:
    """With an embedding provider configured (docs/search.md): it answers a query's vector
    within ``embedding.queryTimeoutMs``, and the store holds no vectors of another model
    (semantic and hybrid search are refused until ``ctx-tree reembed``). None without one."""
    from ctx_tree_schema import ConfigError, load_config
    from ctx_tree_store import Store, store_path
    from ctx_tree_walkers import ProviderUnavailable, embedding_problem, rejected_nodes

    from ctx_tree_mcp.providers import SettingsError, embedder_from_config

    try:
        embedder = embedder_from_config(load_config(home, root))
    except ConfigError:
        return None  # the config check names it
    except (SettingsError, ProviderUnavailable) as exc:
        fix = "set a provider docs/search.md lists, or none for keyword search only"
        return Check("embedding", False, str(exc), fix)
    if embedder is None:
        return None
    started = time.perf_counter()
    try:
        dims = len(embedder.embed_query("ctx-tree doctor"))
    except ProviderUnavailable as exc:
        fix = "start the provider, or fix embedding.baseUrl / CTX_TREE_EMBEDDING_URL"
        return Check("embedding", False, f"{exc} (model {embedder.model!r})", fix)
    ms = (time.perf_counter() - started) * 1000
    path = store_path(root, home)
    other = stored = problem = None
    refused = 0
    if path.exists():
        try:
            store = Store.open_readonly(path)
            try:
                other = store.other_vector_model(embedder.model)
                stored = store.vector_dimensions(embedder.model) if store.vector_models() else None
                problem = embedding_problem(store)
                refused = len(rejected_nodes(store, embedder.model))
            finally:
                store.close()
        except Exception:  # a damaged or unreadable store: the store check names it
            other = None
        if other is not None:
            return Check(
                "embedding",
                False,
                f"the store holds vectors of model {other!r}, the configured model is "
                f"{embedder.model!r}: semantic and hybrid search are refused",
                f"ctx-tree reembed (or configure {other!r} again)",
            )
    if stored is not None and stored != dims:
        return Check(
            "embedding",
            False,
            f"the store holds {stored}-dimension vectors of {embedder.model!r}, the model now "
            f"answers {dims}: semantic and hybrid search answer keyword results",
            "ctx-tree reembed",
        )
    failed = _provider_problem(problem)
    if failed is not None:
        return failed
    found = f"{embedder.describe()}: {dims} dimensions in {ms:.0f} ms"
    if refused:
        found += (
            f"; {refused} nodes it refused are not embedded (`ctx-tree reembed` tries them again)"
        )
    return Check("embedding", True, found)


def _provider_problem(problem: dict[str, object] | None) -> Check | None:
    """The embedding walker's last recorded problem as a failed check (rate-limited until a
    time still ahead, or failing), or None."""
    if not problem:
        return None
    message = str(problem.get("message", ""))
    until = problem.get("until")
    if problem.get("kind") == "rate-limited":
        if not isinstance(until, int) or until <= time.time() * 1000:
            return None
        when = time.strftime("%H:%M:%S UTC", time.gmtime(until / 1000))
        return Check(
            "embedding",
            False,
            f"rate-limited by the provider: the embedding walker waits until {when} ({message})",
            "nothing to do if it is temporary; else raise walkers.embeddingIdleMs or lower "
            "walkers.embeddingBatchSize, or raise the provider's rate limit",
        )
    if problem.get("kind") == "dimensions":
        return Check("embedding", False, message, "ctx-tree reembed")
    return Check(
        "embedding",
        False,
        f"the provider answered the query probe, but failed the embedding walker's last run: "
        f"{message}",
        "fix the provider (its log names the cause), then `ctx-tree walk embedding` retries",
    )


def check_summarizer(root: Path, home: Path, *, now_ms: int | None = None) -> Check | None:
    """With the summarizer on (``summarizer.enabled`` and ``ANTHROPIC_API_KEY``): today's
    tokens against ``summarizer.dailyTokenCap`` and its last failure, from the store (no
    request is sent: each costs money). None when it is off."""
    from ctx_tree_schema import ConfigError, load_config
    from ctx_tree_store import Store, store_path
    from ctx_tree_walkers import summarizer_problem, tokens_used

    from ctx_tree_mcp.providers import summarizer_from_config

    try:
        config = load_config(home, root)
    except ConfigError:
        return None
    provider = summarizer_from_config(config)
    if provider is None:
        return None
    provider.close()
    at = int(time.time() * 1000) if now_ms is None else now_ms
    cap = int(config.data["summarizer"]["dailyTokenCap"])
    path = store_path(root, home)
    used, problem = 0, None
    if path.exists():
        try:
            store = Store.open_readonly(path)
            try:
                used, problem = tokens_used(store, at), summarizer_problem(store)
            finally:
                store.close()
        except Exception:  # the store check names it
            pass
    if used >= cap:
        return Check(
            "summarizer",
            False,
            f"daily token cap reached: {used:,} of {cap:,} tokens today (UTC), failed requests "
            "included; no summary is written until tomorrow",
            "raise summarizer.dailyTokenCap, or wait for the next UTC day",
        )
    until = problem.get("until") if problem else None
    if problem and isinstance(until, int) and until > at:
        when = time.strftime("%H:%M:%S UTC", time.gmtime(until / 1000))
        return Check(
            "summarizer",
            False,
            f"rate-limited by the provider: no request before {when} ({problem.get('message')})",
            "nothing to do if it is temporary; else lower summarizer.requestsPerMinute",
        )
    if problem:
        return Check(
            "summarizer",
            False,
            f"the provider failed: {problem.get('message', '')} (that subtree is backed off)",
            "check ANTHROPIC_API_KEY, summarizer.baseUrl and summarizerModel; the walker "
            "retries on its own",
        )
    return Check("summarizer", True, f"{provider.model}: {used:,} of {cap:,} tokens used today")


def find_plugin(root: Path) -> Path | None:
    """The Claude Code plugin directory (holding ``.claude-plugin/plugin.json``):
    ``$CLAUDE_PLUGIN_ROOT``, else a ``plugin/`` above this package (a clone), else the
    project's ``plugin/``."""
    candidates = []
    if os.environ.get("CLAUDE_PLUGIN_ROOT"):
        candidates.append(Path(os.environ["CLAUDE_PLUGIN_ROOT"]))
    candidates += [p / "plugin" for p in Path(__file__).resolve().parents]
    candidates.append(root / "plugin")
    return next((c for c in candidates if (c / ".claude-plugin" / "plugin.json").is_file()), None)


def check_hooks(root: Path) -> Check | None:
    """None when no plugin with ``hooks/hooks.json`` is found."""
    plugin = find_plugin(root)
    hooks_file = plugin / "hooks" / "hooks.json" if plugin else None
    if hooks_file is None or not hooks_file.is_file():
        return None
    try:
        data = json.loads(hooks_file.read_text(encoding="utf-8"))
        events = data["hooks"]
        commands = [
            h["command"]
            for groups in events.values()
            for group in groups
            for h in group["hooks"]
            if h.get("type") == "command"
        ]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return Check(
            "hooks", False, f"{hooks_file}: not a valid hooks file ({exc})", "reinstall the plugin"
        )
    missing = []
    for command in commands:
        words = shlex.split(command.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin)))
        if words and shutil.which(words[0]) is None and not os.access(words[0], os.X_OK):
            missing.append(words[0])
        missing += [w for w in words[1:] if str(plugin) in w and not Path(w).exists()]
    if missing:
        return Check("hooks", False, f"missing: {', '.join(missing)}", "reinstall the plugin")
    return Check("hooks", True, f"{len(commands)} hook commands in {hooks_file}")


def check_routing(root: Path, home: Path) -> Check | None:
    """Routing (docs/routing.md): switched on or off, a private directory for its socket, the
    client starting under a real interpreter (its start-up in ms), and whether a hook asks
    ctx-tree at all (the plugin's ``hooks.json`` or Claude Code's settings). None when the
    configuration cannot be read (the config check says why)."""
    from ctx_tree_schema import ConfigError, load_config

    from ctx_tree_mcp.route.channel import socket_dir
    from ctx_tree_mcp.route.router import client_path, interpreter

    try:
        settings = load_config(home, root).data["route"]
    except ConfigError:
        return None
    if not settings["enabled"]:
        return Check("routing", True, "off (route.enabled is false)")
    where = socket_dir(str(home))
    if where is None:
        return Check(
            "routing",
            False,
            "no private directory for its socket (CTX_TREE_HOME/run, XDG_RUNTIME_DIR, tmp)",
            "set XDG_RUNTIME_DIR, or a shorter CTX_TREE_HOME",
        )
    started = time.perf_counter()
    done = subprocess.run(
        [interpreter(), "-I", "-S", client_path()], input=b"ok\n", capture_output=True, timeout=30
    )
    ms = (time.perf_counter() - started) * 1000
    if done.stdout != b"ok\n":
        return Check("routing", False, f"the client does not run under {interpreter()}", "")
    asked = _routing_hook_found(root)
    budgets = f"budgets {settings['budget']:,}/{settings['runBudget']:,} tokens"
    hook = asked or "no hook asks ctx-tree yet: commands run as they are (ctx-tree install claude)"
    return Check(
        "routing", True, f"on; socket in {where}; client starts in {ms:.0f} ms; {budgets}; {hook}"
    )


def _routing_hook_found(root: Path) -> str:
    """Where a ``ctx_tree_route`` hook is configured (the plugin, Claude Code's settings), or
    ``""``."""
    plugin = find_plugin(root)
    candidates = [plugin / "hooks" / "hooks.json"] if plugin else []
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    candidates += [
        Path(config_dir) / "settings.json",
        root / ".claude" / "settings.json",
        root / ".claude" / "settings.local.json",
    ]
    for path in candidates:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if '"ctx_tree_route"' in text:
            return f"hooked in {path}"
    return ""


#: The ``initialize`` request the start-up measurement sends (raw JSON-RPC, one line).
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "ctx-tree-doctor", "version": "0"},
    },
}


def check_bash_rules(root: Path) -> Check:
    """Which of the host's ``Bash(...)`` permission rules ``ctx_tree_bash`` applies (Claude
    Code's settings files; docs/security.md). Informational: always passes."""
    from ctx_tree_mcp.wire import permissions

    rules = permissions.load_rules(root)
    if not rules:
        return Check(
            "bash rules",
            True,
            "no Bash(...) rules in Claude Code's settings: ctx_tree_bash runs what the agent "
            "asks, past ctx-tree's own denylist",
        )
    counts = {d: sum(r.decision == d for r in rules) for d in ("deny", "ask", "allow")}
    files = sorted({r.source for r in rules})
    told = ", ".join(f"{n} {d}" for d, n in counts.items() if n)
    return Check("bash rules", True, f"{told} from {', '.join(files)}; applied to ctx_tree_bash")


def check_sandbox(root: Path) -> Check:
    """Whether ``ctx_tree_bash`` runs under the host's sandbox: off, on with its runtime, or on
    with no runtime (a failure: commands are refused or run unconfined)."""
    from ctx_tree_mcp.engines.shell.sandbox import find_runtime, host_sandbox

    box = host_sandbox(root)
    if box is None:
        return Check("sandbox", True, "off in Claude Code's settings: commands run unconfined")
    runtime, why = find_runtime()
    if runtime is not None:
        return Check("sandbox", True, f"on ({box.source}): commands run under {runtime[0]}")
    fails = box.settings.get("failIfUnavailable") is True
    effect = "every command is refused" if fails else "commands run WITHOUT it"
    fix = (
        "allow user namespaces (above), or set sandbox.enabled to false"
        if why.startswith("bubblewrap")
        else "npm install -g @anthropic-ai/sandbox-runtime (Linux: apt-get install bubblewrap socat)"
    )
    return Check("sandbox", False, f"on ({box.source}) but cannot start: {why}; {effect}", fix)


def server_command() -> list[str]:
    """How to start this installation's MCP server: the ``ctx-tree-mcp`` script beside the
    interpreter, else the interpreter running its ``main``."""
    server = Path(sys.executable).parent / "ctx-tree-mcp"
    if server.exists():
        return [str(server)]
    return [sys.executable, "-c", "from ctx_tree_mcp.serve.instant import main; main()"]


def time_to_initialize(cwd: Path | str, command: list[str] | None = None) -> float | None:
    """Seconds from spawning the server in ``cwd`` (with an empty temporary
    ``CTX_TREE_HOME``, never the real store) to its ``initialize`` answer; None when it
    answered something else. Raises ``OSError`` when it cannot be started."""
    with tempfile.TemporaryDirectory(prefix="ctx-tree-doctor-") as scratch:
        env = {**os.environ, "CTX_TREE_HOME": scratch}
        started = time.perf_counter()
        proc = subprocess.Popen(
            command or server_command(),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
            proc.stdin.flush()
            line = proc.stdout.readline()
            took = time.perf_counter() - started
            proc.stdin.close()
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return took if b'"result"' in line else None


def check_startup(root: Path) -> Check:
    """The server answers ``initialize`` soon enough after it starts."""
    try:
        took = time_to_initialize(root)
    except OSError as exc:
        return Check(
            "start-up", False, f"the server does not start ({exc.strerror})", "reinstall ctx-tree"
        )
    if took is None:
        return Check(
            "start-up",
            False,
            "the server did not answer initialize",
            "run `ctx-tree serve` to see its error",
        )
    return Check(
        "start-up",
        took <= STARTUP_LIMIT_S,
        f"{took * 1000:,.0f} ms from spawn to initialize answered (limit {STARTUP_LIMIT_S:g} s)",
        "the first start after an install compiles bytecode: run doctor again; if it stays slow, "
        "raise the host's MCP start-up timeout (Claude Code: MCP_TIMEOUT)",
    )


def _run(command: list[str]) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def doctor(root: Path, home: Path, *, startup: bool = True) -> tuple[str, int]:
    """The report (one line per check, each failed one with its fix) and the exit status:
    0 when every check passed, 1 otherwise."""
    from ctx_tree_mcp.app import fault_message
    from ctx_tree_mcp.errors import in_words

    checks: list[tuple[str, Callable[[], Check | None]]] = [
        ("python", check_python),
        ("uv", check_uv),
        ("rg", check_rg),
        ("grammars", check_grammars),
        ("store", lambda: check_store(root, home)),
        ("config", lambda: check_config(root, home)),
        ("index", lambda: check_index(root, home)),
        ("embedding", lambda: check_embedding(root, home)),
        ("summarizer", lambda: check_summarizer(root, home)),
        ("hooks", lambda: check_hooks(root)),
        ("routing", lambda: check_routing(root, home)),
        ("bash rules", lambda: check_bash_rules(root)),
        ("sandbox", lambda: check_sandbox(root)),
    ]
    if startup:
        checks.append(("start-up", lambda: check_startup(root)))
    results = []
    for name, run in checks:
        try:
            result = run()
        except Exception as exc:  # a check must never crash the report: it fails, in words
            result = Check(name, False, fault_message(exc) or in_words(exc))
        if result is not None:
            results.append(result)
    failed = [c for c in results if not c.ok]
    summary = (
        f"{len(failed)} of {len(results)} checks failed"
        if failed
        else f"all {len(results)} checks passed"
    )
    return "\n".join([*(c.line() for c in results), summary]) + "\n", 1 if failed else 0
