"""Hugging Face Trainer: ``trainer.add_callback(GuardCallback(stop_on="FAIL"))``."""

from __future__ import annotations

from typing import Any

from transformers import TrainerCallback

from ..readers.hf_trainer_state import is_summary_entry
from ._common import make_guard, scalars


class GuardCallback(TrainerCallback):
    """Judges every log the Trainer writes; stops training through ``control`` when the
    policy says so (optionally saving a checkpoint first). Warns only by default."""

    def __init__(self, stop_on: Any = None, *, save_before_stop: bool = False, **guard_options: Any) -> None:
        self.options = {"stop_on": stop_on, **guard_options}
        self.save_before_stop = save_before_stop
        self.guard = None
        self.report = None

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
        self.guard = make_guard({**self.options, "warmup_steps": warmup}, args.output_dir, meta)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if self.guard is None or not logs or is_summary_entry(logs):
            return
        self.guard.observe(state.global_step, **scalars(logs))
        if self.guard.should_stop:
            control.should_training_stop = True
            if self.save_before_stop:
                control.should_save = True

    def on_train_end(self, args, state, control, **kwargs):
        if self.guard is not None:
            self.report = self.guard.close()
