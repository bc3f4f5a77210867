"""PyTorch Lightning: ``Trainer(callbacks=[GuardCallback(stop_on="FAIL")])``; with
``recover=True`` (or a :class:`~trainlint.integrations.recover.Recovery`) a recoverable fault
rolls the run back to its last good in-memory snapshot instead of stopping it."""

from __future__ import annotations

from typing import Any

try:
    from lightning.pytorch.callbacks import Callback
except ImportError:  # the older package name
    from pytorch_lightning.callbacks import Callback

from . import _torchstate as ts
from ._common import make_guard, scalars
from .recover import Recoverer, Recovery


class GuardCallback(Callback):
    """Judges the training loss (and LR) after every batch and the validation metrics after
    every validation; stops through ``trainer.should_stop``. Warns only by default.

    ``recover``: on a non-finite loss, a divergence, or a loss spike with a gradient
    explosion, restore the last good snapshot (module, first optimizer and its scheduler,
    the precision plugin's scaler, RNG), skip the batches since it and go on."""

    def __init__(self, stop_on: Any = None, *, recover: bool | Recovery = False, **guard_options: Any) -> None:
        self.options = {"stop_on": stop_on, **guard_options}
        self.recovery = Recovery.of(recover)
        self.guard = None
        self.recoverer: Recoverer | None = None
        self.report = None

    def on_train_start(self, trainer, pl_module):
        meta = {
            "max_steps": trainer.max_steps if trainer.max_steps and trainer.max_steps > 0 else None,
            "num_train_epochs": trainer.max_epochs,
        }
        out = trainer.log_dir if getattr(trainer, "log_dir", None) else trainer.default_root_dir
        options = dict(self.options, stop_on=None) if self.recovery is not None else self.options
        self.guard = make_guard(options, out, {k: v for k, v in meta.items() if v is not None})
        if self.recovery is not None:
            self.recoverer = Recoverer(
                self.recovery,
                self.guard,
                lambda: parts(trainer, pl_module),
                stop_on=self.options.get("stop_on"),
                unsupported=unsupported(trainer),
            )

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.guard is None:
            return
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        metrics = scalars({"loss": loss})
        if trainer.optimizers:
            metrics["learning_rate"] = float(trainer.optimizers[0].param_groups[0]["lr"])
        self._observe(trainer, trainer.global_step, metrics)

    def on_validation_end(self, trainer, pl_module):
        if self.guard is None or trainer.sanity_checking:
            return
        val = {k: v for k, v in scalars(dict(trainer.callback_metrics)).items() if k.startswith("val")}
        if val:
            self._observe(trainer, trainer.global_step, val, after_step=False)

    def _observe(self, trainer, step: int, metrics: dict[str, float], after_step: bool = True) -> None:
        if self.recoverer is not None:
            self.recoverer.observe(step, snapshot=after_step, **metrics)
            self.guard = self.recoverer.guard
            if self.recoverer.should_stop:
                trainer.should_stop = True
            return
        self.guard.observe(step, **metrics)
        if self.guard.should_stop:
            trainer.should_stop = True

    def on_train_end(self, trainer, pl_module):
        if self.recoverer is not None:
            self.report = self.recoverer.close()
        elif self.guard is not None:
            self.report = self.guard.close()


def parts(trainer: Any, pl_module: Any) -> ts.Parts:
    """What a rollback restores: the module, the first optimizer, its scheduler, the scaler."""
    optimizer = trainer.optimizers[0] if trainer.optimizers else None
    configs = getattr(trainer, "lr_scheduler_configs", None) or []
    scheduler = configs[0].scheduler if configs else None
    scaler = getattr(trainer.precision_plugin, "scaler", None)
    return ts.Parts(pl_module, optimizer, scheduler, scaler)


def unsupported(trainer: Any) -> str | None:
    """Sharded or several-optimizer training: a recoverable fault stops every rank instead."""
    name = type(trainer.strategy).__name__.lower()
    for key, label in (("fsdp", "FSDP"), ("deepspeed", "DeepSpeed"), ("modelparallel", "model parallelism")):
        if key in name:
            return label
    if len(trainer.optimizers) > 1:
        return "several optimizers"
    return None
