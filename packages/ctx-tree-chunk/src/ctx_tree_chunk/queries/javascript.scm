; JavaScript definitions.  Capture conventions: see ctx_tree_chunk/_code.py.

(class_declaration name: (identifier) @name) @definition.class

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(method_definition name: (_) @name) @definition.method

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

((lexical_declaration
   (variable_declarator
     value: (call_expression function: (identifier) @_require))) @import
  (#eq? @_require "require"))
