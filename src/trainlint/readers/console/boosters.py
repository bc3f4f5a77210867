"""The evaluation lines of the gradient-boosting libraries (XGBoost, LightGBM, CatBoost).

A booster prints, at each boosting round, the value of each evaluation metric on each data set
it was given; no name says loss. The metric the booster is trained on is printed on its
training set when that set is among those evaluated:

- XGBoost (``EvaluationMonitor`` of the Python package, ``Learner::EvalOneIter`` of the C++ core
  behind the CLI and R): ``[<round>]`` then ``\\t<data>-<metric>:<value>`` per data set and
  metric (``+<std>`` in ``xgb.cv``): ``[0]\\ttrain-logloss:0.66\\tvalidation-logloss:0.67``. The
  scikit-learn wrapper names the sets of ``eval_set`` ``validation_0``, ``validation_1``, ...
- LightGBM (``log_evaluation``): ``[<round>]`` then ``\\t<data>'s <metric>: <value>`` (``+ <std>``
  in ``cv``): ``[10]\\ttraining's binary_logloss: 0.31\\tvalid_1's binary_logloss: 0.35``; its
  CLI logs ``[LightGBM] [Info] Iteration:10, training binary_logloss : 0.31``.
- CatBoost (``TConsoleLoggingBackend``): ``<iteration>:\\tlearn: <v>\\ttest: <v>\\tbest: <v>
  (<iteration>)\\ttotal: <time>\\tremaining: <time>``, the first metric of each set only: on the
  learning set the loss function optimised unless an ``eval_metric`` is set (then that metric on
  both sets: a ``learn`` value that rises is a score, no loss); on the test set the evaluation metric,
  which may be one where higher is better (AUC): ``best`` says which way it goes.

The loss is a loss metric (``logloss``, ``rmse``, ``l2``, ...; never ``auc`` or ``error``) on the
training set (XGBoost ``train``, LightGBM ``training``), the first printed when there are several
(a note says so); the evaluation loss is the same metric on the first other set. A log that
evaluates only other sets (``validation_0`` alone) has no training loss: its one set's loss
metric is an evaluation loss, judged as the loss because it is the only one (a note says so).
With several such sets and none named for training, which one is the training data cannot be
told (the wrapper's common ``eval_set=[(X_train, y_train), (X_test, y_test)]``): no loss is taken.
"""

from __future__ import annotations

import re

from .text import NUM, Capture, Line, lazy_regex

_XGB = lazy_regex(r"^\s*\[(\d+)\]((?:\s+[^\s:]+-[^\s:]+:%s(?:\+%s)?)+)\s*$" % (NUM, NUM))
_XGB_PAIR = lazy_regex(r"([^\s:]+?)-([^\s:]+):(%s)(?:\+%s)?" % (NUM, NUM))
_LGB = lazy_regex(r"^\s*\[(\d+)\]\t(.+?)\s*$")
_LGB_PAIR = lazy_regex(r"([^\t']+)'s ([^\t:]+): (%s)(?: \+ %s)?" % (NUM, NUM))
_LGB_CLI = lazy_regex(r"\bIteration:(\d+), (\S+) (\S+) : (%s)\s*$" % NUM)
_CATBOOST = lazy_regex(r"^\s*(\d+):\t(.*)$")
_CAT_PIECE = lazy_regex(
    r"(?:(learn|test\d*|validation(?:_\d+)?): (%s)(?:\tbest: (%s) \((\d+)\))?|(?:total|remaining): [\w. ]+)$"
    % (NUM, NUM)
)

_BEST = lazy_regex(r"(?i)\bbest iteration(?: is)?:\s*$")
_TRAIN_SETS = frozenset({"train", "training", "dtrain", "train_set", "trn", "learn"})
# The metrics that are losses (lower is better, the objective's own measure); auc, error rates,
# ndcg, map, precision are not.
_LOSS_METRICS = frozenset(
    {
        "rmse",
        "rmsle",
        "mae",
        "mape",
        "mphe",
        "mse",
        "logloss",
        "mlogloss",
        "binary_logloss",
        "multi_logloss",
        "l1",
        "l2",
        "l2_root",
        "huber",
        "fair",
        "poisson",
        "gamma",
        "tweedie",
        "quantile",
        "cross_entropy",
        "cross_entropy_lambda",
        "xentropy",
        "kullback_leibler",
    }
)


def is_loss_metric(metric: str) -> bool:
    """Whether a booster's metric name is a loss: ``logloss``, ``rmse``, ``poisson-nloglik``,
    ``tweedie-nloglik@1.5``, ``gamma_deviance``."""
    base = metric.lower().split("@")[0]
    return base in _LOSS_METRICS or base.endswith(("nloglik", "deviance", "loss"))


def xgboost(lines: list[Line]) -> Capture | None:
    """XGBoost's ``[round]\\t<data>-<metric>:<value>`` lines."""
    rows = []
    for i, line in enumerate(lines):
        m = _XGB.match(line.final)
        if m is not None and not _repeats_best(lines, i):
            rows.append((line.no, int(m[1]), [(d, k, float(v)) for d, k, v in _XGB_PAIR.findall(m[2])]))
    return _booster("xgboost", rows, "-")


def _repeats_best(lines: list[Line], i: int) -> bool:
    """Whether line ``i`` repeats the best round after an early stop: XGBoost's "Stopping. Best
    iteration:", LightGBM's "Early stopping, best iteration is:" (a point already read, at an
    earlier round than the last: no restart of the count)."""
    return i > 0 and _BEST.search(lines[i - 1].final) is not None


def lightgbm(lines: list[Line]) -> Capture | None:
    """LightGBM's ``[round]\\t<data>'s <metric>: <value>`` lines (and its CLI's ``Iteration:``)."""
    rows = []
    cli: dict[int, tuple[int, list[tuple[str, str, float]]]] = {}  # round: (its first line, its values)
    for i, line in enumerate(lines):
        text = line.final
        m = _LGB.match(text)
        if m is not None and not _repeats_best(lines, i):
            pairs = [_LGB_PAIR.fullmatch(p.strip()) for p in m[2].split("\t")]
            if all(pairs):
                rows.append((line.no, int(m[1]), [(p[1], p[2], float(p[3])) for p in pairs if p]))
            continue
        m = _LGB_CLI.search(text) if "Iteration:" in text else None
        if m is not None:  # the CLI logs one metric a line: a round's lines make one row
            cli.setdefault(int(m[1]), (line.no, []))[1].append((m[2], m[3], float(m[4])))
    if not rows:
        rows = [(no, r, pairs) for r, (no, pairs) in cli.items()]
    return _booster("lightgbm", rows, "/")


def _booster(framework: str, rows: list[tuple[int, int, list[tuple[str, str, float]]]], sep: str) -> Capture | None:
    if len(rows) < 2:
        return None
    cap = Capture(framework)
    sets: list[str] = []
    metrics: dict[str, list[str]] = {}
    for no, step, pairs in rows:
        for data, metric, value in pairs:
            name = f"{data}{sep}{metric}"
            cap.add(name, float(step), value)
            if data not in metrics:
                sets.append(data)
                metrics[data] = []
            if metric not in metrics[data]:
                metrics[data].append(metric)
        cap.lines.append(no)
    _choose(cap, sets, metrics, sep)
    return cap


def _choose(cap: Capture, sets: list[str], metrics: dict[str, list[str]], sep: str) -> None:
    """Declare the loss and the evaluation loss (run meta ``objective``, ``eval_objective``) or
    that there is none (``no_loss``), each with its reason."""
    train = next((s for s in sets if s.lower() in _TRAIN_SETS), None)
    others = [s for s in sets if s != train]
    if train is not None:
        losses = [k for k in metrics[train] if is_loss_metric(k)]
        if not losses:
            cap.meta["no_loss"] = f"no loss metric printed on the training set '{train}' ({', '.join(metrics[train])})"
            return
        metric = losses[0]
        why = f"the {cap.framework} metric '{metric}' on the training set '{train}'"
        if len(losses) > 1:
            why += f"; the first of its loss metrics ({', '.join(losses)}); use --map loss=NAME to choose"
        cap.meta["objective"], cap.meta["objective_why"] = f"{train}{sep}{metric}", why
        if others:
            ev = metric if metric in metrics[others[0]] else _first_loss(metrics[others[0]])
            if ev is not None:
                cap.meta["eval_objective"] = f"{others[0]}{sep}{ev}"
                cap.meta["eval_objective_why"] = f"the {cap.framework} metric '{ev}' on the set '{others[0]}'"
        return
    if len(others) == 1 and (ev := _first_loss(metrics[others[0]])) is not None:
        cap.meta["eval_objective"] = f"{others[0]}{sep}{ev}"
        cap.meta["eval_objective_why"] = (
            f"the {cap.framework} metric '{ev}' on '{others[0]}', the only data set evaluated: no training set "
            "is printed, so this is an evaluation loss"
        )
        return
    cap.meta["no_loss"] = (
        f"{cap.framework} evaluates {', '.join(sets)} and none is named as the training set: which one holds the "
        "training data is not said"
    )


def _first_loss(names: list[str]) -> str | None:
    return next((k for k in names if is_loss_metric(k)), None)


def catboost(lines: list[Line]) -> Capture | None:
    """CatBoost's ``N:\\tlearn: ..\\ttest: ..\\tbest: .. (i)\\ttotal: ..\\tremaining: ..`` lines."""
    cap = Capture("catboost")
    best: dict[str, list[tuple[float, float]]] = {}  # per set: (value, best so far as printed)
    for line in lines:
        m = _CATBOOST.match(line.final)
        if m is None:
            continue
        pieces = [_CAT_PIECE.match(p.strip()) for p in re.split(r"\t(?!best: )", m[2])]
        if not pieces or not all(pieces) or not any(p[1] for p in pieces if p):
            continue
        for p in pieces:
            if p is not None and p[1]:
                cap.add(p[1], float(m[1]), float(p[2]))
                if p[3] is not None:
                    best.setdefault(p[1], []).append((float(p[2]), float(p[3])))
        cap.lines.append(line.no)
    if len(cap.lines) < 2:
        return None
    if "learn" in cap.cols and _rises_as_a_score(cap.cols["learn"][1]):
        cap.notes.append(
            "CatBoost's 'learn' value rises over the run: boosting lowers its loss on the learning set "
            "round after round, so this is an evaluation metric where higher is better (eval_metric "
            "Accuracy, AUC, F1), not the loss; no loss is taken"
        )
    elif "learn" in cap.cols:
        cap.meta["objective"] = "learn"
        cap.meta["objective_why"] = "CatBoost's 'learn' value: its loss function on the learning set"
        cap.meta["loss_unnamed"] = True  # which function (RMSE by default for a regressor) goes unsaid
    test = next((s for s in cap.cols if s != "learn"), None)
    if test is not None and _lower_is_better(best.get(test, [])):
        cap.meta["eval_objective"] = test
        cap.meta["eval_objective_why"] = f"CatBoost's '{test}' value, whose 'best' is its lowest"
    return cap


# CatBoost prints the first metric of each set; with ``eval_metric="Accuracy"`` that is the accuracy,
# on the learning set too (``N:\tlearn: 0.48 ... 1499:\tlearn: 0.96``, Thalaivar/DDP training.out).
# Boosting lowers its objective on the learning set at almost every round: a 'learn' value that
# rises at most rounds and ends above where it began is a score, never the loss.
_SCORE_RISE_SHARE = 0.75


def _rises_as_a_score(values: list[float]) -> bool:
    """Whether a CatBoost 'learn' series rises like a score: its changes mostly rises (three in
    four or more) and its last value above its first."""
    ups = sum(b > a for a, b in zip(values, values[1:]))
    downs = sum(b < a for a, b in zip(values, values[1:]))
    return values[-1] > values[0] and ups >= _SCORE_RISE_SHARE * (ups + downs) and ups > 0


def _lower_is_better(pairs: list[tuple[float, float]]) -> bool:
    """Whether the printed ``best`` is the lowest value so far at every line, and not always the
    highest too (a metric that only fell, or one that is flat, would say nothing)."""
    low, high, told = float("inf"), float("-inf"), False
    for value, shown in pairs:
        low, high = min(low, value), max(high, value)
        if abs(shown - low) > 1e-6 * max(1.0, abs(low)):
            return False
        told = told or low != high
    return told


RECOGNISERS = ((xgboost, ":"), (lightgbm, ("'s ", "Iteration:")), (catboost, "\ttotal: "))
