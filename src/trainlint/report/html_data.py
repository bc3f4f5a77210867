"""The data block of the HTML page: everything the page draws, taken from a Result only.

Curves come from ``Report.curves`` (already min/max-downsampled by the engine); numbers are
written compactly (steps as deltas, values with 6 significant digits, non-finite values as
``null`` plus a list of their steps) so a page of 100 runs stays a few megabytes.
"""

from __future__ import annotations

import math
from typing import Any

from ..verdict import Finding, Report, Result, _clean
from .common import ORIGINS, interrupted_text

ORDER = {"FAIL": 0, "NOT-CHECKED": 1, "WARN": 2, "PASS": 3}
VERDICTS = ("FAIL", "NOT-CHECKED", "WARN", "PASS")

# Panels of a run, top to bottom: (panel id, title, roles drawn in it).
PANELS = (
    ("loss", "loss", ("loss",)),
    ("eval_loss", "eval loss", ("eval_loss",)),
    ("learning_rate", "learning rate", ("learning_rate",)),
    ("grad_norm", "grad norm", ("grad_norm",)),
    ("step_time", "step time (s)", ("step_time",)),
    ("throughput", "throughput", ("throughput",)),
)


def page_data(result: Result, reload: float | None = None) -> dict[str, Any]:
    """The JSON object embedded in the page (also what the golden test compares). ``reload``:
    the page reloads itself every that many seconds (a live page; None for a static report)."""
    from .. import __version__

    reports = sorted(enumerate(result.reports), key=lambda p: (ORDER[p[1].verdict.value], p[0]))
    counts = {v: 0 for v in VERDICTS}
    for r in result.reports:
        counts[r.verdict.value] += 1
    cap = points_cap(result.reports)
    return {
        "tool": {"name": "trainlint", "version": __version__},
        "command": result.command,
        "verdict": result.verdict.value,
        "exit_code": result.exit_code,
        "reason": result.empty_reason,
        # a command stopped by a signal: the line the text view prints (the reports are those
        # judged by then); None when it ran to the end
        "interrupted": interrupted_text(result),
        "counts": counts,
        "reports": [report_data(r, f"r{i}", cap) for i, r in reports],
        "table": _clean(result.extra.get("table")),
        "reload": reload if reload and reload > 0 else None,
    }


# The drawn points of a page, all series together: each series keeps up to CURVE_POINTS (the
# engine's downsampling) while a page of many runs stays under its size (a thousand runs of five
# series each keep MIN_POINTS, min/max-preserving, so every spike and NaN is still drawn).
PAGE_POINTS = 600_000
MIN_POINTS = 100


def points_cap(reports: list[Report]) -> int | None:
    """The most points a series keeps on this page; None keeps the engine's curves whole."""
    n = sum(1 for r in reports for k in (r.curves or {}) if not k.startswith("x:"))
    if n == 0 or PAGE_POINTS // n >= 1000:
        return None
    return max(MIN_POINTS, PAGE_POINTS // n)


def report_data(report: Report, rid: str, cap: int | None = None) -> dict[str, Any]:
    curves = report.curves or {}
    loss = curves.get("loss")
    first = report.findings[0] if report.findings else None
    return {
        "id": rid,
        "source": report.source,
        "kind": report.kind,
        "format": report.format,
        "verdict": report.verdict.value,
        "reason": report.unjudged,
        "scope": report.scope,  # "on 10 points: trend rules need 20" (a log too short for the trend rules)
        "points": int(loss["points"]) if loss else _points(report),
        "sparkline": _sparkline(loss),
        "first_finding": f"{first.code} {first.message}" if first else None,
        "first_code": first.code if first else None,
        "codes": sorted({f.code for f in report.findings}),
        "stats": run_stats(curves),
        "axes": axes(curves),
        "findings": [finding_data(f, _last_step(report)) for f in report.findings],
        "checks": report.checks.to_dict(),
        "notes": list(report.notes),
        "files": list(report.files) or [report.source],
        "summary": _clean(report.summary),
        "panels": panels(curves, cap),
        "marks": marks(report),
    }


def _points(report: Report) -> int | None:
    value = report.summary.get("loss_points") if isinstance(report.summary, dict) else None
    return int(value) if isinstance(value, (int, float)) else None


def _sparkline(curve: dict[str, Any] | None) -> str:

    from ..downsample import sparkline

    if not curve or not curve.get("values"):
        return ""
    return sparkline(_floats(curve["values"]), 24)


def _num(v: Any) -> float:
    if isinstance(v, str):
        return float(v.replace("Infinity", "inf"))
    return float(v)


def _last_step(report: Report) -> float | None:
    loss = (report.curves or {}).get("loss")
    if loss and loss.get("steps"):
        return float(loss["steps"][-1])
    return _finite(report.summary.get("last_step")) if isinstance(report.summary, dict) else None


def finding_data(f: Finding, last_step: float | None = None) -> dict[str, Any]:
    out = f.to_dict()
    out["range"] = finding_range(f, last_step)
    spikes = f.evidence.get("spike_steps")
    out["extra_steps"] = [_step(s) for s in spikes] if isinstance(spikes, (list, tuple)) else []
    if f.origin in ORIGINS:  # a comparison report's finding: the run alone, or against the baseline
        out["origin_label"] = ORIGINS[f.origin]
    return out


def finding_range(f: Finding, last_step: float | None = None) -> list[float] | None:
    """The step range a finding covers, from its evidence, when the evidence gives one.

    start_step..end_step (a blow-up or a stalled stretch); first_step..last_step;
    best_step..best_step + steps_past_best (the stretch after the best point);
    best_step..last_step (stale best eval); tail_start_step..step (a decayed LR tail);
    restored_step..step (a recovery's rolled-back window, up to the fault);
    first_step..the run's last step when the evidence says it lasts to the end."""
    ev = f.evidence
    if ev.get("non_finite_to_end") is True:
        ev = {**ev, "last_step": last_step}
    pairs = (
        ("start_step", "end_step"),
        ("first_step", "last_step"),
        ("best_step", "last_step"),
        ("tail_start_step", None),
        ("restored_step", None),
    )
    for lo_key, hi_key in pairs:
        lo = _finite(ev.get(lo_key))
        hi = _finite(ev.get(hi_key)) if hi_key else _finite(f.step)
        if lo is not None and hi is not None and hi > lo:
            return [_step(lo), _step(hi)]
    lo, past = _finite(ev.get("best_step")), _finite(ev.get("steps_past_best"))
    if lo is not None and past:
        return [_step(lo), _step(lo + past)]
    return None


def _finite(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "item"):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def _step(v: Any) -> float | int:
    v = float(v)
    return int(v) if v.is_integer() else v


def marks(report: Report) -> list[dict[str, Any]]:
    """Steps worth a mark on every panel: the best eval point and the best-model checkpoint."""
    out = []
    ev = (report.curves or {}).get("eval_loss")
    if ev and ev.get("values"):
        best = _best_index(ev["values"])
        if best is not None:
            out.append(
                {
                    "kind": "best_eval",
                    "step": _step(ev["steps"][best]),
                    "label": f"best eval loss {_fmt(_num(ev['values'][best]))}",
                }
            )
    ck = report.marks.get("best_model_checkpoint")
    if isinstance(ck, dict) and _finite(ck.get("step")) is not None:
        out.append(
            {
                "kind": "best_checkpoint",
                "step": _step(ck["step"]),
                "label": f"best-model checkpoint {ck.get('name', '')}".strip(),
            }
        )
    return out


def _best_index(values: list[Any]) -> int | None:
    import numpy as np

    x = _floats(values)
    x = np.where(np.isfinite(x), x, np.inf)
    return int(np.argmin(x)) if len(x) and np.isfinite(x.min()) else None


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def run_stats(curves: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The runs table's numbers, from the engine's curves (min/max downsampling keeps the best
    point and the last one): the final loss (None when not finite, ``final_finite`` false), the
    best loss, the best eval loss and its step, the last step."""
    out: dict[str, Any] = {}
    loss, ev = curves.get("loss"), curves.get("eval_loss")
    if loss and loss.get("values"):
        last = _num(loss["values"][-1])
        out["final_loss"] = last if math.isfinite(last) else None
        out["final_finite"] = math.isfinite(last)
        best = _best_index(loss["values"])
        out["best_loss"] = _num(loss["values"][best]) if best is not None else None
        out["steps"] = _step(loss["steps"][-1])
    if ev and ev.get("values"):
        best = _best_index(ev["values"])
        if best is not None:
            out["best_eval"] = _num(ev["values"][best])
            out["best_eval_step"] = _step(ev["steps"][best])
    return out


def axes(curves: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The other x axes the log has (epoch, time, tokens), each as steps and that axis' values."""
    out = {}
    for key, curve in curves.items():
        if key.startswith("x:"):
            exp = scale_exponent(curve["values"])
            dsteps, values, _bad = encode(curve["steps"], curve["values"], exp, 6)
            out[key[2:]] = {"exp": exp, "dsteps": dsteps, "values": values}
    return out


def _thinned(curve: dict[str, Any], cap: int | None) -> dict[str, Any]:
    """A curve min/max-downsampled again to ``cap`` points (a band's lo/hi along with it)."""
    if cap is None or len(curve.get("values", ())) <= cap:
        return curve
    import numpy as np

    from ..downsample import minmax_downsample

    steps = _floats(curve["steps"])
    idx, _ = minmax_downsample(np.arange(len(steps)), _floats(curve["values"]), cap)
    out = {**curve, "steps": steps[idx].tolist(), "values": [curve["values"][i] for i in idx]}
    for side in ("lo", "hi"):
        if side in curve:
            out[side] = [curve[side][i] for i in idx]
    return out


def panels(curves: dict[str, dict[str, Any]], cap: int | None = None) -> list[dict[str, Any]]:
    """One panel per role present; a comparison's baseline curve (or band) joins its role's panel.
    ``cap``: at most that many points per series (a page of many runs)."""
    out = []
    for pid, title, roles in PANELS:
        series = []
        for role in roles:
            if role in curves:
                series.append(series_data(role, "run", _thinned(curves[role], cap)))
            if f"baseline:{role}" in curves:
                series.append(series_data(role, "baseline", _thinned(curves[f"baseline:{role}"], cap)))
        if any(s["kind"] == "run" for s in series):
            out.append({"id": pid, "title": title, "series": series})
    return out


# Significant digits kept per drawn value: the loss curves keep more (their hover values are
# read closely); the others are drawn and hovered with four.
DIGITS = {"loss": 5, "eval_loss": 5}


def series_data(role: str, kind: str, curve: dict[str, Any]) -> dict[str, Any]:
    """One drawn series; ``values`` (and a band's ``lo``/``hi``) are in units of 10**exp."""
    raw = curve.get("values", [])
    exp = scale_exponent(raw)
    digits = DIGITS.get(role, 4)
    steps, values, bad = encode(curve.get("steps", []), raw, exp, digits)
    out: dict[str, Any] = {
        "role": role,
        "kind": kind,
        "name": curve.get("name", role),
        "points": curve.get("points", len(values)),
        "exp": exp,
        "dsteps": steps,
        "values": values,
        "nonfinite": bad,
    }
    for side in ("lo", "hi"):
        if side in curve:
            out[side] = encode(curve["steps"], curve[side], exp, digits)[1]
    if "runs" in curve:
        out["runs"] = curve["runs"]
    return out


def scale_exponent(values: list[Any]) -> int:
    """The power of ten of the largest finite magnitude (values are written in its units, so a
    learning rate of 3e-4 is written 3, not 0.0003)."""
    import numpy as np

    x = np.abs(_floats(values))
    x = x[np.isfinite(x)]
    big = float(x.max()) if len(x) else 0.0
    return math.floor(math.log10(big)) if big > 0 else 0


def encode(
    steps: list[Any], values: list[Any], exp: int = 0, digits: int = 6
) -> tuple[list[Any], list[Any], list[Any]]:
    """Steps as deltas from the previous one; values in units of 10**exp rounded to ``digits``
    significant digits (non-finite ones as null, their steps listed apart)."""
    import numpy as np

    s = _floats(steps)[: len(values)]
    x = _floats(values)[: len(s)]
    ok = np.isfinite(x)
    dsteps = _compact(np.round(np.diff(s, prepend=0.0), 9))
    out = _compact(np.where(ok, _significant(x / 10.0**exp, digits), 0.0))
    for i in np.flatnonzero(~ok).tolist():
        out[i] = None
    return dsteps, out, _compact(s[~ok])


def _floats(values: Any) -> Any:
    """A float array of a curve's values (None, "NaN" and "Infinity" as the floats they name)."""
    import numpy as np

    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return np.array([math.nan if v is None else _num(v) for v in values], dtype=np.float64)


def _significant(x: Any, digits: int) -> Any:
    """``x`` rounded to ``digits`` significant digits, each the double nearest its decimal (an
    integer divided or multiplied by an exact power of ten)."""
    import numpy as np

    with np.errstate(all="ignore"):
        mag = np.floor(np.log10(np.abs(x)))
        k = np.where(np.isfinite(mag), digits - 1 - mag, 0.0)
        p = 10.0 ** np.abs(k)
        y = np.where(k >= 0, np.round(x * p) / p, np.round(x / p) * p)
    return np.where(np.isfinite(y), y, x)


def _compact(a: Any) -> list[Any]:
    """A float array as a JSON-ready list, integral values as ints (written without ``.0``)."""
    return [int(v) if v.is_integer() else v for v in a.tolist()]
