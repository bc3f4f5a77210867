"""Start-up time of the ``trainlint`` command, as a user sees it.

    python benchmarks/bench_startup.py              # best of 10
    python benchmarks/bench_startup.py --repeat 20

Measures, each as a fresh process started the way the installed ``trainlint`` script starts
(``from trainlint.cli import run``), with this checkout's sources and their bytecode compiled
once (as a user's install has it; PYTHONDONTWRITEBYTECODE is unset for the children):

- ``trainlint --version`` (goal <= 0.15 s),
- ``trainlint doctor`` on a 10-line JSON-lines log (goal <= 0.3 s),
- a bare ``python -c pass`` and ``python -c "import numpy"`` for scale, and the peers'
  ``--version`` and doctor on the same log when installed.

Wall times are the best of ``--repeat`` interleaved rounds (the least disturbed by other jobs).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import best_children
from bench_doctor import make_jsonl, user_env

SCRIPT = "import sys; from trainlint.cli import run; sys.argv[0] = 'trainlint'; sys.exit(run())"
GOALS = {"trainlint --version": 0.15, "trainlint doctor (10-line JSONL)": 0.3}


def commands(log: Path) -> dict[str, list[str]]:
    py = sys.executable
    out = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import numpy'": [py, "-c", "import numpy"],
        "trainlint --version": [py, "-c", SCRIPT, "--version"],
        "trainlint doctor (10-line JSONL)": [py, "-c", SCRIPT, "doctor", str(log)],
    }
    for peer, doctor in (("trainproof", "doctor"), ("runmedic", "diagnose")):
        exe = shutil.which(peer)
        if exe:
            out[f"{peer} --version"] = [exe, "--version"]
            out[f"{peer} {doctor} (10-line JSONL)"] = [exe, doctor, str(log)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    env = user_env()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "metrics.jsonl"
        make_jsonl(log, 10)
        res = best_children(commands(log), args.repeat, env)
    print(f"best of {args.repeat} interleaved rounds")
    print(f"{'command':<40}{'wall s':>8}{'CPU s':>8}{'peak MB':>9}  goal")
    for name, c in res.items():
        goal = GOALS.get(name)
        verdict = "" if goal is None else f"<= {goal:g} s: {'met' if c.wall <= goal else 'MISSED'}"
        print(f"{name:<40}{c.wall:>8.3f}{c.cpu:>8.3f}{c.rss_mb:>9.0f}  {verdict}")


if __name__ == "__main__":
    main()
