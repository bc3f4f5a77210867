"""Kinds a blind sample of outside logs (probe round 32b: structured files a mechanical scan found,
``rank4.json``, ``rank2.json``, ``swing_validation_report.json``, ``catboost_training.json``,
labelled before trainlint read them) found read wrong: a run's JSON holding its per-step records
nested by epoch (``"updates": {"0": {"0050": {"global_step": 50, "train_loss": ..}}}``) had read
each epoch as one record and each step as a metric of its own, so only the six per-epoch records
held a loss; a stock backtest's count of losing trades in a row (``consecutive_losses``) had been
taken for a loss and judged FAIL for sitting at 0; CatBoost's own JSON log (``meta`` naming the
metrics, ``iterations`` holding their values in lists) had read with no loss. Each fixture is made
up in the shape of the real file (repository, path and commit recorded with it; no copied lines)
and asserts the series read: names, steps, first and last values, and which is the loss."""

from __future__ import annotations

import json
import math

from trainlint.api import judge, read_run

EPOCHS = 4
PER_EPOCH = 6  # per-step records an epoch
EVERY = 50  # steps between two per-step records
STEPS_PER_EPOCH = 320


def _train(k: int) -> float:
    return round(2.5 + 6.0 * math.exp(-k / 300), 6)


def _lr(k: int, total: int) -> float:
    """A cosine schedule that ends at exactly 0 on the last step."""
    return 3e-4 * 0.5 * (1 + math.cos(math.pi * min(k, total) / total))


def _straggle_run() -> dict:
    """gkrls/straggle-ml-experiments data/train/gpt2/natural/reactive/rank4.json
    @58756a87f7cf6d6357bd9e300127b8522ebafa3e (and roberta/.., qwen25-metamath40k/.. rank2.json):
    the run's config, then ``epochs`` (one record per epoch, keyed "0", "1", .., each holding the
    epoch's mean train loss, its val loss, the lr at its end and its last ``global_step``),
    ``updates`` (per-step records nested by epoch, keyed by the step within the epoch, zero-padded,
    each holding its ``global_step``) and ``minival`` (a quick eval nested the same way)."""
    total = EPOCHS * STEPS_PER_EPOCH
    epochs, updates, minival = {}, {}, {}
    for e in range(EPOCHS):
        end = (e + 1) * STEPS_PER_EPOCH
        epochs[str(e)] = {
            "train_loss": _train(end - 160),
            "val_loss": _train(end) - 0.1,
            "lr": _lr(end, total),
            "steps": STEPS_PER_EPOCH,
            "global_step": end,
            "epoch_time": 812.5,
        }
        updates[str(e)] = {
            f"{i * EVERY:04d}": {
                "global_step": e * STEPS_PER_EPOCH + i * EVERY,
                "train_loss": _train(e * STEPS_PER_EPOCH + i * EVERY),
                "lr": _lr(e * STEPS_PER_EPOCH + i * EVERY, total),
                "step_time": 8.3,
            }
            for i in range(1, PER_EPOCH + 1)
        }
        minival[str(e)] = {
            f"{i * 150:04d}": {"global_step": e * STEPS_PER_EPOCH + i * 150, "mini_val_loss": 3.0 - 0.1 * e}
            for i in (1, 2)
        }
    config = {"rank": 4, "world_size": 8, "epochs": EPOCHS, "lr": 3e-4}
    return {"time": "2026-01-01 00:00:00", "config": config, "epochs": epochs, "updates": updates, "minival": minival}


def test_per_step_records_nested_by_epoch_are_one_table(tmp_path):
    path = tmp_path / "rank4.json"
    path.write_text(json.dumps(_straggle_run(), indent=2))
    run = read_run(path)
    assert run.roles["loss"] == "updates/train_loss"
    loss = run.series["updates/train_loss"]
    assert len(loss.steps) == EPOCHS * PER_EPOCH
    assert loss.steps[0] == EVERY and loss.steps[-1] == (EPOCHS - 1) * STEPS_PER_EPOCH + PER_EPOCH * EVERY
    assert loss.values[0] == _train(EVERY) and loss.values[-1] == _train(int(loss.steps[-1]))
    assert not any(n.startswith(("updates/0050", "epochs/0")) for n in run.series)  # no step made a metric
    # the per-epoch records are placed at their own global step, on the per-step records' axis
    assert run.roles["eval_loss"] == "epochs/val_loss"
    assert list(run.series["epochs/val_loss"].steps) == [(e + 1) * STEPS_PER_EPOCH for e in range(EPOCHS)]
    assert list(run.series["minival/mini_val_loss"].steps)[:2] == [150, 300]


def test_the_learning_rate_beside_the_loss_is_the_one_judged(tmp_path):
    """The per-epoch ``lr`` ends at exactly 0 (the cosine schedule's end); the per-step one beside
    the loss is the schedule at the loss's steps: no "learning rate is zero" warning."""
    path = tmp_path / "rank2.json"
    path.write_text(json.dumps(_straggle_run(), indent=2))
    run = read_run(path)
    assert run.roles["learning_rate"] == "updates/lr"
    assert "TL040" not in {f.code for f in judge(run).findings}


def _backtest_report() -> dict:
    """Venkatachla/Stock-Market-Analysis backtest/swing_validation_report.json
    @3adb82fe3b673ec4ddc3c33af804bd6cd447a528 (a swing-trading backtest's report: the portfolio's
    summary, then one summary per stock, most of them without a trade, each counting its losing
    trades in a row)."""
    stocks = [
        {
            "symbol": f"SYM{i}",
            "total_return": 0.004 * (i % 3),
            "win_rate": 80.0 if i % 3 else 0.0,
            "sharpe_ratio": 2.5 if i % 3 else 0.0,
            "consecutive_losses": 1 if i == 1 else 0,
            "num_trades": 4.0 if i % 3 else 0.0,
        }
        for i in range(12)
    ]
    summary = {"total_return": 0.012, "win_rate": 85.0, "consecutive_losses": 1, "num_trades": 14}
    return {"best_config": {"rr_ratio": 2.0}, "portfolio_summary": summary, "stock_summary": stocks}


def test_a_count_of_losing_trades_is_no_loss(tmp_path):
    path = tmp_path / "swing_validation_report.json"
    path.write_text(json.dumps(_backtest_report(), indent=2))
    run = read_run(path)
    assert "stock_summary/consecutive_losses" in run.series  # read, never taken for the loss
    assert "loss" not in run.roles
    report = judge(run)
    assert report.verdict == "NOT-CHECKED"
    assert "consecutive_losses" not in (report.unjudged or "").split("metrics read:")[0]  # not suggested


ITERATIONS = 60


def _logloss(i: int, floor: float) -> float:
    return round(floor + 0.55 * math.exp(-i / 15), 10)


def _catboost_json(metrics: list[tuple[str, str]]) -> str:
    """Anastasia615/hhd_failure_prediction catboost_info/catboost_training.json
    @b16939228f6fc9f03df10b7a5e2174075da91dd7 (CatBoost's own JSON log: ``meta`` on one line, then
    one line per iteration, each holding its learn and test values in ``meta``'s order)."""
    named = [{"best_value": best, "name": name} for name, best in metrics]
    meta = {"test_sets": ["test"], "test_metrics": named, "learn_metrics": named, "iteration_count": 100}
    meta |= {"learn_sets": ["learn"], "name": "experiment", "launch_mode": "Train", "parameters": ""}
    rows = []
    for i in range(ITERATIONS):
        learn = [_logloss(i, 0.08) if best == "Min" else 0.9 for _, best in metrics]
        test = [_logloss(i, 0.1) if best == "Min" else 0.88 for _, best in metrics]
        rows.append(json.dumps({"learn": learn, "iteration": i, "passed_time": 0.45 * (i + 1), "test": test}))
    return '{\n"meta":' + json.dumps(meta) + ',\n"iterations":[\n' + ",\n".join(rows) + "\n]}"


def test_catboost_s_json_log_reads_its_learn_objective_as_the_loss(tmp_path):
    path = tmp_path / "catboost_training.json"
    path.write_text(_catboost_json([("Logloss", "Min")]))
    run = read_run(path)
    assert run.format == "json-records" and run.meta["written_by"] == "catboost"
    assert run.roles["loss"] == "learn/Logloss" and run.roles["eval_loss"] == "test/Logloss"
    loss = run.series["learn/Logloss"]
    assert loss.steps[0] == 0 and loss.steps[-1] == ITERATIONS - 1
    assert loss.values[0] == _logloss(0, 0.08) and loss.values[-1] == _logloss(ITERATIONS - 1, 0.08)
    assert run.series["test/Logloss"].values[-1] == _logloss(ITERATIONS - 1, 0.1)
    assert not run.meta.get("loss_unnamed")  # the log names its loss function, as learn_error.tsv does


def test_catboost_s_json_log_with_a_maximised_eval_metric_first(tmp_path):
    """``eval_metric="AUC"`` puts the AUC first: the loss is the first metric CatBoost minimises."""
    path = tmp_path / "catboost_training.json"
    path.write_text(_catboost_json([("AUC", "Max"), ("Logloss", "Min")]))
    run = read_run(path)
    assert run.roles["loss"] == "learn/Logloss" and run.roles["eval_loss"] == "test/Logloss"
    assert run.series["learn/AUC"].values[0] == 0.9
