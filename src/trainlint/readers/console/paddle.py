"""PaddlePaddle's high-level API, ``paddle.Model.fit``: its ``ProgBarLogger`` callback's lines.

``fit`` prints ``Epoch k/N`` before each epoch, then every ``log_freq`` steps (``verbose=2``;
``verbose=1`` redraws one line) ``step i/n - loss: 0.1637 - acc: 0.5273 - 53ms/step``: the loss
of that step (Paddle says so in its own note: "The loss value printed in the log is the current
step, and the metric is the average value of previous steps"). An evaluation after the epoch
(``eval_data``) prints ``Eval begin...``, its own ``step i/m - loss: ..`` lines and ``Eval samples:
N``. The step counter starts again each epoch and in each evaluation, so a reader of the step
lines alone takes the evaluation's batches for training and the step for a global one.

Here the training step is the epoch's offset plus the step in it (``(k - 1) * n + i``); an
evaluation's values are its last line's (the metrics' averages over the evaluation) placed at
the training step before it, but for its loss, which is the mean of the losses it printed (each
one batch's: the last alone would be one batch), a note says so.
"""

from __future__ import annotations

from .text import NUM, Capture, Line, lazy_regex

_EPOCH = lazy_regex(r"^\s*Epoch (\d+)/(\d+)\s*$")
_STEP = lazy_regex(r"^\s*step\s+(\d+)(?:/(\d+))?\b(.*)$")
_METRIC = lazy_regex(r"\s-\s([A-Za-z_][\w./]*):\s+(%s)(?=\s|$)" % NUM)
_EVAL_BEGIN = lazy_regex(r"^\s*Eval begin\.\.\.\s*$")
_EVAL_END = lazy_regex(r"^\s*Eval samples: \d+\s*$")


class _Fit:
    """What the lines read so far say: the epoch, the training step, the evaluation under way."""

    def __init__(self) -> None:
        self.cap = Capture("paddle-hapi")
        self.epoch: int | None = None
        self.planned: int | None = None
        self.per_epoch = 0.0
        self.step = 0.0
        self.evaluating = False
        self.losses: list[float] = []
        self.last: dict[str, float] = {}
        self.evals = 0

    def train(self, no: int, i: float, n: float, values: dict[str, float]) -> None:
        self.per_epoch = max(self.per_epoch, n or i)
        self.step = ((self.epoch or 1) - 1) * self.per_epoch + i
        self.cap.add_all(self.step, values)
        self.matched(no)

    def evaluate(self, no: int, values: dict[str, float]) -> None:
        if "loss" in values:
            self.losses.append(values["loss"])
        self.last = values
        self.matched(no)

    def matched(self, no: int) -> None:
        if not self.cap.lines or self.cap.lines[-1] != no:  # a line's redraws (verbose=1) count once
            self.cap.lines.append(no)

    def close_eval(self) -> None:
        if self.evaluating and self.last:
            values = {f"eval_{k}": v for k, v in self.last.items() if k != "loss"}
            if self.losses:
                values["eval_loss"] = sum(self.losses) / len(self.losses)
            self.cap.add_all(self.step, values)
            self.evals += 1
        self.evaluating, self.losses, self.last = False, [], {}


def paddle_fit(lines: list[Line]) -> Capture | None:
    """The training and evaluation lines of ``paddle.Model.fit``'s progress logger."""
    fit = _Fit()
    for line in lines:
        for seg in line.segments:
            _take(fit, line.no, seg)
    fit.close_eval()
    cap = fit.cap
    if fit.epoch is None or "loss" not in cap.cols or len(cap.cols["loss"][0]) < 2:
        return None
    cap.meta["planned_epochs"] = fit.planned
    if fit.evals:
        cap.notes.append(
            f"{fit.evals} evaluation(s) read: eval_loss is the mean of the batch losses each printed"
            " (Paddle prints one batch's loss a line), its other metrics the last line's averages"
        )
    return cap


def _take(fit: _Fit, no: int, seg: str) -> None:
    if (head := _EPOCH.match(seg)) is not None:
        fit.close_eval()
        fit.epoch, fit.planned = int(head[1]), int(head[2])
        return
    if _EVAL_BEGIN.match(seg):
        fit.close_eval()
        fit.evaluating = True
        return
    if _EVAL_END.match(seg):
        fit.close_eval()
        return
    m = _STEP.match(seg)
    if m is None or fit.epoch is None and not fit.evaluating:
        return
    values = {name: float(v) for name, v in _METRIC.findall(m[3])}
    if not values:
        return
    if fit.evaluating:
        fit.evaluate(no, values)
    else:
        fit.train(no, float(m[1]), float(m[2] or 0), values)


RECOGNISERS = ((paddle_fit, "step "),)
