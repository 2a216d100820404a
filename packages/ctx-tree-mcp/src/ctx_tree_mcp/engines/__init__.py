"""What the tools run on, one sub-package per engine.

- ``grep``: ripgrep, the ``regex`` fallback, line ends and long-line excerpts;
- ``search``: semantic and hybrid retrieval, fusion, symbol ranking, long queries;
- ``files``: the file cache over the store, encodings, the project index, the directory map
  and the store as compose's graph source;
- ``shell``: running a command, its digest, its record, the host's sandbox, the reaper.

The parts of ``App`` that more than one engine names are in ``parts``.

Imports ``app``, ``policy``, ``wire``, ``answers``, ``errors`` and ``ending``; imported by
``capture``, ``tools``, ``serve`` and ``cli``.
"""
