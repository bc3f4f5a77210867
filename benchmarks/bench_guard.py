"""Overhead of the live guard per logged step, against trainproof's HF callback when installed.

    python benchmarks/bench_guard.py           # histories of 1k, 10k, 100k records; a 10,000-step run
    python benchmarks/bench_guard.py --quick   # 1k and 10k; a 2,000-step run

Per-call overhead: a guard already holding N records observes N/2 more (at least 2,000);
the mean time per call includes the periodic full judgements (what a training loop pays).
Total overhead: a whole run observed at every step. trainproof re-judges its whole
history at every check; its callback is driven with check_every=1 on the same losses,
for as many steps as --tp-steps allows (its cost grows with the square of the run).
"""

from __future__ import annotations

import argparse
import math
import time
from types import SimpleNamespace

import numpy as np

from trainlint.live import Guard


def losses(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 0.9 + 2.0 * np.exp(-np.arange(n) / max(1, n / 8)) + rng.normal(0, 0.03, n)


def lr(i: int, n: int) -> float:
    return 2e-4 * 0.5 * (1 + math.cos(math.pi * i / n))


def per_call(history: int, more: int | None = None) -> tuple[float, float]:
    """(mean µs per call, max µs of one call) over the records after `history`: the window is
    long enough (half the history, at least 2,000) to hold several full judgements."""
    more = more or max(2000, history // 2)
    total = history + more
    v = losses(total)
    g = Guard()
    for i in range(history):
        g.observe(i, loss=float(v[i]), learning_rate=lr(i, total), grad_norm=0.5)
    times = np.empty(more)
    for k, i in enumerate(range(history, total)):
        t0 = time.perf_counter()
        g.observe(i, loss=float(v[i]), learning_rate=lr(i, total), grad_norm=0.5)
        times[k] = time.perf_counter() - t0
    return float(times.mean() * 1e6), float(times.max() * 1e6)


def trainlint_run(steps: int) -> float:
    v = losses(steps)
    g = Guard()
    t0 = time.perf_counter()
    for i in range(steps):
        g.observe(i, loss=float(v[i]), learning_rate=lr(i, steps), grad_norm=0.5)
    g.close()
    return time.perf_counter() - t0


def trainproof_run(steps: int) -> float | None:
    try:
        from trainproof.integrations.hf import TrainproofCallback
    except ImportError:
        return None
    v = losses(steps)
    cb = TrainproofCallback(check_every=1)
    state = SimpleNamespace(global_step=0, log_history=[], max_steps=steps)
    args, control = SimpleNamespace(), SimpleNamespace(should_training_stop=False)
    import contextlib
    import io

    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        for i in range(steps):
            state.global_step = i + 1
            state.log_history.append(
                {
                    "step": i + 1,
                    "loss": float(v[i]),
                    "learning_rate": lr(i, steps),
                    "grad_norm": 0.5,
                    "epoch": i / steps,
                }
            )
            cb.on_log(args, state, control)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tp-steps", type=int, default=None, help="steps to drive trainproof's callback for")
    a = ap.parse_args()
    sizes = (1_000, 10_000) if a.quick else (1_000, 10_000, 100_000)
    print(f"{'history':>9} {'mean us/call':>13} {'max us/call':>12}")
    for n in sizes:
        mean, worst = per_call(n)
        print(f"{n:>9} {mean:>13.1f} {worst:>12.0f}")
    steps = 2_000 if a.quick else 10_000
    ours = trainlint_run(steps)
    print(f"\ntrainlint: {steps} steps observed every step: {ours:.2f} s total, {ours / steps * 1e6:.1f} us per step")
    tp_steps = a.tp_steps or (1_000 if a.quick else 2_000)
    tp = trainproof_run(tp_steps)
    if tp is None:
        print("trainproof not installed: no comparison")
        return
    ours_same = trainlint_run(tp_steps)
    print(
        f"trainproof callback, check_every=1, {tp_steps} steps: {tp:.2f} s total "
        f"({tp / tp_steps * 1e3:.1f} ms per step); trainlint on the same steps: {ours_same:.3f} s; "
        f"ratio {tp / ours_same:.0f}x"
    )


if __name__ == "__main__":
    main()
