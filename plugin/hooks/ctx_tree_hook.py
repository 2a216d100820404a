"""ctx-tree's hook entry: ``python3 -I -S ctx_tree_hook.py [HOST] EVENT``, the event's JSON on
stdin (docs/capture.md). Compiled on every start, as any script run by path: the work is in
``hook_main.py``, run from its bytecode cache."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # -I leaves it out
try:
    from hook_main import main
except Exception:  # a broken install fails open, silent
    os._exit(0)
main()
