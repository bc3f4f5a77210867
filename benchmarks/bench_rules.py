#!/usr/bin/env python
"""Time every log rule together on a 1,000,000-point run (loss, grad norm, LR, step time with
wall-clock stamps, 1,000 evaluations): ``python benchmarks/bench_rules.py [N]``.

Prints the total and the slowest rules. Target: well under a second for all rules together."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trainlint.engine import judge_run, run_rules  # noqa: E402
from trainlint.model import Run  # noqa: E402
from trainlint.registry import REGISTRY  # noqa: E402
from trainlint.roles import assign_roles  # noqa: E402
from trainlint.verdict import Report  # noqa: E402


def make(n: int, faulty: bool) -> Run:
    rng = np.random.default_rng(0)
    steps = np.arange(1, n + 1, dtype=float)
    loss = 2 + 8 * np.exp(-steps / (n / 5)) + rng.normal(0, 0.1, n)
    gn = np.abs(rng.normal(1, 0.2, n))
    if faulty:  # heavy tails, thousands of spikes, a late divergence, NaNs
        loss += rng.standard_t(2, n) * 0.1
        loss[rng.integers(0, n, n // 500)] *= 5
        loss[n // 2 :] += np.linspace(0, 20, n - n // 2)
        loss[rng.integers(0, n, 50)] = np.nan
        gn[rng.integers(0, n, n // 200)] = 1000
    run = Run(source="bench", format="jsonl")
    run.add("loss", steps, loss, wall=np.cumsum(rng.uniform(0.2, 0.3, n)))
    run.add("grad_norm", steps, gn)
    run.add("learning_rate", steps, np.full(n, 1e-4))
    run.add("step_time", steps, rng.uniform(0.2, 0.3, n))
    es = steps[:: max(1, n // 1000)]
    run.add("eval_loss", es, 2.2 + 8 * np.exp(-es / (n / 5)))
    run.roles = assign_roles(run.series)
    return run


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    REGISTRY.load()
    for label in ("healthy", "faulty"):
        run = make(n, label == "faulty")
        judge_run(run)  # warm caches and imports
        best = min(_timed(lambda run=run: judge_run(run)) for _ in range(3))
        cpu = min(_timed(lambda run=run: judge_run(run), time.process_time) for _ in range(3))
        per = []
        for rule in REGISTRY.all("log"):
            rep = Report(source="bench", kind="log")
            only = lambda r, c=rule.code: r.code == c  # noqa: E731
            per.append((_timed(lambda run=run, rep=rep, only=only: run_rules("log", run, rep, only=only)), rule.code))
        slow = ", ".join(f"{c} {t * 1000:.0f} ms" for t, c in sorted(per, reverse=True)[:5])
        print(
            f"{label}: all {len(per)} log rules on {n:,} points: {best:.3f} s wall, {cpu:.3f} s CPU "
            f"(best of 3); slowest: {slow}"
        )


def _timed(fn, clock=time.perf_counter) -> float:
    t = clock()
    fn()
    return clock() - t


if __name__ == "__main__":
    main()
