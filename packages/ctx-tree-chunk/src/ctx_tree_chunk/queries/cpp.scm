; C++ definitions.  Capture conventions: see ctx_tree_chunk/_code.py.
; Out-of-class definitions `void Foo::bar()` are named "Foo.bar".

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier)
                 (operator_name) (destructor_name)] @name)) @definition.function

(function_definition
  declarator: [(pointer_declarator) (reference_declarator)]
    (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier)
                   (operator_name)] @name)) @definition.function

(template_declaration (function_definition) @definition.function) @outer

(template_declaration (class_specifier) @definition.class) @outer

(template_declaration (struct_specifier) @definition.struct) @outer

(class_specifier name: (_) @name body: (_)) @definition.class

(struct_specifier name: (_) @name body: (_)) @definition.struct

(union_specifier name: (_) @name body: (_)) @definition.struct

(enum_specifier name: (_) @name body: (_)) @definition.enum

(namespace_definition name: (_) @name) @definition.module

(type_definition
  type: (struct_specifier body: (_))
  declarator: (type_identifier) @name) @definition.struct

(alias_declaration name: (type_identifier) @name) @definition.type

(comment) @leading @doc

(preproc_include) @import
