"""Rules. Every module here registers its rules with :func:`trainlint.registry.rule`;
the registry imports them all. Modules starting with ``_`` are helpers."""
