"""Write the small example logs bundled in examples/ (deterministic: fixed seeds).

    python scripts/make_examples.py

Each example is synthetic and has one documented fault, so README's "try it"
command shows every verdict on a fresh clone.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "examples"


def curve(n: int, seed: int, floor: float = 0.9, start: float = 2.6, tau: float = 25.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    steps = np.arange(n)
    return floor + (start - floor) * np.exp(-steps / tau) + rng.normal(0, 0.03, n)


def cosine_lr(n: int, peak: float = 2e-4, warmup: int = 10) -> np.ndarray:
    i = np.arange(n)
    warm = peak * (i + 1) / warmup
    cos = peak * 0.5 * (1 + np.cos(np.pi * (i - warmup) / max(1, n - warmup)))
    return np.where(i < warmup, warm, cos)


def hf_healthy() -> None:
    """A healthy Hugging Face Trainer run: cosine schedule, eval every 50 steps."""
    n, every = 150, 2
    loss, lr = curve(n, 1), cosine_lr(n)
    ev = curve(n, 2, floor=1.0)
    hist = []
    for i in range(n):
        step = (i + 1) * every
        hist.append(
            {
                "epoch": round(step / 300, 4),
                "grad_norm": round(0.6 + 0.1 * np.sin(i), 4),
                "learning_rate": float(lr[i]),
                "loss": round(float(loss[i]), 4),
                "step": step,
            }
        )
        if step % 50 == 0:
            hist.append(
                {
                    "epoch": round(step / 300, 4),
                    "eval_loss": round(float(ev[i]) + 0.05, 4),
                    "eval_runtime": 2.1,
                    "step": step,
                }
            )
    hist.append(
        {
            "epoch": 1.0,
            "step": n * every,
            "total_flos": 1.2e15,
            "train_loss": 1.2,
            "train_runtime": 812.4,
            "train_samples_per_second": 11.8,
        }
    )
    state = {
        "best_metric": None,
        "epoch": 1.0,
        "eval_steps": 50,
        "global_step": n * every,
        "logging_steps": every,
        "max_steps": n * every,
        "log_history": hist,
    }
    write(OUT / "hf-healthy" / "trainer_state.json", json.dumps(state, indent=2))


def jsonl_diverged() -> None:
    """A plain-loop JSONL log whose learning rate was far too high: the loss blows up and stays up."""
    n = 200
    loss = curve(n, 3)
    loss[60:] = loss[60:] * np.linspace(1, 6, n - 60)
    lines = ["# run 42 started"] + [
        json.dumps({"step": i, "loss": round(float(v), 4), "lr": 3e-2}) for i, v in enumerate(loss)
    ]
    write(OUT / "plain-diverged" / "metrics.jsonl", "\n".join(lines) + "\n")


def csv_nan() -> None:
    """A Lightning CSVLogger metrics.csv whose loss turns NaN at step 900 (fp16 overflow)."""
    path = OUT / "lightning-nan" / "metrics.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    loss = curve(120, 4)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "step", "train_loss_step", "val_loss", "lr-AdamW"])
        for i, v in enumerate(loss):
            step = (i + 1) * 10 - 1
            w.writerow([i // 40, step, "nan" if step >= 899 else round(float(v), 4), "", 1e-3])
            if (i + 1) % 40 == 0:
                w.writerow([i // 40, step, "", round(float(v) + 0.1, 4), ""])


def keras_lr_zero() -> None:
    """A Keras CSVLogger training.log where the learning rate was left at 0."""
    rows = ["epoch,loss,lr,val_loss"]
    rows += [f"{e},{1.35 + 0.01 * ((e * 7) % 5):.4f},0.0,{1.40 + 0.01 * ((e * 3) % 4):.4f}" for e in range(30)]
    write(OUT / "keras-lr-zero" / "training.log", "\n".join(rows) + "\n")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


if __name__ == "__main__":
    hf_healthy()
    jsonl_diverged()
    csv_nan()
    keras_lr_zero()
    print(f"wrote examples to {OUT}")
