"""What may be read or shown: the path policy (the root, the denylist of secret files), commands
that print a secret file, and the private-key lines of grep output (docs/security.md).

Imports ``wire``, ``answers`` and ``errors``; imported by ``app`` and everything above.
"""
