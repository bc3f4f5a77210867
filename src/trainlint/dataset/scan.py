"""The single streaming pass over a dataset. Per-check state is bounded: Rows
collectors (first 20 line numbers and a count), 64-bit hashes in typed arrays for
duplicates, capped key/type tables, and token counts in numpy arrays."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .rows import HashLog, Keyed, Rows
from .shape import Shape, detect, row_shape
from .sources import Bad, Source

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# fields that are empty by design in common formats (Alpaca's "input", an optional system prompt)
OPTIONAL_FIELDS = {"input", "system", "context", "history", "system_prompt", "tools", "id"}
MAX_LABELS = 100_000


TYPE_NAMES = {
    bool: "bool",
    int: "number",
    float: "number",
    str: "string",
    list: "list",
    dict: "object",
    type(None): "null",
}
MAX_SIGNATURES = 256


def _merge(groups: dict[Any, list[Rows]], cap: int) -> Keyed:
    out = Keyed(cap=cap)
    out.by = {k: Rows.merged(parts) for k, parts in groups.items()}
    return out


class Scan:
    """Everything the data rules read, filled in one pass by :meth:`add`."""

    def __init__(self, source: Source, forced_format: str | None = None, tokens: Any = None) -> None:
        self.source, self.forced, self.tokens = source, forced_format, tokens
        self.tokens_reason: str | None = None  # why there are no token statistics (set by the judge)
        self.max_length_from: str | None = None  # where the token limit came from
        self.shape: Shape | None = None
        self.rows = 0
        # "blank": blank or whitespace-only lines (not rows; reported with their numbers)
        self.bad: dict[str, Rows] = {"json": Rows(), "utf8": Rows(), "row": Rows(), "blank": Rows()}
        self.bad_detail: dict[str, list[str]] = {"json": [], "utf8": [], "row": [], "blank": []}
        self.control = Rows()
        self.control_chars: Counter[str] = Counter()
        self.empty = Keyed()
        self.hashes = HashLog()
        self.signatures: dict[tuple[Any, ...], Rows] = {}  # ((key, type), ...) per row shape
        self.signature_overflow = 0
        self.keysets, self.types = Keyed(), Keyed()
        self.problems: dict[str, Keyed] = {}
        self.problem_rows: dict[str, Rows] = {}
        self.labels: Counter[str] = Counter()
        self.label_overflow = False
        self.earlier: list[tuple[str, HashLog]] = []  # earlier splits/shards of the same dataset

    def run(self) -> Scan:
        for number, row, key in self.source.rows:
            if type(row) is Bad:
                self._bad(number, row)
            else:
                self.add(number, row, key)
        if self.tokens is not None:
            self.tokens.flush()
        self._schema()
        return self

    def _schema(self) -> None:
        """Key sets and key types, folded from the per-row signatures."""
        keysets: dict[Any, list[Rows]] = {}
        types: dict[Any, list[Rows]] = {}
        for sig, rows in self.signatures.items():
            keysets.setdefault(tuple(sorted(k for k, _ in sig)), []).append(rows)
            for k, t in sig:
                types.setdefault((k, TYPE_NAMES.get(t, t.__name__)), []).append(rows)
        self.keysets, self.types = _merge(keysets, 64), _merge(types, 256)
        self.keysets.overflow = self.signature_overflow

    def _bad(self, number: int, bad: Bad) -> None:
        self.bad[bad.kind].add(number)
        if len(self.bad_detail[bad.kind]) < 20:
            where = f" (file offset {bad.offset})" if bad.offset is not None else ""
            self.bad_detail[bad.kind].append(f"{number}: {bad.message}{where}")

    def add(self, number: int, obj: dict[str, Any], key: Any) -> None:
        self.rows += 1
        if self.shape is None:
            self.shape = detect(obj, self.forced)
        sig = tuple([(k, type(v)) for k, v in obj.items()])
        rows = self.signatures.get(sig)
        if rows is None and len(self.signatures) < MAX_SIGNATURES:
            rows = self.signatures[sig] = Rows()
        if rows is not None:
            rows.add(number)
        else:
            self.signature_overflow += 1
        strings: list[str] = []
        for k, v in obj.items():
            if type(v) is str:
                strings.append(v)
                if not v.strip() and k not in OPTIONAL_FIELDS:
                    self.empty.add(k, number)
            elif v is None and k not in OPTIONAL_FIELDS:
                self.empty.add(k, number)
            elif type(v) in (list, dict):
                _strings(v, strings, 0)
        blob = "\n".join(strings)
        found = CONTROL.search(blob)
        if found:
            self.control.add(number)
            self.control_chars[f"U+{ord(found.group()):04X}"] += 1
        exact = hash(key if key is not None else repr(obj))
        norm = " ".join(blob.lower().split())
        self.hashes.add(number, exact, hash(norm) if norm else exact)  # no text: nothing to normalise
        self._shape(number, obj)

    def _shape(self, number: int, obj: dict[str, Any]) -> None:
        rs = row_shape(self.shape, obj)
        seen = set()
        for check, detail in rs.problems:
            self.problems.setdefault(check, Keyed(cap=64)).add(detail, number)
            if check not in seen:
                seen.add(check)
                self.problem_rows.setdefault(check, Rows()).add(number)
        if rs.label is not None and not self.label_overflow:
            self.labels[str(rs.label)] += 1
            self.label_overflow = len(self.labels) > MAX_LABELS
        if self.tokens is not None:
            self.tokens.add(number, rs.segments)

    def problem(self, check: str) -> tuple[Rows, dict[Any, Rows]]:
        keyed = self.problems.get(check)
        return self.problem_rows.get(check, Rows()), (keyed.by if keyed else {})


def _strings(value: Any, out: list[str], depth: int) -> None:
    if depth > 8:
        return
    if type(value) is str:
        out.append(value)
    elif type(value) is list:
        for v in value:
            _strings(v, out, depth + 1)
    elif type(value) is dict:
        for v in value.values():
            _strings(v, out, depth + 1)
