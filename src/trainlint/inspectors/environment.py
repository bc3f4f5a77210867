"""`trainlint env`: judge the machine and the training configuration before training starts.

Probing (this package) is kept apart from judging (``trainlint.rules.environment``): the
probes fill a :class:`facts.Subject`, the rules judge it, and each group of rules becomes
one report with its own verdict. Nothing here imports a training framework or initialises
CUDA; the user's entrypoint is only imported in a child process.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..environment.facts import Subject

if TYPE_CHECKING:
    from ..config import Settings
    from ..verdict import Report


def in_group(code: str, group: str) -> bool:
    """Whether rule ``code`` belongs to ``group`` (declared in its ``@rule(group=...)``)."""
    from ..registry import REGISTRY

    rule = REGISTRY.get(code)
    return rule is not None and rule.group == group


def group_report(
    group: str,
    source: str,
    subject: Subject,
    settings: Settings | None = None,
    unjudged: str | None = None,
    fmt: str | None = None,
) -> Report:
    """Run every environment rule on ``subject`` and keep only this group's findings and checks."""
    from ..engine import run_rules
    from ..verdict import Report

    report = Report(source=source, kind="environment", format=fmt or group, unjudged=unjudged)
    if unjudged is None:
        run_rules("environment", subject, report, settings)
    keep = [f for f in report.findings if in_group(f.code, group)]
    report.findings = keep
    ch = report.checks
    ch.ran = [c for c in ch.ran if in_group(c, group)]
    ch.stood_down = {c: w for c, w in ch.stood_down.items() if in_group(c, group)}
    ch.not_checked = {c: w for c, w in ch.not_checked.items() if in_group(c, group)}
    return report


def find_log_files(folders: Iterable[Path], limit: int = 2000) -> list[str]:
    """Files under ``folders`` (three levels deep) that a trainlint log reader recognises."""
    from ..readers import sniff

    found: list[str] = []
    seen = 0
    for root in folders:
        if not root.is_dir():
            continue
        base_depth = len(root.parts)
        for folder, dirs, files in os.walk(root):
            if len(Path(folder).parts) - base_depth >= 3:
                dirs[:] = []
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                seen += 1
                if seen > limit:
                    return found
                path = Path(folder) / name
                if path.suffix not in (".bin", ".safetensors", ".pt", ".pth", ".ckpt") and sniff(path):
                    found.append(str(path))
    return found
