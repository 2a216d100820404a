; TypeScript definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(class_declaration name: (type_identifier) @name) @definition.class

(abstract_class_declaration name: (type_identifier) @name) @definition.class

(interface_declaration name: (type_identifier) @name) @definition.interface

(type_alias_declaration name: (type_identifier) @name) @definition.type

(enum_declaration name: (identifier) @name) @definition.enum

(internal_module name: (_) @name) @definition.module

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

((function_signature name: (identifier) @name) @definition.function
  (#set! overload "true"))

(method_definition name: (_) @name) @definition.method

((method_signature name: (_) @name) @definition.method
  (#set! overload "true"))

(abstract_method_signature name: (_) @name) @definition.method

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class))) @definition.class

(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)])) @definition.function

(comment) @leading @doc

(decorator) @leading

(import_statement) @import
