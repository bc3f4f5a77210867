"""Make trainlint's own evidence: tiny models trained on CPU with the real Hugging Face
Trainer and Lightning, each run with exactly one knob broken, at two seeds.

    pip install torch==2.13.0 transformers lightning tensorboard
    python scripts/make_evidence.py [--only NAME ...] [--seeds 0 1]

Deterministic for a given Python, torch and transformers version (all seeds fixed,
single-threaded CPU). The corpus is Python's own documentation strings, read from the
standard library of the running interpreter, so nothing is downloaded. Each run
writes into evidence/<framework>-<fault>-s<seed>/ the files the framework itself
writes (trainer_state.json and a TensorBoard event file for HF; metrics.csv,
hparams.yaml and an event file for Lightning) plus knob.json saying what was
broken. evidence/README.md (written by this script) says what each fault did.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import shutil
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "evidence"
SEQ = 48
MAX_STEPS = 120
MODULES = (
    "json",
    "csv",
    "pathlib",
    "collections",
    "functools",
    "itertools",
    "textwrap",
    "string",
    "heapq",
    "bisect",
    "fractions",
    "statistics",
    "argparse",
    "shutil",
    "tempfile",
    "difflib",
)


@dataclass(frozen=True)
class Knob:
    """One run's settings. Every fault changes exactly one thing from `healthy`."""

    name: str
    what: str
    lr: float = 1e-3
    warmup_steps: int = 10
    nan_at: int | None = None
    nan_filter: bool = True
    shuffle_labels: bool = False
    train_rows: int | None = None
    eval_is_train: bool = False
    spike_at: int | None = None
    steps: int = MAX_STEPS  # optimizer steps; the overfit run trains longer on its tiny set
    slow_after: int | None = None
    kill_at: int | None = None


HEALTHY = Knob("healthy", "no fault")
FAULTS = [
    HEALTHY,
    replace(HEALTHY, name="lr_hot", what="learning rate 2000x too high (2.0)", lr=2.0),
    replace(HEALTHY, name="lr_zero", what="learning rate 0", lr=0.0),
    replace(
        HEALTHY, name="nan_filter_on", what="loss made NaN from step 70; HF logging_nan_inf_filter=True", nan_at=70
    ),
    replace(
        HEALTHY,
        name="nan_filter_off",
        what="loss made NaN from step 70; logging_nan_inf_filter=False",
        nan_at=70,
        nan_filter=False,
    ),
    replace(
        HEALTHY,
        name="bad_labels",
        what="training targets shuffled within each sequence; eval set clean",
        shuffle_labels=True,
    ),
    replace(
        HEALTHY,
        name="overfit",
        what="16 training sequences for 400 steps (200 epochs); held-out eval set",
        train_rows=16,
        steps=400,
    ),
    replace(HEALTHY, name="eval_is_train", what="the eval set is the training set", eval_is_train=True),
    replace(HEALTHY, name="warmup_too_long", what="warm-up of 1000 steps in a 120-step run", warmup_steps=1000),
    replace(HEALTHY, name="spike", what="the loss of the batch at step 60 made 5x larger (a bad batch)", spike_at=60),
    replace(HEALTHY, name="slowdown", what="each step 0.15 s slower from step 60 (a data stall)", slow_after=60),
    replace(HEALTHY, name="killed", what="process killed at step 80; event file cut mid-record", kill_at=80),
]
LIGHTNING_FAULTS = ("healthy", "lr_hot", "nan_filter_off", "overfit")


def corpus() -> bytes:
    """Documentation strings of some standard-library modules, in a fixed order."""
    parts = []
    for name in MODULES:
        mod = importlib.import_module(name)
        parts.append(inspect.getdoc(mod) or "")
        for attr in sorted(dir(mod)):
            obj = getattr(mod, attr)
            if not attr.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj)):
                parts.append(inspect.getdoc(obj) or "")
    return "\n\n".join(p for p in parts if p).encode("utf-8")


def sequences(knob: Knob, seed: int):
    import torch

    data = torch.tensor(list(corpus()), dtype=torch.long)
    n = len(data) // SEQ
    seqs = data[: n * SEQ].view(n, SEQ)
    g = torch.Generator().manual_seed(1234)  # the split does not depend on the run's seed
    perm = torch.randperm(n, generator=g)
    evals, train = seqs[perm[:64]], seqs[perm[64:]]
    if knob.train_rows:
        train = train[: knob.train_rows]
    labels = train.clone()
    if knob.shuffle_labels:
        g2 = torch.Generator().manual_seed(seed)
        labels = torch.stack([row[torch.randperm(SEQ, generator=g2)] for row in labels])
    if knob.eval_is_train:
        evals = train[:64]
    return train, labels, evals


def tiny_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(
        vocab_size=256,
        n_positions=SEQ,
        n_embd=64,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=0,
        tie_word_embeddings=False,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
    )
    return GPT2LMHeadModel(cfg)


class Faulty:
    """Wraps the model's forward to inject the knob's fault at a given step."""

    def __init__(self, knob: Knob):
        self.knob, self.step = knob, 0

    def loss(self, loss):
        if self.knob.nan_at is not None and self.step >= self.knob.nan_at:
            return loss * float("nan")
        if self.knob.spike_at is not None and self.step == self.knob.spike_at:
            return loss * 5.0
        return loss


def warmup_cosine(step: int, warmup: int, total: int) -> float:
    """The HF Trainer's "cosine" schedule with linear warm-up, as a LambdaLR factor."""
    if step < warmup:
        return (step + 1) / max(1, warmup)
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


class Killed(Exception):
    """Raised inside the training loop to simulate the process being killed."""


def hf_run(knob: Knob, seed: int, out: Path) -> None:
    import os

    import torch
    from transformers import Trainer, TrainerCallback, TrainingArguments

    torch.manual_seed(seed)
    train, labels, evals = sequences(knob, seed)
    faulty = Faulty(knob)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = tiny_gpt2()

        def forward(self, input_ids, labels=None):
            return {"loss": faulty.loss(self.lm(input_ids=input_ids, labels=labels).loss)}

    class Knobs(TrainerCallback):
        def on_step_begin(self, args, state, control, **kw):
            faulty.step = state.global_step

        def on_step_end(self, args, state, control, **kw):
            if knob.slow_after is not None and state.global_step >= knob.slow_after:
                time.sleep(0.15)
            if knob.kill_at is not None and state.global_step >= knob.kill_at:
                raise Killed()

    os.environ["TENSORBOARD_LOGGING_DIR"] = str(out / "runs")
    args = TrainingArguments(
        output_dir=str(out),
        max_steps=knob.steps,
        per_device_train_batch_size=8,
        learning_rate=knob.lr,
        warmup_steps=knob.warmup_steps,
        lr_scheduler_type="cosine",
        logging_steps=2,
        eval_strategy="steps",
        eval_steps=20,
        per_device_eval_batch_size=32,
        save_strategy="steps" if knob.kill_at else "no",
        save_steps=40,
        save_only_model=True,
        report_to=["tensorboard"],
        use_cpu=True,
        seed=seed,
        data_seed=seed,
        logging_nan_inf_filter=knob.nan_filter,
        disable_tqdm=True,
        max_grad_norm=1.0,
    )
    train_ds = [{"input_ids": train[i], "labels": labels[i]} for i in range(len(train))]
    eval_ds = [{"input_ids": evals[i], "labels": evals[i]} for i in range(len(evals))]
    trainer = Trainer(model=Model(), args=args, train_dataset=train_ds, eval_dataset=eval_ds, callbacks=[Knobs()])
    try:
        trainer.train()
        trainer.state.save_to_json(str(out / "trainer_state.json"))
    except Killed:
        _cut_event_file(out / "runs")
    finally:
        os.environ.pop("TENSORBOARD_LOGGING_DIR", None)
    _keep_logs_only(out)


def _cut_event_file(folder: Path) -> None:
    """A killed writer leaves its last buffered records half-written: cut mid-record."""
    for f in folder.rglob("events.out.tfevents.*"):
        data = f.read_bytes()
        f.write_bytes(data[: int(len(data) * 0.7)])


def _keep_logs_only(out: Path) -> None:
    """Drop weights, optimizer states and RNG files (megabytes) but keep every log."""
    keep = {"trainer_state.json", "metrics.csv", "hparams.yaml", "knob.json"}
    for f in sorted(out.rglob("*"), reverse=True):
        if f.is_file() and f.name not in keep and not f.name.startswith("events.out.tfevents"):
            f.unlink()
        elif f.is_dir() and not any(f.iterdir()):
            f.rmdir()


def lightning_run(knob: Knob, seed: int, out: Path) -> None:
    import lightning as L
    import torch
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger

    L.seed_everything(seed, workers=True, verbose=False)
    train, labels, evals = sequences(knob, seed)
    faulty = Faulty(knob)

    class Module(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.save_hyperparameters({"lr": knob.lr, "fault": knob.name, "seed": seed})
            self.lm = tiny_gpt2()

        def training_step(self, batch, idx):
            faulty.step = self.global_step
            ids, lab = batch
            loss = faulty.loss(self.lm(input_ids=ids, labels=lab).loss)
            self.log("train_loss", loss, on_step=True, on_epoch=False)
            self.log("lr", self.trainer.optimizers[0].param_groups[0]["lr"], on_step=True, on_epoch=False)
            return loss

        def validation_step(self, batch, idx):
            ids, lab = batch
            self.log("val_loss", self.lm(input_ids=ids, labels=lab).loss, on_epoch=True)

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=knob.lr)
            sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: warmup_cosine(s, knob.warmup_steps, knob.steps))
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    tl = torch.utils.data.TensorDataset
    loader = torch.utils.data.DataLoader(
        tl(train, labels), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(seed)
    )
    vloader = torch.utils.data.DataLoader(tl(evals, evals), batch_size=32)
    loggers = [CSVLogger(str(out), name="", version=""), TensorBoardLogger(str(out), name="", version="")]
    trainer = L.Trainer(
        max_steps=knob.steps,
        val_check_interval=20,
        check_val_every_n_epoch=None,
        logger=loggers,
        log_every_n_steps=2,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        accelerator="cpu",
        deterministic=True,
        num_sanity_val_steps=0,
        gradient_clip_val=1.0,
    )
    trainer.fit(Module(), loader, vloader)
    _keep_logs_only(out)


def main() -> None:
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", help="fault names to (re)make")
    ap.add_argument("--seeds", nargs="*", type=int, default=[0, 1])
    a = ap.parse_args()
    torch.set_num_threads(1)
    OUT.mkdir(exist_ok=True)
    for knob in FAULTS:
        if a.only and knob.name not in a.only:
            continue
        for seed in a.seeds:
            jobs = [("hf", hf_run)] + ([("lightning", lightning_run)] if knob.name in LIGHTNING_FAULTS else [])
            for fw, fn in jobs:
                out = OUT / f"{fw}-{knob.name}-s{seed}"
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir(parents=True)
                t0 = time.time()
                fn(knob, seed, out)
                (out / "knob.json").write_text(
                    json.dumps({**asdict(knob), "framework": fw, "seed": seed}, indent=2) + "\n"
                )
                print(f"{out.name}: {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
