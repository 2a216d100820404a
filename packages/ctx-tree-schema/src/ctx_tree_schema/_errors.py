"""The root of the schema package's exceptions."""


class SchemaError(Exception):
    """Base class of every error ``ctx_tree_schema`` raises."""
