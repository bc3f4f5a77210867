"""Time and peak memory of `trainlint doctor` on big logs, against trainproof when installed.

    python benchmarks/bench_doctor.py            # 200,000-entry trainer_state.json + 1,000,000-row JSONL
    python benchmarks/bench_doctor.py --quick    # a tenth of that

Every tool runs as its own subprocess on the same files in the same run; peak
memory is the child's maximum resident set size. Prints seconds, MB and the
ratio trainproof / trainlint (higher is better for trainlint).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def make_trainer_state(path: Path, n: int) -> None:
    rng = np.random.default_rng(0)
    loss = 0.9 + 2.0 * np.exp(-np.arange(n) / (n / 8)) + rng.normal(0, 0.03, n)
    hist = [{"epoch": round(i / n * 3, 5), "grad_norm": 0.5, "learning_rate": 1e-4,
             "loss": round(float(v), 5), "step": i + 1} for i, v in enumerate(loss)]
    path.write_text(json.dumps({"global_step": n, "max_steps": n, "logging_steps": 1,
                                "log_history": hist}, indent=2))


def make_jsonl(path: Path, n: int) -> None:
    rng = np.random.default_rng(1)
    loss = 0.9 + 2.0 * np.exp(-np.arange(n) / (n / 8)) + rng.normal(0, 0.03, n)
    with open(path, "w") as fh:
        for i, v in enumerate(loss):
            fh.write(f'{{"step": {i}, "loss": {v:.5f}, "lr": 0.0001, "grad_norm": 0.5}}\n')


def one(cmd: list[str]) -> tuple[float, float, int]:
    """Measure in a fresh interpreter so each child's peak is its own."""
    code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
            "p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
            "d=time.perf_counter()-t;"
            "print(d, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024, p.returncode)")
    out = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    scale = 10 if args.quick else 1
    tmp = Path(tempfile.mkdtemp(prefix="trainlint-bench-"))
    try:
        hf = tmp / "hf" / "trainer_state.json"
        hf.parent.mkdir()
        make_trainer_state(hf, 200_000 // scale)
        jl = tmp / "jl" / "metrics.jsonl"
        jl.parent.mkdir()
        make_jsonl(jl, 1_000_000 // scale)
        tools = {"trainlint": [sys.executable, "-m", "trainlint", "doctor"]}
        if shutil.which("trainproof"):
            tools["trainproof"] = [shutil.which("trainproof"), "doctor"]
        print(f"{'input':<34}{'tool':<12}{'seconds':>9}{'peak MB':>9}{'exit':>6}")
        for label, path in (("trainer_state.json 200k" if scale == 1 else "trainer_state.json 20k", hf),
                            ("JSONL 1M rows" if scale == 1 else "JSONL 100k rows", jl)):
            res = {}
            for tool, cmd in tools.items():
                res[tool] = one([*cmd, str(path)])
                dt, mb, rc = res[tool]
                print(f"{label + f' ({path.stat().st_size / 1e6:.0f} MB)':<34}{tool:<12}{dt:>9.2f}{mb:>9.0f}{rc:>6}")
            if "trainproof" in res:
                (a, am, _), (b, bm, _) = res["trainlint"], res["trainproof"]
                print(f"{'':<34}{'ratio':<12}{b / a:>8.1f}x{bm / am:>8.1f}x  (trainproof / trainlint)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
