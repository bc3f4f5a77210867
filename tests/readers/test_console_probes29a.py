"""Kinds a blind sample of outside logs (probe round 29a: PyTorch Lightning's CSVLogger, the
repositories find_files lists for ``lightning_logs/version_0/metrics.csv``, labelled before trainlint
read them) found read wrong: a physics-informed network's ``data_loss`` (the data-fit term) beside
its ``mean_loss`` had read as a whole loss, ``data`` taken for the split the loss was measured on,
so the tie between the two went to ``data_loss`` by its name; beside a physics term it had read as
the total, the physics term left out. Each fixture is made up in the shape of the real file
(repository, path and commit recorded with it; no copied lines) and asserts the series read: names,
steps, first and last values, and which is the loss."""

from __future__ import annotations

import math

from trainlint.api import read_run
from trainlint.role_structure import parse

EPOCHS = 24
STEPS_PER_EPOCH = 37


def _write(path, header: list[str], rows: list[list[str]]) -> None:
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n")


def _mean(e: int) -> float:
    return round(0.9 * math.exp(-0.15 * e) + 0.02, 6)


def test_a_data_term_beside_the_mean_loss_is_a_component(tmp_path):
    """BesT1CooKie1/nn_oedometer lightning_logs/version_0/metrics.csv
    @4370db58c05dd650135a6d81ba0f746a170ee075 (a Lightning CSVLogger's columns in name order,
    ``data_loss,epoch,mean_loss,step``, one row an epoch; the notebook plots ``mean_loss``)."""
    rows = []
    for e in range(EPOCHS):
        step = (e + 1) * STEPS_PER_EPOCH - 1
        rows.append([f"{_mean(e) * 0.97:.6f}", str(e), f"{_mean(e):.6f}", str(step)])
    path = tmp_path / "metrics.csv"
    _write(path, ["data_loss", "epoch", "mean_loss", "step"], rows)
    run = read_run(path)
    assert run.roles["loss"] == "mean_loss"
    loss = run.series["mean_loss"]
    assert len(loss.steps) == EPOCHS
    assert loss.steps[0] == STEPS_PER_EPOCH - 1 and loss.steps[-1] == EPOCHS * STEPS_PER_EPOCH - 1
    assert loss.values[0] == _mean(0) and loss.values[-1] == _mean(EPOCHS - 1)
    assert "data_loss" in run.series
    # with a split word the data is the split's: a whole loss still
    assert parse("train_data_loss").kind == "total" and parse("val_data_loss").kind == "total"


def test_a_data_term_beside_a_physics_term_is_summed_with_it(tmp_path):
    """The same shape with the physics residual logged beside the data term and no total
    (``epoch,step,data_loss,physics_loss``): the loss is their sum, not the data term alone."""
    rows = []
    for e in range(EPOCHS):
        step = (e + 1) * STEPS_PER_EPOCH - 1
        rows.append([str(e), str(step), f"{_mean(e) * 0.6:.6f}", f"{_mean(e) * 0.4:.6f}"])
    path = tmp_path / "metrics.csv"
    _write(path, ["epoch", "step", "data_loss", "physics_loss"], rows)
    run = read_run(path)
    assert run.roles["loss"] == "data_loss+physics_loss"
    loss = run.series["data_loss+physics_loss"]
    assert len(loss.steps) == EPOCHS and loss.steps[-1] == EPOCHS * STEPS_PER_EPOCH - 1
    first = round(_mean(0) * 0.6, 6) + round(_mean(0) * 0.4, 6)
    last = round(_mean(EPOCHS - 1) * 0.6, 6) + round(_mean(EPOCHS - 1) * 0.4, 6)
    assert math.isclose(loss.values[0], first, rel_tol=1e-9)
    assert math.isclose(loss.values[-1], last, rel_tol=1e-9)
