"""ctx-tree's hook entry for Claude Code and the other hosts: capture what the agent sees into a
spool, and steer it to the ctx-tree call that costs less. See docs/capture.md.

Run as ``python3 -I -S ctx_tree_hook.py EVENT`` (or ``ctx_tree_hook.py HOST EVENT``) with the
hook's JSON on stdin. The work is in ``hook_main.py``: a script run by path is compiled on every
start (it has no bytecode cache), so this file is kept to the few lines that import it (cached
in ``__pycache__``), and the wire it shares with the server is a package beside it (``vendor/``).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # -I leaves the script's own folder out
try:
    from hook_main import main
except Exception:
    if __name__ == "__main__":
        os._exit(0)  # a broken install: the hook fails open, silent
    raise

if __name__ == "__main__":
    main()
