"""A digest of every Run the console reader makes of the committed zoo inputs and the corpus's
calibration logs: a change meant to make the reader faster must leave it identical.

    python scripts/console_digest.py > before.txt   # on the old code
    python scripts/console_digest.py > after.txt    # on the new code; then diff the two

The zoo inputs are what the console tests of tests/readers read (``test_console_*.py``, run
in this process with ``trainlint.api.read_run`` recorded: the ReadError or the Run's digest). The
corpus logs are those of tests/realworld/manifest.toml in the calibration part (by
scripts/realworld_report.py's ``part_of``; the test part is never opened) that are on this
machine. One line per input: its name and a sha256 of the Run's format, series names, steps,
values, roles, notes and events (or of the ReadError's message). A zoo row also names the first
12 hex digits of its input's sha256: a test that makes its input by running a framework
(``test_keras_fit_verbose_2_written_by_keras``: timings in the text) differs from run to run there.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "readers"))
sys.path.insert(0, str(ROOT / "scripts"))

from realworld_report import entries, locate, part_of  # noqa: E402

from trainlint.api import read_run  # noqa: E402
from trainlint.model import Run  # noqa: E402
from trainlint.readers import ReadError  # noqa: E402


def digest_run(run: Run, path: str) -> str:
    h = hashlib.sha256(run.format.encode())
    for name in sorted(run.series):
        s = run.series[name]
        h.update(name.encode())
        h.update(s.steps.tobytes())
        h.update(s.values.tobytes())
    h.update(repr(sorted(run.roles.items())).encode())
    h.update(repr([n.replace(path, "<path>") for n in run.notes]).encode())
    h.update(repr(run.events).encode())
    return h.hexdigest()


def digest(path: Path) -> str:
    try:
        return digest_run(read_run(path), str(path))
    except ReadError as exc:
        return hashlib.sha256(f"ReadError: {exc}".replace(str(path), "<path>").encode()).hexdigest()


class _Recorder:
    """A pytest plugin: every ``read_run`` a console test makes, digested under the test's id."""

    def __init__(self) -> None:
        self.rows: list[str] = []
        self.test = ""

    def pytest_runtest_setup(self, item) -> None:
        self.test = item.nodeid

    def wrap(self, real):
        def read_run(path, *args, **kwargs):
            try:
                run = real(path, *args, **kwargs)
            except ReadError as exc:
                self.rows.append(f"zoo {self.test} ReadError {str(exc).replace(str(path), '<path>')[:200]}")
                raise
            if not isinstance(path, (str, Path)):
                path = str(path)
            data = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12] if Path(path).is_file() else "-"
            self.rows.append(f"zoo {self.test} {Path(path).name} input={data} {digest_run(run, str(path))}")
            return run

        return read_run


def zoo_rows() -> list[str]:
    """Run the console tests of tests/readers with ``read_run`` recorded (their inputs are built
    in the test modules from the frameworks' format strings)."""
    import pytest

    import trainlint.api

    rec = _Recorder()
    trainlint.api.read_run = rec.wrap(trainlint.api.read_run)  # type: ignore[assignment]
    tests = sorted(str(p) for p in (ROOT / "tests" / "readers").glob("test_console_*.py"))
    code = pytest.main(["-q", "-p", "no:cacheprovider", "-x", *tests], plugins=[rec])
    rec.rows.append(f"zoo pytest exit {int(code)}")
    return rec.rows


def main() -> int:
    rows = zoo_rows()
    print("\n".join(rows), flush=True)
    for e in entries():
        if part_of(e["repo"]) != "calibration":
            continue
        path = locate(e)
        if path is not None:
            print("corpus", e["id"], digest(path), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
