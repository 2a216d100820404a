; TypeScript (and TSX) references.  Capture conventions: see ctx_tree_chunk/_refs.py.

(identifier) @reference @name

(type_identifier) @reference @name

(member_expression property: (property_identifier) @name) @reference

(nested_type_identifier name: (type_identifier) @name) @reference

(call_expression function: (_) @call)

(new_expression constructor: (_) @call)

(decorator (identifier) @call)

(decorator (call_expression function: (_) @call))

; names that are no reference
(function_declaration name: (identifier) @skip)
(generator_function_declaration name: (identifier) @skip)
(function_signature name: (identifier) @skip)
(class_declaration name: (type_identifier) @skip)
(abstract_class_declaration name: (type_identifier) @skip)
(interface_declaration name: (type_identifier) @skip)
(type_alias_declaration name: (type_identifier) @skip)
(enum_declaration name: (identifier) @skip)
(type_parameter name: (type_identifier) @skip)
(import_statement (_) @skip)
(import_clause (identifier) @skip)
(namespace_import (identifier) @skip)
(import_specifier (identifier) @skip)
(export_specifier (identifier) @skip)
(labeled_statement label: (statement_identifier) @skip)

; names bound in a function
(variable_declarator name: (identifier) @local)
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
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

(class_heritage (extends_clause value: (_) @inherits))
(class_heritage (implements_clause (_) @inherits))
(extends_type_clause (_) @inherits)
