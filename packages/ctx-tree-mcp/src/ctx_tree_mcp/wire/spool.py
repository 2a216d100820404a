"""The spool protocol between the hooks and the server: where a project's spool lies, how a hook
leaves an event there, what else the folder holds and how long anything waits (docs/capture.md).

Layout, per project root::

    $CTX_TREE_HOME/spool/                 0700
        <root key>/                       0700; root key = sha256(real root path)[:16]
            tmp/   a hook writes here ...
            new/   ... and renames here: one JSON event per file, 0600, name sorts by time
            cur/   claimed by an ingester (the server: capture/spool.py)
            state.json                    counts the SessionStart hook reports (no content)
            digest/<session>.txt          the resume digest of a session (capture/resume.py)
            root                          the project root's path (written by the hook that
                                          made the folder, and by the ingester)
            refused-<session>             empty: a command of that session was refused since
                                          its last answer (the next answer is redacted strictly)
            asked/<ticket>                a command the host's rules ask about, asked
                                          (wire/permissions.py)

An event is a JSON object with ``v`` (:data:`SPOOL_VERSION`), its ``kind`` and fields
(``wire/events.py``), and the fields every event has (:data:`COMMON_FIELDS`).

The hook's side (the writer, the sweep at SessionStart, the configuration it reads: its
sections merged as ``ctx_tree_schema`` merges the whole, with the defaults and minimums
generated from it into ``generated.json``) and what both sides compute (the root, its key, the
home) are here; the server's side (claim, ingest, describe, sweep whole spools) is
``ctx_tree_mcp.capture.spool``. Standard library only, Python 3.8+ (loaded by the hooks).
"""

import os
import time

from ctx_tree_mcp.wire.fastjson import load_file

#: Names only type checkers import: ``typing`` would load ``re`` (docs/capture.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Union

    StrPath = Union[str, "os.PathLike[str]"]

#: Version of the event format; an ingester skips (and deletes) events of another.
SPOOL_VERSION = 1
#: At most this many events wait in one spool; later ones are dropped (logged).
SPOOL_MAX_FILES = 5000
#: Events older than this are deleted by the next SessionStart (no server ran meanwhile), and
#: a whole spool nothing wrote to for this long is swept by the server.
SPOOL_MAX_AGE_S = 7 * 24 * 3600
#: A file left in ``tmp/`` this long was never renamed (its hook died): deleted.
TMP_MAX_AGE_S = 3600
#: Fields every event has besides its kind's: who, where and when (epoch ms).
COMMON_FIELDS = ("session_id", "prompt_id", "tool_use_id", "cwd", "duration_ms", "at")
#: The hosts' own variables naming the project (docs/install.md), first set wins.
PROJECT_VARIABLES = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "COPILOT_PROJECT_DIR")
DEFAULT_HOME = "~/.ctx-tree"


def ctx_tree_home() -> str:
    """``$CTX_TREE_HOME`` when set and non-empty, else ``~/.ctx-tree``; expanded, real path
    (as ``ctx_tree_store.ctx_tree_home``)."""
    return os.path.realpath(os.path.expanduser(os.environ.get("CTX_TREE_HOME") or DEFAULT_HOME))


def is_plugin_dir(path: "StrPath") -> bool:
    """True for a ctx-tree plugin directory (a clone's ``plugin/`` or a host's cached copy)."""
    return os.path.isfile(os.path.join(path, "hooks", "ctx_tree_hook.py")) and os.path.isfile(
        os.path.join(path, ".claude-plugin", "plugin.json")
    )


def project_root(
    explicit: "StrPath | None" = None,
    cwd: "StrPath | None" = None,
    environ: "Mapping[str, str] | None" = None,
) -> str:
    """The project root, as a real path: ``explicit``, else the host's project variable
    (:data:`PROJECT_VARIABLES`), else ``cwd`` (a hook's payload says where the host runs),
    else this process's working directory. A directory that is ctx-tree's own plugin
    directory (a host that starts plugin servers or hooks there) is never the root: ``$PWD``,
    inherited from the host's project, is taken instead when it names another directory, else
    the parent process's working directory where the system shows it (``/proc``); a shell
    between the host and us resets ``$PWD``. The hooks and the server both call this."""
    env = os.environ if environ is None else environ
    chosen = explicit or next((env[v] for v in PROJECT_VARIABLES if env.get(v)), None)
    if chosen:
        return os.path.realpath(os.path.expanduser(os.fspath(chosen)))
    here = os.path.realpath(os.fspath(cwd) if cwd else os.getcwd())
    if is_plugin_dir(here):
        for candidate in (env.get("PWD"), "/proc/%d/cwd" % os.getppid()):
            if not candidate:
                continue
            where = os.path.realpath(candidate)
            if os.path.isdir(where) and not is_plugin_dir(where):
                return where
    return here


def _sha256(data: bytes) -> str:
    """The hex sha256 of ``data``, from the builtin module when there is one: :mod:`hashlib`
    loads OpenSSL (~3 ms of a hook's process)."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha256
    digest: str = sha256(data).hexdigest()
    return digest


def root_key(root: "StrPath") -> str:
    """The spool directory name of a project root: 16 hex characters of the sha256 of its real
    path (UTF-8, undecodable bytes as they were)."""
    real = os.path.realpath(os.fspath(root))
    return _sha256(real.encode("utf-8", "surrogateescape"))[:16]


def spool_dir(home: "StrPath", root: "StrPath") -> str:
    """``<home>/spool/<root key>``, the spool of a project root (it may not exist)."""
    return os.path.join(os.fspath(home), "spool", root_key(root))


def session_name(session_id: object) -> str:
    """A session id made safe as a file name: its letters, digits, ``-`` and ``_``, at most 80
    characters; ``none`` when nothing is left."""
    return "".join(c for c in str(session_id) if c.isalnum() or c in "-_")[:80] or "none"


def refused_marker(base: "StrPath", session_id: object) -> str:
    """The empty file that says a command of ``session_id`` was refused since its last answer:
    that answer may quote what the command printed, so it is redacted strictly."""
    return os.path.join(os.fspath(base), "refused-" + session_name(session_id))


#: Most characters of a digest the SessionStart hook injects (its budget is 800 tokens): the
#: server writes no more (capture/resume.py), the hook reads no more.
DIGEST_MAX_CHARS = 4000


def digest_file(base: "StrPath", session_id: object) -> str:
    """Where the resume digest of ``session_id`` lies (``latest.txt``: the newest one)."""
    return os.path.join(os.fspath(base), "digest", session_name(session_id) + ".txt")


def private_dirs(*folders: str) -> None:
    """Create each of ``folders`` that is missing, in order, mode 0700 whatever the umask
    (``os.makedirs`` gives the parents it creates the default mode). Raises ``OSError``."""
    for folder in folders:
        if not os.path.isdir(folder):
            os.makedirs(folder, 0o700, exist_ok=True)
            os.chmod(folder, 0o700)


def make_dirs(home: "StrPath", base: "StrPath", root: "StrPath | None" = None) -> None:
    """Create the spool folders of ``base`` under ``home`` that are missing, 0700 whatever the
    umask; a new project folder gets a ``root`` file naming ``root``. Raises ``OSError``."""
    home, base = os.fspath(home), os.fspath(base)
    fresh = not os.path.isdir(base)
    private_dirs(home, os.path.join(home, "spool"), base, os.path.join(base, "tmp"),
                 os.path.join(base, "new"))  # fmt: skip
    if fresh and root is not None:
        write_private(
            os.path.join(base, "root"), os.fspath(root).encode("utf-8", "surrogateescape")
        )


def write_private(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``, mode 0600 (created or truncated). Raises ``OSError``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_event(base: "StrPath", root: "StrPath", data: bytes) -> str:
    """Leave one event (its JSON as UTF-8 ``data``) in the spool ``base`` of the project
    ``root`` (:func:`spool_dir`; made when missing): a 0600 file written in ``tmp/`` and
    renamed into ``new/``, so an ingester never sees half of it. Returns its path. Raises
    ``OSError`` (the spool is full: :data:`SPOOL_MAX_FILES` wait already)."""
    base = os.fspath(base)
    name = "%020d-%d.json" % (time.time_ns(), os.getpid())
    tmp, new = os.path.join(base, "tmp", name), os.path.join(base, "new", name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        fd = os.open(tmp, flags, 0o600)
    except FileNotFoundError:
        make_dirs(os.path.dirname(os.path.dirname(base)), base, root)
        fd = os.open(tmp, flags, 0o600)
    try:
        if len(os.listdir(os.path.join(base, "new"))) >= SPOOL_MAX_FILES:
            raise OSError("spool full (%d files waiting)" % SPOOL_MAX_FILES)
        if hasattr(os, "fchmod"):  # not on Windows
            os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.close(fd)
        fd = -1
        os.rename(tmp, new)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:  # noqa: SIM105 - contextlib costs ~1 ms to import on the hooks' path
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return new


def mark_refused(base: "StrPath", session_id: object) -> None:
    """Leave :func:`refused_marker` for ``session_id`` in the spool ``base`` (created 0700 when
    missing, as are the two folders above it). Raises ``OSError``."""
    base = os.fspath(base)
    path = refused_marker(base, session_id)
    try:
        write_private(path, b"")
    except FileNotFoundError:
        private_dirs(os.path.dirname(os.path.dirname(base)), os.path.dirname(base), base)
        write_private(path, b"")


def take_refused(base: "StrPath", session_id: object) -> bool:
    """True, once, when :func:`mark_refused` was called for ``session_id`` since."""
    try:
        os.unlink(refused_marker(base, session_id))
    except OSError:
        return False
    return True


#: What :func:`sweep` deletes: (folder under the spool, age in seconds, name prefix).
SWEPT = (
    ("new", SPOOL_MAX_AGE_S, ""),
    ("tmp", TMP_MAX_AGE_S, ""),
    ("", SPOOL_MAX_AGE_S, "refused-"),
)


def sweep(base: "StrPath", now: "float | None" = None) -> int:
    """Delete what waited too long in one spool (:data:`SWEPT`: events never ingested, stray
    temp files, refused-command marks no answer took); returns how many. Never raises."""
    now = time.time() if now is None else now
    gone = 0
    for sub, age, prefix in SWEPT:
        try:
            entries = list(os.scandir(os.path.join(os.fspath(base), sub)))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.startswith(prefix) or not entry.is_file():
                continue
            try:
                if now - entry.stat().st_mtime > age:
                    os.unlink(entry.path)
                    gone += 1
            except OSError:
                pass
    return gone


def waiting(base: "StrPath") -> "list[str]":
    """Names of the events waiting in ``base/new``, oldest first ([] when there is no spool)."""
    try:
        return sorted(
            n for n in os.listdir(os.path.join(os.fspath(base), "new")) if n.endswith(".json")
        )
    except OSError:
        return []


#: The config sections the hooks read; ``generated.json`` holds their defaults.
SECTIONS = ("capture", "steer", "bash")
_GENERATED: "list[dict[str, Any]]" = []
_SETTINGS: "dict[tuple[str, str], dict[str, dict[str, Any]]]" = {}


def generated() -> "dict[str, Any]":
    """``generated.json`` beside this file, read once: what the hooks need computed ahead from
    the server's own sources (``python -m ctx_tree_mcp.cli.plugin_files`` writes it): the
    config sections' ``hook_defaults`` and ``minimums``, ``redact_triggers`` and
    ``redact_letters``, ``refusal_words``. {} when it cannot be read."""
    if not _GENERATED:
        _GENERATED.append(load_file(os.path.join(os.path.dirname(__file__), "generated.json")))
    return _GENERATED[0]


def settings(home: str, root: str) -> "dict[str, dict[str, Any]]":
    """The sections of :data:`SECTIONS` for the project ``root`` under the ctx-tree ``home``:
    the project file (``<root>/.ctx-tree/config.json``) beats the global one
    (``<home>/config.json``) per section, a key it leaves out is the default, and a value of
    another type than its default's or below its minimum counts as absent. Read once per
    process and project (a host event can carry two of ctx-tree's: Gemini's AfterTool)."""
    known = _SETTINGS.get((home, root))
    if known is not None:
        return known
    data = generated()
    defaults: dict[str, dict[str, Any]] = data.get("hook_defaults", {})
    minimums: dict[str, Any] = data.get("minimums", {})
    layers = [
        load_file(os.path.join(home, "config.json")),
        load_file(os.path.join(root, ".ctx-tree", "config.json")),
    ]
    out: dict[str, dict[str, Any]] = {}
    for section, section_defaults in defaults.items():
        given: dict[str, Any] = {}
        for layer in layers:
            if isinstance(layer.get(section), dict):
                given = layer[section]
        out[section] = {
            key: given[key]
            if type(given.get(key)) is type(default)
            and not given[key] < minimums.get(section + "." + key, given[key])
            else default
            for key, default in section_defaults.items()
        }
    _SETTINGS[(home, root)] = out
    return out
