; Rust definitions.  Capture conventions: see ctx_tree_chunk/_code.py.
; `impl Trait for Foo` is named "impl Trait for Foo"; functions inside it are "Foo.name".

(function_item name: (identifier) @name) @definition.function

(function_signature_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct

(union_item name: (type_identifier) @name) @definition.struct

(enum_item name: (type_identifier) @name) @definition.enum

(trait_item name: (type_identifier) @name) @definition.trait

(impl_item trait: (_) @trait type: (_) @name) @definition.impl

(impl_item type: (_) @name) @definition.impl

(mod_item name: (identifier) @name) @definition.module

(macro_definition name: (identifier) @name) @definition.macro

(type_item name: (type_identifier) @name) @definition.type

(attribute_item) @leading

; doc comments are `///` and `/** */` (outer docs); `//!` and `/*! */` document the enclosing item
[(line_comment outer: (_)) (block_comment outer: (_))] @leading @doc

[(line_comment !outer) (block_comment !outer)] @leading

[(use_declaration) (extern_crate_declaration)] @import
