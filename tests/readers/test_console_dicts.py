"""A dict printed each epoch (``print(metrics)``, ``logger.info(stats)``) as Python's repr or as
JSON writes it: the console reader reads its quoted keys as names (readers/console/text.py
``dict_pairs``), a nested dict's keys under their parent's (``train/loss``)."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers import ReadError
from trainlint.readers.console.text import dict_pairs


def _losses(n: int) -> list[float]:
    return [round(2.5 * 0.95**i, 4) for i in range(n)]


@pytest.mark.parametrize(
    ("line", "loss", "evals"),
    [
        ("{{'epoch': {e}, 'loss': {v}}}", "loss", ()),
        ("{{'epoch': {e}, 'train_loss': {v}, 'val_loss': {w}}}", "train_loss", ("val_loss",)),
        ("INFO:root:{{'epoch': {e}, 'loss': {v}, 'acc': 0.5}}", "loss", ()),
        ("epoch {e} {{'loss': {v}, 'acc': 0.3}}", "loss", ()),
        ("{{'epoch': {e}, 'loss': tensor({v}, device='cuda:0', grad_fn=<NllLossBackward0>)}}", "loss", ()),
        ("{{'epoch': {e}, 'loss': np.float32({v})}}", "loss", ()),
        ('{{"epoch": {e}, "train": {{"loss": {v}, "acc": 0.5}}, "val": {{"loss": {w}}}}}', "train/loss", ("val/loss",)),
    ],
    ids=["repr", "train-and-val", "logging-root", "after-a-counter", "tensor-values", "numpy-2-scalars", "nested"],
)
def test_a_dict_printed_each_epoch_is_read_by_its_keys(tmp_path, line, loss, evals):
    vals = _losses(30)
    lines = ["Namespace(lr=0.001, epochs=30)"] + [
        line.format(e=e, v=v, w=round(v + 0.1, 4)) for e, v in enumerate(vals)
    ]
    run = _read(tmp_path, lines, "train.log")
    assert run.format == "console/general" and run.roles["loss"] == loss
    assert _series(run, loss) == (30, 0.0, 29.0, 2.5, vals[-1])
    for name in evals:
        assert _series(run, name) == (30, 0.0, 29.0, 2.6, pytest.approx(vals[-1] + 0.1))
        assert name in run.roles.values() or run.roles.get("eval_loss") == name


def test_fairseq_quoted_values_stay_text_and_a_config_dict_is_no_run(tmp_path):
    # a value printed as a string ("loss": "9.5", fairseq's JSON) is not a number the dict gave
    assert dict_pairs('{"epoch": 1, "loss": "9.5"}').split() == ["epoch:", "1,", "loss:", '"9.5"']
    config = ["{'lr': 0.001, 'batch_size': 32, 'dropout': 0.1, 'loss': 0.0}"]  # printed once: no stream
    with pytest.raises(ReadError):
        _read(tmp_path, config * 1 + ["done"], "train.log")


def test_text_without_a_quoted_key_is_left_as_it_is():
    for text in ("loss: 0.5 {not a dict}", "acc {0.5}", "{}"):
        assert dict_pairs(text) == text
