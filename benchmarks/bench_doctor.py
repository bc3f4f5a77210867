"""Whole-process `trainlint doctor` on big logs, against the tools a user would otherwise run.

    python benchmarks/bench_doctor.py              # every row of the speed table
    python benchmarks/bench_doctor.py --quick      # a tenth of the sizes
    python benchmarks/bench_doctor.py --only hf    # one row: hf, jsonl, tfevents, tbx10 or torch10
    python benchmarks/bench_doctor.py --markdown   # also print the README table

Rows (each tool a fresh process on the same file, in the same run):

- a 200,000-entry trainer_state.json: trainlint against `trainproof doctor`;
- a 1,000,000-row JSON-lines log: trainlint against `trainproof doctor`;
- 1,000,000-scalar TensorBoard event files, every tag written at every step with
  ``SummaryWriter.add_scalar`` (both CRCs checked): ``tfevents``, tensorboardX with 4 tags;
  ``tbx10``, tensorboardX with 10 tags (the layout of issue 28); ``torch10``, torch's
  ``torch.utils.tensorboard`` with 10 tags. trainlint against tensorboard's EventAccumulator
  (loading every scalar) and `runmedic diagnose`.

Peers run when installed (`pip install trainproof==0.22.0 runmedic==0.1.1 tensorboard tensorboardX`).
For the two JSON rows each tool also runs on a 10-entry file of the same format, and a second
ratio takes each tool's start-up (that run) off both sides: the work on the input alone.
Runs are interleaved, ``--repeat`` rounds; per tool the least CPU time (user + system, of that
child alone), the least wall time and the largest peak RSS are kept. Ratios are peer / trainlint
(higher is better for trainlint), on CPU time: on a shared machine the wall clock also measures
the other jobs. Each event file takes minutes to write and is kept in ``bench-out/``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import Child, best_children

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench-out"
GOALS = {
    "hf": {"trainproof": 5.0},
    "jsonl": {"trainproof": 10.0},
    "tfevents": {"EventAccumulator": 20.0, "runmedic": 5.0},
    "tbx10": {"EventAccumulator": 20.0, "runmedic": 5.0},
    "torch10": {"EventAccumulator": 20.0, "runmedic": 5.0},
}
# the event-file rows: (tags, writer, label)
EVENT_ROWS = {
    "tfevents": (4, "tensorboardX", "TensorBoard (tensorboardX, 4 tags)"),
    "tbx10": (10, "tensorboardX", "TensorBoard (tensorboardX, 10 tags)"),
    "torch10": (10, "torch", "TensorBoard (torch SummaryWriter, 10 tags)"),
}
ROWS = ("hf", "jsonl", *EVENT_ROWS)
MAX_MB = {"hf": 100, "jsonl": 150}
EA_CODE = (
    "import sys\nfrom tensorboard.backend.event_processing import event_accumulator as ea\n"
    "acc = ea.EventAccumulator(sys.argv[1], size_guidance={ea.SCALARS: 0, ea.TENSORS: 0})\n"
    "acc.Reload()\nprint(sum(len(acc.Scalars(t)) for t in acc.Tags()['scalars']))\n"
)


def make_trainer_state(path: Path, n: int) -> None:
    rng = np.random.default_rng(0)
    loss = 0.9 + 2.0 * np.exp(-np.arange(n) / (n / 8)) + rng.normal(0, 0.03, n)
    hist = [
        {
            "epoch": round(i / n * 3, 5),
            "grad_norm": 0.5,
            "learning_rate": 1e-4,
            "loss": round(float(v), 5),
            "step": i + 1,
        }
        for i, v in enumerate(loss)
    ]
    path.write_text(
        json.dumps(
            {"global_step": n, "max_steps": n, "logging_steps": 1, "log_history": hist},
            indent=2,
        )
    )


def make_jsonl(path: Path, n: int) -> None:
    rng = np.random.default_rng(1)
    loss = 0.9 + 2.0 * np.exp(-np.arange(n) / (n / 8)) + rng.normal(0, 0.03, n)
    with open(path, "w") as fh:
        fh.writelines(f'{{"step": {i}, "loss": {v:.5f}, "lr": 0.0001, "grad_norm": 0.5}}\n' for i, v in enumerate(loss))


TAGS_10 = (
    "train/loss",
    "train/learning_rate",
    "train/grad_norm",
    "train/epoch",
    "train/tokens_per_second",
    "train/samples_per_second",
    "train/step_time",
    "train/weight_norm",
    "train/loss_scale",
    "train/gpu_memory_gb",
)


def _scalar_values(i: int, n_steps: int, rng: random.Random, tags: int) -> tuple[float, ...]:
    """One step's values of the first ``tags`` tags above (the first four as the 4-tag row
    has always written them, so its file does not change)."""
    first = (
        2.0 * math.exp(-i / (n_steps / 5)) + 0.5 + rng.gauss(0, 0.02),
        1e-4,
        0.5 + rng.random() * 0.1,
        i / (n_steps / 10),
    )
    if tags <= 4:
        return first[:tags]
    rest = (
        12_000.0 + rng.gauss(0, 150),
        48.0 + rng.gauss(0, 0.5),
        0.25 + rng.random() * 0.01,
        310.0 + i * 1e-4,
        65536.0,
        61.5 + rng.random(),
    )
    return (first + rest)[:tags]


def make_tfevents(n: int, tags: int = 4, writer: str = "tensorboardX") -> Path | None:
    """``n`` scalars (``tags`` tags, each written at every step with ``add_scalar``) written by
    ``writer``'s SummaryWriter (tensorboardX or torch), cached in bench-out/."""
    name = "tensorboardx" if writer == "tensorboardX" else "torch"
    folder = CACHE / (f"tfevents-{name}-{n}" if tags == 4 else f"tfevents-{name}-{tags}tags-{n}")
    done = folder / "done"
    if done.exists():
        return next(folder.glob("events.out.tfevents.*"))
    try:
        if writer == "tensorboardX":
            from tensorboardX import SummaryWriter
        else:
            from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    shutil.rmtree(folder, ignore_errors=True)
    rng = random.Random(0)
    print(f"writing {n:,} scalars ({tags} tags) with {writer} into {folder} (once) ...", flush=True)
    w = SummaryWriter(str(folder), flush_secs=3600, max_queue=100_000)
    n_steps = n // tags
    for i in range(n_steps):
        for tag, value in zip(TAGS_10[:tags], _scalar_values(i, n_steps, rng, tags)):
            w.add_scalar(tag, value, i)
    w.close()
    done.write_text("ok")
    return next(folder.glob("events.out.tfevents.*"))


def peer_command(name: str) -> str | None:
    """A peer's console script: on PATH, or next to this interpreter (a virtual environment
    whose bin/ is not on PATH, as when the benchmark is run as ``.venv/bin/python ...``)."""
    here = Path(sys.executable).parent / name
    return shutil.which(name) or (str(here) if here.is_file() else None)


def tools(row: str, path: Path, small: Path | None = None) -> dict[str, list[str]]:
    """Each tool's command on ``path``; with ``small`` (a 10-entry file of the same format),
    the same commands on it too, as "<tool> (start-up)"."""
    out = {"trainlint": [sys.executable, "-m", "trainlint", "doctor", str(path)]}
    if row in ("hf", "jsonl") and peer_command("trainproof"):
        out["trainproof"] = [peer_command("trainproof"), "doctor", str(path)]
    if small is not None:
        out.update({f"{k} (start-up)": [*v[:-1], str(small)] for k, v in list(out.items())})
    if row in EVENT_ROWS:
        try:
            import tensorboard  # noqa: F401

            out["EventAccumulator"] = [sys.executable, "-c", EA_CODE, str(path)]
        except ImportError:
            pass
        if peer_command("runmedic"):
            out["runmedic"] = [peer_command("runmedic"), "diagnose", str(path)]
    return out


def user_env() -> dict[str, str]:
    """This checkout first on the path, bytecode written and read as in a user's install."""
    compileall.compile_dir(str(ROOT / "src"), quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def report(row: str, label: str, res: dict[str, Child]) -> list[dict[str, object]]:
    """Print the row's tools and ratios; return them as records (for --markdown / --json)."""
    ours = res["trainlint"]
    out = []
    for tool, c in res.items():
        print(f"{label:<64}{tool:<24}{c.cpu:>8.2f}{c.wall:>8.2f}{c.rss_mb:>9.0f}{c.rc:>6}")
        label = ""
    for peer, goal in GOALS[row].items():
        if peer in res:
            ratio, wall = res[peer].cpu / ours.cpu, res[peer].wall / ours.wall
            verdict = "met" if ratio >= goal else f"MISSED by {goal / ratio:.2f}x"
            print(f"{'':<64}{peer} / trainlint: {ratio:.1f}x CPU ({wall:.1f}x wall); goal >= {goal:g}x: {verdict}")
            work = _work_ratio(res, peer)
            if work is not None:
                print(f"{'':<64}  the same, each tool's start-up (10-entry file) taken off: {work:.1f}x CPU")
            out.append(
                {
                    "row": row,
                    "peer": peer,
                    "ratio_cpu": ratio,
                    "ratio_wall": wall,
                    "goal": goal,
                    "trainlint_cpu": ours.cpu,
                    "peer_cpu": res[peer].cpu,
                    "trainlint_mb": ours.rss_mb,
                    "peer_mb": res[peer].rss_mb,
                    "work_ratio_cpu": work,
                }
            )
        else:
            print(f"{'':<64}{peer}: not installed")
    if row in MAX_MB:
        verdict = "met" if ours.rss_mb <= MAX_MB[row] else "MISSED"
        print(f"{'':<64}trainlint peak {ours.rss_mb:.0f} MB; goal <= {MAX_MB[row]} MB: {verdict}")
    return out


def _work_ratio(res: dict[str, Child], peer: str) -> float | None:
    """peer / trainlint on CPU after taking off each tool's own start-up (the same tool on a
    10-entry file of the same format, measured in the same run); None when not measured."""
    small = res.get(f"{peer} (start-up)"), res.get("trainlint (start-up)")
    if small[0] is None or small[1] is None:
        return None
    ours = res["trainlint"].cpu - small[1].cpu
    return (res[peer].cpu - small[0].cpu) / ours if ours > 0 else None


def markdown(rows: list[dict[str, object]], labels: dict[str, str]) -> str:
    lines = [
        "| workload | trainlint CPU s / peak MB | peer CPU s / peak MB | ratio (CPU) | start-ups taken off | goal |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        mem = f" / {r['trainlint_mb']:.0f} MB" + (f" (goal <= {MAX_MB[r['row']]} MB)" if r["row"] in MAX_MB else "")
        work = f"{r['work_ratio_cpu']:.1f}x" if r.get("work_ratio_cpu") else "-"
        lines.append(
            f"| {labels[r['row']]} | {r['trainlint_cpu']:.2f} s{mem} | {r['peer']} "
            f"{r['peer_cpu']:.2f} s / {r['peer_mb']:.0f} MB | {r['ratio_cpu']:.1f}x | {work} | >= {r['goal']:g}x |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds (best of)")
    ap.add_argument("--only", choices=ROWS, action="append")
    ap.add_argument("--markdown", action="store_true", help="also print the README table")
    ap.add_argument("--json", action="store_true", help="also print the ratios as JSON")
    args = ap.parse_args()
    scale = 10 if args.quick else 1
    only = args.only or list(ROWS)
    env = user_env()
    tmp = Path(tempfile.mkdtemp(prefix="trainlint-bench-"))
    rows: list[dict[str, object]] = []
    labels: dict[str, str] = {}
    try:
        inputs = {}
        small: dict[str, Path] = {}
        if "hf" in only:
            inputs["hf"] = tmp / "hf" / "trainer_state.json"
            small["hf"] = tmp / "hf-small" / "trainer_state.json"
            for path, n in ((inputs["hf"], 200_000 // scale), (small["hf"], 10)):
                path.parent.mkdir()
                make_trainer_state(path, n)
            labels["hf"] = f"trainer_state.json, {200_000 // scale:,} entries"
        if "jsonl" in only:
            inputs["jsonl"] = tmp / "jl" / "metrics.jsonl"
            small["jsonl"] = tmp / "jl-small" / "metrics.jsonl"
            for path, n in ((inputs["jsonl"], 1_000_000 // scale), (small["jsonl"], 10)):
                path.parent.mkdir()
                make_jsonl(path, n)
            labels["jsonl"] = f"JSON lines, {1_000_000 // scale:,} rows"
        for row, (tags, writer, label) in EVENT_ROWS.items():
            if row not in only:
                continue
            ev = make_tfevents(1_000_000 // scale, tags, writer)
            if ev is None:
                print(f"{writer} not installed: no {row} row")
            else:
                inputs[row] = ev
                labels[row] = f"{label}, {1_000_000 // scale:,} scalars"
        print(f"cpu count {os.cpu_count()}, best of {args.repeat} interleaved rounds")
        print(f"{'input':<64}{'tool':<24}{'CPU s':>8}{'wall s':>8}{'peak MB':>9}{'exit':>6}")
        for row, path in inputs.items():
            label = f"{labels[row]} ({path.stat().st_size / 1e6:.0f} MB)"
            labels[row] = label
            rows += report(row, label, best_children(tools(row, path, small.get(row)), args.repeat, env))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.markdown:
        print()
        print(markdown(rows, labels))
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
