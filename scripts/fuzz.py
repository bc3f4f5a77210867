"""Long fuzzing runs of trainlint's readers and inspectors (targets: tests/fuzz_targets.py).

    python scripts/fuzz.py --minutes 30                    # every target, 30 minutes each
    python scripts/fuzz.py --minutes 5 --target tfevents   # one target
    python scripts/fuzz.py --engine atheris ...            # coverage-guided (pip install atheris)

The hypothesis engine draws near-valid inputs and mutates them, example after example, until the
time is up; the atheris engine mutates bytes of the target's main file from a seed corpus of
valid inputs. Each run prints one JSON line per target: inputs tried, seconds, and the failure
(with the input saved under --out) if any. Run it niced on a shared machine:
``nice -n 19 python scripts/fuzz.py ...``. Memory is capped with RLIMIT_AS (--memory-gb).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]


def _hypothesis(name: str, seconds: float, out: Path) -> dict:
    """Batches of fresh random examples until the time is up (no shrinking-time surprises)."""
    from fuzz_targets import TARGETS, check_files
    from hypothesis import HealthCheck, given, settings

    count = [0]

    @settings(
        max_examples=100,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(TARGETS[name].strategy())
    def run(files: dict[str, bytes]) -> None:
        count[0] += 1
        try:
            check_files(files)
        except Exception:
            _save(out, name, files)
            raise

    row: dict = {"target": name, "engine": "hypothesis"}
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        try:
            run()
        except Exception as exc:  # noqa: BLE001 - reported
            row["failure"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()[-2000:]
            break
    row.update(inputs=count[0], seconds=round(time.monotonic() - start, 1))
    return row


def _save(out: Path, name: str, files: dict[str, bytes]) -> None:
    """The failing input, in one folder per target: each smaller example hypothesis finds while
    shrinking replaces the last, so what stays is the minimal one."""
    import shutil

    folder = out / f"{name}-failing"
    shutil.rmtree(folder, ignore_errors=True)
    for rel, data in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def _atheris_child(name: str, seconds: float, out: Path) -> None:
    """Runs inside a child process: libFuzzer owns the process and exits when done."""
    import atheris

    with atheris.instrument_imports():  # coverage of trainlint itself guides the mutation
        import fuzz_targets

        from trainlint import api, discover, readers

        readers.load_readers()
        discover.load_inspectors()
        del api

    fn = fuzz_targets.bytes_target(name)

    def one(data: bytes) -> None:
        fn(data)

    corpus = out / f"corpus-{name}"
    corpus.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(fuzz_targets.seed(name)):
        (corpus / f"seed{i}").write_bytes(data)
    atheris.Setup(
        [
            sys.argv[0],
            f"-max_total_time={int(seconds)}",
            "-timeout=60",
            "-rss_limit_mb=3000",
            f"-artifact_prefix={out}/{name}-",
            "-print_final_stats=1",
            str(corpus),
        ],
        one,
    )
    atheris.Fuzz()


def _atheris(name: str, seconds: float, out: Path) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--atheris-child",
        name,
        "--minutes",
        str(seconds / 60),
        "--out",
        str(out),
    ]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=seconds + 600)
    row: dict = {
        "target": name,
        "engine": "atheris",
        "seconds": round(time.monotonic() - start, 1),
    }
    for line in proc.stderr.splitlines():  # libFuzzer's final stats
        if line.startswith("stat::number_of_executed_units:"):
            row["inputs"] = int(line.split(":")[-1])
        if line.startswith("stat::peak_rss_mb:"):
            row["peak_rss_mb"] = int(line.split(":")[-1])
    if proc.returncode != 0:
        row["failure"] = proc.stderr[-2000:]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1.0, help="per target")
    ap.add_argument("--target", action="append", help="a target name (default: all); repeatable")
    ap.add_argument("--engine", choices=["hypothesis", "atheris"], default="hypothesis")
    ap.add_argument(
        "--out",
        type=Path,
        default=Path("fuzz-out"),
        help="failing inputs (and atheris corpora)",
    )
    ap.add_argument(
        "--memory-gb",
        type=float,
        default=4.0,
        help="address-space limit of this process",
    )
    ap.add_argument("--atheris-child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("TRAINLINT_DEBUG", "1")  # reader bugs raise instead of becoming reports
    limit = int(args.memory_gb * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    args.out.mkdir(parents=True, exist_ok=True)
    if args.atheris_child:
        _atheris_child(args.atheris_child, args.minutes * 60, args.out)
        return 0
    from fuzz_targets import TARGETS

    names = args.target or sorted(TARGETS)
    failed = 0
    for name in names:
        run = _atheris if args.engine == "atheris" else _hypothesis
        row = run(name, args.minutes * 60, args.out)
        failed += "failure" in row
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
