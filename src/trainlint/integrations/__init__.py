"""Callbacks that put the streaming guard inside training frameworks and sweep engines.

Each module imports its framework at import time, so import only the one you use:
``trainlint.integrations.hf``, ``.lightning``, ``.keras``, ``.ray`` (a Ray Tune stopper),
``.optuna`` (an Optuna pruner); ``.ray_doctor`` runs ``doctor``'s per-input tasks on Ray (it
imports Ray only when it runs). Plain loops use :class:`trainlint.Guard` directly."""
