"""``trainlint watch``: the line printed when a finding first appears in a followed log."""

from __future__ import annotations

from pathlib import Path

from ..verdict import Finding


def finding_line(path: Path | str, f: Finding) -> str:
    at = f" step {f.step:g}" if f.step is not None else ""
    return f"{f.severity.value:<4} {f.code} {f.name}{at}: {f.message}  [{path}]"
