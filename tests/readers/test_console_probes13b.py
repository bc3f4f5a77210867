"""AllenNLP's ``allennlp train`` console output, seen in real logs outside the corpus (issue 29, probe
round 13b): each epoch's training and validation bars (``accuracy: 0.50, loss: 0.69 ||: 100%|..``)
and the epoch's ``Training |  Validation`` table (older releases: ``Training loss : ..  Validation
loss : ..``). One point per epoch; the validation side is the eval loss, not a second training
loss. Each fixture is made up in the shape of the real log (repository, path and commit recorded
with it; no copied lines) and asserts the series read: names, steps, first and last values, and
which is the loss."""

from __future__ import annotations

from _consolekit import read_lines as _read
from _consolekit import series_ends as _series

_PREFIX = "2019-10-15 12:45:23,697 - INFO - allennlp.training"


def _loss(k: int, start: float = 3.5) -> float:
    return round(start * 0.85**k, 4)


def _bar(acc: float, loss: float, n: int) -> str:
    return f"accuracy: {acc:.4f}, accuracy3: {acc + 0.1:.4f}, loss: {loss:.4f} ||: 100%|##########| {n}/{n} [00:37<00:00,  3.32it/s]"


def test_the_epoch_table_gives_the_loss_and_the_validation_loss(tmp_path):
    """c0ntradicti0n/allennlp_vs_ampligraph README.md @2a2dee6 ("Simple Tagger without nym
    embeddings"): per epoch ``trainer - Epoch k/39``, ``Training``, a bar, ``Validating``, a bar, then
    tensorboard_writer's table ``cpu_memory_MB | 1919.684 | N/A``, ``accuracy | ..``, ``loss | 3.572 |
    3.231``. Both bars had been read as one training loss, two points an epoch."""
    lines = [f"{_PREFIX}.trainer - Beginning training."]
    for k in range(12):
        tr, va = _loss(k), _loss(k, 3.2)
        lines += [
            f"{_PREFIX}.trainer - Epoch {k}/39",
            f"{_PREFIX}.trainer - Training",
            _bar(0.1 + k / 20, tr, 125),
            f"{_PREFIX}.trainer - Validating",
            _bar(0.2 + k / 20, va, 31),
            f"{_PREFIX}.tensorboard_writer -                   Training |  Validation",
            f"{_PREFIX}.tensorboard_writer - cpu_memory_MB |  1919.684  |       N/A",
            f"{_PREFIX}.tensorboard_writer - accuracy      |     {0.1 + k / 20:.3f}  |     {0.2 + k / 20:.3f}",
            f"{_PREFIX}.tensorboard_writer - loss          |     {tr:.3f}  |     {va:.3f}",
            f"{_PREFIX}.checkpointer - Best validation performance so far.",
        ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (12, 1.0, 12.0, round(_loss(0), 3), round(_loss(11), 3))
    assert _series(run, "val_loss") == (12, 1.0, 12.0, round(_loss(0, 3.2), 3), round(_loss(11, 3.2), 3))
    assert _series(run, "val_accuracy")[3:] == (0.2, 0.75)
    assert not any("memory" in name for name in run.series)


def test_the_bars_alone_give_a_point_an_epoch_the_second_bar_the_validation(tmp_path):
    """c0ntradicti0n/allennlp_vs_ampligraph README.md @2a2dee6 ("Simple Tagger with nym embeddings"):
    only the bars, a training bar of 125 batches then a validation bar of 31, 40 epochs."""
    lines = []
    for k in range(15):
        lines += [_bar(0.1 + k / 40, _loss(k), 125), _bar(0.1 + k / 40, _loss(k, 3.8), 31)]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (15, 1.0, 15.0, _loss(0), _loss(14))
    assert _series(run, "val_loss") == (15, 1.0, 15.0, _loss(0, 3.8), _loss(14, 3.8))
    assert _series(run, "accuracy3")[3:] == (0.2, round(0.2 + 14 / 40, 4))


def test_the_old_training_and_validation_lines(tmp_path):
    """allenai/allennlp tutorials/getting_started (2017, the tagger tutorial): after the bars, per
    metric ``trainer - Training loss : 2.061412    Validation loss : 1.646712``."""
    lines = []
    for k in range(11):
        lines += [
            f"2017-08-23 18:07:14,700 - INFO - allennlp.training.trainer - Epoch {k}/40",
            f"accuracy: 0.51, loss: {_loss(k):.2f}, accuracy3: 0.67 ||: 100%|##########| 125/125 [01:08<00:00,  2.03it/s]",
            f"accuracy: 0.61, loss: {_loss(k, 3):.2f}, accuracy3: 0.75 ||: 100%|##########| 32/32 [00:06<00:00,  4.96it/s]",
            "2017-08-23 18:08:29,397 - INFO - allennlp.training.trainer - Training accuracy : 0.506099    "
            "Validation accuracy : 0.606811",
            f"2017-08-23 18:08:29,398 - INFO - allennlp.training.trainer - Training loss : {_loss(k):.6f}    "
            f"Validation loss : {_loss(k, 3):.6f}",
        ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "val_loss"
    assert _series(run, "loss") == (11, 1.0, 11.0, _loss(0), _loss(10))
    assert _series(run, "val_loss")[3:] == (_loss(0, 3), _loss(10, 3))


def test_legacy_fairseq_epoch_lines_give_the_training_and_the_valid_loss(tmp_path):
    """fairseq before Hydra (2019, ``--log-format simple``), the shape HiPlot's fairseq parser quotes
    (facebookresearch/hiplot, its fairseq log parser's comments): ``| epoch 002 | loss 8.413 | nll_loss
    .. | num_updates 2798 | ..`` and ``| epoch 002 | valid on 'valid' subset | loss 7.599 | ..``. Already
    read right; kept so: ``loss`` the training loss, ``valid_loss`` the eval loss, at num_updates."""
    lines = ["| model transformer_iwslt_de_en, criterion LabelSmoothedCrossEntropyCriterion"]
    for e in range(1, 12):
        u, tr, va = 300 * e, _loss(e, 10), _loss(e, 9.5)
        lines += [
            f"| epoch {e:03d} | loss {tr:.3f} | nll_loss {tr - 0.4:.3f} | ppl 340.86 | wps 102922 | ups 1 "
            f"| wpb 73680.957 | bsz 23.985 | num_updates {u} | lr 0.174875 | gnorm 0.249 | clip 1.000 | oom 0.000",
            f"| epoch {e:03d} | valid on 'valid' subset | loss {va:.3f} | nll_loss {va - 0.4:.3f} | ppl 193.89 "
            f"| num_updates {u} | best_loss {va:.3f}",
        ]
    run = _read(tmp_path, lines)
    assert run.roles["loss"] == "loss" and run.roles["eval_loss"] == "valid_loss"
    assert _series(run, "loss") == (11, 300.0, 3300.0, round(_loss(1, 10), 3), round(_loss(11, 10), 3))
    assert _series(run, "valid_loss") == (11, 300.0, 3300.0, round(_loss(1, 9.5), 3), round(_loss(11, 9.5), 3))


def test_kaldi_nnet3_phase_objectives_give_the_negated_log_likelihood(tmp_path):
    """A Kaldi nnet3 chain job's ``train.1.4.log`` quoted in full in a Markdown note (found by
    find_string "Overall average objective function for 'output'", stored file 33160735881):
    ``LOG (nnet3-chain-train[5.2..]:PrintStatsForThisPhase():nnet-training.cc:271) Average objective
    function for 'output' for minibatches 0-9 is -0.589 + -0.0054 = -0.5946 over 64000 frames.`` and
    the ``'output-xent'`` line before it. The loss is the negated total; it was not read."""
    lines = ["# nnet3-chain-train --print-interval=10 --momentum=0.0 ...", "# Started at Wed May  2 2018"]
    head = "LOG (nnet3-chain-train[5.2.107~2-e892]:PrintStatsForThisPhase():nnet-training.cc:"
    for k in range(12):
        objf = round(-0.6 + 0.02 * k, 6)
        lines += [
            f"{head}253) Average objective function for 'output-xent' for minibatches {10 * k}-{10 * k + 9} "
            f"is {-7.2 + 0.1 * k:.5f} over 64000 frames.",
            f"{head}271) Average objective function for 'output' for minibatches {10 * k}-{10 * k + 9} "
            f"is {objf - 0.005:.6f} + -0.005 = {objf:.6f} over 64000 frames.",
        ]
    lines.append(
        "LOG (nnet3-chain-train[5.2.107~2-e892]:PrintTotalStats():nnet-training.cc:295) Overall average "
        "objective function for 'output' is -0.5 + -0.007 = -0.507 over 512000 frames."
    )
    run = _read(tmp_path, lines, name="train.1.4.log")
    assert run.roles["loss"] == "loss"
    assert _series(run, "loss") == (12, 10.0, 120.0, 0.6, 0.38)
    assert _series(run, "objf_output_xent")[3:] == (-7.2, -6.1)
