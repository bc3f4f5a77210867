"""Compare runs with a known-good baseline (one run, or several seeds of one recipe).

- :mod:`.align`: put runs on one axis (steps, or fraction of training) and find the common window.
- :mod:`.metrics`: measure each run over that window (loss floor, end level, improvement,
  curve, eval loss, grad-norm level, throughput, LR schedule).
- :mod:`.band`: limits from documented ratios (one baseline run) or the baseline runs' spread.
- :mod:`.model`: the :class:`Comparison` the ``compare`` rules (TL150-TL199) judge.
- :mod:`.session`: load a baseline once, compare runs with it, build the table.
"""

from __future__ import annotations

from .align import Alignment, align, planned_length
from .model import METRICS, Comparison, Metric
from .session import Baseline, BaselineSession, compare_run, load_baseline, table

__all__ = ["METRICS", "Alignment", "Baseline", "BaselineSession", "Comparison", "Metric", "align",
           "compare_run", "load_baseline", "planned_length", "table"]
