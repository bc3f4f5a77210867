"""The guard inside real training loops (CPU, tiny models): a hot learning rate is stopped
soon after its loss goes bad; a healthy run with a warm-up plateau is never stopped."""

from __future__ import annotations

import json
import math
import os

import pytest

torch = pytest.importorskip("torch", reason="torch (CPU build) is a test dependency: pip install torch==2.13.0")

N_FEATURES = 8


def regression_data(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, N_FEATURES, generator=g)
    w = torch.randn(N_FEATURES, generator=g)
    y = x @ w + 0.1 * torch.randn(n, generator=g)
    return x, y


def first_bad(losses, factor=10.0):
    """Index of the first loss that is non-finite or `factor` times the first one."""
    for i, v in enumerate(losses):
        if not math.isfinite(v) or v > factor * losses[0]:
            return i
    return None


# -- Hugging Face Trainer ------------------------------------------------------------------
def test_hf_callback_leaves_out_the_summary_by_the_readers_test(monkeypatch):
    """GuardCallback.on_log skips the final summary as hf_trainer_state.is_summary_entry says:
    a key added to SUMMARY_KEYS (monkeypatched) is skipped too."""
    from types import SimpleNamespace

    pytest.importorskip("transformers")
    from trainlint.integrations.hf import GuardCallback
    from trainlint.readers import hf_trainer_state

    seen = []
    cb = GuardCallback()
    cb.guard = SimpleNamespace(observe=lambda step, **m: seen.append((step, m)), should_stop=False)
    state, control = SimpleNamespace(global_step=5), SimpleNamespace()
    cb.on_log(None, state, control, logs={"loss": 1.0, "run_done": 1.0})
    cb.on_log(None, state, control, logs={"train_runtime": 3.0, "train_loss": 1.0})
    monkeypatch.setattr(hf_trainer_state, "SUMMARY_KEYS", (*hf_trainer_state.SUMMARY_KEYS, "run_done"))
    cb.on_log(None, state, control, logs={"loss": 0.9, "run_done": 1.0})
    assert seen == [(5, {"loss": 1.0, "run_done": 1.0})]


def hf_run(tmp_path, lr, warmup_steps=0, max_steps=150, stop_on="FAIL"):
    transformers = pytest.importorskip("transformers")
    from trainlint.integrations.hf import GuardCallback

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(N_FEATURES, 1)

        def forward(self, x, labels=None):
            out = self.lin(x).squeeze(-1)
            return {"loss": ((out - labels) ** 2).mean(), "logits": out}

    torch.manual_seed(0)
    x, y = regression_data()
    data = [{"x": x[i], "labels": y[i]} for i in range(len(y))]
    from _recovery_runs import sgd_cpu_args

    args = sgd_cpu_args(
        tmp_path,
        max_steps=max_steps,
        per_device_train_batch_size=16,
        learning_rate=lr,
        warmup_steps=warmup_steps,
        lr_scheduler_type="constant_with_warmup" if warmup_steps else "constant",
    )
    guard = GuardCallback(stop_on=stop_on)
    trainer = transformers.Trainer(model=Tiny(), args=args, train_dataset=data, callbacks=[guard])
    trainer.train()
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    return trainer, guard, losses


def test_hf_hot_lr_is_stopped_soon_after_the_loss_goes_bad(tmp_path):
    trainer, guard, losses = hf_run(tmp_path, lr=0.9)
    bad = first_bad(losses)
    assert bad is not None, "the hot run did not go bad: the test lost its premise"
    assert guard.guard.should_stop and trainer.state.global_step < 150
    assert len(losses) - 1 - bad <= 10, (bad, len(losses))
    lines = [json.loads(x) for x in (tmp_path / "trainlint-guard.jsonl").read_text().splitlines()]
    assert any(r["type"] == "stop" for r in lines)
    assert guard.report.verdict.value == "FAIL"


def test_hf_healthy_run_with_warmup_plateau_is_never_stopped(tmp_path):
    trainer, guard, losses = hf_run(tmp_path, lr=0.05, warmup_steps=60)
    assert trainer.state.global_step == 150 and not guard.guard.should_stop
    assert losses[-1] < losses[0]


# -- Lightning -----------------------------------------------------------------------------
def lightning_run(tmp_path, lr, stop_on="FAIL", max_steps=150):
    L = pytest.importorskip("lightning")
    from _recovery_runs import lightning_cpu_trainer

    from trainlint.integrations.lightning import GuardCallback

    x, y = regression_data()
    losses = []

    class Module(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(N_FEATURES, 1)

        def training_step(self, batch, idx):
            xb, yb = batch
            loss = ((self.lin(xb).squeeze(-1) - yb) ** 2).mean()
            losses.append(float(loss.detach()))
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=lr)

    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16, shuffle=True)
    guard = GuardCallback(stop_on=stop_on)
    trainer = lightning_cpu_trainer(tmp_path, max_steps, guard)
    trainer.fit(Module(), loader)
    return trainer, guard, losses


def test_lightning_hot_lr_is_stopped(tmp_path):
    trainer, guard, losses = lightning_run(tmp_path, lr=0.9)
    bad = first_bad(losses)
    assert bad is not None and guard.guard.should_stop
    assert trainer.global_step < 150 and len(losses) - 1 - bad <= 10


def test_lightning_healthy_is_not_stopped(tmp_path):
    trainer, guard, losses = lightning_run(tmp_path, lr=0.02)
    assert trainer.global_step == 150 and not guard.guard.should_stop


# -- Keras 3 on the torch backend ----------------------------------------------------------
def keras_run(lr, stop_on="FAIL", epochs=8):
    os.environ.setdefault("KERAS_BACKEND", "torch")
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip(f"keras runs on the {keras.backend.backend()} backend here, not torch")
    from trainlint.integrations.keras import GuardCallback

    x, y = regression_data()
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((N_FEATURES,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=lr), loss="mse")
    guard = GuardCallback(stop_on=stop_on)
    hist = model.fit(
        x.numpy(), y.numpy(), batch_size=16, epochs=epochs, verbose=0, callbacks=[guard], validation_split=0.2
    )
    return guard, hist


def test_keras_hot_lr_is_stopped():
    guard, hist = keras_run(lr=1.5)
    assert guard.guard.should_stop and len(hist.history["loss"]) < 8


def test_keras_healthy_is_not_stopped():
    guard, hist = keras_run(lr=0.01)
    assert not guard.guard.should_stop and len(hist.history["loss"]) == 8
