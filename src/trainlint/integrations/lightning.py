"""PyTorch Lightning: ``Trainer(callbacks=[GuardCallback(stop_on="FAIL")])``."""

from __future__ import annotations

from typing import Any

try:
    from lightning.pytorch.callbacks import Callback
except ImportError:  # the older package name
    from pytorch_lightning.callbacks import Callback

from ._common import make_guard, scalars


class GuardCallback(Callback):
    """Judges the training loss (and LR) after every batch and the validation metrics after
    every validation; stops through ``trainer.should_stop``. Warns only by default."""

    def __init__(self, stop_on: Any = None, **guard_options: Any) -> None:
        self.options = {"stop_on": stop_on, **guard_options}
        self.guard = None
        self.report = None

    def on_train_start(self, trainer, pl_module):
        meta = {
            "max_steps": trainer.max_steps if trainer.max_steps and trainer.max_steps > 0 else None,
            "num_train_epochs": trainer.max_epochs,
        }
        out = trainer.log_dir if getattr(trainer, "log_dir", None) else trainer.default_root_dir
        self.guard = make_guard(self.options, out, {k: v for k, v in meta.items() if v is not None})

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.guard is None:
            return
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        metrics = scalars({"loss": loss})
        if trainer.optimizers:
            metrics["learning_rate"] = float(trainer.optimizers[0].param_groups[0]["lr"])
        self.guard.observe(trainer.global_step, **metrics)
        self._maybe_stop(trainer)

    def on_validation_end(self, trainer, pl_module):
        if self.guard is None or trainer.sanity_checking:
            return
        val = {k: v for k, v in scalars(dict(trainer.callback_metrics)).items() if k.startswith("val")}
        if val:
            self.guard.observe(trainer.global_step, **val)
            self._maybe_stop(trainer)

    def _maybe_stop(self, trainer) -> None:
        if self.guard.should_stop:
            trainer.should_stop = True

    def on_train_end(self, trainer, pl_module):
        if self.guard is not None:
            self.report = self.guard.close()
