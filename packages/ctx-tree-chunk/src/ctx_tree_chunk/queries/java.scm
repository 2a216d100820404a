; Java definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface

(annotation_type_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

(compact_constructor_declaration name: (identifier) @name) @definition.method

[(line_comment) (block_comment)] @leading @doc

(import_declaration) @import
