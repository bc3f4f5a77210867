"""Hugging Face Trainer: ``trainer.add_callback(GuardCallback(stop_on="FAIL"))``; with
``recover=True`` (or a :class:`~trainlint.integrations.recover.Recovery`) a recoverable fault
rolls the run back to its last good in-memory snapshot instead of stopping it.

Under DDP (``torchrun``) the Trainer logs a loss already averaged over the ranks, so every
rank's guard sees the same records; the main process writes the log and takes the stop
decision, which every rank applies at the same step; every rank ends with its report."""

from __future__ import annotations

import sys
from typing import Any

from transformers import Trainer, TrainerCallback

from ..readers.hf_trainer_state import is_summary_entry
from . import _torchstate as ts
from ._common import can_stop, log_path, make_guard, scalars
from .recover import Recoverer, Recovery


class GuardCallback(TrainerCallback):
    """Judges every log the Trainer writes; stops training through ``control`` when the
    policy says so (optionally saving a checkpoint first). Warns only by default.

    ``recover``: on a non-finite loss or gradient norm, a divergence, or a loss spike with
    a gradient explosion, restore the last good snapshot (weights, optimizer, scheduler,
    scaler, RNG), skip the batches since it and go on; ``global_step`` is not rewound."""

    def __init__(
        self,
        stop_on: Any = None,
        *,
        save_before_stop: bool = False,
        recover: bool | Recovery = False,
        **guard_options: Any,
    ) -> None:
        self.options = {"stop_on": stop_on, **guard_options}
        self.save_before_stop = save_before_stop
        self.recovery = Recovery.of(recover)
        self.guard = None
        self.recoverer: Recoverer | None = None
        self.report = None
        self._parts: ts.Parts | None = None
        self._trainer: Trainer | None = None

    def on_train_begin(self, args, state, control, **kwargs):
        warmup = self.options.get("warmup_steps")
        if warmup is None and state.max_steps and state.max_steps > 0:
            ratio_steps = getattr(args, "warmup_ratio", 0) * state.max_steps
            steps = getattr(args, "warmup_steps", 0)
            warmup = float(steps if isinstance(steps, int) and steps > 0 else ratio_steps or 0)
        meta = {
            "max_steps": state.max_steps,
            "num_train_epochs": args.num_train_epochs,
            "logging_steps": args.logging_steps,
        }
        options = {**self.options, "warmup_steps": warmup}
        if self.recovery is not None:
            options["stop_on"] = None  # the recoverer decides what stops the run
        self.guard = make_guard(options, args.output_dir, meta, main=state.is_world_process_zero)
        if self.recovery is not None:
            self._start_recovery(args, kwargs)

    def _start_recovery(self, args, kwargs) -> None:
        log = log_path(self.options, args.output_dir)
        self._trainer = _calling_trainer()
        self._take_parts(kwargs)
        self.recoverer = Recoverer(
            self.recovery,
            self.guard,
            lambda: self._parts,
            stop_on=self.options.get("stop_on"),
            unsupported=unsupported(args),
            snapshot_dir=log.parent if log is not None else None,
        )

    def _take_parts(self, kwargs) -> None:
        optimizer = kwargs.get("optimizer")
        scaler = getattr(optimizer, "scaler", None)
        self._parts = ts.Parts(kwargs.get("model"), optimizer, kwargs.get("lr_scheduler"), scaler)

    def on_step_end(self, args, state, control, **kwargs):
        if self.recoverer is not None:
            self._take_parts(kwargs)
            self.recoverer.after_step(state.global_step)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if self.guard is None or not logs or is_summary_entry(logs):
            return
        if self.recoverer is not None:
            self._recover_on_log(state, control, logs)
            return
        self.guard.observe(state.global_step, **scalars(logs))
        if can_stop(self.options) and ts.agree([int(self.guard.should_stop)])[0]:  # the main rank's
            self.guard.should_stop = True
            self._stop(control)

    def _recover_on_log(self, state, control, logs) -> None:
        rec = self.recoverer
        done = len(rec.actions)
        rec.observe(state.global_step, snapshot=False, **scalars(logs))
        self.guard = rec.guard
        if len(rec.actions) > done:
            self._clear_loss_total()
        if rec.should_stop:
            self._stop(control)

    def _clear_loss_total(self) -> None:
        """The Trainer sums the loss between logs in a tensor it zeroes by subtracting it
        from itself, which keeps a NaN forever: a rollback zeroes it."""
        total = getattr(self._trainer, "_tr_loss", None)
        if total is not None and hasattr(total, "zero_"):
            total.zero_()

    def _stop(self, control) -> None:
        control.should_training_stop = True
        if self.save_before_stop:
            control.should_save = True

    def on_train_end(self, args, state, control, **kwargs):
        if self.recoverer is not None:
            self.report = ts.from_rank0(self.recoverer.close())
        elif self.guard is not None:
            self.report = ts.from_rank0(self.guard.close() if state.is_world_process_zero else None)


def unsupported(args: Any) -> str | None:
    """Where an in-memory rollback is not possible: sharded states (a recoverable fault then
    stops every rank at the same step)."""
    if getattr(args, "deepspeed", None):
        return "DeepSpeed"
    if getattr(args, "fsdp", None) or getattr(args, "fsdp_config", None) and args.fsdp_config.get("fsdp_version"):
        return "FSDP"
    return None


def _calling_trainer() -> Trainer | None:
    """The Trainer whose loop called this callback (the callback API does not hand it over;
    its loss total is needed after a rollback): the ``self`` of a calling frame."""
    frame = sys._getframe(1)
    for _ in range(12):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        if isinstance(owner, Trainer):
            return owner
        frame = frame.f_back
    return None
