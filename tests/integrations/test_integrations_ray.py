"""Ray Tune: a real local Tune experiment (CPU) where the trials with a broken learning rate
are stopped by GuardStopper soon after their loss goes bad and the healthy ones run to the end."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

pytest.importorskip("ray.tune")

STEPS = 150
WARMUP = 40
HEALTHY_LR, BROKEN_LR = 0.05, 1.6


def sgd_losses(peak_lr, seed):
    """Linear regression by minibatch SGD in numpy, the LR warmed up linearly over WARMUP steps:
    (step, loss, LR, grad norm) per step."""
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
            yield step, float(np.mean(err**2)), lr, float(np.linalg.norm(grad))


def sgd_trainable(config):
    from ray import tune

    for step, loss, lr, grad_norm in sgd_losses(config["lr"], config["seed"]):
        tune.report({"step": step, "loss": loss, "lr": lr, "grad_norm": grad_norm})


def first_bad(losses, factor=10.0):
    for i, v in enumerate(losses):
        if not math.isfinite(v) or v > factor * losses[0]:
            return i
    return None


@pytest.fixture
def local_ray():
    import ray
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests/
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


def test_tune_broken_lr_trials_stopped_early_healthy_ones_run_to_the_end(tmp_path, local_ray):
    from ray import tune

    from trainlint.integrations.ray import GuardStopper

    logs = tmp_path / "guard-logs"
    stopper = GuardStopper(stop_on="FAIL", log_dir=logs)
    space = {
        "lr": tune.grid_search([HEALTHY_LR, BROKEN_LR]),
        "seed": tune.grid_search([0, 1]),
    }
    run_config = tune.RunConfig(stop=stopper, storage_path=str(tmp_path), name="guard", verbose=0)
    grid = tune.Tuner(sgd_trainable, param_space=space, run_config=run_config).fit()
    assert len(grid) == 4 and not grid.errors
    for res in grid:
        last = res.metrics["step"]  # the last step the trial reported
        records = [json.loads(x) for x in (logs / res.metrics["trial_id"] / "trainlint-guard.jsonl").open()]
        stops = [r for r in records if r["type"] == "stop"]
        end = records[-1]
        assert end["type"] == "end"
        if res.config["lr"] == HEALTHY_LR:
            assert last == STEPS and not stops and end["verdict"] in ("PASS", "WARN")
        else:
            losses = [loss for _, loss, _, _ in sgd_losses(BROKEN_LR, res.config["seed"])]
            bad = first_bad(losses)
            assert bad is not None, "the broken trial did not go bad: the test lost its premise"
            assert last < STEPS and len(stops) == 1 and stops[0]["severity"] == "FAIL"
            assert last - (bad + 1) <= 10, (bad + 1, last)
            assert end["verdict"] == "FAIL"


def test_stop_all_once_every_trial_was_stopped():
    from trainlint.integrations.ray import GuardStopper

    stopper = GuardStopper(stop_on="nan", num_trials=2)
    for trial in ("a", "b"):
        for step in range(1, 30):
            loss = 2.0 / step if step < 20 else float("nan")
            stopped = stopper(
                trial,
                {
                    "training_iteration": step,
                    "loss": loss,
                    "time_total_s": 0.1 * step,
                    "pid": 123,
                    "done": False,
                },
            )
            if stopped:
                break
        assert stopped and stopper.stopped[trial].category == "nan"
        assert stopper.stop_all() is (trial == "b")
    # Tune's own bookkeeping is not judged as metrics
    assert set(stopper.guards["a"].history.by_name) == {"loss"}


def test_without_num_trials_the_experiment_is_never_ended_early():
    """A broken trial stopped before a healthy one has reported (a slow start, a loaded
    machine) must not end the experiment: that would kill the healthy trial unseen."""
    from trainlint.integrations.ray import GuardStopper

    stopper = GuardStopper(stop_on="nan")
    for step in range(1, 30):
        if stopper("broken", {"training_iteration": step, "loss": 2.0 / step if step < 20 else float("nan")}):
            break
    assert "broken" in stopper.stopped
    assert stopper.stop_all() is False
