"""Drift between two checkpoints: keys added and removed (after a prefix every key gained or
lost, such as ``module.``), shape and dtype changes, and how much each shared tensor moved."""

from __future__ import annotations

import os
from typing import Any

from ..safeio import open_regular
from .model import Inspection, TensorInfo

FLOAT = ("float", "bfloat")
SHOWN_CHANGES = 200  # largest relative changes kept in the drift facts


def common_prefix(names: set[str]) -> str:
    """The dotted prefix every name shares (``"model."``), whole components only; "" if none."""
    common: list[str] | None = None
    for name in names:
        parts = name.split(".")[:-1]
        if common is None:
            common = parts
        else:
            n = 0
            while n < min(len(common), len(parts)) and common[n] == parts[n]:
                n += 1
            common = common[:n]
        if not common:
            return ""
    return ".".join(common) + "." if common else ""


def match_keys(ka: set[str], kb: set[str]) -> tuple[dict[str, str], dict[str, str] | None]:
    """(name before -> name after for the shared tensors, the prefix change or None). A prefix
    that every key of one side has and the other lacks (``module.``, ``model.``) is set aside
    when that matches more keys than the names as they are."""
    direct = {k: k for k in ka & kb}
    pa, pb = common_prefix(ka), common_prefix(kb)
    if pa == pb:
        return direct, None
    if pa.endswith(pb):
        before, after = pa[: len(pa) - len(pb)], ""
    elif pb.endswith(pa):
        before, after = "", pb[: len(pb) - len(pa)]
    else:
        before, after = pa, pb
    sa = {k[len(before) :]: k for k in ka}
    sb = {k[len(after) :]: k for k in kb}
    pairs = {sa[k]: sb[k] for k in sa.keys() & sb.keys()}
    if len(pairs) > len(direct):
        return pairs, {"before": before, "after": after}
    return direct, None


def drift(a: Inspection, b: Inspection) -> Inspection:
    """An Inspection whose ``drift`` compares the tensor tables of ``a`` (before) and ``b`` (after)."""
    ta = {t.name: t for t in a.tensors}
    tb = {t.name: t for t in b.tensors}
    pairs, prefix = match_keys(set(ta), set(tb))
    changed: list[dict[str, Any]] = []
    unchanged: list[str] = []
    moved: list[tuple[TensorInfo, TensorInfo]] = []
    compared = 0
    for name in sorted(pairs):
        x, y = ta[name], tb[pairs[name]]
        if x.shape != y.shape or x.dtype != y.dtype:
            changed.append(
                {
                    "key": name,
                    "before": {"shape": list(x.shape), "dtype": x.dtype},
                    "after": {"shape": list(y.shape), "dtype": y.dtype},
                }
            )
        elif x.digest is not None and y.digest is not None and x.dtype.startswith(FLOAT):
            compared += 1
            if x.digest == y.digest:
                unchanged.append(name)
            else:
                moved.append((x, y))
    out = Inspection(path=f"{a.path} -> {b.path}", format="drift")
    skipped = a.meta.get("digest_skipped") or b.meta.get("digest_skipped")
    if skipped:
        out.meta["digest_skipped"] = skipped
    out.drift = {
        "before": a.path,
        "after": b.path,
        "keys_before": len(ta),
        "keys_after": len(tb),
        "added": sorted(set(tb) - set(pairs.values())),
        "removed": sorted(set(ta) - set(pairs)),
        "prefix": prefix,
        "changed": changed,
        "values_compared": compared,
        "unchanged": unchanged,
        "relative_change": relative_changes(a, b, moved, len(unchanged)),
    }
    return out


def relative_changes(
    a: Inspection, b: Inspection, moved: list[tuple[TensorInfo, TensorInfo]], unchanged: int
) -> dict[str, Any] | None:
    """Relative L2 change ``|after - before| / |before|`` of each tensor whose bytes changed,
    largest first, read from the stored bytes (no unpickling); None when none could be read."""
    from .values import relative_l2

    if not moved and not unchanged:
        return None
    rows: list[dict[str, Any]] = []
    with _Buffers() as bufs:
        for x, y in moved:
            ba, bb = bufs.get(_file_of(a, x)), bufs.get(_file_of(b, y))
            got = relative_l2(ba, x, bb, y) if ba is not None and bb is not None else None
            if got is not None:
                rows.append({"key": x.name, "relative_l2": got[0], "norm_before": got[1]})
    if not rows and not unchanged:
        return None
    # largest first; a NaN (a tensor that holds NaN) ahead of all
    rows.sort(key=lambda r: -r["relative_l2"] if r["relative_l2"] == r["relative_l2"] else float("-inf"))
    values = sorted([r["relative_l2"] for r in rows] + [0.0] * unchanged)
    return {
        "tensors": len(rows) + unchanged,
        "unreadable": len(moved) - len(rows),
        "median": values[len(values) // 2] if values else None,
        "largest": rows[:SHOWN_CHANGES],
    }


def _file_of(insp: Inspection, t: TensorInfo) -> str:
    if t.file:  # a shard named by an index, relative to the index's folder
        return os.path.join(os.path.dirname(insp.path), t.file)
    return insp.path


class _Buffers:
    """Read-only memory maps of the files tensors live in, opened once, closed together."""

    def __init__(self) -> None:
        self.maps: dict[str, Any] = {}
        self.files: list[Any] = []

    def __enter__(self) -> _Buffers:
        return self

    def get(self, path: str) -> Any:
        import mmap

        if path not in self.maps:
            try:
                fh = open_regular(path)  # closed in __exit__
                self.files.append(fh)
                self.maps[path] = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                self.maps[path] = None
        return self.maps[path]

    def __exit__(self, *exc: object) -> None:
        for m in self.maps.values():
            if m is not None:
                m.close()
        for fh in self.files:
            fh.close()
