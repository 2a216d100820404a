"""The hook program (``ctx_tree_hook.py`` imports it): capture what the agent sees into a spool,
and steer it to the ctx-tree call that costs less. See docs/capture.md.

``ctx_tree_hook.py EVENT`` runs :func:`main` with Claude Code's JSON on stdin, where EVENT is
one of ctx-tree's hook events (``session-start``, ``prompt``, ``pre-tool``, ``post-tool``,
``post-tool-failure``, ``stop``); ``ctx_tree_hook.py HOST EVENT`` takes another host's payload
and answers in its shape (``wire/hosts/<host>.py``).

Contract with the host: exit 0 whatever happens, nothing on stderr, stdout only for the
host's documented answer (steering, the session note). The store is never opened and no
server is contacted: a capture is one small JSON file renamed into the project's spool
(``wire/spool.py``), which the server's capture walker, the next server start or
``ctx-tree walk`` ingests. A failure drops the event with one line in
``$CTX_TREE_HOME/logs/hooks.log`` (event and reason, never content).

Everything the hook shares with the server comes from the wire (``ctx_tree_mcp.wire``), found
by this file's own path: ``vendor/`` beside it is a generated copy
(``python -m ctx_tree_mcp.cli.plugin_files``). Standard library only, Python 3.8+, imports
kept to what each event needs: this runs on every tool call, under whatever ``python3`` the
host has.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WIRE = os.path.join(HERE, "vendor")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import ModuleType
    from typing import Any


#: Packages of the wire's copy whose ``__init__.py`` holds nothing the hook uses (a docstring,
#: ``__version__``): :func:`load` makes their module objects without running them.
SHELLS = ("ctx_tree_mcp", "ctx_tree_mcp.wire")
#: The optimization level of the bytecode :func:`load` caches and runs: 2, without docstrings
#: (a quarter of the code a hook unmarshals; the hook reads none, and the wire asserts
#: nothing it relies on). Its cache files are the ones ``python -OO`` would write.
OPTIMIZE = 2


def load(name: "str", folder: "str" = WIRE) -> "ModuleType":
    """The module ``name`` of ``folder`` (the wire's copy, or this folder), run from its
    bytecode cache (:func:`code`) for a fraction of a plain import: the path finder, module
    specs and loaders a plain import goes through cost a hook's process ~0.25M instructions a
    module, as much as a module itself, and a hook runs ten. Its parent packages are loaded
    first (those of :data:`SHELLS` as empty packages); a module already loaded (in the
    server's tests: the package itself) is returned as it is. Raises what importing it would
    (``OSError`` for a module that does not exist)."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    parent, _, child = name.rpartition(".")
    if parent:
        load(parent, folder)
    path = os.path.join(folder, *name.split("."))
    module = type(sys)(name)
    if name in SHELLS:
        module.__path__ = [path]
        sys.modules[name] = module
        return module
    package = os.path.isdir(path)
    source = os.path.join(path, "__init__.py") if package else path + ".py"
    module.__file__ = source
    module.__package__ = name if package else parent
    if package:
        module.__path__ = [path]
    sys.modules[name] = module
    try:
        exec(code(source), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    if parent:
        setattr(sys.modules[parent], child, module)
    return module


def code(source: "str") -> "Any":
    """The code of the Python file ``source`` at :data:`OPTIMIZE`: from its cache file
    (``__pycache__/<name>.<cache tag>.opt-2.pyc``, a timestamp pyc as the import system
    writes one) when that names the source's mtime and size; else compiled, and the cache
    written (atomically; not at all when the folder is read-only). Raises ``OSError`` for a
    file that cannot be read, ``SyntaxError`` for one that does not compile."""
    import marshal

    st = os.stat(source)
    try:
        import _frozen_importlib_external as external

        magic: bytes = external.MAGIC_NUMBER
    except ImportError:  # another interpreter: this cache format may not be its own
        magic = b""
    stamp = magic + b"\0\0\0\0" + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
    stamp += (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    folder, file = os.path.split(source)
    tag = "%s.%s.opt-%d.pyc" % (file[:-3], sys.implementation.cache_tag, OPTIMIZE)
    cached = os.path.join(folder, "__pycache__", tag)
    try:
        with open(cached, "rb") as fh:
            data = fh.read()
        if magic and data[:16] == stamp:
            return marshal.loads(memoryview(data)[16:])
    except OSError:
        pass
    with open(source, "rb") as fh:
        compiled = compile(fh.read(), source, "exec", dont_inherit=True, optimize=OPTIMIZE)
    if magic:
        try:
            os.makedirs(os.path.dirname(cached), exist_ok=True)
            temporary = "%s.%d" % (cached, os.getpid())
            with open(temporary, "wb") as fh:
                fh.write(stamp + marshal.dumps(compiled))
            os.replace(temporary, cached)
        except OSError:
            pass
    return compiled


if HERE not in sys.path:  # set already when run by ctx_tree_hook.py (the wire is loaded by path)
    sys.path.append(HERE)
#: The hook program's own modules (in this folder), which :func:`load` runs as it runs the
#: wire's.
PROGRAM = ("capture", "pretool", "session", "steer")
_PLAIN_IMPORT = __import__


def _import(
    name: str,
    globals: "Mapping[str, object] | None" = None,
    locals: "Mapping[str, object] | None" = None,
    fromlist: "Sequence[str] | None" = (),
    level: int = 0,
) -> "ModuleType":
    """The hook process's ``__import__`` (:func:`main` installs it): a module of the wire or
    of the hook program is run by :func:`load` (its imports come back here), anything else
    is imported as ever."""
    if level == 0 and name not in sys.modules:
        if name.startswith("ctx_tree_mcp."):
            load(name)
        elif name in PROGRAM:
            load(name, HERE)
    module: ModuleType = _PLAIN_IMPORT(name, globals, locals, fromlist, level)
    return module


for _name in ("fastjson", "spool", "payload"):
    load("ctx_tree_mcp.wire." + _name)

from ctx_tree_mcp.wire import spool  # noqa: E402
from ctx_tree_mcp.wire.fastjson import loads  # noqa: E402
from ctx_tree_mcp.wire.payload import Reader  # noqa: E402

if TYPE_CHECKING:
    from ctx_tree_mcp.wire.answer import Answer

LOG_MAX_BYTES = 1_000_000
#: The hook gives up (exit 0, nothing done) after this many seconds, whatever it waits on.
ALARM_S = 3
#: The host whose hooks name ctx-tree's events themselves (``ctx_tree_hook.py EVENT``).
NATIVE_HOST = "claude"


def log(home: str, line: str) -> None:
    """One line in $CTX_TREE_HOME/logs/hooks.log; never raises."""
    try:
        folder = os.path.join(home, "logs")
        path = os.path.join(folder, "hooks.log")
        try:
            if os.stat(path).st_size > LOG_MAX_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            os.makedirs(folder, 0o700, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, ("%s %s\n" % (stamp, line.replace("\n", " ")[:300])).encode())
        finally:
            os.close(fd)
    except Exception:
        pass


#: What the hook is doing, for the line the alarm writes, and an event ready to spool.
_STATE: "dict[str, Any]" = {
    "event": "",
    "stage": "reading its payload",
    "pending": None,
    "rang": False,
}


def handle(event: str, payload: "dict[str, Any]", home: str) -> "Answer | None":
    """ctx-tree's answer to one of its hook events, given its Claude-format ``payload``; None
    when there is nothing to say. Captures write the spool; fields of an unexpected type are
    left out and named in one log line."""
    reader = Reader(payload)
    root = spool.project_root(cwd=reader.text("cwd") or None)
    answer = None
    if event == "session-start":
        from session import session_start

        answer = session_start(reader, home, root, log)
    elif event in ("pre-tool", "prompt", "post-tool", "post-tool-failure", "stop"):
        cfg = spool.settings(home, root)
        if event == "pre-tool":
            from pretool import pre_tool

            answer = pre_tool(reader, home, root, cfg)
        else:
            from capture import capture_event

            _STATE["stage"] = "building the event"
            kind = capture_event(event, reader, home, root, cfg, log, _STATE)
            if reader.problems:
                said = "left out" if kind else "nothing kept; could not read"
                where = (event + " " + kind).strip()
                log(home, "%s: %s %s" % (where, said, ", ".join(reader.problems)))
            return None
    if reader.problems:
        log(home, "%s: left out %s" % (event, ", ".join(reader.problems)))
    return answer


def run(host: str, event: str, raw: bytes) -> str:
    """What to print for the host's ``event`` given the hook's stdin bytes ('' for nothing)."""
    home = spool.ctx_tree_home()
    try:
        payload = loads(raw.decode("utf-8", "surrogateescape") or "{}")
    except ValueError:
        payload = None
    if host == NATIVE_HOST:
        if not isinstance(payload, dict):
            return ""
        answer = handle(event, payload, home)
        if not answer:
            return ""
        from ctx_tree_mcp.wire.answer import claude_output

        return claude_output([(event, answer)])
    if not host.isidentifier() or host.startswith("_"):
        return ""
    try:
        module = load("ctx_tree_mcp.wire.hosts." + host)
    except (ImportError, OSError):  # no such host
        return ""
    try:
        events = module.translate(event, payload) if isinstance(payload, dict) else []
    except Exception as exc:  # a mapping bug: the event is lost, and said so
        log(
            home,
            "%s %s: payload not understood (%s): event dropped" % (host, event, type(exc).__name__),
        )
        events = []
    answers = []
    for ctx_event, claude_payload in events:
        answer = handle(ctx_event, claude_payload, home)
        if answer:
            answers.append((ctx_event, answer))
    out: str = module.answer(event, answers)
    return out


def _bail(*_args: object) -> None:
    """The alarm: write what there is (an event past its checks is spooled for the ingester
    to redact), else one log line saying what it was waiting on; exit 0 either way."""
    if _STATE["rang"]:
        os._exit(0)
    _STATE["rang"] = True
    try:
        import _signal  # type: ignore[import-not-found]

        _signal.alarm(1)  # the write below is bounded too
    except Exception:
        pass
    home = spool.ctx_tree_home()
    pending = _STATE["pending"]
    event = _STATE["event"] or "?"
    try:
        if pending is not None:
            from capture import write_event

            write_event(*pending)
            log(
                home,
                "%s %s: alarm after %d s while %s: spooled unredacted, the ingester redacts it"
                % (event, pending[2].get("kind"), ALARM_S, _STATE["stage"]),
            )
        else:
            log(
                home,
                "%s: alarm after %d s while %s: event dropped" % (event, ALARM_S, _STATE["stage"]),
            )
    except BaseException:
        pass
    os._exit(0)


def main() -> None:
    """Run the event named on the command line (``EVENT`` or ``HOST EVENT``) and exit 0."""
    import builtins

    builtins.__import__ = _import
    try:  # the C module: ``signal`` would import enum (~3 ms)
        import _signal

        _signal.signal(_signal.SIGALRM, _bail)
        _signal.alarm(ALARM_S)
    except (ImportError, AttributeError, ValueError):  # no SIGALRM on Windows
        pass
    args = sys.argv[1:3]
    host, event = (args[0], args[1]) if len(args) > 1 else (NATIVE_HOST, "".join(args))
    _STATE["event"] = " ".join(args)
    try:
        raw = sys.stdin.buffer.read()
        _STATE["stage"] = "handling the event"
        out = run(host, event, raw)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except Exception as exc:
        log(spool.ctx_tree_home(), "%s: %s (event dropped)" % (_STATE["event"], type(exc).__name__))
    os._exit(0)


if __name__ == "__main__":
    main()
