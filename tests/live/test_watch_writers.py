"""`trainlint watch DIR --until FAIL` started on an empty folder, while a real library writes a
run into it whose loss goes NaN: watch reports the FAIL and exits 1, and ``doctor`` on the
finished files gives the same FAIL findings.

One test per writer: tensorboardX and torch's SummaryWriter, an HF Trainer run, Lightning's
CSVLogger, Keras' CSVLogger, a console log and a JSON-lines log.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT / "src"),
    "NO_COLOR": "1",
    "OMP_NUM_THREADS": "1",
    "PYTHONWARNINGS": "ignore",
    "TOKENIZERS_PARALLELISM": "false",
    "TRANSFORMERS_VERBOSITY": "error",
    "KERAS_BACKEND": "torch",
}
ENV.pop("TRAINLINT_DEBUG", None)

# Each writer takes the run folder as argv[1] and logs a loss that goes NaN part-way through.
TENSORBOARDX = r"""
import sys, time, math
from tensorboardX import SummaryWriter
w = SummaryWriter(sys.argv[1])
for i in range(80):
    w.add_scalar("train/loss", 2.0 / (i + 1) + 0.3 if i < 50 else math.nan, i)
    w.add_scalar("train/lr", 1e-3, i)
    if i % 10 == 9:
        w.flush(); time.sleep(0.05)
w.close()
"""
TORCH_WRITER = TENSORBOARDX.replace("from tensorboardX import", "from torch.utils.tensorboard import")

HF = r"""
import sys, torch
from torch import nn
from transformers import Trainer, TrainingArguments
class DS(torch.utils.data.Dataset):
    def __init__(s, n):
        g = torch.Generator().manual_seed(0); s.x = torch.randn(n, 4, generator=g); s.y = s.x.sum(1, keepdim=True)
        s.y[n // 2:] = float("nan")  # half the labels are broken: the first batch holding one turns the loss NaN
    def __len__(s): return len(s.x)
    def __getitem__(s, i): return {"x": s.x[i], "labels": s.y[i]}
class M(nn.Module):
    def __init__(s): super().__init__(); s.l = nn.Linear(4, 1)
    def forward(s, x, labels=None):
        out = s.l(x); return {"loss": nn.functional.mse_loss(out, labels), "logits": out}
args = TrainingArguments(output_dir=sys.argv[1], max_steps=60, logging_steps=2, save_steps=30,
    per_device_train_batch_size=8, learning_rate=0.05, report_to=["tensorboard"], use_cpu=True,
    dataloader_num_workers=0, disable_tqdm=True, seed=0, logging_nan_inf_filter=False, optim="sgd")
torch.manual_seed(0)
Trainer(model=M(), args=args, train_dataset=DS(512)).train()
"""

LIGHTNING = r"""
import sys, torch
from torch import nn
import lightning as L
from lightning.pytorch.loggers import CSVLogger
class M(L.LightningModule):
    def __init__(s): super().__init__(); s.l = nn.Linear(4, 1)
    def training_step(s, b, i):
        x, y = b; loss = nn.functional.mse_loss(s.l(x), y); s.log("train_loss", loss); return loss
    def configure_optimizers(s): return torch.optim.SGD(s.parameters(), lr=0.05)
g = torch.Generator().manual_seed(0); x = torch.randn(512, 4, generator=g); y = x.sum(1, keepdim=True)
y[300:] = float("nan")
dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
L.seed_everything(0, verbose=False)
tr = L.Trainer(max_epochs=1, logger=CSVLogger(sys.argv[1], version=0, flush_logs_every_n_steps=5),
    log_every_n_steps=2, enable_progress_bar=False, enable_model_summary=False, accelerator="cpu",
    enable_checkpointing=False)
tr.fit(M(), dl)
"""

KERAS = r"""
import sys, numpy as np, keras
keras.utils.set_random_seed(0)
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
m.compile(keras.optimizers.SGD(0.05), "mse")
x = np.random.RandomState(0).randn(64, 4).astype("float32"); y = x.sum(1)
class Poison(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        if epoch == 5:
            y[:] = np.nan
m.fit(x, y, epochs=12, verbose=0, shuffle=False,
      callbacks=[Poison(), keras.callbacks.CSVLogger(sys.argv[1] + "/training.log")])
"""

CONSOLE = r"""
import sys, time, math
with open(sys.argv[1] + "/train.log", "w") as fh:
    fh.write("***** Running training *****\n"); fh.flush()
    for i in range(60):
        loss = 2.5 - i / 50 if i < 40 else math.nan
        fh.write(f"{{'loss': {loss}, 'grad_norm': 1.0, 'learning_rate': 5e-05, 'epoch': {i / 60:.2f}}}\n")
        fh.flush(); time.sleep(0.02)
"""

JSONL = r"""
import sys, time, json
with open(sys.argv[1] + "/metrics.jsonl", "w") as fh:
    for i in range(60):
        loss = 2.0 / (i + 1) + 0.5 if i < 40 else "NaN"
        fh.write(json.dumps({"step": i, "loss": loss, "lr": 1e-3}) + "\n"); fh.flush(); time.sleep(0.02)
"""

WRITERS = {
    "tensorboardX": ("tensorboardX", TENSORBOARDX),
    "torch-summarywriter": ("torch", TORCH_WRITER),
    "hf-trainer": ("transformers", HF),
    "lightning-csvlogger": ("lightning", LIGHTNING),
    "keras-csvlogger": ("keras", KERAS),
    "console": (None, CONSOLE),
    "jsonl": (None, JSONL),
}


def _fail_codes(reports: list[dict]) -> set[str]:
    """The FAIL codes of the log rules (doctor folds an output folder's checkpoint findings into
    its run's report: a checkpoint written after watch stopped is not the log's to match)."""
    from trainlint.registry import REGISTRY

    REGISTRY.load()
    codes = {f["code"] for r in reports for f in r.get("findings", []) if f["severity"] == "FAIL"}
    return {c for c in codes if (rule := REGISTRY.get(c)) is not None and rule.target == "log"}


@pytest.mark.slow
@pytest.mark.parametrize("writer", list(WRITERS))
def test_watch_an_empty_folder_until_a_real_writer_goes_nan(tmp_path, writer):
    module, script = WRITERS[writer]
    if module is not None and importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    run = tmp_path / "run"
    run.mkdir()
    cmd = [sys.executable, "-m", "trainlint", "watch", str(run), "--until", "FAIL", "--interval", "0.2"]
    watch = subprocess.Popen(
        [*cmd, "--max-time", "300", "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
    )
    try:
        time.sleep(1.0)  # watch is up on an empty folder, waiting
        assert watch.poll() is None, watch.communicate()
        proc = subprocess.run(
            [sys.executable, "-c", script, str(run)], capture_output=True, text=True, env=ENV, timeout=300
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        out, err = watch.communicate(timeout=300)
    finally:
        if watch.poll() is None:
            watch.kill()
    assert watch.returncode == 1, (out, err)
    live = json.loads(out)["reports"]
    assert "TL001" in _fail_codes(live), live
    after = subprocess.run(
        [sys.executable, "-m", "trainlint", "doctor", str(run), "--format", "json"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
    )
    assert after.returncode == 1, after.stdout + after.stderr
    logs = [r for r in json.loads(after.stdout)["reports"] if r["kind"] == "log"]  # watch follows logs only
    assert _fail_codes(logs) == _fail_codes(live)


def test_watch_on_an_empty_folder_that_stays_empty_is_not_checked(cli, tmp_path):
    r = cli("watch", tmp_path, "--interval", "0.05", "--idle-exit", "0.3")
    assert r.code == 2, r.out + r.err
    assert "no training log appeared" in r.out
