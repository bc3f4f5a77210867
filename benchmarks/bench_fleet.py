"""Many runs on one machine: `trainlint doctor` over a tree of 1,000 runs of mixed formats.

    python benchmarks/bench_fleet.py               # 1,000 runs (generated once, kept in /tmp)
    python benchmarks/bench_fleet.py --runs 100    # a smaller tree
    python benchmarks/bench_fleet.py --no-peers    # trainlint only
    python benchmarks/bench_fleet.py --breakdown   # also CPU per logged step, read and judge, per format

The tree holds, in turn, Hugging Face ``trainer_state.json`` files, JSONL and CSV metric
logs, TensorBoard event files written by tensorboardX and plain console logs, each with
1,000-50,000 logged steps (log-uniform), about one run in ten diverging and one in twenty
turning NaN. It is generated once under /tmp (the event files take a minute or two: the
tensorboardX writer is slow) and reused while its stamp matches.

Then, in the same run, each as a whole process: `trainlint doctor --jobs N` (default: the
number of cores), `--jobs 1`, and trainproof / runmedic on the same root when installed.
Prints wall seconds, the peak resident memory of the largest process, how many reports
each tool produced, and the ratios. Goal (issue 19): trainlint <= 20 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("hf", "jsonl", "csv", "tfevents", "console")
STAMP = "fleet-v1"
GOAL_S = 20.0


def curve(i: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Loss, LR and grad norm of run ``i``: healthy, diverging (1 in 10) or NaN (1 in 20)."""
    rng = np.random.default_rng(i)
    t = np.arange(n, dtype=float)
    warm = max(1, n // 50)
    lr = 3e-4 * np.minimum(1.0, (t + 1) / warm) * (0.5 + 0.5 * np.cos(np.pi * t / n))
    loss = 0.8 + 2.5 * np.exp(-t / (n / 6)) + rng.normal(0, 0.02, n)
    grad = 1.0 + 0.3 * np.exp(-t / (n / 6)) + np.abs(rng.normal(0, 0.05, n))
    if i % 10 == 3:  # LR too high: the loss climbs away from its floor
        start = int(n * 0.4)
        loss[start:] += np.exp(np.linspace(0, 4, n - start)) - 1
        grad[start:] *= np.exp(np.linspace(0, 5, n - start))
    elif i % 20 == 7:  # the loss turns NaN
        loss[int(n * 0.7) :] = np.nan
        grad[int(n * 0.7) :] = np.inf
    return loss, lr, grad


def points(i: int) -> int:
    rng = np.random.default_rng(10_000 + i)
    return round(math.exp(rng.uniform(math.log(1_000), math.log(50_000))))


def _hf(folder: Path, loss: np.ndarray, lr: np.ndarray, grad: np.ndarray) -> None:
    n = len(loss)
    hist = [
        {
            "epoch": round(3 * s / n, 4),
            "grad_norm": float(g),
            "learning_rate": float(r),
            "loss": float(v),
            "step": s + 1,
        }
        for s, (v, r, g) in enumerate(zip(loss.round(5), lr, grad.round(4)))
    ]
    state = {
        "global_step": n,
        "max_steps": n,
        "num_train_epochs": 3,
        "logging_steps": 1,
        "log_history": hist,
    }
    (folder / "trainer_state.json").write_text(json.dumps(state))


def _jsonl(folder: Path, loss: np.ndarray, lr: np.ndarray, grad: np.ndarray) -> None:
    rows = (
        f'{{"step": {s}, "loss": {v:.5f}, "lr": {r:.4e}, "grad_norm": {g:.4f}}}'
        for s, (v, r, g) in enumerate(zip(loss, lr, grad))
    )
    (folder / "metrics.jsonl").write_text("\n".join(rows).replace("nan", "NaN").replace("inf", "Infinity") + "\n")


def _csv(folder: Path, loss: np.ndarray, lr: np.ndarray, grad: np.ndarray) -> None:
    rows = (f"{s},{v:.5f},{r:.4e},{g:.4f}" for s, (v, r, g) in enumerate(zip(loss, lr, grad)))
    (folder / "metrics.csv").write_text("step,train_loss,lr,grad_norm\n" + "\n".join(rows) + "\n")


def _console(folder: Path, loss: np.ndarray, lr: np.ndarray, grad: np.ndarray) -> None:
    t0 = 1_767_225_600
    lines = [time.strftime("%Y-%m-%d %H:%M:%S,000", time.gmtime(t0)) + " INFO starting run"]
    for s, (v, r, g) in enumerate(zip(loss, lr, grad)):
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t0 + 2 * s))
        lines.append(f"{stamp},123 INFO step {s + 1} loss={v:.4f} lr={r:.2e} grad_norm={g:.3f}")
    (folder / "train.log").write_text("\n".join(lines) + "\n")


def _tfevents(folder: Path, loss: np.ndarray, lr: np.ndarray, grad: np.ndarray) -> None:
    from tensorboardX import SummaryWriter
    from tensorboardX.proto.summary_pb2 import Summary

    writer = SummaryWriter(str(folder), flush_secs=3600)
    fw = writer._get_file_writer()  # one Summary per step holding all three scalars
    for s, (v, r, g) in enumerate(zip(loss.tolist(), lr.tolist(), grad.tolist())):
        values = [
            Summary.Value(tag="train/loss", simple_value=v),
            Summary.Value(tag="train/lr", simple_value=r),
            Summary.Value(tag="train/grad_norm", simple_value=g),
        ]
        fw.add_summary(Summary(value=values), s, walltime=1.7e9 + 2 * s)
    writer.close()


WRITERS = {
    "hf": _hf,
    "jsonl": _jsonl,
    "csv": _csv,
    "tfevents": _tfevents,
    "console": _console,
}


def make_run(args: tuple[Path, int]) -> int:
    root, i = args
    fmt = FORMATS[i % len(FORMATS)]
    folder = root / fmt / f"run-{i:04d}"
    folder.mkdir(parents=True, exist_ok=True)
    n = points(i)
    WRITERS[fmt](folder, *curve(i, n))
    return n


def make_tree(root: Path, runs: int) -> dict[str, float]:
    stamp = root / ".stamp"
    want = f"{STAMP} {runs}"
    if stamp.is_file() and stamp.read_text() == want:
        return json.loads((root / ".facts").read_text())
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    t = time.perf_counter()
    order = sorted(range(runs), key=lambda i: (FORMATS[i % len(FORMATS)] != "tfevents", i))  # slow ones first
    with multiprocessing.get_context("spawn").Pool(os.cpu_count() or 1) as pool:
        total = sum(pool.imap_unordered(make_run, [(root, i) for i in order], chunksize=4))
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    facts = {
        "runs": runs,
        "points": total,
        "bytes": size,
        "generate_s": time.perf_counter() - t,
    }
    (root / ".facts").write_text(json.dumps(facts))
    stamp.write_text(want)
    return facts


def measure(cmd: list[str], timeout: float) -> tuple[float, float, float, int, str]:
    """Wall seconds, CPU seconds of the whole process tree, peak RSS (MB) of its largest
    process, exit code, stdout."""
    code = (
        "import resource,subprocess,sys,time;t=time.perf_counter();"
        f"p=subprocess.run(sys.argv[1:],capture_output=True,text=True,timeout={timeout});"
        "d=time.perf_counter()-t;u=resource.getrusage(resource.RUSAGE_CHILDREN);"
        "sys.stderr.write(f'{d} {u.ru_utime+u.ru_stime} {u.ru_maxrss/1024} {p.returncode}\\n');"
        "sys.stdout.write(p.stdout)"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    try:
        p = subprocess.run(
            [sys.executable, "-c", code, *cmd],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout + 30,
        )
        dt, cpu, mb, rc = p.stderr.strip().splitlines()[-1].split()
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return math.inf, math.nan, math.nan, -1, ""
    return float(dt), float(cpu), float(mb), int(rc), p.stdout


def count_reports(tool: str, out: str) -> str:
    """How many runs a tool's JSON output judged (tells whether it scanned the tree)."""
    try:
        data = json.loads(out)
    except ValueError:
        return "?"
    nj = data.get("not_judged") if isinstance(data, dict) else None
    if isinstance(nj, dict) and "judged" in nj:  # trainproof: judged of found (it caps a tree)
        return f"{nj['judged']}/{nj.get('found', '?')}"
    for key in ("reports", "runs", "results", "files"):
        if isinstance(data, dict) and isinstance(data.get(key), list):
            return str(len(data[key]))
    return "1" if isinstance(data, dict) else str(len(data)) if isinstance(data, list) else "?"


def tools(root: Path, jobs: int, peers: bool) -> dict[str, list[str]]:
    out = {
        f"trainlint --jobs {jobs}": [
            sys.executable,
            "-m",
            "trainlint",
            "doctor",
            str(root),
            "--format",
            "json",
            "--jobs",
            str(jobs),
        ],
        "trainlint --jobs 1": [
            sys.executable,
            "-m",
            "trainlint",
            "doctor",
            str(root),
            "--format",
            "json",
            "--jobs",
            "1",
        ],
    }
    if peers and shutil.which("trainproof"):
        out["trainproof 0.22 doctor"] = [
            shutil.which("trainproof"),
            "doctor",
            str(root),
            "--json",
        ]
    if peers and shutil.which("runmedic"):
        out["runmedic 0.1 diagnose"] = [
            shutil.which("runmedic"),
            "diagnose",
            str(root),
            "--json",
        ]
    return out


def breakdown(root: Path, per_format: int = 40) -> None:
    """CPU microseconds per logged step, reading and judging, per format (in this process)."""
    sys.path.insert(0, str(ROOT / "src"))
    from trainlint import api
    from trainlint.inspectors.logs import judge_log
    from trainlint.readers import read_run

    options = api.Options()
    print(f"{'format':<10}{'read us/step':>14}{'judge us/step':>15}{'judge ms/run':>14}")
    for fmt in FORMATS:
        files = sorted(p for p in (root / fmt).glob("run-*/*") if p.is_file())[:per_format]
        read = judge = steps = 0.0
        for f in files:
            t0 = time.process_time()
            run = read_run(f)
            t1 = time.process_time()
            judge_log(run, options)
            judge += time.process_time() - t1
            read += t1 - t0
            steps += max(len(s.values) for s in run.series.values())
        print(f"{fmt:<10}{read / steps * 1e6:>14.2f}{judge / steps * 1e6:>15.2f}{judge / len(files) * 1e3:>14.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--root", type=Path, default=Path("/tmp/trainlint-fleet"))
    ap.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--timeout", type=float, default=600.0, help="per tool, seconds")
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also CPU per step, per format (where the time goes)",
    )
    args = ap.parse_args()
    root = args.root / str(args.runs)
    facts = make_tree(root, args.runs)
    if args.breakdown:
        breakdown(root)
    print(
        f"tree: {facts['runs']} runs ({', '.join(FORMATS)}), {facts['points'] / 1e6:.1f} M logged steps, "
        f"{facts['bytes'] / 1e6:.0f} MB, generated in {facts['generate_s']:.0f} s; {os.cpu_count()} cores"
    )
    print(f"{'tool':<26}{'wall s':>9}{'CPU s':>9}{'peak MB':>9}{'exit':>6}{'reports':>9}{'load':>7}")
    res, cpu = {}, {}
    for name, cmd in tools(root, args.jobs, not args.no_peers).items():
        load = os.getloadavg()[0]
        dt, cpu[name], mb, rc, out = measure(cmd, args.timeout)
        res[name] = dt
        shown = f"{dt:>9.2f}" if math.isfinite(dt) else f"{'>' + str(int(args.timeout)):>9}"
        print(
            f"{name:<26}{shown}{cpu[name]:>9.1f}{mb:>9.0f}{rc:>6}{count_reports(name, out):>9}{load:>7.1f}",
            flush=True,
        )
    main_tool = f"trainlint --jobs {args.jobs}"
    for name, dt in res.items():
        if name != main_tool:
            print(f"ratio {name} / {main_tool}: wall {dt / res[main_tool]:.1f}x, CPU {cpu[name] / cpu[main_tool]:.1f}x")
    best = res[main_tool]
    idle = cpu[main_tool] / args.jobs  # what the wall time would be with the cores to itself
    verdict = "met" if best <= GOAL_S else "MISSED"
    print(
        f"goal: <= {GOAL_S:.0f} s with the default jobs on {args.jobs} cores: {best:.1f} s wall ({verdict}); "
        f"CPU / cores = {idle:.1f} s (the wall time on an otherwise idle machine, at best)"
    )


if __name__ == "__main__":
    main()
