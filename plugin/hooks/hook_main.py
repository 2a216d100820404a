"""The work of ctx-tree's hooks (``ctx_tree_hook.py`` imports it): capture what the agent sees
into a spool, and steer it to the ctx-tree call that costs less. See docs/capture.md.

``ctx_tree_hook.py EVENT`` runs :func:`main` with the hook's JSON on stdin, where EVENT is one of
``session-start``, ``prompt``, ``pre-tool``, ``post-tool``, ``post-tool-failure``, ``stop``
(``ctx_tree_hook.py HOST EVENT`` for another host's payload, host_adapters.py).

Contract with the host: exit 0 whatever happens, nothing on stderr, stdout only for the
documented ``hookSpecificOutput`` JSON (steering, the session note). The store is never opened
and no server is contacted: a capture is one small JSON file renamed into
``$CTX_TREE_HOME/spool/<root key>/new/``, which the server's capture walker, the next server
start or ``ctx-tree walk`` ingests. A failure drops the event with one line in
``$CTX_TREE_HOME/logs/hooks.log`` (event and reason, never content).

Standard library only, Python 3.8+, imports kept to what each event needs: this runs on every
tool call, under whatever ``python3`` the host has.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fastjson import dumps, loads
from responses import last_answer, text_of

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN_ROOT = os.path.dirname(HERE)
#: Hosts whose payloads host_adapters.py maps (``ctx_tree_hook.py HOST EVENT``).
HOSTS = ("gemini", "copilot", "vscode", "cline", "cursor", "opencode")
#: Spool format version, checked by ctx_tree_mcp.capture.spool.
SPOOL_VERSION = 1
#: At most this many events wait in one spool; later ones are dropped (logged).
SPOOL_MAX_FILES = 5000
#: Spool files older than this are deleted by the next SessionStart (no server ran meanwhile).
SPOOL_MAX_AGE_S = 7 * 24 * 3600
#: Text longer than capture.maxBytes is redacted before it is cut, so a secret across the cut
#: is replaced whole instead of kept in part: this many characters past the limit are redacted
#: too (the longest one-line secrets are a few hundred characters; PEM bodies are found
#: without their END line). The window ends at a line end when there is one in it.
REDACT_MARGIN = 4096
LOG_MAX_BYTES = 1_000_000
#: The hook gives up (exit 0, nothing done) after this many seconds, whatever it waits on.
ALARM_S = 3

#: The defaults of the config keys the hook reads; ctx_tree_schema.DEFAULTS is the source
#: (tests-e2e/test_e2e_hooks.py checks they agree).
DEFAULTS = {
    "capture": {
        "maxBytes": 100000,
        "prompt": True,
        "response": True,
        "read": True,
        "grep": True,
        "bash": True,
        "web": True,
        "agent": True,
    },
    "steer": {"mode": "hint", "readLines": 400},
    "bash": {"deny": []},
}

#: Smallest values allowed (ctx_tree_schema.MINIMUMS; tests-e2e/test_e2e_hooks.py checks they
#: agree): a smaller one counts as absent, as any malformed value does here.
MINIMUMS = {"capture.maxBytes": 1024, "capture.maxFileBytes": 1024}

#: The ctx_tree_mcp modules the hook borrows (stdlib-only files, loaded by path): in a clone
#: they sit beside the plugin; a marketplace install learns their paths from
#: ``$CTX_TREE_HOME/spool/modules.json``, written by the server.
MODULES = {
    "redact": "wire/redact.py",
    "denylist": "wire/denylist.py",
    "permissions": "wire/permissions.py",
}
CLONE_PACKAGE = os.path.join(
    PLUGIN_ROOT, os.pardir, "packages", "ctx-tree-mcp", "src", "ctx_tree_mcp"
)


# --- where things are ---------------------------------------------------------------------


def ctx_tree_home():
    return os.path.realpath(os.path.expanduser(os.environ.get("CTX_TREE_HOME") or "~/.ctx-tree"))


#: The hosts' own variables naming the project (docs/install.md), first set wins.
PROJECT_VARIABLES = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "COPILOT_PROJECT_DIR")


def project_root(payload):
    """The host's project variable, else the payload's ``cwd``, else the cwd (when that is
    not the plugin directory: then ``$PWD``, which the host inherited from the project)."""
    for name in PROJECT_VARIABLES:
        if os.environ.get(name):
            return os.path.realpath(os.environ[name])
    if payload.get("cwd"):
        return os.path.realpath(payload["cwd"])
    here = os.getcwd()
    if os.path.realpath(here) == os.path.realpath(PLUGIN_ROOT) and os.environ.get("PWD"):
        here = os.environ["PWD"]
    return os.path.realpath(here)


def root_key(root):
    """The spool directory name of a project root (ctx_tree_mcp.app.root_key)."""
    try:  # the builtin module: hashlib would load OpenSSL (~3 ms)
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha256
    return sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def log(home, line):
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


# --- configuration ------------------------------------------------------------------------


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as fh:
            data = loads(fh.read())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def settings(home, root):
    """The ``capture``, ``steer`` and ``bash`` sections, merged as ctx_tree_schema does (the
    project file beats the global one per top-level key; a key left out is the default). A
    malformed file or value counts as absent: a hook never fails on configuration."""
    layers = [
        _read_json(os.path.join(home, "config.json")),
        _read_json(os.path.join(root, ".ctx-tree", "config.json")),
    ]
    out = {}
    for section, defaults in DEFAULTS.items():
        given = {}
        for layer in layers:
            if isinstance(layer.get(section), dict):
                given = layer[section]
        out[section] = {
            key: given[key]
            if type(given.get(key)) is type(default)
            and not given[key] < MINIMUMS.get(section + "." + key, given[key])
            else default
            for key, default in defaults.items()
        }
    return out


# --- borrowed modules ---------------------------------------------------------------------


def _import_machinery():
    """``(spec_from_file_location, module_from_spec)`` of :mod:`importlib.util`, taken from the
    import system's own modules, which every CPython process has loaded: ``importlib.util``
    imports ``contextlib`` and ``enum`` (~3 ms per hook process)."""
    try:
        import _frozen_importlib
        import _frozen_importlib_external

        return (
            _frozen_importlib_external.spec_from_file_location,
            _frozen_importlib.module_from_spec,
        )
    except (ImportError, AttributeError):
        import importlib.util

        return importlib.util.spec_from_file_location, importlib.util.module_from_spec


_MODULES_JSON = {}  # type: dict[str, dict]


def modules_json(home):
    """``$CTX_TREE_HOME/spool/modules.json`` (read once per process), {} when unreadable."""
    if home not in _MODULES_JSON:
        _MODULES_JSON[home] = _read_json(os.path.join(home, "spool", "modules.json"))
    return _MODULES_JSON[home]


def load_module(home, name):
    """The ctx_tree_mcp module ``name`` (see MODULES) loaded by file path, or None."""
    spec_from_file_location, module_from_spec = _import_machinery()
    candidates = [os.path.join(CLONE_PACKAGE, MODULES[name])]
    recorded = modules_json(home).get(name)
    if isinstance(recorded, str):
        candidates.append(recorded)
    for path in candidates:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if hasattr(os, "getuid") and (
            (st.st_uid != os.getuid() and st.st_uid != 0) or st.st_mode & 0o022
        ):
            continue  # only code owned by us (or root) and writable by nobody else
        module_name = "ctx_tree_hook_" + name
        try:
            spec = spec_from_file_location(module_name, path)
            module = module_from_spec(spec)
            sys.modules[module_name] = module  # dataclasses look their module up there
            spec.loader.exec_module(module)
            return module
        except Exception:
            sys.modules.pop(module_name, None)
            continue
    return None


def refused_command(home, command, deny):
    """Why the command must not be captured (it prints the environment or is on the
    project's ``bash.deny``; ctx_tree_bash's own rule), or None. ``UNKNOWN`` when the
    denylist module could not be loaded (the ingester checks again).

    The module (``re`` and ``shlex``: ~5 ms) is loaded only for a command that may be refused
    (:func:`may_refuse`, with the words the server records in modules.json as
    ``denylist_words``: ctx_tree_mcp.wire.denylist.REFUSAL_WORDS)."""
    words = modules_json(home).get("denylist_words")
    recorded = isinstance(words, list) and words and all(isinstance(w, str) for w in words)
    if recorded and not may_refuse(command, deny, words):
        return None
    module = load_module(home, "denylist")
    return "UNKNOWN" if module is None else module.refusal(command, deny)


_UNQUOTED = {ord("'"): None, ord('"'): None, ord("\\"): None}


def may_refuse(command, deny, words):
    """False when ctx_tree_mcp.wire.denylist.refusal is certain to return None for
    ``command`` and ``deny``: the command, its quotes and backslashes removed, holds none of
    ``words`` (the module's REFUSAL_WORDS) and no ``deny`` entry's first word. Every word the
    checks compare (a program's name, a script's word after ``sh -c`` or ``eval``, a
    wrapper's command) is a piece of the command with at most quotes and backslashes taken
    out, so it is a substring of that text. True (check it) for a command or ``deny`` of the
    wrong type, an entry holding a quote or a backslash, one whose program is a path, or one
    that is not a string."""
    if not isinstance(command, str) or not isinstance(deny, list):
        return True
    text = command.translate(_UNQUOTED)
    if any(word in text for word in words):
        return True
    for entry in deny:
        if not isinstance(entry, str) or entry.translate(_UNQUOTED) != entry:
            return True
        first = entry.split()[:1]
        if first and (first[0] in text or "/" in first[0]):
            return True
    return False


# --- capture ------------------------------------------------------------------------------


def build_record(event, payload, cfg):
    """The spool record for a hook event, or None when nothing is captured (switched off,
    a tool we do not capture, no content). Pure: no I/O except the transcript for Stop."""
    capture = cfg["capture"]
    tool = payload.get("tool_name") or ""
    tin = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    resp = payload.get("tool_response")
    rec = None
    if event == "prompt" and capture["prompt"]:
        rec = {"kind": "prompt", "text": payload.get("prompt") or ""}
    elif event == "stop" and capture["response"]:
        text = payload.get("last_assistant_message")
        if not isinstance(text, str) or not text:
            text = last_answer(payload.get("transcript_path"))
        rec = {"kind": "response", "text": text}
    elif event == "post-tool" and tool == "Read" and capture["read"]:
        path = tin.get("file_path")
        return {"kind": "read", "path": path} if isinstance(path, str) and path else None
    elif event == "post-tool" and tool in ("Grep", "Glob") and capture["grep"]:
        resp = resp if isinstance(resp, dict) else {}
        text = resp.get("content") if isinstance(resp.get("content"), str) else ""
        if not text and isinstance(resp.get("filenames"), list):
            text = "\n".join(str(f) for f in resp["filenames"])
        rec = {"kind": "grep", "tool": tool, "text": text}
        for key in ("pattern", "path", "glob", "type", "output_mode"):
            if isinstance(tin.get(key), str):
                rec[key] = tin[key]
    elif event in ("post-tool", "post-tool-failure") and tool == "Bash" and capture["bash"]:
        rec = {"kind": "bash", "command": tin.get("command") or "", "exit_code": 0}
        if event == "post-tool":
            resp = resp if isinstance(resp, dict) else {"stdout": text_of(resp)}
            out, err = resp.get("stdout") or "", resp.get("stderr") or ""
            rec["text"] = out + ("\n" if out and err else "") + err
            rec["interrupted"] = bool(resp.get("interrupted"))
        else:
            error = payload.get("error") if isinstance(payload.get("error"), str) else ""
            head, _, rest = error.partition("\n")
            if head.startswith("Exit code "):
                rec["exit_code"] = (
                    int(head[10:]) if head[10:].strip().lstrip("-").isdigit() else None
                )
                rec["text"] = rest
            else:
                rec["exit_code"], rec["text"] = None, error
            rec["interrupted"] = bool(payload.get("is_interrupt"))
    elif event == "post-tool" and tool in ("WebFetch", "WebSearch") and capture["web"]:
        if tool == "WebFetch":
            r = resp if isinstance(resp, dict) else {}
            url = r.get("url") or tin.get("url") or ""
            rec = {
                "kind": "web",
                "tool": tool,
                "url": url,
                "title": tin.get("prompt") or url,
                "text": text_of(r.get("result", resp)),
            }
        else:
            results = resp.get("results") if isinstance(resp, dict) else resp
            lines = []
            for item in results if isinstance(results, list) else [results]:
                if isinstance(item, dict) and isinstance(item.get("content"), list):
                    lines += [
                        "%s %s" % (c.get("title", ""), c.get("url", ""))
                        for c in item["content"]
                        if isinstance(c, dict)
                    ]
                else:
                    lines.append(text_of(item))
            query = tin.get("query") or ""
            rec = {
                "kind": "web",
                "tool": tool,
                "url": "websearch:" + query,
                "title": query,
                "text": "\n".join(t for t in lines if t),
            }
    elif event == "post-tool" and tool in ("Task", "Agent") and capture["agent"]:
        rec = {
            "kind": "agent",
            "title": tin.get("description") or "",
            "subagent_type": tin.get("subagent_type") or "",
            "text": text_of(resp),
        }
    if rec is None or not (rec.get("text") or "").strip():
        return None
    limit = capture["maxBytes"]
    text = rec["text"]
    if len(text) > limit:  # characters >= UTF-8 bytes: the ingester cuts exactly
        # cut to the limit only once redacted (cut_redacted): a secret across it goes whole
        # what the whole held, for the stored node (truncated=1, original_bytes) and a grep's
        # match count: the ingester sees only the cut copy
        rec["original_chars"] = len(text)
        rec["original_bytes"] = len(text.encode("utf-8", "surrogatepass"))
        rec["original_lines"] = text.count("\n") + (0 if text.endswith("\n") else 1)
        if rec["kind"] == "bash":
            # the ingester keeps a command's first and last parts (its verdict is at the end,
            # engines/shell/record.py): both halves go, each with its window
            half = limit // 2
            head, tail = _head(text, half), _tail(text, half)
            if len(head) + len(tail) < len(text):
                rec["text"] = head + ("" if head.endswith("\n") else "\n") + tail
            # else the windows overlap (the output is only a little over the limit): it goes
            # whole, or their common part would be stored and counted twice
        else:
            rec["text"] = _head(text, limit)
    return rec


def _head(text, size):
    """The first ``size`` characters of ``text`` and up to REDACT_MARGIN more, to a line end."""
    end = text.rfind("\n", size, size + REDACT_MARGIN)
    return text[: end + 1 if end >= 0 else size + REDACT_MARGIN]


def _tail(text, size):
    """The last ``size`` characters of ``text`` and up to REDACT_MARGIN more, from a line start."""
    start = text.find("\n", max(0, len(text) - size - REDACT_MARGIN), len(text) - size)
    return text[start + 1 if start >= 0 else max(0, len(text) - size - REDACT_MARGIN) :]


def cut_redacted(rec, limit):
    """Cut a redacted record's text to ``limit`` characters. An unredacted one, and a command's
    output, keep their windows past the limit: the ingester redacts them, then cuts (a command's
    output around the middle, keeping its end)."""
    if rec["kind"] == "bash" or not rec.get("redacted"):
        return
    if isinstance(rec.get("text"), str) and len(rec["text"]) > limit:
        rec["text"] = rec["text"][:limit]


REDACTED_FIELDS = ("text", "command", "pattern", "glob", "title", "url", "path")
#: Characters from the most to the least common in code and command output: a trigger is
#: looked for around its least common character first.
_COMMON_CHARS = " etaoinsrlcdhupmfgybw.,_()=:/-\"'0123456789kvx\n[]{}jqz;>$<*#@!%&?+|\\^~`"
#: A trigger's least common character is tried at most this often before a plain search.
ANCHOR_TRIES = 4
_ANCHORS = {}  # type: dict[str, tuple[str, int]]


def _anchor(trigger):
    """``(character, its index)``: the least common character of ``trigger``."""
    if trigger not in _ANCHORS:
        rank = [_COMMON_CHARS.find(c) if c in _COMMON_CHARS else 999 for c in trigger]
        index = rank.index(max(rank))
        _ANCHORS[trigger] = trigger[index], index
    return _ANCHORS[trigger]


def triggers_present(lowered, triggers, letters):
    """``{trigger: trigger in lowered}`` for each of ``triggers``, cheaper than scanning for
    each (~0.3M instructions a 100 KB scan): a character test is a memchr (~100x cheaper), so a
    trigger holding a character of ``letters`` the text lacks is absent, and a trigger is
    looked for where its least common character occurs (up to ANCHOR_TRIES places, then by a
    search from there)."""
    absent = {c for c in letters if c not in lowered}
    out = {}
    for trigger in triggers:
        if absent.intersection(trigger):
            out[trigger] = False
            continue
        char, index = _anchor(trigger)
        at, tries, found = lowered.find(char, index), 0, False
        while at >= 0:
            if lowered.startswith(trigger, at - index):
                found = True
                break
            tries += 1
            if tries > ANCHOR_TRIES:  # a common character here: no occurrence starts earlier
                found = lowered.find(trigger, at - index) >= 0
                break
            at = lowered.find(char, at + 1)
        out[trigger] = found
    return out


def redact_record(home, rec):
    """Redact every free-text field in place; ``rec["redacted"]`` says whether it could.

    redact.py runs a rule only when the text holds one of its trigger literals; the server
    records the union of them in modules.json (``redact_triggers``). Text holding none is
    returned as redact.py would return it, without paying for loading it (~10 ms)."""
    triggers = modules_json(home).get("redact_triggers")
    present = {}  # field -> {trigger: in its lower-cased text}, handed to redact.py
    if isinstance(triggers, list) and triggers and all(isinstance(t, str) for t in triggers):
        letters = {c for t in triggers for c in t}
        for key in REDACTED_FIELDS:
            if isinstance(rec.get(key), str):
                present[key] = triggers_present(rec[key].lower(), triggers, letters)
        if not any(any(found.values()) for found in present.values()):
            rec["redacted"] = True
            return rec
    module = load_module(home, "redact")
    if module is None:
        rec["redacted"] = False
        return rec
    for key in REDACTED_FIELDS:
        if isinstance(rec.get(key), str):
            try:  # each trigger is looked for once (a scan of 100 KB: ~40 us)
                rec[key] = module.redact_text(rec[key], present.get(key))
            except TypeError:  # an older redact.py
                rec[key] = module.redact_text(rec[key])
    strict = getattr(module, "redact_environment", None)  # an older redact.py: the ingester does it
    if rec.get("env_refused") and strict is not None and isinstance(rec.get("text"), str):
        rec["text"] = strict(rec["text"])
    rec["redacted"] = True
    return rec


def _refused_marker(home, root, session_id):
    """The file that says a command of this session was refused since its last answer."""
    safe = "".join(c for c in str(session_id) if c.isalnum() or c in "-_")[:80] or "none"
    return os.path.join(home, "spool", root_key(root), "refused-" + safe)


def mark_refused(home, root, session_id):
    """Remember (an empty 0600 file) that this session ran a refused command: its next answer
    may quote what the command printed (docs/capture.md)."""
    path = _refused_marker(home, root, session_id)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        try:
            fd = os.open(path, flags, 0o600)
        except FileNotFoundError:
            make_spool_dirs(home, os.path.dirname(path))
            fd = os.open(path, flags, 0o600)
        os.close(fd)
    except OSError as exc:
        log(home, "post-tool bash: refused command not remembered: %s" % (exc.strerror or exc))


def take_refused(home, root, session_id):
    """True (once) when a command of this session was refused since its last answer."""
    try:
        os.unlink(_refused_marker(home, root, session_id))
    except OSError:
        return False
    return True


def make_spool_dirs(home, base, root=None):
    """Create the project's spool folders under ``home`` that are missing, 0700; a new
    project folder gets a ``root`` file naming ``root`` (``ctx-tree stores`` lists it)."""
    fresh = not os.path.isdir(base)
    for folder in (
        home,
        os.path.join(home, "spool"),
        base,
        os.path.join(base, "tmp"),
        os.path.join(base, "new"),
    ):
        if not os.path.isdir(folder):
            os.makedirs(folder, 0o700, exist_ok=True)
            os.chmod(folder, 0o700)
    if fresh and root is not None:
        fd = os.open(os.path.join(base, "root"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, root.encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)


def spool(home, root, rec):
    """Write ``rec`` as one 0600 file, atomically, into the project's spool. Returns True."""
    base = os.path.join(home, "spool", root_key(root))
    name = "%020d-%d.json" % (time.time_ns(), os.getpid())
    tmp, new = os.path.join(base, "tmp", name), os.path.join(base, "new", name)
    data = dumps(rec, ascii_only=False).encode("utf-8", "surrogatepass")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileNotFoundError:
        make_spool_dirs(home, base, root)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
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
        try:  # noqa: SIM105 - contextlib costs ~1 ms to import on the hot path
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return True


def capture_event(event, payload, home, root, cfg):
    # an answer ends the turn: a refused command's mark holds until then, captured or not
    refused = event == "stop" and take_refused(home, root, payload.get("session_id") or "")
    _STATE["stage"] = "building the record"
    rec = build_record(event, payload, cfg)
    if rec is None:
        lagged = payload.get("transcript_path") and not payload.get("last_assistant_message")
        if event == "stop" and cfg["capture"]["response"] and lagged:
            log(home, "stop: no answer of this turn in the transcript yet; not stored")
        return
    if rec["kind"] == "bash":
        reason = refused_command(home, rec["command"], cfg["bash"]["deny"])
        if reason and reason != "UNKNOWN":
            # env, printenv, bash.deny: nothing of it is kept, and the answer that may quote
            # its output is redacted strictly
            mark_refused(home, root, payload.get("session_id") or "")
            return
        rec["command_checked"] = reason is None
    elif refused:
        rec["env_refused"] = True
    rec.update(
        v=SPOOL_VERSION,
        session_id=payload.get("session_id") or "",
        prompt_id=payload.get("prompt_id") or "",
        tool_use_id=payload.get("tool_use_id") or "",
        cwd=payload.get("cwd") or root,
        duration_ms=payload.get("duration_ms"),
        at=int(time.time() * 1000),
    )
    if rec["kind"] != "read":
        # past its checks: should the alarm ring while redacting, the record is spooled
        # unredacted (0600) and the ingester redacts it (_bail)
        _STATE["pending"] = (home, root, dict(rec, redacted=False))
        _STATE["stage"] = "redacting"
        redact_record(home, rec)
        cut_redacted(rec, cfg["capture"]["maxBytes"])
    _STATE["pending"] = None
    _STATE["stage"] = "writing the spool"
    try:
        spool(home, root, rec)
    except OSError as exc:
        log(
            home,
            "%s %s: dropped: cannot write the spool: %s"
            % (event, rec["kind"], exc.strerror or exc),
        )


# --- session start ------------------------------------------------------------------------


def sweep(home, root):
    """Delete spool files older than SPOOL_MAX_AGE_S (and stray temp files, and refused-command
    marks no answer took); returns how many."""
    base = os.path.join(home, "spool", root_key(root))
    now, gone = time.time(), 0
    for sub, age, prefix in (
        ("new", SPOOL_MAX_AGE_S, ""),
        ("tmp", 3600, ""),
        ("", SPOOL_MAX_AGE_S, "refused-"),
    ):
        try:
            entries = list(os.scandir(os.path.join(base, sub)))
        except OSError:
            continue
        for entry in entries:
            if not entry.name.startswith(prefix):
                continue
            try:
                if now - entry.stat().st_mtime > age:
                    os.unlink(entry.path)
                    gone += 1
            except OSError:
                pass
    if gone:
        log(
            home,
            "session-start: deleted %d spool files older than %d days (never ingested)"
            % (gone, SPOOL_MAX_AGE_S // 86400),
        )
    return gone


def _ago(ms):
    s = max(0, time.time() - ms / 1000)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return "%d %s ago" % (s // size, unit)
    return "just now"


def _count(n, one, many):
    return "%d %s" % (n, one if n == 1 else many)


def session_note(state, waiting):
    """At most 100 tokens on what the store holds from earlier sessions, or '' when nothing."""
    counts = state.get("counts") if isinstance(state.get("counts"), dict) else {}

    def n(key):
        value = counts.get(key)
        return value if isinstance(value, int) else 0

    parts = []
    labels = (
        ("prompt", "prompt", "prompts"),
        ("response", "answer", "answers"),
        ("file", "file", "files"),
        ("tool_output", "command/grep output", "command/grep outputs"),
        ("web_chunk", "web page", "web pages"),
        ("summary", "agent result", "agent results"),
        ("note", "note", "notes"),
    )
    for key, one, many in labels:
        if n(key):
            parts.append(_count(n(key), one, many))
    if waiting:
        parts.append(_count(waiting, "capture not yet stored", "captures not yet stored"))
    if not parts:
        return ""
    when = (
        " (last %s)" % _ago(state["last_capture_at"])
        if isinstance(state.get("last_capture_at"), int)
        else ""
    )
    sessions = " from " + _count(n("session"), "session", "sessions") if n("session") else ""
    return (
        "ctx-tree store for this project holds %s%s%s. Recall before re-reading: "
        'ctx_tree_recent(kind="prompt"), ctx_tree_search(query="..."), then ctx_tree_compose on the hits.'
        % (", ".join(parts), sessions, when)
    )


#: SessionStart sources after which the session's digest is injected, not the short note.
RESUME_SOURCES = ("compact", "resume", "clear")
#: Most characters of a digest injected (its budget is 800 tokens; this bounds a bad file).
DIGEST_MAX_CHARS = 4000


def resume_digest(base, session_id):
    """The digest the server wrote for ``session_id`` (else the latest one), or ''."""
    safe = "".join(c for c in str(session_id) if c.isalnum() or c in "-_")[:80] or "none"
    for name in (safe + ".txt", "latest.txt"):
        try:
            with open(os.path.join(base, "digest", name), encoding="utf-8") as fh:
                text = fh.read(DIGEST_MAX_CHARS)
        except (OSError, UnicodeDecodeError):
            continue
        if text.strip():
            return text
    return ""


def session_start(payload, home, root):
    sweep(home, root)
    base = os.path.join(home, "spool", root_key(root))
    state = _read_json(os.path.join(base, "state.json"))
    try:
        waiting = len(os.listdir(os.path.join(base, "new")))
    except OSError:
        waiting = 0
    note = session_note(state, waiting)
    # the session's digest (ctx_tree_mcp/capture/resume.py)
    if payload.get("source") in RESUME_SOURCES:
        resumed = resume_digest(base, payload.get("session_id") or "")
        if resumed:
            note = resumed
    if not note:
        return ""
    return dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": note}}
    )


# --- the host's permission rules on ctx_tree_bash ----------------------------------------


def bash_permission(payload, home, root):
    """The PreToolUse answer for a ``ctx_tree_bash`` call under the host's ``Bash(...)`` rules
    (ctx_tree_mcp.wire.permissions): a deny names the rule; an ask goes to the host's own
    prompt, after recording the ask where the server looks for it (it refuses an ask-matched
    command it finds no record of). '' when no rule decides (the host's own checks apply)."""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str) or not command.strip():
        return ""
    module = load_module(home, "permissions")
    if module is None:
        return ""  # the server checks the rules again before running anything
    verdict = module.check(command, module.load_rules(root))
    if verdict is None:
        return ""
    reason = "ctx-tree: %s (the host's permission rules)" % verdict.sentence()
    if verdict.decision == "ask":
        folder = os.path.join(home, "spool", root_key(root), "asked")
        try:
            make_spool_dirs(home, os.path.dirname(folder))
            os.makedirs(folder, 0o700, exist_ok=True)
            path = os.path.join(folder, module.ticket_name(command))
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            os.utime(path, None)
        except OSError:
            pass  # no record: the server refuses the command rather than run it unasked
    return dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": verdict.decision,
                "permissionDecisionReason": reason,
            }
        }
    )


# --- entry point --------------------------------------------------------------------------


def run_host(host, event, raw):
    """What to print for another host's ``event`` (host_adapters.py maps its payload onto
    ctx-tree's events and ctx-tree's answer back onto the host's stdout)."""
    import host_adapters

    try:
        payload = loads(raw.decode("utf-8", "surrogateescape") or "{}")
    except ValueError:
        payload = None
    events = host_adapters.translate(host, event, payload) if isinstance(payload, dict) else []
    outputs = [(ctx_event, run(ctx_event, b"", claude)) for ctx_event, claude in events]
    return host_adapters.answer(host, event, outputs)


def run(event, raw, payload=None):
    """What to print for ``event`` given the hook's stdin bytes ('' for nothing); ``payload``,
    when given, is the already parsed Claude-format payload (an adapter's)."""
    if payload is None:
        try:
            payload = loads(raw.decode("utf-8", "surrogateescape") or "{}")
        except ValueError:
            return ""
    if not isinstance(payload, dict):
        return ""
    home, root = ctx_tree_home(), project_root(payload)
    if event == "session-start":
        return session_start(payload, home, root)
    cfg = settings(home, root)
    if event == "pre-tool":
        name = payload.get("tool_name")
        if isinstance(name, str) and name.endswith("ctx_tree_bash"):
            return bash_permission(payload, home, root)
        if cfg["steer"]["mode"] not in ("hint", "deny"):
            return ""
        import steer

        return steer.advise(payload, root, cfg["steer"])
    if event in ("prompt", "post-tool", "post-tool-failure", "stop"):
        capture_event(event, payload, home, root, cfg)
    return ""


#: What the hook is doing, for the line the alarm writes, and a record ready to spool.
_STATE = {"event": "", "stage": "reading its payload", "pending": None, "rang": False}


def _bail(*_args):
    """The alarm: write what there is (a record past its checks is spooled for the ingester
    to redact), else one log line saying what it was waiting on; exit 0 either way."""
    if _STATE["rang"]:
        os._exit(0)
    _STATE["rang"] = True
    try:
        import _signal  # type: ignore[import-not-found]

        _signal.alarm(1)  # the write below is bounded too
    except Exception:
        pass
    home = ctx_tree_home()
    pending = _STATE["pending"]
    event = _STATE["event"] or "?"
    try:
        if pending is not None:
            spool(pending[0], pending[1], pending[2])
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


def main():
    try:  # the C module: ``signal`` would import enum (~3 ms)
        import _signal

        _signal.signal(_signal.SIGALRM, _bail)
        _signal.alarm(ALARM_S)
    except (ImportError, AttributeError, ValueError):  # no SIGALRM on Windows
        pass
    event = sys.argv[1] if len(sys.argv) > 1 else ""
    _STATE["event"] = event
    try:
        if event in HOSTS and len(sys.argv) > 2:
            host, event = event, sys.argv[2]
            _STATE["event"] = host + " " + event
            raw = sys.stdin.buffer.read()
            _STATE["stage"] = "handling the event"
            out = run_host(host, event, raw)
        else:
            raw = sys.stdin.buffer.read()
            _STATE["stage"] = "handling the event"
            out = run(event, raw)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except Exception as exc:
        log(ctx_tree_home(), "%s: %s (event dropped)" % (event, type(exc).__name__))
    os._exit(0)


if __name__ == "__main__":
    main()
