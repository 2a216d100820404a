// ctx-tree-managed: ctx-tree's OpenCode plugin (docs/install.md). OpenCode has no command
// hooks, so this in-process plugin runs ctx-tree's hook entry once per event:
//   sh ctx_tree_hook.sh opencode EVENT   (the event's JSON on stdin; ctx_tree_hook.py under a
//   real interpreter, not a version manager's shim)
// puts the session note into the system prompt and a steering hint after a tool's output. It never throws: a failed
// hook is ignored (hooks fail open). Written by `ctx-tree install opencode`.
import { spawnSync } from "node:child_process";

const HOOK = __CTX_TREE_HOOK__;
let note = "";

function hook(event, payload) {
  try {
    const r = spawnSync("sh", [HOOK, "opencode", event], {
      input: JSON.stringify(payload),
      encoding: "utf8",
      timeout: 10000,
      env: process.env,
    });
    return (r.stdout || "").trim();
  } catch {
    return "";
  }
}

export const CtxTree = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd();
  const base = { cwd };
  const first = hook("session.start", base);
  if (first) note = first;
  return {
    "chat.message": async (input, output) => {
      const text = (output?.parts || [])
        .filter((p) => p && p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n");
      if (text) hook("chat.message", { ...base, sessionID: input?.sessionID, text });
    },
    "tool.execute.after": async (input, output) => {
      const hint = hook("tool.execute.after", {
        ...base,
        sessionID: input?.sessionID,
        callID: input?.callID,
        tool: input?.tool,
        args: input?.args ?? {},
        output: output?.output ?? "",
      });
      // the steering hint: OpenCode cannot add context before a tool, so it follows the output
      if (hint && output && typeof output.output === "string") output.output += "\n\n" + hint;
    },
    event: async ({ event }) => {
      if (event?.type === "message.updated" || event?.type === "message.part.updated") {
        const part = event.properties?.part;
        if (part && part.type === "text" && part.time?.end && event.type === "message.part.updated") {
          hook("answer", { ...base, sessionID: part.sessionID, text: part.text });
        }
      }
    },
    "experimental.chat.system.transform": async (_input, output) => {
      if (note && Array.isArray(output?.system)) output.system.push(note);
    },
  };
};
