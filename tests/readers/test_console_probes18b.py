"""Probe round 18b (issue 29): a blind sample of outside logs, taken in the order a file search
listed them and labelled before trainlint read them; these are the kinds it read wrong or not at
all. Each fixture is made up in the shape of the real file (repository, path and commit recorded
with it; no copied lines) and asserts the series read: names, steps, first and last values, and
which is the loss."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.readers.base import ReadError
from trainlint.readers.console.general import read_line

TABLES = 15


def _mse(k: int, q: int | None = None) -> float:
    return round(0.3 * 0.8**k + (0.01 * q if q is not None else 0.0), 5)


def _label(k: int) -> float:
    return round(0.16 * 0.85**k, 5)


def _dump(k: int) -> list[str]:
    """One ``logger.dumpkvs()`` table of guided-diffusion's logger: each loss term's mean and its
    mean in each quarter of the diffusion timesteps (``_q0`` .. ``_q3``), the samples seen, the step."""
    rows = [("mse_label_cond_mean", _label(k)), ("mse_loss_mean", _mse(k))]
    rows += [(f"mse_loss_q{q}_mean", _mse(k, q)) for q in range(4)]
    rows += [("samples", 10 * k + 11), ("step", 10 * k + 10)]
    rule = "-" * 37
    return [rule, *(f"| {name:<22} | {value:<8} |" for name, value in rows), rule]


def test_a_term_s_timestep_quartiles_are_not_summed_into_the_loss(tmp_path):
    """KingPowa/wdm_inpainting results/log.txt @383e5bbe (wdm-3d's guided-diffusion logger): no
    ``loss`` printed, the term ``mse_loss_mean`` and its quartile breakdowns ``mse_loss_q0_mean`` ..
    ``mse_loss_q3_mean``. The quartiles had been taken as four more components, and the loss was
    their sum with the term (about five times the term); a quartile of a term also logged is that
    term broken down. The tables are Baselines' logger's, the ``step`` row closing each: every table
    one point at its own step (the general reader had put each table's values at the step before)."""
    lines = ["Logging to ./results"]
    for k in range(TABLES):
        lines += _dump(k)
    run = _read(tmp_path, lines, "log.txt")
    assert run.format == "console/stable-baselines3"
    assert run.roles["loss"] == "mse_loss_mean"
    last = TABLES - 1
    assert _series(run, "mse_loss_mean") == (TABLES, 10.0, 10.0 * last + 10, _mse(0), _mse(last))
    assert not any("+" in name for name in run.series)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("INFO - Start load train data, it may cost 1-60 seconds...", {"cost_time": 1.0}),
        ("INFO - Start fit, it may cost 1-30 minutes...", {"cost_time": 1.0}),
        ("Loading model cost 0.884 seconds.", {"cost_time": 0.884}),
        ("loss 0.5 - 10s", {"loss": 0.5}),
    ],
)
def test_a_range_of_seconds_is_a_duration(text, values):
    """AD-39/icon_classify log/log.txt @a78f188e: ``it may cost 1-60 seconds...`` had given ``cost``
    (a loss by its name) the value 1; a range before a time unit is a duration as a single number is.
    A value, a spaced dash and a time after it (Keras' ``- 10s``) stays the value."""
    rec = read_line(text)
    assert rec is not None and rec.values == values


def test_a_classifier_s_log_of_timings_is_no_training_log(tmp_path):
    """The whole icon_classify log: ``Start fit, it may cost 1-30 minutes...``, ``Cost time: 4.97``,
    ``Load over! Total 6724 samples.``, ``744/812=0.916``; no loss in it (it had been read as a flat
    ``cost`` of 1.0 and judged stagnant)."""
    lines = []
    for k in range(6):
        lines += [
            "INFO - ------------------------------------------",
            "INFO - Start load train data, it may cost 1-60 seconds...",
            f"INFO - Load over! Total {6000 + 100 * k} samples.",
            f"INFO - Cost time: {4.5 + k / 7:.6f}",
            "INFO - Start fit, it may cost 1-30 minutes...",
            "INFO - Retrain over!",
            f"INFO - {700 + k}/812={(700 + k) / 812}",
        ]
    with pytest.raises(ReadError):
        _read(tmp_path, lines, "log.txt")


def test_improved_diffusion_s_tables_take_their_loss_row(tmp_path):
    """openai/improved-diffusion's train loop logs ``loss``, ``mse`` and ``vb`` with their quartiles,
    ``grad_norm``, ``param_norm``, ``samples`` and ``step`` (improved_diffusion/train_util.py,
    log_loss_dict): the ``loss`` row is the loss, at the step its table closes with."""
    lines = []
    for k in range(TABLES):
        rows = [
            ("grad_norm", 0.5),
            ("loss", round(_mse(k) + 0.01, 5)),
            ("loss_q0", _mse(k, 0)),
            ("loss_q3", _mse(k, 3)),
        ]
        rows += [("mse", _mse(k)), ("mse_q0", _mse(k, 0)), ("param_norm", 310.2), ("samples", 128 * (k + 1))]
        rows += [("step", 100 * k), ("vb", 0.01)]
        lines += ["-" * 28, *(f"| {n:<10} | {v:<11} |" for n, v in rows), "-" * 28]
    run = _read(tmp_path, lines, "log.txt")
    assert run.roles["loss"] == "loss" and run.roles["grad_norm"] == "grad_norm"
    last = TABLES - 1
    assert _series(run, "loss") == (TABLES, 0.0, 100.0 * last, round(_mse(0) + 0.01, 5), round(_mse(last) + 0.01, 5))


def _crf(n: int) -> float:
    return round(8.0 + 40.0 * 0.98**n, 2)


def _sel(n: int) -> float:
    return round(0.8 + 1900.0 * 0.9**n, 2)


def _desc_bar(n: int, total: int = 1419) -> str:
    """One render of a bar whose description holds the loss as its symbol and its terms, redrawn
    with ``\\r`` (``set_description(f"L: {l:.2f}, L_crf: {c:.2f}, L_selection: {s:.2f}, epoch: ..")``)."""
    crf, sel = _crf(n), _sel(n)
    desc = f"L: {crf + sel:.2f}, L_crf: {crf:.2f}, L_selection: {sel:.2f}, epoch: 0/50:"
    return f"{desc}:   {n * 100 // total:>2}%|          | {n}/{total} [00:{n:02d}<09:00,  2.5it/s]"


def test_the_loss_s_symbol_summing_its_terms_in_a_bar_s_description(tmp_path):
    """WindChimeRan/OpenJERE nohup.out @25ad1fc2: a tqdm bar redrawn with carriage returns only (the
    file one line), its description ``L: 2011.79, L_crf: 43.19, L_selection: 1968.59, epoch: 0/50::``.
    No name says loss, so nothing was read; ``L`` is the loss (𝓛) and equals the sum of the ``L_*``
    terms printed beside it: it is the loss, a point each time the description changes."""
    renders = [_desc_bar(n) for n in range(1, 41)]
    path = tmp_path / "nohup.out"
    path.write_text("\r" + "\r".join(renders), encoding="utf-8")
    run = read_run(path)
    assert run.format == "console/tqdm-postfix" and run.roles["loss"] == "L"
    first, last = _crf(1) + _sel(1), _crf(40) + _sel(40)
    assert _series(run, "L") == (40, 1.0, 40.0, round(first, 2), round(last, 2))
    assert _series(run, "L_crf") == (40, 1.0, 40.0, _crf(1), _crf(40))


def test_an_l_that_is_not_the_sum_of_its_neighbours_is_no_loss(tmp_path):
    """The symbol is taken only where the ``L_*`` terms add up to it: a bar describing a sequence's
    length ``L`` beside other ``L_`` counts founds nothing."""
    renders = [f"L: 512, L_in: {n}, L_out: 3:  {n}%|     | {n}/100 [00:01<00:09, 9.9it/s]" for n in range(1, 30)]
    path = tmp_path / "nohup.out"
    path.write_text("\r".join(renders), encoding="utf-8")
    with pytest.raises(ReadError):
        read_run(path)


def _run_block(epochs: int, size: int, base: float) -> list[str]:
    """One run as BehnamB94/Fingerprint-Matching's script prints it: the settings, the splits' sizes
    (``TRAIN:108000``), then an epoch a line, the epoch's number leading it."""
    lines = ["running with learning rate = 0.0001 and batch size = 700", "Data Prepared:"]
    lines += [f"        TRAIN:{size}", "        VALID:200", "        TEST:800"]
    for e in range(1, epochs + 1):
        tr, va = round(base * 0.95**e, 3), round(2.0 + 0.2 * e, 3)
        lines.append(
            f"{e}       train loss={tr:.3f}        train acc=0.8{e % 10}         valid loss={va:.3f}\tvalid acc=0.500"
        )
    return [*lines, "", ""]


def test_a_leading_epoch_number_counts_and_a_split_s_size_is_no_loss(tmp_path):
    """BehnamB94/Fingerprint-Matching results/log.txt @3991b995: two runs appended, each
    ``N<spaces>train loss=..  train acc=..  valid loss=..<tab>valid acc=..`` after ``TRAIN:108000``,
    ``VALID:200``, ``TEST:800``. The sizes had been read as the losses of their splits (``VALID_loss``
    200 the eval loss), and the leading epoch number dropped, so the second run's first epoch
    continued the first run's steps (a jump judged divergence). The whole number leading the line is
    its counter (the relaunch shows as the count falling back) and a split's whole number alone on
    its line is its size."""
    run = _read(tmp_path, _run_block(5, 108000, 0.31) + _run_block(12, 42000, 0.66), "log.txt")
    assert run.format == "console/general"
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "valid_loss"
    assert _series(run, "train_loss") == (17, 1.0, 12.0, round(0.31 * 0.95, 3), round(0.66 * 0.95**12, 3))
    assert _series(run, "valid_loss") == (17, 1.0, 12.0, 2.2, 4.4)
    assert "VALID_loss" not in run.series and "TRAIN_loss" not in run.series


@pytest.mark.parametrize(
    ("text", "step", "values"),
    [
        ("3       train loss=0.204        train acc=0.889", 3.0, {"train_loss": 0.204, "train_acc": 0.889}),
        ("100 loss: 2.31", 100.0, {"loss": 2.31}),
        ("TRAIN:108000", None, {"TRAIN": 108000.0}),
        ("train: 1090.2 | val: 1078.7", None, {"train_loss": 1090.2, "val_loss": 1078.7}),
    ],
)
def test_a_leading_count_and_a_split_s_whole_number(text, step, values):
    rec = read_line(text)
    assert rec is not None and rec.step == step and rec.values == values
