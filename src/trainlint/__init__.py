"""trainlint: a deterministic linter for machine-learning training runs."""

from __future__ import annotations

__version__ = "0.1.0"

from typing import Any

_LAZY = {
    "doctor": "api",
    "judge": "api",
    "read_run": "api",
    "Options": "api",
    "Run": "model",
    "Series": "model",
    "Finding": "verdict",
    "Report": "verdict",
    "Result": "verdict",
    "Severity": "verdict",
    "Settings": "config",
    "load_settings": "config",
    "REGISTRY": "registry",
    "rule": "registry",
    "Threshold": "registry",
    "Guard": "live.guard",
    "StopPolicy": "live.guard",
}


def __getattr__(name: str) -> Any:  # lazy public API keeps `import trainlint` cheap
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'trainlint' has no attribute {name!r}")
    import importlib

    if mod == "api":  # a Result from the judging functions renders as the page in Jupyter
        importlib.import_module(".report.html", __name__)
    return getattr(importlib.import_module(f".{mod}", __name__), name)


__all__ = ["__version__", *_LAZY]
