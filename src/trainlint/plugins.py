"""The one plugin mechanism. Readers (``@reader``), inspectors (``@inspector``) and rules
(``@rule``) register themselves with a decorator when their module is imported. This module
imports the modules of a plugin package, by name and in one fixed order: module names sorted,
subpackages walked depth first.

Each registry then orders its plugins by its own declared key (a reader's or inspector's
``priority``, a rule's code). Ties keep this import order. The loaders import by name, so a
registry sits below the plugins that register with it (see docs/ARCHITECTURE.md)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Collection, Iterable


def import_plugins(package: str, skip: Collection[str] = ()) -> None:
    """Import every public module of ``package`` and its subpackages, except the names in ``skip``
    and in the package's ``NOT_PLUGINS`` (modules it declares register nothing: the code behind
    its plugins, imported by them when needed, not at every start)."""
    pkg = importlib.import_module(package)
    _import_all(list(pkg.__path__), pkg.__name__, {*skip, *getattr(pkg, "NOT_PLUGINS", ())})


def import_named(package: str, modules: Iterable[str]) -> None:
    """Import the named modules of ``package`` (a table of the plugins one job needs: the rules
    of one target, the readers sniffing reaches), in the order given."""
    for module in modules:
        importlib.import_module(f"{package}.{module}")


def _import_all(path: list[str], prefix: str, skip: Collection[str]) -> None:
    for mod in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if mod.name in skip or mod.name.startswith("_"):
            continue
        module = importlib.import_module(f"{prefix}.{mod.name}")
        if mod.ispkg:
            _import_all(list(module.__path__), module.__name__, skip)
