"""Delimited text tables (CSV, TSV): the header line, its delimiter and its names, read as the
csv module reads them. Shared by the CSV log reader and the dataset reader."""

from __future__ import annotations

import csv
import io

SNIFF = 1 << 16  # characters of the table looked at to choose the delimiter


def header(text: str, candidates: str) -> tuple[list[str], str] | None:
    """(the names of the first non-blank line, stripped; its delimiter) or None when that line
    holds none of ``candidates``.

    A quoted name may hold the delimiter, a doubled quote or a line break. When the line holds
    more than one candidate, the delimiter is the one that splits the header (into two names or
    more) as wide as each of the next three rows; failing that, the commonest in the line."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    found = [d for d in sorted(candidates, key=first.count, reverse=True) if first.count(d)]
    if not found:
        return None
    if len(found) == 1 and '"' not in first:  # the common case: one delimiter, no quotes
        return [c.strip() for c in first.split(found[0])], found[0]
    table = text[text.index(first) :][:SNIFF]
    parsed = [_records(table, d, cut=len(text) > SNIFF) for d in found]
    fits = [
        i
        for i, recs in enumerate(parsed)
        if len(recs) > 1 and len(recs[0]) > 1 and {len(r) for r in recs[1:]} == {len(recs[0])}
    ]
    i = fits[0] if fits else 0
    return ([c.strip() for c in parsed[i][0]], found[i]) if parsed[i] else None


def header_lines(names: list[str]) -> int:
    """How many lines a header takes (a quoted name may hold line breaks)."""
    return 1 + sum(name.count("\n") for name in names)


def _records(table: str, delim: str, cut: bool) -> list[list[str]]:
    """The header and up to three rows of ``table`` (blank lines skipped). A record that may run
    past the end of a ``cut`` table, or that the csv module refuses, is left out."""
    out: list[list[str]] = []
    try:
        for record in csv.reader(io.StringIO(table), delimiter=delim):
            if record:
                out.append(record)
                if len(out) == 5:  # a fifth record read: the fourth is whole
                    return out[:4]
    except csv.Error:
        return out
    return out[:-1] if cut else out
