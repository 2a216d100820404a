; Python definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(class_definition name: (identifier) @name) @definition.class

(function_definition name: (identifier) @name) @definition.function

(decorated_definition definition: (class_definition) @definition.class) @outer

(decorated_definition definition: (function_definition) @definition.function) @outer

(comment) @leading

; docstrings: a string that is the first statement of a body
(class_definition body: (block . (string) @doc)) @definition.class

(function_definition body: (block . (string) @doc)) @definition.function

[(import_statement) (import_from_statement) (future_import_statement)] @import
