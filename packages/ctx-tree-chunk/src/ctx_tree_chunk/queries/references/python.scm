; Python references.  Capture conventions: see ctx_tree_chunk/_refs.py.

(identifier) @reference @name

(attribute attribute: (identifier) @name) @reference

(call function: (_) @call)

(decorator (identifier) @call)

; names that are no reference
(attribute attribute: (identifier) @skip)
(keyword_argument name: (identifier) @skip)
(function_definition name: (identifier) @skip)
(class_definition name: (identifier) @skip)
(import_statement (_) @skip)
(import_from_statement (_) @skip)
(aliased_import (_) @skip)
(dotted_name (identifier) @skip)
(global_statement (identifier) @skip)
(nonlocal_statement (identifier) @skip)

; names bound in a function
(parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(default_parameter name: (identifier) @local)
(typed_parameter (identifier) @local)
(typed_default_parameter name: (identifier) @local)
(list_splat_pattern (identifier) @local)
(dictionary_splat_pattern (identifier) @local)
(assignment left: (identifier) @local)
(augmented_assignment left: (identifier) @local)
(assignment left: (pattern_list (identifier) @local))
(assignment left: (tuple_pattern (identifier) @local))
(for_statement left: (identifier) @local)
(for_statement left: (pattern_list (identifier) @local))
(for_statement left: (tuple_pattern (identifier) @local))
(for_in_clause left: (identifier) @local)
(for_in_clause left: (pattern_list (identifier) @local))
(for_in_clause left: (tuple_pattern (identifier) @local))
(as_pattern_target (identifier) @local)
(named_expression name: (identifier) @local)

; imports
(import_statement name: (dotted_name) @import.module)
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.module name: (dotted_name) @import.name)
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.module (wildcard_import) @import.name)

(class_definition superclasses: (argument_list [(identifier) (attribute)] @inherits))
