"""Tolerance: documented ratios for one baseline run, a band from the spread of several.

With one baseline run a metric is judged by fixed ratios to it (each rule documents
its ``warn_ratio`` and ``fail_ratio``). With several baseline runs (seeds of one
recipe) the limits come from their own spread: the worst baseline value plus
``band_warn_sigmas`` (WARN) or ``band_fail_sigmas`` (FAIL) standard deviations of the
baseline values, the SD widened for few runs by the Student-t factor t(0.975, n-1)/1.96
(the SD of two runs says little). A band is never looser than the ratios (a noisy baseline cannot hide a
fault) and never tighter than ``band_min_margin`` around the baseline median for WARN
or the WARN ratio for FAIL (two close seeds do not make every third seed fail).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
import numpy as np

from ..registry import Threshold
from .stats import median

BAND_THRESHOLDS = (
    Threshold("band_warn_sigmas", 3.0, "several baseline runs: WARN beyond the worst one plus this many SDs"),
    Threshold("band_fail_sigmas", 6.0, "several baseline runs: FAIL beyond the worst one plus this many SDs"),
    Threshold("band_min_margin", 0.08, "several baseline runs: WARN limit at least this far off their median"),
)


# Student-t 97.5 % quantiles for 1..30 degrees of freedom; divided by 1.96 they say how much
# wider the spread of a few runs must be taken than the spread of many.
_T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)


def small_sample_factor(n: int) -> float:
    """How much to widen the SD of ``n`` baseline values: t(0.975, n-1) / 1.96 (6.5 for 2 runs,
    2.2 for 3, 1.4 for 5, 1.0 for many)."""
    if n < 2:
        return float("inf")
    return (_T975[n - 2] if n - 2 < len(_T975) else 1.96) / 1.96


class Limits(msgspec.Struct):
    center: float  # the baseline value (median of the baseline runs)
    warn: float
    fail: float
    higher_is_worse: bool
    basis: str  # how the limits were made, in words

    def severity(self, value: float) -> str | None:
        if self.higher_is_worse:
            return "FAIL" if value >= self.fail else "WARN" if value >= self.warn else None
        return "FAIL" if value <= self.fail else "WARN" if value <= self.warn else None

    def limit_for(self, severity: str) -> float:
        return self.fail if severity == "FAIL" else self.warn


def limits(base: list[float], warn_ratio: float, fail_ratio: float, t: Mapping[str, float]) -> Limits:
    """Limits for a metric whose baseline values are ``base`` (all positive).

    ``warn_ratio`` > 1 means higher is worse; < 1 means lower is worse (then a
    ``fail_ratio`` of 0 means the metric never FAILs)."""
    vals = np.asarray(base, dtype=np.float64)
    center = float(median(vals))
    higher = warn_ratio > 1
    rw, rf = center * warn_ratio, center * fail_ratio
    if len(vals) < 2:
        return Limits(center, rw, rf, higher, f"1 baseline run: WARN at {warn_ratio:g}x, FAIL at {fail_ratio:g}x")
    sd = float(np.std(vals, ddof=1)) * small_sample_factor(len(vals))
    kw, kf, margin = t["band_warn_sigmas"], t["band_fail_sigmas"], t["band_min_margin"]
    if higher:
        edge = float(vals.max())
        warn = min(rw, max(edge + kw * sd, center * (1 + margin)))
        fail = max(warn, min(rf, max(edge + kf * sd, rw)))
    else:
        edge = float(vals.min())
        warn = max(rw, min(edge - kw * sd, center * (1 - margin)))
        fail = min(warn, max(rf, min(edge - kf * sd, rw))) if fail_ratio > 0 else 0.0
    basis = (
        f"band of {len(vals)} baseline runs ({vals.min():.4g}-{vals.max():.4g}, widened sd {sd:.3g}): "
        f"WARN {'above' if higher else 'below'} {warn:.4g}, FAIL {'above' if higher else 'below'} {fail:.4g}"
    )
    return Limits(center, warn, fail, higher, basis)
