; Swift definitions.  Capture conventions: see ctx_tree_chunk/_code.py.
; `extension Foo` is an impl named "extension Foo"; its functions are "Foo.name".

(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct

(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum

((class_declaration declaration_kind: "extension" name: (_) @name) @definition.impl
  (#set! prefix "extension "))

(class_declaration name: (_) @name) @definition.class

(protocol_declaration name: (_) @name) @definition.interface

(function_declaration name: (simple_identifier) @name) @definition.function

(init_declaration "init" @name) @definition.method

(protocol_function_declaration name: (_) @name) @definition.method

[(comment) (multiline_comment)] @leading @doc

(import_declaration) @import
