"""``trainlint watch``: the line printed when a finding first appears in a followed log."""

from __future__ import annotations

from pathlib import Path

from ..verdict import Finding


def finding_line(path: Path | str, f: Finding) -> str:
    from .common import fmt_step

    at = f" step {fmt_step(f.step)}" if f.step is not None else ""
    return f"{f.severity.value:<4} {f.code} {f.name}{at}: {f.message}  [{path}]"
