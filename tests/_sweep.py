"""A folder of small JSON-lines runs, as a sweep writes them: for the overlay page's tests and
scripts/screenshot_html.py. Deterministic (seeded); every run logs loss, learning rate, grad norm
and epoch, every 50th step an eval loss."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

# name, (steps, logging interval, peak LR, what goes wrong)
SWEEP = (
    ("lr1e-4-s0", 400, 2, 1e-4, None),
    ("lr1e-4-s1", 400, 4, 1e-4, None),
    ("lr3e-4-s0", 400, 2, 3e-4, None),
    ("lr3e-4-s1", 300, 5, 3e-4, "spikes"),
    ("lr3e-3-s0", 400, 2, 3e-3, "diverge"),
    ("lr1e-2-s0", 400, 2, 1e-2, "nan"),
)


def write_sweep(root: Path, runs: tuple = SWEEP) -> list[Path]:
    """One folder per run under ``root`` (``root/<name>/metrics.jsonl``); returns the files."""
    out = []
    for i, (name, n, every, lr, trouble) in enumerate(runs):
        rng = np.random.default_rng(i)
        lines = []
        for step in range(every, n + 1, every):
            frac = step / n
            loss = 0.7 + 2.0 * math.exp(-step / 60) + 0.02 * rng.standard_normal()
            if trouble == "diverge" and step > 120:
                loss = 0.9 + 0.02 * (step - 120)
            if trouble == "spikes" and step in (150, 200, 250):
                loss += 4.0
            rec = {
                "step": step,
                "epoch": round(2 * frac, 4),
                "loss": float("nan") if trouble == "nan" and step > 250 else round(loss, 5),
                "learning_rate": lr * min(1.0, step / 40) * (1 - 0.9 * frac),
                "grad_norm": round(
                    0.8 + 0.1 * rng.standard_normal() + (3 if trouble == "diverge" and step > 120 else 0), 4
                ),
            }
            if step % 50 == 0:
                rec["eval_loss"] = round(loss + 0.1, 5)
            lines.append(json.dumps(rec).replace("NaN", '"NaN"'))
        path = root / name / "metrics.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(path)
    return out
