; Bash definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(function_definition name: (word) @name) @definition.function

(comment) @leading @doc
