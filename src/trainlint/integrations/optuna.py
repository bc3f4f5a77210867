"""Optuna: ``optuna.create_study(pruner=GuardPruner(stop_on="FAIL"))``.

The objective reports its loss as usual (``trial.report(loss, step)``) and may also keep the
latest grad norm and learning rate as user attributes (``trial.set_user_attr("grad_norm",
g)``, ``"lr"``); each ``trial.should_prune()`` feeds what is new to that trial's streaming
:class:`trainlint.Guard`, and the trial is pruned when the stop policy says so, or when the
wrapped pruner (``GuardPruner(wrapped=optuna.pruners.MedianPruner())``) wants to.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import optuna
from optuna.pruners import BasePruner

from ..live.guard import Guard
from ..verdict import Finding
from ._common import LOG_NAME, scalars


class GuardPruner(BasePruner):
    """Prunes the trials whose intermediate values (and user-attribute metrics) the guard
    finds broken: a NaN loss, a divergence, an LR that went to zero, ...

    ``metric``: the name the intermediate values are judged as (default ``loss``; the role
    aliases apply, so ``eval_loss`` or ``val_loss`` work too). ``user_attrs``: the user
    attributes read as metrics at the latest step (default: every real-number attribute).
    ``log_dir``: each trial's guard writes ``LOG_DIR/trial-<number>/trainlint-guard.jsonl``.
    Other keywords go to each trial's :class:`~trainlint.Guard`. ``stopped`` maps a trial
    number to the finding that pruned it (in this process).
    """

    def __init__(
        self,
        stop_on: Any = "FAIL",
        *,
        wrapped: BasePruner | None = None,
        metric: str = "loss",
        user_attrs: tuple[str, ...] | None = None,
        log_dir: str | Path | None = None,
        **guard_options: Any,
    ) -> None:
        self.options = {"stop_on": stop_on, **guard_options}
        self.wrapped = wrapped
        self.metric = metric
        self.user_attrs = user_attrs
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.guards: dict[tuple[str, int], tuple[Guard, float]] = {}
        self.stopped: dict[int, Finding] = {}

    def _guard(self, study: optuna.study.Study, number: int) -> tuple[Guard, float]:
        key = (study.study_name, number)
        if key not in self.guards:
            log = self.log_dir / f"trial-{number}" / LOG_NAME if self.log_dir is not None else None
            guard = Guard(
                source=f"optuna:{study.study_name}/{number}",
                **{"log_path": log, **self.options},
            )
            self.guards[key] = (guard, -math.inf)
        return self.guards[key]

    def _attrs(self, trial: optuna.trial.FrozenTrial) -> dict[str, float]:
        attrs = scalars(trial.user_attrs)
        if self.user_attrs is not None:
            attrs = {k: v for k, v in attrs.items() if k in self.user_attrs}
        return {k: v for k, v in attrs.items() if k != self.metric}

    def _feed(self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial) -> Guard:
        guard, fed = self._guard(study, trial.number)
        new = sorted((s, v) for s, v in trial.intermediate_values.items() if s > fed)
        for i, (step, value) in enumerate(new):
            extra = self._attrs(trial) if i == len(new) - 1 else {}  # attributes hold the latest values
            guard.observe(step, **{self.metric: float(value)}, **extra)
        if new:
            self.guards[(study.study_name, trial.number)] = (guard, new[-1][0])
        return guard

    def prune(self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial) -> bool:
        guard = self._feed(study, trial)
        if guard.should_stop and guard.stop_reason is not None:
            if trial.number not in self.stopped:
                self.stopped[trial.number] = guard.stop_reason
                guard.close()
            return True
        return bool(self.wrapped is not None and self.wrapped.prune(study, trial))
