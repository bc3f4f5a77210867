"""Bounded collectors: which rows a check concerns (first 20 line numbers and a count),
and duplicate groups found through 64-bit hashes kept in compact arrays."""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

FIRST = 20


class Rows:
    """Line numbers a check concerns: the first 20 (rows arrive in order) plus the total."""

    __slots__ = ("lines", "count")

    def __init__(self) -> None:
        self.lines: list[int] = []
        self.count = 0

    def add(self, line: int) -> None:
        self.count += 1
        if len(self.lines) < FIRST:
            self.lines.append(line)

    def __bool__(self) -> bool:
        return self.count > 0

    def evidence(self) -> dict[str, Any]:
        return {"rows": self.count, "lines": list(self.lines)}

    def where(self) -> str:
        shown = ", ".join(str(n) for n in self.lines)
        more = f" ... ({self.count} in all)" if self.count > len(self.lines) else ""
        return f"line{'s' if self.count > 1 else ''} {shown}{more}"

    @staticmethod
    def merged(parts: list[Rows]) -> Rows:
        out = Rows()
        out.count = sum(p.count for p in parts)
        out.lines = sorted(n for p in parts for n in p.lines)[:FIRST]
        return out


class Keyed:
    """A Rows per key, with a cap on how many distinct keys are tracked."""

    def __init__(self, cap: int = 256) -> None:
        self.by: dict[Any, Rows] = {}
        self.cap = cap
        self.overflow = 0

    def add(self, key: Any, line: int) -> None:
        rows = self.by.get(key)
        if rows is None:
            if len(self.by) >= self.cap:
                self.overflow += 1
                return
            rows = self.by[key] = Rows()
        rows.add(line)


class HashLog:
    """(line, exact hash, normalised hash) per row in typed arrays: 24 bytes a row."""

    def __init__(self) -> None:
        self.line = array("q")
        self.exact = array("q")
        self.norm = array("q")

    def add(self, line: int, exact: int, norm: int) -> None:
        self.line.append(line)
        self.exact.append(exact)
        self.norm.append(norm)

    def groups(self, which: str) -> list[np.ndarray]:
        """Groups of line numbers (ascending, groups ordered by first line) sharing a hash."""
        keys = np.frombuffer(getattr(self, which), dtype=np.int64)
        if len(keys) < 2:
            return []
        lines = np.frombuffer(self.line, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        k = keys[order]
        starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
        ends = np.concatenate((starts[1:], [len(k)]))
        multi = (ends - starts) > 1
        out = [lines[order[s:e]] for s, e in zip(starts[multi], ends[multi])]
        out.sort(key=lambda g: int(g[0]))
        return out

    def found_in(self, other: HashLog) -> np.ndarray:
        """Line numbers (ascending) of rows whose normalised hash also occurs in ``other``."""
        mine = np.frombuffer(self.norm, dtype=np.int64)
        theirs = np.frombuffer(other.norm, dtype=np.int64)
        if not len(mine) or not len(theirs):
            return np.zeros(0, dtype=np.int64)
        return np.frombuffer(self.line, dtype=np.int64)[np.isin(mine, theirs)]

    def near_groups(self) -> list[np.ndarray]:
        """Normalised-duplicate groups whose rows are not all exact copies of each other."""
        lines = np.frombuffer(self.line, dtype=np.int64)  # ascending: one pass, in order
        exact = np.frombuffer(self.exact, dtype=np.int64)
        out = []
        for g in self.groups("norm"):
            if len(np.unique(exact[np.searchsorted(lines, g)])) > 1:
                out.append(g)
        return out


def group_evidence(groups: list[np.ndarray]) -> dict[str, Any]:
    """The first 20 groups (each: first 20 lines and its size), extra copies, rows involved."""
    repeats = sorted(int(n) for g in groups for n in g[1:])
    return {
        "groups": len(groups),
        "extra_copies": len(repeats),
        "rows_involved": int(sum(len(g) for g in groups)),
        "first_groups": [{"lines": [int(n) for n in g[:FIRST]], "rows": int(len(g))} for g in groups[:FIRST]],
        "lines": repeats[:FIRST],
    }
