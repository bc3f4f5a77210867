"""The calibration part of the real-log corpus, as the files present on this machine (committed
copies, or the cache scripts/realworld_fetch.py fills). Tests beside the corpus report use it to
check a property on many real logs; the held-out test part is never opened here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _report_module():
    if "realworld_report" not in sys.modules:
        spec = importlib.util.spec_from_file_location("realworld_report", ROOT / "scripts" / "realworld_report.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["realworld_report"] = mod  # dataclasses look their module up
        spec.loader.exec_module(mod)
    return sys.modules["realworld_report"]


def calibration_logs(max_bytes: int = 2_000_000) -> list[tuple[str, Path]]:
    """(entry id, path) of every calibration log here up to ``max_bytes``, in manifest order."""
    rep = _report_module()
    out = []
    for e in rep.entries():
        path = rep.locate(e) if rep.part_of(e["repo"]) == "calibration" else None
        if path is not None and path.is_file() and path.stat().st_size <= max_bytes:
            out.append((e["id"], path))
    return out
