#!/bin/sh
# Run ctx_tree_hook.py (the arguments and stdin pass through) with a real Python interpreter.
#
# `python3` on PATH is often a version manager's shim (pyenv, asdf), a script that costs tens of
# ms of CPU before Python starts, per hook event. The interpreter it resolves to (3.8+) is
# written once to .ctx-tree-python beside this file and exec'd directly from then on. Fails
# open: a noted interpreter that is gone is resolved again; nothing resolved, or nothing
# writable here, runs `python3` as before. docs/routing.md#how-a-routed-command-runs
here=${0%/*}
note=$here/.ctx-tree-python
py=
if [ -f "$note" ]; then read -r py < "$note" 2>/dev/null; fi
case $py in /*) [ -x "$py" ] || py= ;; *) py= ;; esac
if [ -z "$py" ]; then
  py=$(python3 -I -S -c 'import os,sys
if sys.version_info >= (3, 8): print(os.path.realpath(sys.executable))' </dev/null 2>/dev/null)
  case $py in
    /*) if [ -x "$py" ]; then
          (umask 077; printf '%s\n' "$py" > "$note.$$" && mv -f "$note.$$" "$note") 2>/dev/null
          rm -f "$note.$$" 2>/dev/null
        else py=python3; fi ;;
    *) py=python3 ;;
  esac
fi
exec "$py" -I -S "$here/ctx_tree_hook.py" "$@"
