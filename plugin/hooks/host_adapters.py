"""Adapters from other agent hosts' hook payloads onto ctx-tree's six capture events
(docs/install.md, docs/capture.md).

``ctx_tree_hook.py HOST EVENT`` (HOST one of :data:`ADAPTERS`) reads the host's JSON on
stdin; :func:`translate` turns it into ``[(ctx_event, claude_payload), ...]`` (``ctx_event``
one of session-start, prompt, pre-tool, post-tool, post-tool-failure, stop; the payload in
Claude Code's field names), and :func:`answer` turns what ctx-tree would print for Claude
into that host's stdout. An unknown event or shape translates to nothing (exit 0, no output
unless the host requires some).

Standard library only, Python 3.8+.
"""

from responses import newest_entries, tail_lines, text_of, wait_for_answer

#: Gemini CLI's tool names and argument names -> Claude's.
GEMINI_TOOLS = {
    "run_shell_command": ("Bash", {"command": "command"}),
    "read_file": ("Read", {"file_path": "file_path", "absolute_path": "file_path"}),
    "read_many_files": (None, {}),
    "grep_search": ("Grep", {"pattern": "pattern", "dir_path": "path", "include_pattern": "glob"}),
    "search_file_content": ("Grep", {"pattern": "pattern", "path": "path", "include": "glob"}),
    "glob": ("Glob", {"pattern": "pattern", "dir_path": "path"}),
    "web_fetch": ("WebFetch", {"prompt": "prompt", "url": "url"}),
    "google_web_search": ("WebSearch", {"query": "query"}),
}
#: Copilot CLI / VS Code tool names -> Claude's (Copilot CLI already says "Bash").
COPILOT_TOOLS = {
    "bash": "Bash",
    "shell": "Bash",
    "runTerminalCommand": "Bash",
    "run_in_terminal": "Bash",
    "view": "Read",
    "readFile": "Read",
    "read_file": "Read",
    "grep": "Grep",
    "grep_search": "Grep",
    "glob": "Glob",
    "file_search": "Glob",
    "fetch": "WebFetch",
    "fetch_webpage": "WebFetch",
}
#: OpenCode's tool names -> Claude's.
OPENCODE_TOOLS = {
    "bash": "Bash",
    "read": "Read",
    "grep": "Grep",
    "glob": "Glob",
    "webfetch": "WebFetch",
    "task": "Task",
}
#: Cursor's tool names -> Claude's.
CURSOR_TOOLS = {"Shell": "Bash", "Read": "Read", "Grep": "Grep", "Glob": "Glob"}
ARG_NAMES = {
    "filePath": "file_path",
    "path": "file_path",
    "dir_path": "path",
    "include": "glob",
    "includePattern": "glob",
    "cmd": "command",
}


def _dict(value):
    return value if isinstance(value, dict) else {}


#: The keys of the other hosts' tool results that hold their text, first found wins.
TEXT_KEYS = ("llmContent", "text_result_for_llm", "text", "content", "output", "result")


def _text(value):
    return text_of(value, TEXT_KEYS)


def _args(tin, rename=None):
    out = {}
    for key, value in _dict(tin).items():
        name = (rename or ARG_NAMES).get(key, key)
        out.setdefault(name, value)
    return out


def _common(payload, **extra):
    out = {
        "session_id": payload.get("session_id") or payload.get("sessionId") or "",
        "cwd": payload.get("cwd") or "",
        "transcript_path": payload.get("transcript_path") or payload.get("transcriptPath"),
    }
    out.update(extra)
    return out


# --- Gemini CLI ------------------------------------------------------------------------------


def _gemini_tool(payload):
    name = payload.get("tool_name") or ""
    tool, rename = GEMINI_TOOLS.get(name, (None, {}))
    if tool is None and name.startswith("mcp_"):
        server, _, rest = name[4:].partition("_")
        return "mcp__%s__%s" % (server, rest), _dict(payload.get("tool_input"))
    tin = {rename.get(k, k): v for k, v in _dict(payload.get("tool_input")).items()}
    if tool == "Read" and isinstance(tin.get("start_line"), int):
        tin["offset"] = tin["start_line"]
        if isinstance(tin.get("end_line"), int):
            tin["limit"] = tin["end_line"] - tin["start_line"] + 1
    return tool, tin


def _gemini(event, payload):
    if event == "SessionStart":
        return [("session-start", _common(payload))]
    if event == "BeforeAgent" and isinstance(payload.get("prompt"), str):
        return [("prompt", _common(payload, prompt=payload["prompt"]))]
    if event == "AfterAgent" and isinstance(payload.get("prompt_response"), str):
        return [("stop", _common(payload, last_assistant_message=payload["prompt_response"]))]
    tool, tin = _gemini_tool(payload)
    if not tool:
        return []
    base = _common(payload, tool_name=tool, tool_input=tin)
    if event == "BeforeTool":
        return [("pre-tool", base)]
    if event == "AfterTool":
        resp = payload.get("tool_response")
        text = _text(resp)
        if tool in ("Grep", "Glob"):
            resp = {"content": text}
        else:
            resp = text
        # Gemini drops context given at BeforeTool: the steering hint is given here
        return [("post-tool", dict(base, tool_response=resp)), ("pre-tool", base)]
    return []


# --- Copilot CLI and VS Code (Claude's format, with their own field names) --------------------


def _copilot(event, payload):
    name = payload.get("tool_name") or payload.get("toolName") or ""
    tool = COPILOT_TOOLS.get(name, name)
    tin = _args(payload.get("tool_input") or payload.get("toolInput") or payload.get("toolArgs"))
    if tool != "Read":
        tin.pop("file_path", None) if "command" in tin else None
    base = _common(payload, tool_name=tool, tool_input=tin)
    event = payload.get("hook_event_name") or payload.get("hookEventName") or event
    if event == "SessionStart":
        return [("session-start", base)]
    if event == "UserPromptSubmit":
        return [("prompt", dict(base, prompt=payload.get("prompt") or ""))]
    if event == "PreToolUse":
        return [("pre-tool", base)]
    if event == "PostToolUse":
        resp = payload.get("tool_response")
        if resp is None:
            result = _dict(payload.get("tool_result") or payload.get("toolResult"))
            if result.get("result_type") in ("failure", "error", "denied"):
                return [("post-tool-failure", dict(base, error=_text(result)))]
            resp = _text(result)
        return [("post-tool", dict(base, tool_response=resp))]
    if event == "Stop":
        text = payload.get("last_assistant_message")
        if not isinstance(text, str) or not text:
            text = copilot_answer(base.get("transcript_path"))
        return [("stop", dict(base, last_assistant_message=text))]
    return []


def copilot_answer(path, tail_bytes=262144, wait_s=1.0, poll_s=0.1):
    """The answer of the turn that just ended, from a Copilot CLI ``events.jsonl`` (JSON
    lines): the last assistant text after the last user message, or ''. Copilot writes the
    file a moment after its Stop hook starts, so a file that is missing or holds no answer
    after the turn's message yet is read again every ``poll_s`` for at most ``wait_s``
    seconds (as the Claude transcript is); then '' (nothing stored rather than the previous
    turn's answer)."""
    return wait_for_answer(lambda: _copilot_turn_answer(path, tail_bytes), wait_s, poll_s)


def _copilot_turn_answer(path, tail_bytes):
    """``(answer, found)``: ``found`` is False while the file is missing or its last user
    message has no assistant text after it."""
    if not isinstance(path, str) or not path:
        return "", True
    try:
        lines = tail_lines(path, tail_bytes)
    except FileNotFoundError:
        return "", False
    except OSError:
        return "", True
    for entry in newest_entries(lines):
        kind = str(entry.get("type", ""))
        if "user" in kind:
            return "", False  # this turn's message, and no answer after it (yet)
        if "assistant" not in kind:
            continue
        data = _dict(entry.get("data"))
        text = data.get("content") if isinstance(data.get("content"), str) else ""
        if text.strip():
            return text, True
    return "", False


# --- Cline ----------------------------------------------------------------------------------


def _decoded(value):
    """A JSON-encoded list or object decoded (Cline sends arguments as JSON text), else as is."""
    if isinstance(value, str) and value[:1] in ("[", "{"):
        from fastjson import loads

        try:
            return loads(value)
        except ValueError:
            return value
    return value


def _first_root(roots):
    """The first workspace root: a path string or an object holding one."""
    first = roots[0] if isinstance(roots, list) and roots else ""
    if isinstance(first, dict):
        first = first.get("path") or first.get("uri") or ""
    first = first if isinstance(first, str) else ""
    return first[7:] if first.startswith("file://") else first


def _cline(event, payload):
    cwd = _first_root(payload.get("workspaceRoots"))
    base = {"session_id": payload.get("taskId") or "", "cwd": cwd}
    # the hook file's name is the event; hookName is Cline's internal one (agent_start, ...)
    if event in ("TaskStart", "TaskResume"):
        out = [("session-start", dict(base))]
        task = _dict(payload.get("taskStart") or payload.get("taskResume"))
        prompt = _dict(task.get("taskMetadata")).get("initialTask") or task.get("prompt")
        if isinstance(prompt, str) and prompt:
            out.append(("prompt", dict(base, prompt=prompt)))
        return out
    if event == "UserPromptSubmit":
        body = _dict(payload.get("userPromptSubmit"))
        prompt = body.get("prompt") or body.get("text")
        return [("prompt", dict(base, prompt=prompt))] if isinstance(prompt, str) else []
    if event == "TaskComplete":
        text = _dict(payload.get("turn")).get("outputText")
        if not isinstance(text, str):
            text = _text(_dict(payload.get("taskComplete")).get("result"))
        return [("stop", dict(base, last_assistant_message=text))]
    body = _dict(payload.get("preToolUse") or payload.get("postToolUse"))
    # the structured call (tool_call / tool_result) beats postToolUse, whose values are JSON text
    native = _dict(payload.get("tool_result") or payload.get("tool_call"))
    name = body.get("toolName") or native.get("name") or ""
    params = {
        k: _decoded(v) for k, v in _dict(native.get("input") or body.get("parameters")).items()
    }
    calls = []
    if name in ("execute_command", "run_commands"):
        commands = params.get("commands") if name == "run_commands" else [params.get("command")]
        calls = [("Bash", {"command": c}) for c in commands or [] if isinstance(c, str)]
    elif name in ("read_file", "read_files"):
        files = params.get("files") if name == "read_files" else [params]
        for f in files or []:
            f = {"path": f} if isinstance(f, str) else _dict(f)
            if isinstance(f.get("path"), str):
                calls.append(("Read", {"file_path": f["path"]}))
    if event == "PreToolUse":
        return [("pre-tool", dict(base, tool_name=t, tool_input=i)) for t, i in calls]
    if event == "PostToolUse":
        output = native.get("output") if "output" in native else _decoded(body.get("result"))
        if isinstance(output, list):  # [{query, result, success}] per command or file
            output = "\n".join(
                _text(o.get("result")) if isinstance(o, dict) else _text(o) for o in output
            )
        text = _text(output)
        out = []
        for tool, tin in calls[:1]:  # one result for the call: it goes with the first
            if body.get("success") is False and tool == "Bash":
                out.append(
                    ("post-tool-failure", dict(base, tool_name=tool, tool_input=tin, error=text))
                )
            else:
                out.append(
                    ("post-tool", dict(base, tool_name=tool, tool_input=tin, tool_response=text))
                )
        return out
    return []


# --- Cursor ---------------------------------------------------------------------------------


def _cursor(event, payload):
    cwd = _first_root(payload.get("workspace_roots"))
    base = {"session_id": payload.get("conversation_id") or "", "cwd": cwd}
    event = payload.get("hook_event_name") or event
    name = payload.get("tool_name") or ""
    tool = CURSOR_TOOLS.get(name)
    tin = _args(payload.get("tool_input"))
    if event == "sessionStart":
        return [("session-start", base)]
    if event == "beforeSubmitPrompt" and isinstance(payload.get("prompt"), str):
        return [("prompt", dict(base, prompt=payload["prompt"]))]
    if event == "afterAgentResponse" and isinstance(payload.get("text"), str):
        return [("stop", dict(base, last_assistant_message=payload["text"]))]
    if event == "afterShellExecution" and isinstance(payload.get("command"), str):
        return [
            (
                "post-tool",
                dict(
                    base,
                    tool_name="Bash",
                    tool_input={"command": payload["command"]},
                    tool_response=_text(payload.get("output")),
                ),
            )
        ]
    if event == "preToolUse" and tool:
        return [("pre-tool", dict(base, tool_name=tool, tool_input=tin))]
    if event == "postToolUse" and tool and tool != "Bash":  # commands: afterShellExecution
        resp = _text(payload.get("tool_output"))
        resp = {"content": resp} if tool in ("Grep", "Glob") else resp
        return [("post-tool", dict(base, tool_name=tool, tool_input=tin, tool_response=resp))]
    return []


# --- OpenCode (events sent by plugin/opencode/ctx-tree.js) ----------------------------------


def _opencode(event, payload):
    base = {"session_id": payload.get("sessionID") or "", "cwd": payload.get("cwd") or ""}
    if event == "session.start":
        return [("session-start", base)]
    if event == "chat.message" and isinstance(payload.get("text"), str):
        return [("prompt", dict(base, prompt=payload["text"]))]
    if event == "answer" and isinstance(payload.get("text"), str):
        return [("stop", dict(base, last_assistant_message=payload["text"]))]
    if event == "tool.execute.after":
        tool = OPENCODE_TOOLS.get(payload.get("tool") or "")
        if not tool:
            return []
        tin = _args(payload.get("args"))
        if tool == "Task":
            tin.setdefault("description", tin.get("prompt") or "")
        resp = _text(payload.get("output"))
        resp = {"content": resp} if tool in ("Grep", "Glob") else resp
        return [
            (
                "post-tool",
                dict(
                    base,
                    tool_name=tool,
                    tool_input=tin,
                    tool_use_id=payload.get("callID") or "",
                    tool_response=resp,
                ),
            ),
            # OpenCode cannot add context before a tool: the hint rides on its output
            ("pre-tool", dict(base, tool_name=tool, tool_input=tin)),
        ]
    return []


ADAPTERS = {
    "gemini": _gemini,
    "copilot": _copilot,
    "vscode": _copilot,
    "cline": _cline,
    "cursor": _cursor,
    "opencode": _opencode,
}


def translate(host, event, payload):
    """``[(ctx_event, claude_payload)]`` for one host hook call ([] for what we do not map)."""
    try:
        out = ADAPTERS[host](event, payload)
    except (KeyError, TypeError, AttributeError, ValueError):
        return []
    return [(e, p) for e, p in out if isinstance(p, dict)]


def _context(claude_out):
    """(additionalContext, deny reason) out of ctx-tree's Claude-format answer."""
    from fastjson import loads

    try:
        spec = _dict(_dict(loads(claude_out)).get("hookSpecificOutput"))
    except ValueError:
        return "", ""
    if spec.get("permissionDecision") == "deny":
        return "", spec.get("permissionDecisionReason") or ""
    return spec.get("additionalContext") or "", ""


def answer(host, event, outputs):
    """The host's stdout given ctx-tree's Claude-format outputs for the translated events."""
    from fastjson import dumps

    context, deny = "", ""
    for ctx_event, out in outputs:
        if not out:
            continue
        more, why = _context(out)
        if host == "gemini" and ctx_event == "pre-tool" and event == "BeforeTool" and not why:
            continue  # Gemini drops context here; the hint goes at AfterTool
        context, deny = context or more, deny or why
    if host == "gemini":
        if deny and event == "BeforeTool":
            return dumps({"decision": "deny", "reason": deny})
        if context and event in ("SessionStart", "BeforeAgent", "AfterTool"):
            return dumps(
                {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
            )
        return ""
    if host in ("copilot", "vscode"):
        for _ctx_event, out in outputs:
            if out:
                return out  # Claude's own format
        return ""
    if host == "cline":
        reply = {"cancel": bool(deny)}
        if context or deny:
            reply["contextModification"] = context or deny
        if deny:
            reply["errorMessage"] = deny
        return dumps(reply)
    if host == "cursor":
        if event == "preToolUse":
            reply = {"permission": "deny" if deny else "allow"}
            if deny or context:
                reply["agent_message"] = deny or context
            return dumps(reply)
        if context and event in ("sessionStart", "postToolUse"):
            return dumps({"additional_context": context})
        return dumps({} if event != "beforeSubmitPrompt" else {"continue": True})
    if host == "opencode":
        return context  # the plugin puts it in the system prompt
    return ""
