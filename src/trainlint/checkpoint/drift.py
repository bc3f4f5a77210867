"""Drift between two checkpoints: keys added and removed, shape and dtype changes."""

from __future__ import annotations

from typing import Any

from .model import Inspection

FLOAT = ("float", "bfloat")


def drift(a: Inspection, b: Inspection) -> Inspection:
    """An Inspection whose ``drift`` compares the tensor tables of ``a`` (before) and ``b`` (after)."""
    ta = {t.name: t for t in a.tensors}
    tb = {t.name: t for t in b.tensors}
    changed: list[dict[str, Any]] = []
    unchanged: list[str] = []
    compared = 0
    for name in sorted(ta.keys() & tb.keys()):
        x, y = ta[name], tb[name]
        if x.shape != y.shape or x.dtype != y.dtype:
            changed.append({"key": name, "before": {"shape": list(x.shape), "dtype": x.dtype},
                            "after": {"shape": list(y.shape), "dtype": y.dtype}})
        elif x.digest is not None and y.digest is not None and x.dtype.startswith(FLOAT):
            compared += 1
            if x.digest == y.digest:
                unchanged.append(name)
    out = Inspection(path=f"{a.path} -> {b.path}", format="drift")
    out.drift = {"before": a.path, "after": b.path, "keys_before": len(ta), "keys_after": len(tb),
                 "added": sorted(tb.keys() - ta.keys()), "removed": sorted(ta.keys() - tb.keys()),
                 "changed": changed, "values_compared": compared, "unchanged": unchanged}
    return out
