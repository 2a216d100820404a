; C# definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(struct_declaration name: (identifier) @name) @definition.struct

(interface_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

(local_function_statement name: (identifier) @name) @definition.function

(namespace_declaration name: (_) @name) @definition.module

(file_scoped_namespace_declaration name: (_) @name) @definition.module

(comment) @leading @doc

(using_directive) @import
