"""Optuna: a real study where GuardPruner prunes the trials whose loss goes NaN or diverges,
soon after it does, and never a healthy one; a wrapped pruner still has its say."""

from __future__ import annotations

import math

import numpy as np
import pytest

optuna = pytest.importorskip("optuna")

STEPS, WARMUP = 150, 40


def sgd(peak_lr, seed, nan_at=None):
    """(step, loss, LR, grad norm) of minibatch SGD on a linear regression, LR warmed up."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(256, 8))
    y = x @ rng.normal(size=8) + 0.1 * rng.normal(size=256)
    w = np.zeros(8)
    with np.errstate(all="ignore"):
        for step in range(1, STEPS + 1):
            idx = rng.integers(0, 256, 16)
            err = x[idx] @ w - y[idx]
            grad = 2 * x[idx].T @ err / 16
            lr = peak_lr * min(1.0, step / WARMUP)
            w = w - lr * grad
            loss = float(np.mean(err**2))
            if nan_at is not None and step >= nan_at:  # an overflow in the forward pass
                loss = math.nan
            yield step, loss, lr, float(np.linalg.norm(grad))


def objective(trial):
    lr = trial.suggest_float("lr", 1e-3, 2.0, log=True)
    nan_at = trial.suggest_int("nan_at", 0, STEPS + 1)
    loss = math.nan
    for step, loss, cur_lr, grad_norm in sgd(lr, trial.number, nan_at if nan_at <= STEPS else None):
        trial.set_user_attr("grad_norm", grad_norm)
        trial.set_user_attr("lr", cur_lr)
        trial.report(loss, step)
        if trial.should_prune():
            raise optuna.TrialPruned()
    return loss


def first_bad(values, factor=10.0):
    for i, v in enumerate(values):
        if not math.isfinite(v) or v > factor * values[0]:
            return i + 1
    return None


PLAN = [  # healthy, diverging, healthy, NaN at step 90, healthy
    {"lr": 0.05, "nan_at": STEPS + 1},
    {"lr": 1.6, "nan_at": STEPS + 1},
    {"lr": 0.03, "nan_at": STEPS + 1},
    {"lr": 0.05, "nan_at": 90},
    {"lr": 0.02, "nan_at": STEPS + 1},
]


def run_study(pruner):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(pruner=pruner, sampler=optuna.samplers.RandomSampler(seed=0))
    for params in PLAN:
        study.enqueue_trial(params)
    study.optimize(objective, n_trials=len(PLAN))
    return study


def test_nan_and_divergent_trials_pruned_healthy_ones_complete(tmp_path):
    from trainlint.integrations.optuna import GuardPruner

    pruner = GuardPruner(stop_on="FAIL", log_dir=tmp_path)
    study = run_study(pruner)
    states = [t.state.name for t in study.trials]
    assert states == ["COMPLETE", "PRUNED", "COMPLETE", "PRUNED", "COMPLETE"]
    for t in study.trials:
        if t.state.name == "COMPLETE":
            assert t.last_step == STEPS and t.number not in pruner.stopped
            continue
        full = [
            loss
            for _, loss, _, _ in sgd(
                t.params["lr"],
                t.number,
                t.params["nan_at"] if t.params["nan_at"] <= STEPS else None,
            )
        ]
        bad = first_bad(full)
        assert bad is not None and t.last_step - bad <= 10, (bad, t.last_step)
        assert pruner.stopped[t.number].severity.value == "FAIL"
    assert pruner.stopped[3].category == "nan" and pruner.stopped[1].category != "nan"
    assert (tmp_path / "trial-3" / "trainlint-guard.jsonl").is_file()


def test_grad_norm_and_lr_user_attrs_reach_the_guard():
    from trainlint.integrations.optuna import GuardPruner

    pruner = GuardPruner()
    run_study(pruner)
    guard, _ = pruner.guards[(next(iter(pruner.guards))[0], 0)]
    assert {"loss", "grad_norm", "lr"} <= set(guard.history.by_name)
    assert guard.history.by_name["lr"] == "learning_rate"


def test_wrapped_pruner_still_prunes():
    from trainlint.integrations.optuna import GuardPruner

    class PruneTrialTwo(optuna.pruners.BasePruner):
        def prune(self, study, trial):
            return trial.number == 2 and trial.last_step >= 5

    pruner = GuardPruner(stop_on="FAIL", wrapped=PruneTrialTwo())
    study = run_study(pruner)
    assert [t.state.name for t in study.trials] == [
        "COMPLETE",
        "PRUNED",
        "PRUNED",
        "PRUNED",
        "COMPLETE",
    ]
    assert study.trials[2].last_step == 5 and 2 not in pruner.stopped
