"""Jupyter notebooks saved with their outputs (``.ipynb``): the outputs read as one console log,
in cell order; HTML tables (the Trainer's NotebookProgressCallback, fastai) as rows; images
skipped; nothing executed. The output shapes follow nbformat 4 (and 3) as Jupyter saves them;
the Trainer's table follows transformers/utils/notebook.py (``html_progress_bar``,
``text_to_html_table``: a ``Step`` or ``Epoch`` column, ``Training Loss``, ``No log``)."""

from __future__ import annotations

import base64
import json
import os

from trainlint.api import doctor
from trainlint.readers import read_run, sniff


def _nb(*cells: list[dict], v: int = 4) -> str:
    if v == 3:
        sheet = [{"cell_type": "code", "input": ["fit()"], "language": "python", "outputs": c} for c in cells]
        return json.dumps({"worksheets": [{"cells": sheet}], "metadata": {}, "nbformat": 3, "nbformat_minor": 0})
    code = [
        {"cell_type": "code", "execution_count": i + 1, "metadata": {}, "source": ["fit()"], "outputs": c}
        for i, c in enumerate(cells)
    ]
    md = {"cell_type": "markdown", "metadata": {}, "source": ["# Training: loss 0.5 at epoch 3"]}
    return json.dumps({"cells": [md, *code], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def _stream(text: str, name: str = "stdout") -> dict:
    return {"name": name, "output_type": "stream", "text": text.splitlines(keepends=True)}


def _html(html: str) -> dict:
    data = {"text/html": html.splitlines(keepends=True), "text/plain": ["<IPython.core.display.HTML object>"]}
    return {"data": data, "metadata": {}, "output_type": "display_data"}


def _keras(epochs: int) -> str:
    out = []
    for e in range(1, epochs + 1):
        out.append(f"Epoch {e}/{epochs}\n")
        out.append(
            f"\r 1/20 [>.............................] - ETA: 5s - loss: {3.0 - e * 0.05:.4f} - accuracy: 0.2000"
        )
        out.append(
            f"\r20/20 [==============================] - 2s 90ms/step - loss: {2.5 - e * 0.1:.4f} - accuracy: 0.5000"
            f" - val_loss: {2.6 - e * 0.1:.4f} - val_accuracy: 0.4500\n"
        )
    return "".join(out)


def _table(head: list[str], rows: list[list]) -> str:
    """The Trainer's progress bar and table as NotebookProgressCallback displays them."""
    th = "".join(f"      <th>{h}</th>\n" for h in head)
    cell = lambda c: f"{c:.6f}" if isinstance(c, float) else str(c)  # noqa: E731
    trs = "".join("    <tr>\n" + "".join(f"      <td>{cell(c)}</td>\n" for c in r) + "    </tr>\n" for r in rows)
    return (
        "\n    <div>\n      \n      <progress value='500' max='500' style='width:300px; height:20px;'></progress>\n"
        "      [500/500 01:23, Epoch 3/3]\n    </div>\n    "
        f'<table border="1" class="dataframe">\n  <thead>\n <tr style="text-align: left;">\n{th}    </tr>\n'
        f"  </thead>\n  <tbody>\n{trs}  </tbody>\n</table><p>"
    )


def _series(run, name):
    s = run.series[name]
    return len(s), s.steps[0], s.steps[-1], round(s.values[0], 6), round(s.values[-1], 6)


def test_a_keras_fit_cell_is_read_with_its_rewrites(tmp_path):
    p = tmp_path / "train.ipynb"
    p.write_text(_nb([_stream("Model: sequential\n"), _stream(_keras(12))]))
    assert sniff(p).name == "notebook"
    run = read_run(p)
    assert run.format == "console/keras" and run.notes[0].startswith("read from a Jupyter notebook: 2 output(s)")
    assert _series(run, "loss") == (12, 1, 12, 2.4, 1.3)  # each epoch's last rewrite
    assert _series(run, "val_loss") == (12, 1, 12, 2.5, 1.4)


def test_the_trainers_html_table_is_read_as_rows(tmp_path):
    rows = [[s, 2.5 - s / 1000, "No log" if s % 100 else 2.6 - s / 1000] for s in range(50, 550, 50)]
    result = {"data": {"text/plain": ["TrainOutput(global_step=500, training_loss=2.2)"]}, "metadata": {}}
    result |= {"output_type": "execute_result", "execution_count": 3}
    p = tmp_path / "finetune.ipynb"
    p.write_text(
        _nb(
            [
                _stream("***** Running training *****\n", "stderr"),
                _html(_table(["Step", "Training Loss", "Validation Loss"], rows)),
                result,
            ]
        )
    )
    run = read_run(p)
    assert "1 HTML table(s) as rows" in run.notes[0]
    assert _series(run, "Training Loss") == (10, 50, 500, 2.45, 2.0)
    assert _series(run, "Validation Loss") == (5, 100, 500, 2.5, 2.1)  # "No log" is no value


def test_fastais_html_table_is_read_as_rows(tmp_path):
    rows = [[e, 1.2 - e * 0.05, 1.3 - e * 0.05, 0.5 + e * 0.02, "00:12"] for e in range(12)]
    p = tmp_path / "fastai.ipynb"
    p.write_text(_nb([_html(_table(["epoch", "train_loss", "valid_loss", "accuracy", "time"], rows))]))
    run = read_run(p)
    assert _series(run, "train_loss") == (12, 0, 11, 1.2, 0.65)
    assert _series(run, "valid_loss")[0] == 12


def test_format_3_and_streams_split_across_outputs(tmp_path):
    lines = "".join(f"Epoch {e}, step {e * 100}, loss: {2.0 - e * 0.05:.4f}\n" for e in range(1, 21))
    half = len(lines) // 2 + 3  # a line cut between two outputs of one stream
    v3 = [
        {"output_type": "stream", "stream": "stdout", "text": [lines[:half]]},
        {"output_type": "stream", "stream": "stdout", "text": [lines[half:]]},
    ]
    p = tmp_path / "old.ipynb"
    p.write_text(_nb(v3, v=3))
    assert _series(read_run(p), "loss") == (20, 100, 2000, 1.95, 1.0)


def test_an_error_output_is_a_crash_signature(tmp_path):
    tb = [
        "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
        "\x1b[0;31mOutOfMemoryError\x1b[0m                          Traceback (most recent call last)",
        "\x1b[0;31mOutOfMemoryError\x1b[0m: CUDA out of memory. Tried to allocate 2.00 GiB",
    ]
    err = {"ename": "OutOfMemoryError", "evalue": "CUDA out of memory.", "output_type": "error", "traceback": tb}
    p = tmp_path / "oom.ipynb"
    p.write_text(_nb([_stream(_keras(3)), err]))
    run = read_run(p)
    assert len(run.series["loss"]) == 3
    assert any(e["signature"] == "cuda-out-of-memory" for e in run.events)


def test_bad_notebooks_are_not_checked_in_one_line(tmp_path):
    cases = {
        "broken.ipynb": "{ this is not JSON",
        "empty.ipynb": _nb(
            [_stream("hello\n")],
            [{"data": {"text/plain": ["42"]}, "metadata": {}, "output_type": "execute_result", "execution_count": 2}],
        ),
        "odd.ipynb": json.dumps({"cells": [{"outputs": [{"output_type": "stream", "text": 5}]}]}),
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    reasons = {r.source.rsplit("/", 1)[1]: r.unjudged for r in doctor([tmp_path / n for n in cases]).reports}
    assert reasons["empty.ipynb"] == "a notebook whose outputs hold no training progress"
    assert reasons["broken.ipynb"].startswith("not a Jupyter notebook") and "\n" not in reasons["broken.ipynb"]
    assert reasons["odd.ipynb"].startswith("not a Jupyter notebook")


def test_a_notebook_of_50_mb_of_images_reads_its_text_and_skips_the_images(tmp_path):
    png = base64.b64encode(os.urandom(3 << 20)).decode()  # 4 MiB of base64 per image
    images = [
        {
            "data": {"image/png": png, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
            "metadata": {},
            "output_type": "display_data",
        }
        for _ in range(13)
    ]
    p = tmp_path / "plots.ipynb"
    p.write_text(_nb(images[:6], [_stream(_keras(12))], images[6:]))
    assert p.stat().st_size > 50 << 20
    run = read_run(p)
    assert _series(run, "loss") == (12, 1, 12, 2.4, 1.3)
    assert "images and other payloads skipped" in run.notes[0]
