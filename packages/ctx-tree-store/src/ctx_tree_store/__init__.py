"""ctx-tree package."""
