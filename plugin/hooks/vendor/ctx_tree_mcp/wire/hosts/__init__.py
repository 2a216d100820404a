"""One module per agent host whose hooks ctx-tree runs (docs/install.md, docs/capture.md).

Each module ``hosts/<host>.py`` says what that host's hooks are and can do:

- ``EVENTS``: ``{host event: (the hook's arguments, matcher or None)}``, what
  ``ctx-tree install`` writes into the host's configuration (and, for Claude Code, what
  ``plugin/hooks/hooks.json`` holds): the hook runs ``ctx_tree_hook.py <arguments>``;
- ``CONTEXT``: the host events whose answer can add text for the model;
- ``REWRITE``: how its pre-tool event can rewrite a tool call's input, where the new input
  goes in the answer ('' when it cannot), for the routing rules (``wire/route.py``);
- ``translate(event, payload)``: the host's payload as ctx-tree's hook events, each with a
  payload in Claude Code's field names (``[(hook event, payload)]``; [] for what is not
  mapped). Every field is untrusted: it never raises for a field's type, and passes on what
  it cannot read for the capture to note (``wire/payload.py``, which also holds the helpers
  the mappings share);
- ``answer(event, answers)``: the host's stdout for ctx-tree's answers to those events
  (``wire/answer.py``).

The hook loads a host's module by the name it is run with (``ctx_tree_hook.py HOST EVENT``;
Claude Code's with ``ctx_tree_hook.py EVENT``). Adding a host is a module here and a row in
``ctx-tree install``'s table (``cli/install.py``: its files). Standard library only, Python
3.8+ (loaded by the hooks).
"""

#: Seconds a host gives one hook run before it stops waiting (Gemini CLI counts milliseconds).
HOOK_TIMEOUT_S = 10
