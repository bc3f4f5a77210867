"""Keras 3: ``model.fit(..., callbacks=[GuardCallback(stop_on="FAIL")])``."""

from __future__ import annotations

from typing import Any

import keras

from ._common import make_guard, scalars


class GuardCallback(keras.callbacks.Callback):
    """Judges the batch logs (Keras reports the epoch's running mean loss) and the epoch's
    validation metrics; stops through ``model.stop_training``. Warns only by default."""

    def __init__(self, stop_on: Any = None, output_dir: str | None = None, **guard_options: Any) -> None:
        super().__init__()
        self.options = {"stop_on": stop_on, **guard_options}
        self.output_dir = output_dir
        self.guard = None
        self.report = None
        self.step = 0

    def on_train_begin(self, logs=None):
        epochs = self.params.get("epochs") if self.params else None
        self.guard = make_guard(self.options, self.output_dir, {"num_train_epochs": epochs} if epochs else {})

    def _lr(self) -> dict[str, float]:
        try:
            return {"learning_rate": float(keras.ops.convert_to_numpy(self.model.optimizer.learning_rate))}
        except (AttributeError, TypeError, ValueError):
            return {}

    def on_train_batch_end(self, batch, logs=None):
        self.step += 1
        if self.guard is None:
            return
        train = {k: v for k, v in scalars(logs).items() if not k.startswith("val_")}
        self.guard.observe(self.step, **train, **self._lr())
        if self.guard.should_stop:
            self.model.stop_training = True

    def on_epoch_end(self, epoch, logs=None):
        val = {k: v for k, v in scalars(logs).items() if k.startswith("val_")}
        if self.guard is not None and val:
            self.guard.observe(self.step, **val)
            if self.guard.should_stop:
                self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.guard is not None:
            self.report = self.guard.close()
