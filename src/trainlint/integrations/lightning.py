"""PyTorch Lightning: ``Trainer(callbacks=[GuardCallback(stop_on="FAIL")])``; with
``recover=True`` (or a :class:`~trainlint.integrations.recover.Recovery`) a recoverable fault
rolls the run back to its last good in-memory snapshot instead of stopping it.

Under DDP (``strategy="ddp"``, ``devices=N``) each rank's training loss is its own: the callback
averages it over the ranks through the strategy (a NaN on one rank makes the mean NaN) before
every rank's guard sees it; the main process (global rank 0) writes the log and takes the stop
decision, which every rank applies at the same batch; every rank ends with its report.
Validation metrics are the main rank's ``callback_metrics`` (log them with ``sync_dist=True``
for values over every rank)."""

from __future__ import annotations

from typing import Any

try:
    from lightning.pytorch.callbacks import Callback
except ImportError:  # the older package name
    from pytorch_lightning.callbacks import Callback

from . import _torchstate as ts
from ._common import can_stop, log_path, make_guard, scalars
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
        meta = {k: v for k, v in meta.items() if v is not None}
        self.guard = make_guard(options, out, meta, main=trainer.is_global_zero)
        if self.recovery is not None:
            log = log_path(self.options, out)
            self.recoverer = Recoverer(
                self.recovery,
                self.guard,
                lambda: parts(trainer, pl_module),
                stop_on=self.options.get("stop_on"),
                unsupported=unsupported(trainer),
                snapshot_dir=log.parent if log is not None else None,
            )

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.guard is None:
            return
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        metrics = scalars({"loss": mean_over_ranks(trainer, loss)})
        if trainer.optimizers:
            metrics["learning_rate"] = float(trainer.optimizers[0].param_groups[0]["lr"])
        self._observe(trainer, trainer.global_step, metrics)

    def on_validation_end(self, trainer, pl_module):
        if self.guard is None or trainer.sanity_checking:
            return
        val = {k: v for k, v in scalars(dict(trainer.callback_metrics)).items() if k.startswith("val")}
        if val:
            self._observe(trainer, trainer.global_step, val, after_step=False)
        elif self.recoverer is None:
            self._share_stop(trainer)  # a rank that logged no val metric still takes its part

    def _observe(self, trainer, step: int, metrics: dict[str, float], after_step: bool = True) -> None:
        if self.recoverer is not None:
            self.recoverer.observe(step, snapshot=after_step, **metrics)
            self.guard = self.recoverer.guard
            if self.recoverer.should_stop:
                trainer.should_stop = True
            return
        self.guard.observe(step, **metrics)
        self._share_stop(trainer)

    def _share_stop(self, trainer) -> None:
        """Stop every rank when the main one's guard asks to (a collective, on every rank alike)."""
        if can_stop(self.options) and trainer.strategy.reduce_boolean_decision(
            bool(self.guard.should_stop and trainer.is_global_zero), all=False
        ):
            self.guard.should_stop = trainer.should_stop = True

    def on_train_end(self, trainer, pl_module):
        if self.recoverer is not None:
            self.report = trainer.strategy.broadcast(self.recoverer.close())
        elif self.guard is not None:
            self.report = trainer.strategy.broadcast(self.guard.close() if trainer.is_global_zero else None)


def mean_over_ranks(trainer: Any, loss: Any) -> Any:
    """The mean of a tensor loss over the ranks of a distributed run (the loss as given in one
    process, or when it is not a tensor)."""
    if trainer.world_size <= 1 or not hasattr(loss, "detach"):
        return loss
    return trainer.strategy.reduce(loss.detach().float().clone(), reduce_op="mean")


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
