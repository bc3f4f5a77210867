"""Whole-process `trainlint doctor` on a long console log, against a plain `grep -c loss`.

    python benchmarks/bench_console_doctor.py                # a 300,000-line step/loss log
    python benchmarks/bench_console_doctor.py --lines 30000  # a shorter one
    python benchmarks/bench_ab.py BASE -- doctor /tmp/trainlint-bench-console/train.log   # two commits

The log is of a common shape: a logging prefix, ``step N/M loss: V lr: V grad_norm: V``, and a
line of plain text every 50 steps (a checkpoint saved), as a training script's ``nohup.out`` has
it. doctor has 60 s an input (``options.timeout_per_input``) before it says NOT-CHECKED: the
lines per CPU-second say how long a log it judges. ``grep -c loss`` is the least a user would
otherwise run (it reads no value). Runs are interleaved (``--repeat`` rounds); per tool the least
CPU time (user + system) and the least wall time are kept.

Measured (5 December 2026, the shared 2-core machine under load; CPU seconds, whole processes):
the 306,000-line log (33 MB): doctor 24.2 s (12,600 lines a CPU-second), ``grep -c loss`` 0.002 s;
``bench_ab.py eb33785 --repeat 2`` on it: 20.31 s before the console pre-checks, 20.10 s after
(-1 %: its lines hold a counter and pairs, so the two regexes still run on each); on the corpus's
ti-sv-train-607 log (116,662 lines, 2.8 MB, mostly ``batch loss:0.18`` and TensorFlow INFO lines)
``bench_ab.py eb33785 --repeat 3``: 5.03 s before, 3.45 s after (-31.5 %).

Measured (6 December 2026, same machine under load; ``bench_ab.py BASE --repeat 3 -- doctor LOG``,
CPU seconds): round 12's glossary and glued-counter passes had made the general reader 1.6-2x slower;
95ae667 and d674ace restored it. The corpus's blpo-cleanrl-ppo-log-1315 (53k lines): ed67e4b 3.43 s,
after 1.69 s (-51 %), and 1365b6e (before round 12) 1.68 s against 1.63 s; aisl-ubev-train-out-1251
(32k lines, tqdm bars): ed67e4b 1.96 s, after 1.02 s (-48 %), and 1365b6e 1.04 s against 1.00 s.

Measured (6 December 2026, later; same machine, other jobs running; ``bench_ab.py 00066d9 --repeat 5``
and ``--repeat 3``, CPU seconds): the shapes rounds 21-26 added to the general reader cost about a tenth:
blpo-cleanrl-ppo-log-1315 1.60 s at 00066d9 against 1.80 s at cda6e02 (+12 %, about 12 % more regex
matches a line), aisl-ubev-train-out-1251 0.98 s against 1.09 s (+10 %).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_children

ROOT = Path(__file__).resolve().parents[1]


def make_log(path: Path, n: int) -> None:
    rng = random.Random(0)
    with open(path, "w") as fh:
        for i in range(1, n + 1):
            loss = 2.0 * math.exp(-i / (n / 5)) + 0.5 + rng.gauss(0, 0.02)
            fh.write(
                f"2026-01-05 02:{i // 3600 % 60:02d}:{i % 60:02d},123 - INFO - train.py:212 - "
                f"step {i}/{n} loss: {loss:.4f} lr: 3.0e-04 grad_norm: {0.5 + rng.random() * 0.1:.3f}\n"
            )
            if i % 50 == 0:
                fh.write(f"2026-01-05 02:00:00,124 - INFO - train.py:230 - saved checkpoint to ckpt/step_{i}.pt\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=300_000, help="step lines in the generated log")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    out = Path(tempfile.gettempdir()) / "trainlint-bench-console"
    out.mkdir(exist_ok=True)
    log = out / "train.log"
    make_log(log, args.lines)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OPENBLAS_NUM_THREADS": "1"}
    cmds = {"trainlint doctor": [sys.executable, "-m", "trainlint", "doctor", str(log)]}
    if shutil.which("grep"):
        cmds["grep -c loss"] = ["grep", "-c", "loss", str(log)]
    best = best_children(cmds, args.repeat, env)
    lines = log.read_bytes().count(b"\n")
    size = log.stat().st_size / 1e6
    ours = best["trainlint doctor"]
    print(f"{log} ({lines:,} lines, {size:.1f} MB)")
    for name, c in best.items():
        ratio = f"  trainlint / this {ours.cpu / c.cpu:6.1f}x" if c is not ours and c.cpu > 0 else ""
        print(
            f"{name:<18} cpu {c.cpu:7.3f}s  wall {c.wall:7.3f}s  {lines / ours.cpu if c is ours else lines / max(c.cpu, 1e-9):>12,.0f} lines/cpu-s  rc {c.rc}{ratio}"
        )


if __name__ == "__main__":
    main()
