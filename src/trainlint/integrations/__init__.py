"""Callbacks that put the streaming guard inside training frameworks.

Each module imports its framework at import time, so import only the one you use:
``trainlint.integrations.hf``, ``.lightning``, ``.keras``. Plain loops use
:class:`trainlint.Guard` directly."""
