; Go references.  Capture conventions: see ctx_tree_chunk/_refs.py.

(identifier) @reference @name

(type_identifier) @reference @name

(selector_expression field: (field_identifier) @name) @reference

(qualified_type name: (type_identifier) @name) @reference

(call_expression function: (_) @call)

(composite_literal type: (_) @call)

; names that are no reference
(function_declaration name: (identifier) @skip)
(type_spec name: (type_identifier) @skip)
(type_alias name: (type_identifier) @skip)
(qualified_type name: (type_identifier) @skip)
(const_spec name: (identifier) @skip)
(keyed_element . (literal_element (identifier) @skip))
(labeled_statement label: (label_name) @skip)
(type_parameter_declaration name: (identifier) @skip)

; names bound in a function
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
(range_clause left: (expression_list (identifier) @local))
(type_switch_statement alias: (expression_list (identifier) @local))

; imports
(import_spec name: (package_identifier) @import.alias path: (interpreted_string_literal) @import.module)
(import_spec !name path: (interpreted_string_literal) @import.module)

(type_spec type: (struct_type (field_declaration_list (field_declaration !name type: (_) @inherits))))
(type_spec type: (interface_type (type_elem (_) @inherits)))
