"""Trainer-state logs and a Trainer output folder, shared by tests/report/test_output.py and
tests/inspectors/test_parallel.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def write_hf(path, losses, step=10, max_steps=None):
    entries = [
        {
            "step": step * (i + 1),
            "loss": float(v),
            "learning_rate": 1e-4,
            "grad_norm": 1.0,
        }
        for i, v in enumerate(losses)
    ]
    path.write_text(json.dumps({"max_steps": max_steps or step * len(losses), "log_history": entries}))
    return path


def healthy(n=40):
    import numpy as np

    rng = np.random.default_rng(0)
    return list(0.8 + 2.0 * np.exp(-np.arange(n) / 8) + rng.normal(0, 0.02, n))


def _hf_output(root: Path) -> Path:
    """A Trainer output folder: trainer_state.json, runs/, three checkpoint-N folders with
    weights, optimizer, scheduler, rng state, trainer_state.json and training_args.bin."""
    import numpy as np

    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.numpy")
    transformers = pytest.importorskip("transformers")
    root.mkdir()
    losses = healthy(12)
    write_hf(root / "trainer_state.json", losses, step=10)  # the final save: state, config, weights
    (root / "config.json").write_text(json.dumps({"vocab_size": 32}))
    st.save_file({"w": np.ones((2, 2), dtype=np.float32)}, str(root / "model.safetensors"))
    args = transformers.TrainingArguments(output_dir=str(root), use_cpu=True, report_to="none")
    for step in (40, 80, 120):
        ck = root / f"checkpoint-{step}"
        ck.mkdir()
        write_hf(ck / "trainer_state.json", losses[: step // 10], step=10, max_steps=120)
        (ck / "config.json").write_text(json.dumps({"vocab_size": 32}))
        st.save_file({"w": np.ones((2, 2), dtype=np.float32)}, str(ck / "model.safetensors"))
        for name in ("optimizer.pt", "scheduler.pt", "rng_state.pth"):
            torch.save({"x": torch.ones(1)}, ck / name)
        torch.save(args, ck / "training_args.bin")
    torch.save(args, root / "training_args.bin")
    return root
