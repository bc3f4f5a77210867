"""Tables a training script prints of its history: drawn with borders (PrettyTable, tabulate's
grid and pipe formats, rich, a Markdown table pasted into a log) or as pandas prints a DataFrame
(an unnamed index column first). The column-table recogniser reads their cells under the header's
names (readers/console/handwritten.py ``unboxed`` and ``_Table``)."""

from __future__ import annotations

import pytest
from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

from trainlint.readers.console.handwritten import unboxed

LOSSES = [round(2.5 * 0.96**i, 4) for i in range(30)]


def _rows(fmt: str) -> list[str]:
    return [fmt.format(e=e + 1, v=v, w=round(v + 0.1, 4)) for e, v in enumerate(LOSSES)]


def _prettytable() -> list[str]:
    rule = "+-------+------------+----------+"
    return [rule, "| epoch | train loss | val loss |", rule, *_rows("| {e:5d} | {v:10.4f} | {w:8.4f} |"), rule]


def _grid() -> list[str]:  # tabulate(tablefmt="grid"): a rule after every row, "=" under the header
    out = ["+---------+--------------+------------+", "| epoch   | train_loss   | val_loss   |"]
    out.append("+=========+==============+============+")
    for row in _rows("| {e:<7d} | {v:<12.4f} | {w:<10.4f} |"):
        out += [row, "+---------+--------------+------------+"]
    return out


def _markdown() -> list[str]:  # printed at the end of a log (a file mostly the table is readers/markdown_table.py's)
    preamble = [f"INFO building block {k}: Conv2d(64, 64, kernel_size=3) BatchNorm2d(64) ReLU" for k in range(40)]
    return [
        *preamble,
        "Results:",
        "",
        "| epoch | train loss | val loss |",
        "|:-----:|-----------:|---------:|",
        *_rows("| {e} | {v} | {w} |"),
    ]


def _rich() -> list[str]:
    head = [
        "┏━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━┓",
        "┃ epoch ┃ train_loss ┃ val_loss ┃",
        "┡━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━┩",
    ]
    return [*head, *_rows("│ {e:5d} │ {v:10.4f} │ {w:8.4f} │"), "└───────┴────────────┴──────────┘"]


def _each_epoch() -> list[str]:  # the table printed anew each epoch, one row in it
    rule = "+-------+------------+----------+"
    out = []
    for row in _rows("| {e:5d} | {v:10.4f} | {w:8.4f} |"):
        out += [rule, "| epoch | train_loss | val_loss |", rule, row, rule]
    return out


def _pandas() -> list[str]:  # print(pd.DataFrame(history)): the index unnamed, the header indented over it
    return [
        "Training finished",
        "    epoch  train_loss  val_loss",
        *[f"{e:<3d} {r}" for e, r in enumerate(_rows("{e:6d}  {v:10.6f}  {w:8.6f}"))],
    ]


@pytest.mark.parametrize(
    ("lines", "loss", "val"),
    [
        (_prettytable(), "train_loss", "val_loss"),
        (_grid(), "train_loss", "val_loss"),
        (_markdown(), "train_loss", "val_loss"),
        (_rich(), "train_loss", "val_loss"),
        (_each_epoch(), "train_loss", "val_loss"),
        (_pandas(), "train_loss", "val_loss"),
    ],
    ids=["prettytable", "tabulate-grid", "markdown", "rich", "a-table-each-epoch", "pandas-dataframe"],
)
def test_a_printed_history_table_is_read_under_its_header(tmp_path, lines, loss, val):
    run = _read(tmp_path, lines, "train.log")
    assert run.format == "console/column-table" and run.roles["loss"] == loss
    assert _series(run, loss) == (30, 1.0, 30.0, 2.5, LOSSES[-1])
    assert _series(run, val) == (30, 1.0, 30.0, 2.6, pytest.approx(LOSSES[-1] + 0.1))


def test_a_bordered_line_gives_its_cells_and_a_rule_gives_none():
    assert unboxed("| epoch | train loss |  |") == "epoch  train_loss  -"
    assert unboxed("│ 3 │ 0.5 │") == "3  0.5"
    assert unboxed("+----+=====+") == "" and unboxed("|:---|---:|") == ""
    for text in ("Epoch 1 | loss 0.5 | acc 0.9", "| loss | 0.5", "||"):  # not a bordered row
        assert unboxed(text) == text


def test_a_results_table_of_models_is_no_run(tmp_path):
    # a README-style comparison table: no step column, rows of different models, few rows
    lines = ["| model | params | loss | acc |", "|---|---|---|---|"]
    lines += [f"| resnet{d} | {d} | {0.5 - d / 1000} | 0.9 |" for d in (18, 34, 50)]
    run_lines = lines + ["done"]
    with pytest.raises(Exception, match="no known training-progress lines"):
        _read(tmp_path, run_lines, "train.log")
