"""Ray Tune: ``tune.RunConfig(stop=GuardStopper(stop_on="FAIL"))``.

One streaming :class:`trainlint.Guard` per trial judges the metrics the trial reports
(``tune.report({"loss": ..., "lr": ...})``; names go through the same role aliases as
everywhere, ``role_map`` overrides them), and the trial is stopped when the stop policy
says so: severities ("FAIL", "WARN"), rule codes ("TL001") or categories ("nan").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ray.tune import Stopper
from ray.tune.result import AUTO_RESULT_KEYS

from ..live.guard import Guard
from ..verdict import Finding, Report
from ._common import LOG_NAME, scalars

# What Tune adds to every result: bookkeeping, not the trial's metrics.
TUNE_KEYS = frozenset(AUTO_RESULT_KEYS) | {
    "done",
    "trial_id",
    "experiment_id",
    "experiment_tag",
    "should_checkpoint",
    "timesteps_this_iter",
    "episodes_this_iter",
    "warmup_time",
    "time_since_restore",
}
STEP_KEYS = ("step", "global_step", "training_iteration")


class GuardStopper(Stopper):
    """Stops each trial the guard finds broken; ``stop_all()`` when every trial was stopped.

    ``num_trials``: how many trials the experiment has (``num_samples`` times the grid);
    ``stop_all()`` is true once the guard has stopped that many. Without it ``stop_all()``
    stays false: the stopper cannot tell a trial that has not reported yet from one that does
    not exist, and ending the experiment then would kill healthy trials still starting (each
    trial is still stopped on its own). Other keywords go to each trial's
    :class:`~trainlint.Guard` (``settings``, ``role_map``, ``warmup_steps``, ``meta``, ...).

    ``log_dir``: each trial's guard writes ``LOG_DIR/<trial_id>/trainlint-guard.jsonl`` (its
    findings, the stop and the final verdict; ``trainlint doctor LOG_DIR`` reads them). Tune
    works on a copy of the stopper, so these files are how the verdicts reach you; within
    the copy, ``reports`` holds each trial's final report and ``stopped`` the finding that
    stopped each stopped trial.
    """

    def __init__(
        self,
        stop_on: Any = "FAIL",
        *,
        num_trials: int | None = None,
        log_dir: str | Path | None = None,
        **guard_options: Any,
    ) -> None:
        self.options = {"stop_on": stop_on, **guard_options}
        self.num_trials = num_trials
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.guards: dict[str, Guard] = {}
        self.stopped: dict[str, Finding] = {}
        self.reports: dict[str, Report] = {}

    def _guard(self, trial_id: str) -> Guard:
        guard = self.guards.get(trial_id)
        if guard is None:
            log = self.log_dir / trial_id / LOG_NAME if self.log_dir is not None else None
            options = {"log_path": log, **self.options}
            guard = self.guards[trial_id] = Guard(source=f"tune-trial:{trial_id}", **options)
        return guard

    def __call__(self, trial_id: str, result: dict[str, Any]) -> bool:
        guard = self._guard(trial_id)
        step = next(
            (result[k] for k in STEP_KEYS if isinstance(result.get(k), (int, float))),
            guard.history.records,
        )
        metrics = {k: v for k, v in scalars(result).items() if k not in TUNE_KEYS and k not in STEP_KEYS}
        if metrics:
            guard.observe(step, **metrics)
        if guard.should_stop and guard.stop_reason is not None:
            self.stopped.setdefault(trial_id, guard.stop_reason)
        if trial_id in self.stopped or result.get("done"):
            self._close(trial_id)
        return trial_id in self.stopped

    def _close(self, trial_id: str) -> None:
        if trial_id not in self.reports:
            self.reports[trial_id] = self.guards[trial_id].close()

    def stop_all(self) -> bool:
        return self.num_trials is not None and len(self.stopped) >= self.num_trials
