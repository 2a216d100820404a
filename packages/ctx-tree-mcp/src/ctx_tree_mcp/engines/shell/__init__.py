"""Shell commands for ``ctx_tree_bash`` and captured output: the run (shell, process group,
timeout), the digest of its lines, its ``tool_output`` record, the terminal cleaner, the host's
sandbox (Claude Code's, Codex's) and the reaper of a gone server's commands."""
