"""``ctx_tree_bash``: run a shell command, store its whole output, answer a budgeted digest.

Modules: ``denylist`` (which commands are refused; standard library only), ``run`` (the
process: shell, process group, timeout), ``digest`` (which lines an answer shows), ``record``
(the ``tool_output`` node), ``tool`` (the handler and its answer).
"""
