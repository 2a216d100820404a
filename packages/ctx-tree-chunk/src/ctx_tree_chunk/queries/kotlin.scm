; Kotlin definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(class_declaration "interface" (type_identifier) @name) @definition.interface

(class_declaration (type_identifier) @name) @definition.class

(object_declaration (type_identifier) @name) @definition.class

(function_declaration (simple_identifier) @name) @definition.function

[(line_comment) (multiline_comment)] @leading @doc

(import_header) @import
