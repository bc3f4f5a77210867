"""Shapes of real notebooks' training outputs (probe round 16b): each cell that trains a model
anew is a run of its own, and a bar a later cell prints (``model.evaluate()``) is no epoch's.
The notebooks are built here, in the shape the real ones were seen in (repository, path and
commit in each test's comment); no real notebook is copied."""

from __future__ import annotations

import json

from trainlint.api import read_run
from trainlint.rules.segments import split_segments


def _nb(*cells: list[dict]) -> str:
    code = [
        {"cell_type": "code", "execution_count": i + 1, "metadata": {}, "source": ["learn.fit()"], "outputs": c}
        for i, c in enumerate(cells)
    ]
    return json.dumps({"cells": code, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def _stream(text: str) -> dict:
    return {"name": "stdout", "output_type": "stream", "text": text.splitlines(keepends=True)}


def _fastai(rows: list[list[float]]) -> dict:
    """fastai's progress table as ``fit_one_cycle`` leaves it: epoch, train_loss, valid_loss, time."""
    head = "".join(f"      <th>{h}</th>\n" for h in ("epoch", "train_loss", "valid_loss", "time"))
    trs = "".join(
        f"    <tr>\n      <td>{int(e)}</td>\n      <td>{t:.6f}</td>\n      <td>{v:.6f}</td>\n      <td>00:12</td>\n    </tr>\n"
        for e, t, v in rows
    )
    html = f'<table border="1" class="dataframe">\n  <thead>\n    <tr style="text-align: left;">\n{head}'
    html += f"    </tr>\n  </thead>\n  <tbody>\n{trs}  </tbody>\n</table>"
    data = {"text/html": html.splitlines(keepends=True), "text/plain": ["<IPython.core.display.HTML object>"]}
    return {"data": data, "metadata": {}, "output_type": "display_data"}


def _ends(run, name):
    s = run.series[name]
    return len(s), s.steps.tolist(), round(float(s.values[0]), 6), round(float(s.values[-1]), 6)


def test_fastai_tables_of_separate_cells_are_separate_runs(tmp_path):
    # fanbyprinciple/fastai v4/lesson8/08_collab.ipynb @ b514aca954f973c05e9f269e91036095c450aa50: a new
    # Learner and fit_one_cycle(5) in each of several cells, each drawing its own table from epoch 0
    cells = [[_fastai([[e, 1.0 - c * 0.01 - e * 0.03, 1.0 - e * 0.02] for e in range(5)])] for c in range(3)]
    # 05_pet_breeds.ipynb of the same commit: fine_tune draws two tables in one cell (the frozen epoch, then the rest)
    cells.append([_fastai([[0, 1.5, 0.4]]), _fastai([[e, 0.5 - e * 0.1, 0.3] for e in range(3)])])
    p = tmp_path / "collab.ipynb"
    p.write_text(_nb(*cells))
    run = read_run(p)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "valid_loss"
    assert _ends(run, "train_loss") == (19, [0, 1, 2, 3, 4] * 3 + [0, 1, 2, 3], 1.0, 0.3)
    assert any("starts again where 3 later notebook cell(s) begin" in n for n in run.notes)
    assert [len(seg.series["train_loss"]) for seg in split_segments(run)] == [5, 5, 5, 4]


def test_printed_epochs_of_separate_cells_are_separate_runs(tmp_path):
    # mrdbourke/pytorch-deep-learning extras/pytorch_2_intro.ipynb @ baa27b691617461c173ecf3439793cd8cde74e13:
    # the same 5-epoch loop run in cell after cell ("Epoch: 1 | train_loss: 0.7734 | train_acc: ... | test_loss: ...")
    def loop(c: int) -> list[dict]:
        return [
            _stream(
                "".join(
                    f"Epoch: {e} | train_loss: {0.8 - e * 0.1 - c * 0.01:.4f} | train_acc: {0.7 + e * 0.04:.4f} | "
                    f"test_loss: {0.6 - e * 0.03:.4f} | test_acc: {0.8 + e * 0.01:.4f}\n"
                    for e in range(1, 6)
                )
            )
        ]

    p = tmp_path / "compile.ipynb"
    p.write_text(_nb(*[loop(c) for c in range(6)]))
    run = read_run(p)
    assert run.roles["loss"] == "train_loss" and run.roles["eval_loss"] == "test_loss"
    assert _ends(run, "train_loss") == (30, [1, 2, 3, 4, 5] * 6, 0.7, 0.25)
    assert len(split_segments(run)) == 6
    # the same lines in a console log, where nothing says where a run begins: counted in order, as before
    log = tmp_path / "train.log"
    log.write_text("".join(o["text"][i] for c in range(6) for o in loop(c) for i in range(5)))
    assert read_run(log).series["train_loss"].steps.tolist() == list(range(1, 31))


def test_a_later_cells_evaluate_bar_is_no_epochs(tmp_path):
    # lingduoduo/LLM-Notebooks Google-Generative-AI/text_generation.ipynb @ ba96aed3b8786fd23a87b2d2746db38d9d0ad91d:
    # model.fit(dataset, epochs=10) with no validation data, then other cells; one prints a full bar
    # with its own loss (model.evaluate(), or a fit whose header was not kept)
    fit = "".join(
        f"Epoch {e}/10\n172/172 [==============================] - 274s 2s/step - loss: {2.75 - e * 0.15:.4f}\n"
        for e in range(1, 11)
    )
    later = "172/172 [==============================] - 336s 2s/step - loss: 2.7345\n"
    p = tmp_path / "text_generation.ipynb"
    p.write_text(_nb([_stream(fit)], [_stream("ROMEO:\nNone, sir\n")], [_stream(later)]))
    run = read_run(p)
    assert run.format == "console/keras"
    assert _ends(run, "loss") == (10, list(range(1, 11)), 2.6, 1.25)


def test_a_later_cells_table_is_not_read_under_an_earlier_cells_header(tmp_path):
    # fanbyprinciple/fastai v4/lesson5 .../05_pet_breeds.ipynb @ b514aca954f973c05e9f269e91036095c450aa50: after
    # fit tables, a cell shows a DataFrame of softmax activations (header "3 7 targ idx loss": no name
    # that reads as a header's) whose rows are as wide as the fit table's: they are not epochs of it
    fit = _fastai([[e, 1.2 - e * 0.05, 1.3 - e * 0.04] for e in range(12)])
    cols = "".join(f"<th>{c}</th>" for c in ("3", "7", "targ", "loss"))  # as wide as the 4 columns above
    rows = "".join(f"<tr><td>0.60{i}</td><td>0.39{i}</td><td>{i % 2}</td><td>0.50{i}</td></tr>" for i in range(6))
    table = f"<table><thead><tr>{cols}</tr></thead><tbody>{rows}</tbody></table>"
    df = {"data": {"text/html": [table], "text/plain": ["<IPython.core.display.HTML object>"]}, "metadata": {}}
    p = tmp_path / "pet_breeds.ipynb"
    p.write_text(_nb([fit], [df | {"output_type": "display_data"}]))
    run = read_run(p)
    assert _ends(run, "train_loss") == (12, list(range(12)), 1.2, 0.65)
    assert _ends(run, "valid_loss")[0] == 12 and "time" not in run.series
