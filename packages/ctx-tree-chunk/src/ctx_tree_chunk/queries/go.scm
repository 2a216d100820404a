; Go definitions.  Capture conventions: see ctx_tree_chunk/_code.py.
; Methods are named "Receiver.Method" (pointer and type parameters stripped).

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct

(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

(type_spec name: (type_identifier) @name) @definition.type

(type_alias name: (type_identifier) @name) @definition.type

(comment) @leading @doc

(import_declaration) @import
