; Java references.  Capture conventions: see ctx_tree_chunk/_refs.py.

(identifier) @reference @name

(type_identifier) @reference @name

(method_invocation object: (_) @receiver name: (identifier) @name) @reference @call

(method_invocation !object name: (identifier) @call)

(field_access object: (_) @receiver field: (identifier) @name) @reference

(scoped_type_identifier (type_identifier) @name .) @reference

(object_creation_expression type: (_) @call)

(method_reference (_) @receiver . (identifier) @name .) @reference

; names that are no reference
(method_invocation object: (_) name: (identifier) @skip)
(field_access field: (identifier) @skip)
(class_declaration name: (identifier) @skip)
(record_declaration name: (identifier) @skip)
(interface_declaration name: (identifier) @skip)
(enum_declaration name: (identifier) @skip)
(annotation_type_declaration name: (identifier) @skip)
(method_declaration name: (identifier) @skip)
(constructor_declaration name: (identifier) @skip)
(enum_constant name: (identifier) @skip)
(package_declaration (_) @skip)
(import_declaration (_) @skip)
(scoped_identifier (identifier) @skip)
(type_parameter (type_identifier) @skip)
(labeled_statement (identifier) @skip)
(field_declaration declarator: (variable_declarator name: (identifier) @skip))
(element_value_pair key: (identifier) @skip)

; names bound in a function
(formal_parameter name: (identifier) @local)
(spread_parameter (variable_declarator name: (identifier) @local))
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local))
(enhanced_for_statement name: (identifier) @local)
(catch_formal_parameter name: (identifier) @local)
(lambda_expression parameters: (identifier) @local)
(inferred_parameters (identifier) @local)
(resource name: (identifier) @local)

; imports
((import_declaration (scoped_identifier) @import.module .) (#set! local "last"))
(import_declaration (scoped_identifier) @import.module (asterisk) @import.name)

(superclass (_) @inherits)
(super_interfaces (type_list (_) @inherits))
(extends_interfaces (type_list (_) @inherits))
