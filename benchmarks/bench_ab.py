"""The same `trainlint` command on two commits, side by side: how each speed change was measured.

    python benchmarks/bench_ab.py c1e8be8 -- doctor /tmp/bb/hf/trainer_state.json
    python benchmarks/bench_ab.py HEAD~1 --repeat 21 -- doctor --jobs 1 /tmp/fleet-subset

The base commit is checked out into a temporary git worktree (removed at the end) and both trees
run as ``python -m trainlint ARGS`` with their own ``src`` first on ``PYTHONPATH``, started like
the installed script (``OPENBLAS_NUM_THREADS=1`` unless set, bytecode compiled first). Runs are
interleaved (one round runs both once), and per tree the least CPU time (user + system) is kept:
on a shared machine the least disturbed run is the closest to the code's own cost.
"""

from __future__ import annotations

import argparse
import compileall
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_children

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], usage="%(prog)s BASE [--repeat N] -- ARGS...")
    ap.add_argument("base", help="the commit to compare the working tree with (any git revision)")
    ap.add_argument("--repeat", type=int, default=15, help="interleaved rounds (default 15)")
    opts = ap.parse_args(argv[:cut])
    args = argv[cut + 1 :]
    if not args:
        ap.error("give the trainlint arguments after --")
    with tempfile.TemporaryDirectory(prefix="trainlint-ab-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), opts.base], check=True)
        try:
            trees = {f"base {opts.base}": base / "src", "working tree": ROOT / "src"}
            for src in trees.values():
                compileall.compile_dir(str(src), quiet=1)
            env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            cmds = {
                name: ["env", f"PYTHONPATH={src}", sys.executable, "-m", "trainlint", *args]
                for name, src in trees.items()
            }
            best = best_children(cmds, opts.repeat, env)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    (a, ca), (b, cb) = best.items()
    print(f"trainlint {' '.join(args)}  (best of {opts.repeat} interleaved rounds, CPU s)")
    print(f"  {a:<28}{ca.cpu:8.4f}")
    print(f"  {b:<28}{cb.cpu:8.4f}   {1e3 * (cb.cpu - ca.cpu):+.1f} ms ({cb.cpu / ca.cpu - 1:+.1%})")


if __name__ == "__main__":
    main()
