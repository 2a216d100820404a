"""Files through the store: the file cache, other encodings, the project index, the directory
map and the store seen as ``ctx_tree_compose``'s graph source."""
