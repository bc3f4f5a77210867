"""Resumed runs: split a Run whose step counter goes backwards into segments.

A log that holds a resume (the step counter resets or goes back to a checkpoint) is not
one broken curve: the log rules judge each segment on its own, while the rules that look
at the run as a whole (completion, crash, stalls, the resume itself, damage) see it once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..model import Run, Series
from ..verdict import Report

WHOLE_RUN = frozenset({"TL080", "TL081", "TL090", "TL095", "TL100"})


def resets(steps: np.ndarray) -> np.ndarray:
    """Indices i where steps[i] < steps[i-1] (the counter went backwards)."""
    return np.flatnonzero(np.diff(steps) < 0) + 1


def reference(run: Run) -> Series | None:
    """The series that defines the segments: the loss, else the longest series."""
    loss = run.get("loss")
    if loss is not None and len(loss):
        return loss
    return max(run.series.values(), key=len, default=None)


def _pieces(s: Series, cuts: np.ndarray) -> list[Series]:
    bounds = [0, *cuts.tolist(), len(s)]
    return [Series(s.name, s.steps[a:b], s.values[a:b], None if s.wall is None else s.wall[a:b])
            for a, b in zip(bounds[:-1], bounds[1:])]


def _place(s: Series, ref_pieces: list[Series], ref_wall_cuts: list[float] | None) -> list[Series | None]:
    """Split one series into as many pieces as the reference has."""
    n = len(ref_pieces)
    own = resets(s.steps)
    if len(own) == n - 1:
        return list(_pieces(s, own))
    if s.wall is not None and ref_wall_cuts is not None:
        cuts = np.searchsorted(s.wall, ref_wall_cuts)
        return list(_pieces(s, cuts))
    out: list[Series | None] = [None] * n
    if len(own) == 0 and len(s) and s.steps[0] >= ref_pieces[-1].steps[0]:
        out[-1] = s
    elif len(own) == 0 and len(s) and s.steps[-1] <= ref_pieces[0].steps[-1]:
        out[0] = s
    return out


def split_segments(run: Run) -> list[Run]:
    """The run's segments (one per stretch of non-decreasing steps of the loss); [run] if none."""
    ref = reference(run)
    if ref is None or len(ref) < 2:
        return [run]
    cuts = resets(ref.steps)
    if len(cuts) == 0:
        return [run]
    ref_pieces = _pieces(ref, cuts)
    wall_cuts = None if ref.wall is None else [float(ref.wall[c]) for c in cuts]
    segs = [replace(run, series={}, notes=[], damage=[], events=[], meta=dict(run.meta))
            for _ in ref_pieces]
    dropped = []
    for name, s in run.series.items():
        placed = _place(s, ref_pieces, wall_cuts) if s is not ref else ref_pieces
        if all(p is None for p in placed):
            dropped.append(name)
        for seg, piece in zip(segs, placed):
            if piece is not None and len(piece):
                seg.series[name] = piece
    for seg in segs:
        seg.roles = {r: n for r, n in run.roles.items() if n in seg.series}
    if dropped:
        run.notes.append("not judged per segment (cannot tell which segment they belong to): "
                         + ", ".join(sorted(dropped)[:8]))
    return segs


def judge_segments(run: Run, segs: list[Run], report: Report,
                   runner: Callable[..., Report]) -> Report:
    """Judge the whole-run rules once and every other log rule per segment, into ``report``.

    ``runner(subject, report, only)`` applies the rules accepted by ``only`` (a Rule -> bool)."""
    runner(run, report, lambda r: r.code in WHOLE_RUN)
    ran: dict[str, None] = {}
    for k, seg in enumerate(segs, 1):
        sub = runner(seg, Report(source=report.source, kind="log"), lambda r: r.code not in WHOLE_RUN)
        ref = reference(seg)
        span = f"{ref.steps[0]:g}-{ref.steps[-1]:g}" if ref is not None and len(ref) else "?"
        for f in sub.findings:
            f.message = f"segment {k}/{len(segs)} (steps {span}): {f.message}"
            f.evidence["segment"] = k
            report.findings.append(f)
        for code in sub.checks.ran:
            ran[code] = None
        for code, why in sub.checks.stood_down.items():
            report.checks.stood_down.setdefault(code, f"segment {k}: {why}")
        for code, why in sub.checks.not_checked.items():
            report.checks.not_checked.setdefault(code, f"segment {k}: {why}")
    report.checks.ran.extend(c for c in ran if c not in report.checks.ran)
    for code in ran:
        report.checks.not_checked.pop(code, None)
    return report
