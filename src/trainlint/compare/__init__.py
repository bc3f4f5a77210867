"""Compare runs with a known-good baseline (one run, or several seeds of one recipe).

- :mod:`.align`: put runs on one axis (steps, or fraction of training) and find the common window.
- :mod:`.metrics`: measure each run over that window (loss floor, end level, improvement,
  curve, eval loss, grad-norm level, throughput, LR schedule).
- :mod:`.model`: the :class:`Comparison` the ``compare`` rules (TL150-TL199) judge.

Limits (``rules.band``) and the session that loads a baseline (``inspectors.comparison``) live
with the rules and the inspectors.
"""

from __future__ import annotations

from .align import Alignment, align, planned_length
from .model import METRICS, Comparison, Metric

__all__ = ["METRICS", "Alignment", "Comparison", "Metric", "align", "planned_length"]
