"""Grep: ripgrep's ``rg`` and its output, the ``regex`` fallback for patterns ripgrep refuses,
line numbers for files with lone CRs, and excerpts of very long lines."""
