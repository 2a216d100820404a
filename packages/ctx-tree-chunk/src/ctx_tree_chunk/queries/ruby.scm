; Ruby definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(class name: (_) @name) @definition.class

(module name: (_) @name) @definition.module

(method name: (_) @name) @definition.method

(singleton_method name: (_) @name) @definition.method

(comment) @leading @doc

((call method: (identifier) @_require) @import
  (#match? @_require "^(require|require_relative|load)$"))
