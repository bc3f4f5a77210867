"""The logs of DARTS (quark0/darts) and the architecture-search code built on its scripts
(PC-DARTS, SDARTS, P-DARTS and their forks; AI-Tech-Research-Lab/AsquaredM's W&B ``output.log``).

``train_search.py`` and ``train.py`` log, every ``--report_freq`` steps of an epoch, one row of
unnamed columns: ``logging.info('train %03d %e %f %f', step, objs.avg, top1.avg, top5.avg)``:
``train 050 2.092995e+00 21.292892 73.621323``, the step in the epoch zero-filled, the epoch's
running mean of the loss in ``%e`` form, the top-1 and top-5 accuracy; ``valid`` rows the same over
the validation queue after each epoch; ``epoch 3 lr 2.495858e-02`` before each epoch. The
training loss is the ``train`` rows' second column, at the count of rows so far (the step restarts
each epoch); the evaluation loss is each validation pass's last ``valid`` row (the mean over the
whole queue), at the training row it follows.
"""

from __future__ import annotations

from .text import Capture, Line, lazy_regex

# A number as %f and %e print it, one way only to match it (NUM's "\d+\.?\d*" before an end
# that fails backtracks over a long run of digits in quadratic time).
_PRINTED = r"-?\d+(?:\.\d+)?(?:e[-+]\d+)?|nan|-?inf"
# The %e form of the loss ("2.345711e+00", "nan") makes the row DARTS's, not any three numbers.
_ROW = lazy_regex(r"^(train|valid) (\d{3,}) (\d\.\d+e[-+]\d{2,3}|nan|-?inf) (%s) (%s)\s*$" % (_PRINTED, _PRINTED))
_EPOCH = lazy_regex(r"^epoch (\d+) lr (%s)\s*$" % _PRINTED)


def darts_log(lines: list[Line]) -> Capture | None:
    """DARTS's ``train``/``valid`` rows: ``train_loss`` and ``valid_loss`` with their accuracies."""
    cap = Capture("darts")
    trained, pending = 0, None  # training rows so far; the validation pass's last row not yet kept
    for line in lines:
        text = line.final.strip()
        m = _ROW.match(text)
        if m is None:
            epoch = _EPOCH.match(text)
            if epoch is not None:
                _keep_valid(cap, trained, pending)
                pending = None
                cap.add("epoch", trained + 1, float(epoch[1]))
                cap.add("learning_rate", trained + 1, float(epoch[2]))
            continue
        cap.lines.append(line.no)
        values = {"loss": float(m[3]), "top1": float(m[4]), "top5": float(m[5])}
        if m[1] == "valid":
            pending = values
            continue
        _keep_valid(cap, trained, pending)
        pending = None
        trained += 1
        cap.add_all(trained, {"train_" + k: v for k, v in values.items()})
    _keep_valid(cap, trained, pending)
    if len(cap.cols.get("train_loss", ((), ()))[0]) < 2:
        return None
    cap.meta["objective"] = "train_loss"
    cap.meta["objective_why"] = "DARTS's train rows: step, running mean of the loss (%e), top-1, top-5"
    if "valid_loss" in cap.cols:
        cap.meta["eval_objective"] = "valid_loss"
        cap.meta["eval_objective_why"] = "the last valid row of a pass: the loss over the whole validation queue"
    return cap


def _keep_valid(cap: Capture, step: int, values: dict[str, float] | None) -> None:
    """A finished validation pass's last row, at the training row it follows."""
    if values is not None and step > 0:
        cap.add_all(step, {"valid_" + k: v for k, v in values.items()})


RECOGNISERS = ((darts_log, "train 000 "),)
