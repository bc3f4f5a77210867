"""Generate small real training runs for the grouping and agreement tests (no tests here).

Each runs in a subprocess on CPU in a few seconds; the callers skip when the
library is not installed. Nothing here is downloaded: the models are built
from scratch (a linear layer on random data).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HF_SCRIPT = r"""
import sys, torch
from torch import nn
from torch.utils.data import Dataset
from transformers import Trainer, TrainingArguments
class DS(Dataset):
    def __init__(s, n):
        g = torch.Generator().manual_seed(0); s.x = torch.randn(n, 4, generator=g); s.y = s.x.sum(1, keepdim=True)
    def __len__(s): return len(s.x)
    def __getitem__(s, i): return {"x": s.x[i], "labels": s.y[i]}
class M(nn.Module):
    def __init__(s): super().__init__(); s.l = nn.Linear(4, 1)
    def forward(s, x, labels=None):
        out = s.l(x); return {"loss": nn.functional.mse_loss(out, labels), "logits": out}
out, lr, steps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
args = TrainingArguments(output_dir=out, max_steps=steps, logging_steps=5, save_steps=steps // 2,
    eval_strategy="steps", eval_steps=10, per_device_train_batch_size=8, learning_rate=lr,
    report_to=["tensorboard"], use_cpu=True, dataloader_num_workers=0, disable_tqdm=True, seed=0,
    lr_scheduler_type="constant", max_grad_norm=1e9, optim="sgd")
torch.manual_seed(0)  # the model's initial weights: M() is built before the Trainer seeds anything
Trainer(model=M(), args=args, train_dataset=DS(256), eval_dataset=DS(32)).train()
"""

PL_SCRIPT = r"""
import sys, torch
from torch import nn
import lightning as L
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
class M(L.LightningModule):
    def __init__(s, lr=0.05):
        super().__init__(); s.save_hyperparameters(); s.l = nn.Linear(4, 1)
    def training_step(s, b, i):
        x, y = b; loss = nn.functional.mse_loss(s.l(x), y)
        s.log("train_loss", loss, on_step=True, on_epoch=True); return loss
    def validation_step(s, b, i):
        x, y = b; s.log("val_loss", nn.functional.mse_loss(s.l(x), y))
    def configure_optimizers(s): return torch.optim.SGD(s.parameters(), lr=s.hparams.lr)
g = torch.Generator().manual_seed(0); x = torch.randn(256, 4, generator=g); y = x.sum(1, keepdim=True)
dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
vl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:32], y[:32]), batch_size=8)
out, lr, epochs = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
L.seed_everything(0, verbose=False)
tr = L.Trainer(max_epochs=epochs, logger=[CSVLogger(out, version=0), TensorBoardLogger(out, version=0)],
    log_every_n_steps=4, enable_progress_bar=False, enable_model_summary=False, accelerator="cpu",
    enable_checkpointing=False)
tr.fit(M(lr), dl, vl)
"""


def _run(script: str, module: str, *args: str) -> None:
    pytest.importorskip(module)
    env = {
        **os.environ,
        "TOKENIZERS_PARALLELISM": "false",
        "OMP_NUM_THREADS": "1",
        "PYTHONWARNINGS": "ignore",
        "TRANSFORMERS_VERBOSITY": "error",
    }
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, timeout=240, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{module} run failed:\n{proc.stderr[-3000:]}")


def hf_run(out: Path, lr: float = 0.05, steps: int = 40) -> Path:
    """A real HF Trainer output dir: trainer_state.json, checkpoint-*/ copies, runs/*/events."""
    _run(HF_SCRIPT, "transformers", str(out), repr(lr), str(steps))
    return out


def lightning_run(out: Path, lr: float = 0.05, epochs: int = 3) -> Path:
    """A real Lightning version folder with CSVLogger metrics.csv and a TensorBoard event file."""
    _run(PL_SCRIPT, "lightning", str(out), repr(lr), str(epochs))
    return out / "lightning_logs" / "version_0"
