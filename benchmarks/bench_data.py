"""Benchmark: `trainlint data` on a big JSONL file: rows/s and peak memory.

Generates a chat-format JSONL file in a temporary folder (1 GB by default, 64 MB with
--quick, or --size-mb N), then times in fresh subprocesses, each reporting its own
peak RSS:

Wall time and CPU time (the process's own, less sensitive to a busy machine) are both printed.

  * trainlint's dataset scan (every data rule; with --tokenizer also token statistics
    using a small locally trained tokenizer),
  * what a user would otherwise run: a plain ``json.loads`` loop (parse only, no checks),
    ``pyarrow.json.read_json`` and ``pandas.read_json(lines=True)`` when installed.

    python benchmarks/bench_data.py --quick
    python benchmarks/bench_data.py --size-mb 256 --tokenizer
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = (
    "the a model data loss token answer question train eval cat dog sat ran quick slow "
    "why how what yes no because therefore gradient learning rate batch epoch"
).split()

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
kind, path, tok = sys.argv[1], Path(sys.argv[2]), (sys.argv[3] or None)
t0, c0 = time.perf_counter(), time.process_time()
rows = 0
if kind == "trainlint":
    from trainlint.inspectors.dataset_judge import judge_dataset
    report = judge_dataset(path, Path(tok) if tok else None, 4096)[0]
    rows = report.summary.get("rows", 0)
    extra = sorted({f.code for f in report.findings})
elif kind == "json.loads":
    with open(path, "rb") as fh:
        for line in fh:
            try:
                json.loads(line); rows += 1
            except ValueError:
                pass
    extra = []
elif kind == "pyarrow.json":
    import pyarrow.json as pj
    rows = pj.read_json(str(path)).num_rows
    extra = []
elif kind == "pandas":
    import pandas as pd
    rows = len(pd.read_json(path, lines=True))
    extra = []
dt, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"rows": rows, "seconds": dt, "cpu": cpu, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "findings": extra}))
"""


def generate(path: Path, size_mb: int, seed: int = 0, damage: bool = False) -> int:
    rng = random.Random(seed)
    target, written, n = size_mb << 20, 0, 0
    pool = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 90))) for _ in range(5000)]
    with open(path, "w", encoding="utf-8") as fh:
        while written < target:
            n += 1
            row = {
                "messages": [
                    {"role": "system", "content": "You are helpful."},
                    {"role": "user", "content": rng.choice(pool) + f" #{n}"},
                    {"role": "assistant", "content": rng.choice(pool)},
                ]
            }
            line = json.dumps(row) + "\n"
            if damage and n % 50_000 == 0:
                line = line[:40] + "\n"  # a malformed line now and then
            fh.write(line)
            written += len(line)
    return n


def make_tokenizer(folder: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    folder.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([" ".join(WORDS)] * 10, trainers.WordLevelTrainer(special_tokens=["<unk>", "</s>"]))
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({"eos_token": "</s>", "model_max_length": 4096}))
    return folder


def measure(kind: str, path: Path, tok: Path | None) -> dict | None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path), str(tok or "")], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        why = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode
        print(f"  {kind:<22} skipped: {why}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="64 MB instead of 1 GB")
    ap.add_argument("--size-mb", type=int, default=None)
    ap.add_argument("--tokenizer", action="store_true", help="also time the scan with token statistics")
    ap.add_argument(
        "--damage", action="store_true", help="cut every 50,000th line (the baselines then stop at the first one)"
    )
    ap.add_argument("--skip", nargs="*", default=[], help="baselines to skip (pandas, pyarrow.json, json.loads)")
    args = ap.parse_args()
    size = args.size_mb or (64 if args.quick else 1024)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.jsonl"
        t0 = time.perf_counter()
        rows = generate(path, size, damage=args.damage)
        mb = path.stat().st_size / (1 << 20)
        print(f"generated {rows} rows, {mb:.0f} MB in {time.perf_counter() - t0:.1f} s")
        tok = make_tokenizer(Path(tmp) / "tok") if args.tokenizer else None
        kinds = (
            ["trainlint"]
            + (["trainlint+tokens"] if tok else [])
            + [k for k in ("json.loads", "pyarrow.json", "pandas") if k not in args.skip]
        )
        results = {}
        for kind in kinds:
            res = measure(
                "trainlint" if kind.startswith("trainlint") else kind, path, tok if kind == "trainlint+tokens" else None
            )
            if res is None:
                continue
            results[kind] = res
            print(
                f"  {kind:<22} {res['rows'] / res['seconds']:>10,.0f} rows/s  {mb / res['seconds']:>7.1f} MB/s"
                f"  {res['seconds']:>7.1f} s (cpu {res['cpu']:.1f} s)  peak {res['peak_mb']:>7.0f} MB"
                + (f"  findings {res['findings']}" if res["findings"] else "")
            )
        base = results.get("trainlint")
        for kind, res in results.items():
            if base and kind != "trainlint":
                print(
                    f"  trainlint / {kind}: time x{base['seconds'] / res['seconds']:.2f} "
                    f"(cpu x{base['cpu'] / res['cpu']:.2f}), "
                    f"peak memory x{base['peak_mb'] / res['peak_mb']:.2f}"
                )


if __name__ == "__main__":
    main()
