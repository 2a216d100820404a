; JavaScript references.  Capture conventions: see ctx_tree_chunk/_refs.py.

(identifier) @reference @name


(member_expression property: (property_identifier) @name) @reference


(call_expression function: (_) @call)

(new_expression constructor: (_) @call)

(decorator (identifier) @call)

(decorator (call_expression function: (_) @call))

; names that are no reference
(function_declaration name: (identifier) @skip)
(class_declaration name: (identifier) @skip)
(class name: (identifier) @skip)
(method_definition name: (property_identifier) @skip)
(generator_function_declaration name: (identifier) @skip)
(import_statement (_) @skip)
(import_clause (identifier) @skip)
(namespace_import (identifier) @skip)
(import_specifier (identifier) @skip)
(export_specifier (identifier) @skip)
(labeled_statement label: (statement_identifier) @skip)

; names bound in a function
(variable_declarator name: (identifier) @local)
(arrow_function parameter: (identifier) @local)
(shorthand_property_identifier_pattern) @local
(pair_pattern value: (identifier) @local)
(array_pattern (identifier) @local)
(rest_pattern (identifier) @local)
(catch_clause parameter: (identifier) @local)
(for_in_statement left: (identifier) @local)

; imports
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier) @import.alias)))
  source: (string (string_fragment) @import.module))
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name .)))
  source: (string (string_fragment) @import.module))
(import_statement
  (import_clause (identifier) @import.alias)
  source: (string (string_fragment) @import.module)
  (#set! name "default"))
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.module))

(class_heritage (_) @inherits)
(formal_parameters (identifier) @local)
(assignment_pattern left: (identifier) @local)
