"""Shared fixtures: the real-log evidence folder (skipped when absent) and a CLI runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# ../shared/evidence beside the checkout (or beside the folder holding the worktrees), or
# $TRAINLINT_EVIDENCE.
_EVIDENCE_AT = [Path(os.environ["TRAINLINT_EVIDENCE"])] if os.environ.get("TRAINLINT_EVIDENCE") else []
_EVIDENCE_AT += [ROOT.parent / "shared" / "evidence", ROOT.parent.parent / "shared" / "evidence"]
EVIDENCE = next((p for p in _EVIDENCE_AT if p.is_dir()), _EVIDENCE_AT[0])

os.environ.setdefault("TRAINLINT_DEBUG", "1")  # rule bugs raise in tests instead of hiding

# Property tests explore new random examples on every local run; CI replays a fixed set so that a
# landing never depends on luck (a failure found locally is kept in .hypothesis/ and replayed).
try:
    from hypothesis import settings as _hsettings

    _hsettings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        _hsettings.load_profile("ci")
except ImportError:  # pragma: no cover - hypothesis is in the dev extra
    pass


@pytest.fixture
def evidence() -> Path:
    """../shared/evidence beside the checkout; skip cleanly when it is not there."""
    if not EVIDENCE.is_dir():
        pytest.skip(f"real-log evidence folder not present at {EVIDENCE}")
    return EVIDENCE


class CliResult:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli():
    """Run ``python -m trainlint ARGS`` from this checkout's src; returns code/out/err."""

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
        full_env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1", **(env or {})}
        full_env.pop("TRAINLINT_DEBUG", None)
        proc = subprocess.run(
            [sys.executable, "-m", "trainlint", *map(str, args)],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=full_env,
            timeout=300,
        )
        return CliResult(proc)

    return run
