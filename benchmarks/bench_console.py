"""Read speed of the console and Coqui readers, against what a user would otherwise run.

    python benchmarks/bench_console.py            # real Coqui log (if present) + synthetic logs
    python benchmarks/bench_console.py --quick    # smaller synthetic logs

Coqui logs are compared with trainproof's Coqui parser (when installed), in the same
process on the same text. Console logs are compared with ``grep``/``awk`` pulling the
loss column out (a lower bound: they neither parse the other metrics nor look for
crashes). Prints seconds, lines per second, and the ratio other / trainlint.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "src"))
from _timing import best_of  # noqa: E402

from trainlint.readers.console.reader import ConsoleReader  # noqa: E402
from trainlint.readers.coqui import CoquiReader  # noqa: E402

REAL_COQUI = ROOT.parent / "shared" / "evidence" / "xtts-coqui-diverged" / "trainer_0_log.txt"


def make_coqui(path: Path, copies: int) -> None:
    text = REAL_COQUI.read_text(encoding="utf-8") if REAL_COQUI.exists() else ""
    path.write_text(text * copies, encoding="utf-8")


def make_generic(path: Path, n: int) -> None:
    with open(path, "w") as fh:
        for i in range(n):
            fh.write(f"2026-01-05 02:00:00,123 INFO step {i} loss={2.0 - i * 1e-6:.4f} lr=3.0e-04 grad_norm=1.234\n")


def make_keras(path: Path, epochs: int, batches: int) -> None:
    bs = "\b" * 80
    with open(path, "w") as fh:
        for e in range(1, epochs + 1):
            fh.write(f"Epoch {e}/{epochs}\n")
            for b in range(1, batches):
                fh.write(f"\r{b}/{batches} ━━━━━━━━━━━━━━━━━━━━ 1s 5ms/step - accuracy: 0.5000 - loss: 0.6931{bs}")
            fh.write(
                f"\r{batches}/{batches} ━━━━━━━━━━━━━━━━━━━━ 1s 5ms/step - accuracy: 0.9 - loss: 0.3 "
                f"- val_accuracy: 0.9 - val_loss: 0.35\n"
            )


def row(name: str, lines: int, ours: float, other_name: str, other: float | None) -> None:
    ratio = f"{other / ours:6.2f}x" if other else "   n/a"
    other_s = f"{other:8.3f}s" if other else "     n/a"
    print(
        f"{name:<34} {lines:>9,} lines/redraws  trainlint {ours:8.3f}s ({lines / ours:>10,.0f} lines/s)  "
        f"{other_name:<10} {other_s}  ratio {ratio}"
    )


def bench_coqui(tmp: Path, copies: int) -> None:
    try:
        from trainproof.adapters import parse_coqui_trainer_log
    except ImportError:
        parse_coqui_trainer_log = None
    if not REAL_COQUI.exists():
        print("real Coqui log not present: skipped")
        return
    for name, path in (("coqui real (600 KB)", REAL_COQUI), (f"coqui x{copies}", tmp / "coqui_big.txt")):
        if not path.exists():
            make_coqui(path, copies)
        text = path.read_text(encoding="utf-8")
        ours = best_of(lambda path=path: CoquiReader().read(path))
        other = (
            best_of(lambda path=path: parse_coqui_trainer_log(path.read_text(encoding="utf-8")))
            if parse_coqui_trainer_log
            else None
        )
        row(name, text.count("\n"), ours, "trainproof", other)


def bench_console(tmp: Path, n: int) -> None:
    generic = tmp / "generic.log"
    make_generic(generic, n)
    keras = tmp / "keras.log"
    make_keras(keras, 20, n // 20)
    grep = shutil.which("grep")
    awk = shutil.which("awk")
    for name, path, cmd in (
        ("console generic step=N loss=X", generic, [awk, "-F", "loss=", '/loss=/{split($2,a," "); print a[1]}']),
        ("console keras (\\r and \\b redraws)", keras, [grep, "-a", "-c", "val_loss"]),
    ):
        ours = best_of(lambda path=path: ConsoleReader().read(path), 1)
        other = (
            best_of(lambda cmd=cmd, path=path: subprocess.run([*cmd, str(path)], capture_output=True, check=False), 3)
            if cmd[0]
            else None
        )
        raw = path.read_bytes()
        row(name, max(raw.count(b"\n"), raw.count(b"\r")), ours, Path(cmd[0]).name if cmd[0] else "-", other)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench_coqui(Path(tmp), 2 if args.quick else 10)
        bench_console(Path(tmp), 20_000 if args.quick else 200_000)


if __name__ == "__main__":
    main()
