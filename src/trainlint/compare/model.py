"""The subject of the comparison rules: one run measured beside its baseline runs."""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np

from ..model import Run
from .align import Alignment
from .metrics import RunMetrics

# key -> (label, attribute of RunMetrics, unit shown in the table)
METRICS: dict[str, tuple[str, str]] = {
    "loss_floor": ("loss floor", "floor"),
    "loss_end": ("end loss", "end"),
    "improvement": ("improvement", "improvement"),
    "loss_gap": ("mean loss ratio", "gap"),
    "eval_best": ("best eval loss", "eval_best"),
    "grad_norm": ("grad-norm level", "grad_level"),
    "throughput": ("throughput", "throughput"),
    "lr_peak": ("peak LR", "lr_peak"),
}


class Metric(msgspec.Struct):
    key: str
    label: str
    run: float | None
    base: list[float]

    @property
    def center(self) -> float | None:
        return float(np.median(self.base)) if self.base else None

    @property
    def ratio(self) -> float | None:
        c = self.center
        if self.run is None or c is None or c == 0 or not np.isfinite(self.run):
            return None
        return self.run / c

    def cell(self) -> dict[str, Any]:
        out: dict[str, Any] = {"run": self.run, "baseline": self.center, "ratio": self.ratio}
        if len(self.base) > 1:
            out["baseline_range"] = [min(self.base), max(self.base)]
        return out


class Comparison(msgspec.Struct):
    """A run, its baseline runs, how they were aligned, and what was measured on each."""

    run: Run
    baselines: list[Run]
    alignment: Alignment
    run_m: RunMetrics
    base_m: list[RunMetrics]
    run_gap: float | None = None  # mean loss ratio of the run to the baseline centre curve
    base_gaps: list[float] = msgspec.field(default_factory=list)  # the same for each baseline run

    def metric(self, key: str) -> Metric:
        label, attr = METRICS[key]
        if key == "loss_gap":
            run_v, base = self.run_gap, list(self.base_gaps)
        else:
            run_v = getattr(self.run_m, attr)
            base = [getattr(b, attr) for b in self.base_m]
        base = [float(v) for v in base if v is not None and np.isfinite(v)]
        return Metric(key, label, None if run_v is None else float(run_v), base)

    def table_row(self) -> dict[str, Any]:
        return {key: self.metric(key).cell() for key in METRICS}


def loss_gaps(run_m: RunMetrics, base_m: list[RunMetrics]) -> tuple[float | None, list[float]]:
    """Mean ratio of each smoothed loss curve to the pointwise median of the baseline curves
    (the area between the curves, as a ratio). None when a curve is missing or the baseline
    centre is not positive everywhere."""
    curves = [b.curve for b in base_m]
    if run_m.curve is None or not curves or any(c is None for c in curves):
        return None, []
    stack = np.vstack(curves)
    centre = np.median(stack, axis=0)
    if not np.all(centre > 0):
        return None, []
    if len(curves) == 1:
        return float(np.mean(run_m.curve / centre)), [1.0]
    # each baseline run against the median of the others, so its own curve does not pull the centre
    others = [np.median(np.delete(stack, i, axis=0), axis=0) for i in range(len(curves))]
    if not all(np.all(o > 0) for o in others):
        return None, []
    return float(np.mean(run_m.curve / centre)), [float(np.mean(c / o)) for c, o in zip(curves, others)]
